#ifndef NQ_SRC_JOIN_SETS_H
#define NQ_SRC_JOIN_SETS_H

/* Sets of columns of a given size, in increasing order as numbers (colex,
 * the order of their ranks), and how many there are: the join's units,
 * its quarters' groups and its completions' groups all walk them. */

#include <stdint.h>

#include "bits.h"
#include "nqueens/join.h"

/* The j-subsets of k things (0 where j > k), up to UINT32_MAX. */
static inline uint32_t nq__join_binomial(int k, int j) {
  if (j < 0 || j > k)
    return 0;
  uint64_t value = 1;
  for (int i = 1; i <= j && value <= UINT32_MAX; i++)
    value = value * (uint64_t)(k - j + i) / (uint64_t)i;
  return value > UINT32_MAX ? UINT32_MAX : (uint32_t)value;
}

/* The binomials that rank sets of up to JOIN_RANKED_SIZE columns, kept by
 * the tables whose groups are ranked at every bucket or node (the quarters'
 * and the completions'), so that a rank is a few loads, not divisions. */
enum { JOIN_RANKED_SIZE = 5 };
typedef struct join_set_ranks {
  uint32_t of[NQ_JOIN_MAX_N][JOIN_RANKED_SIZE + 1]; /* binomial(column, k) */
} join_set_ranks_t;

static inline void nq__join_set_ranks_fill(join_set_ranks_t *ranks) {
  for (int c = 0; c < NQ_JOIN_MAX_N; c++)
    for (int k = 0; k <= JOIN_RANKED_SIZE; k++)
      ranks->of[c][k] = nq__join_binomial(c, k);
}

/* The rank of `columns` (at most JOIN_RANKED_SIZE of them) among the sets
 * of as many, in the order below (colex). */
static inline uint32_t nq__join_set_rank(const join_set_ranks_t *ranks, uint64_t columns) {
  uint32_t rank = 0;
  for (int k = 1; columns != 0; k++, columns &= columns - 1)
    rank += ranks->of[__builtin_ctzll(columns)][k];
  return rank;
}

/* The rank of any set of columns among the sets of as many (colex), its
 * binomials computed: for the rare sets no table ranks. */
static inline uint32_t nq__join_set_rank_computed(uint64_t columns) {
  uint32_t rank = 0;
  for (int k = 1; columns != 0; k++, columns &= columns - 1)
    rank += nq__join_binomial(__builtin_ctzll(columns), k);
  return rank;
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
