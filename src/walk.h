#ifndef NQ_SRC_WALK_H
#define NQ_SRC_WALK_H

/* The closed form shared by the scalar walk (kernel.c) and the lane walk
 * (lanes.c). */

#include <stdint.h>

#include "bits.h"

/* Ways to fill two walked rows `gap` apart, given their free squares
 * (attacked by the queens above, not yet by each other), without visiting
 * either: a queen x of the first attacks exactly x, x << gap and x >> gap of
 * the second, so the legal pairs number |F| |L| less the attacked ones.
 * Below 64 x 64, so a few of them added together cannot wrap. */
static inline uint64_t legal_pairs(uint64_t first_free, uint64_t second_free, int gap) {
  return (uint64_t)bit_count(first_free) * (uint64_t)bit_count(second_free) -
         (uint64_t)bit_count(first_free & second_free) -
         (uint64_t)bit_count(first_free << gap & second_free) -
         (uint64_t)bit_count(first_free >> gap & second_free);
}

/* What a queen x takes from a row `gap` rows below it. */
static inline uint64_t queen_shadow(uint64_t x, int gap) { return x | x << gap | x >> gap; }

/* Completions of the last three walked rows: each of `third_squares` (the
 * third-to-last row's free squares) with the legal pairs below it, where
 * first_free and second_free are the last two rows' free squares before
 * that queen, `gap` and `gap_next` rows further down.  At most 64 squares
 * of below 2^12 pairs each: only a caller's sum can wrap. */
static inline uint64_t pairs_under_squares(uint64_t third_squares, uint64_t first_free,
                                           uint64_t second_free, int gap, int gap_next) {
  const int reach = gap + gap_next;
  uint64_t total = 0;
  for (; third_squares; third_squares = drop_lowest_bit(third_squares)) {
    const uint64_t x = lowest_bit(third_squares);
    total += legal_pairs(first_free & ~queen_shadow(x, gap), second_free & ~queen_shadow(x, reach),
                         gap_next);
  }
  return total;
}

#endif
