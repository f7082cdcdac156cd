#ifndef NQ_SRC_RANDOM_H
#define NQ_SRC_RANDOM_H

/* splitmix64 (Steele, Lea and Flood): a stream of 64-bit values from one
 * word of state, the same on every machine, for the estimate's probes and
 * --verify's sample. */

#include <stdint.h>

/* splitmix64's output function: a 64-bit value well mixed. */
static inline uint64_t nq__random_scramble(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* The stream's next value. */
static inline uint64_t nq__random_next(uint64_t *state) {
  *state += 0x9e3779b97f4a7c15u;
  return nq__random_scramble(*state);
}

/* Uniform in 0..bound-1 (bound >= 1), exactly: Lemire's multiply, with the
 * rejection that removes its tiny bias. */
static inline uint64_t nq__random_below(uint64_t *state, uint64_t bound) {
  unsigned __int128 product = (unsigned __int128)nq__random_next(state) * bound;
  if ((uint64_t)product < bound) {
    uint64_t threshold = (0 - bound) % bound;
    while ((uint64_t)product < threshold)
      product = (unsigned __int128)nq__random_next(state) * bound;
  }
  return (uint64_t)(product >> 64);
}

/* A permutation of 0..size-1 picked by `key` (size >= 1, index below it):
 * a four-round Feistel network over the fewest even bits that hold
 * size - 1, applied again while it lands at or past size (a permutation
 * of the larger range walked this way permutes the smaller one; fewer
 * than four steps are expected). */
static inline uint64_t nq__random_feistel(uint64_t index, uint64_t size, uint64_t key) {
  int half = 1;
  while (half < 32 && ((size - 1) >> (2 * half)) != 0)
    half++;
  const uint64_t mask = half == 32 ? UINT32_MAX : (UINT64_C(1) << half) - 1;
  uint64_t x = index;
  do {
    uint64_t left = x >> half, right = x & mask;
    for (uint64_t round = 1; round <= 4; round++) {
      uint64_t mixed = left ^ (nq__random_scramble(key ^ (round << 58) ^ right) & mask);
      left = right;
      right = mixed;
    }
    x = left << half | right;
  } while (x >= size);
  return x;
}

/* Element `index` (below size >= 1) of a permutation of 0..size-1 picked
 * by `key`, each element of which is exactly uniform over the keys: the
 * Feistel order, whose small networks favour some places a little,
 * turned by an offset drawn uniformly from the key.  So draws 0..m-1 take
 * m distinct items, each item with chance m / size: draws without
 * replacement that any thread can make alone from the draw's index. */
static inline uint64_t nq__random_permuted(uint64_t index, uint64_t size, uint64_t key) {
  uint64_t state = key;
  const uint64_t offset = nq__random_below(&state, size);
  const uint64_t x = nq__random_feistel(index, size, nq__random_next(&state));
  return x < size - offset ? x + offset : x - (size - offset);
}

#endif
