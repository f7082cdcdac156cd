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

#endif
