#ifndef NQ_SRC_JOIN_SETS_H
#define NQ_SRC_JOIN_SETS_H

/* Sets of columns of a given size, in increasing order as numbers (colex,
 * the order of their ranks), and how many there are: the join's units,
 * its quarters' groups and its completions' groups all walk them. */

#include <stdint.h>

#include "bits.h"

/* The j-subsets of k things (0 where j > k), up to UINT32_MAX. */
static inline uint32_t nq__join_binomial(int k, int j) {
  if (j < 0 || j > k)
    return 0;
  uint64_t value = 1;
  for (int i = 1; i <= j && value <= UINT32_MAX; i++)
    value = value * (uint64_t)(k - j + i) / (uint64_t)i;
  return value > UINT32_MAX ? UINT32_MAX : (uint32_t)value;
}

/* The least set of `size` columns. */
static inline uint64_t nq__join_first_set(int size) { return board_columns(size); }

/* The next larger set with as many columns on an n-wide board (Gosper's
 * hack), 0 after the last. */
static inline uint64_t nq__join_next_set(uint64_t set, int n) {
  uint64_t low = lowest_bit(set), ripple = set + low;
  uint64_t next = ripple | (((set ^ ripple) >> 2) / low);
  return next != 0 && (next & ~board_columns(n)) == 0 ? next : 0;
}

#endif
