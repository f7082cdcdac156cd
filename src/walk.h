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

#endif
