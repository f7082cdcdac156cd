#ifndef NQ_SRC_WALK_H
#define NQ_SRC_WALK_H

/* The closed form for the last rows of a walk, shared by the scalar walk
 * (kernel.c) and the lane walk (lanes.c).  The last two walked rows are
 * the upper and the lower row; the one above them is the third-to-last. */

#include <stdint.h>

#include "bits.h"

/* Ways to fill the upper and the lower row, `gap` rows apart, given their
 * free squares (attacked by the queens above, not yet by each other),
 * without visiting either: a queen x of the upper row attacks exactly x,
 * x << gap and x >> gap of the lower, so the legal pairs number |U| |L|
 * less the attacked ones.  Below 64 x 64, so a few of them added together
 * cannot wrap. */
static inline uint64_t legal_pairs(uint64_t upper_free, uint64_t lower_free, int gap) {
  return (uint64_t)bit_count(upper_free) * (uint64_t)bit_count(lower_free) -
         (uint64_t)bit_count(upper_free & lower_free) -
         (uint64_t)bit_count(upper_free << gap & lower_free) -
         (uint64_t)bit_count(upper_free >> gap & lower_free);
}

/* What a queen x takes from a row `gap` rows below it. */
static inline uint64_t queen_shadow(uint64_t x, int gap) { return x | x << gap | x >> gap; }

/* Completions of the last three walked rows: each of `third_squares` (the
 * third-to-last row's free squares) with the legal pairs below it, where
 * upper_free and lower_free are the last two rows' free squares before
 * that queen, `gap` rows below it and `lower_gap` further.  At most 64
 * squares of below 2^12 pairs each: only a caller's sum can wrap. */
static inline uint64_t pairs_under_squares(uint64_t third_squares, uint64_t upper_free,
                                           uint64_t lower_free, int gap, int lower_gap) {
  const int reach = gap + lower_gap;
  uint64_t total = 0;
  for (; third_squares; third_squares = drop_lowest_bit(third_squares)) {
    const uint64_t x = lowest_bit(third_squares);
    total += legal_pairs(upper_free & ~queen_shadow(x, gap), lower_free & ~queen_shadow(x, reach),
                         lower_gap);
  }
  return total;
}

#endif
