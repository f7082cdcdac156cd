#ifndef NQ_SRC_BITS_H
#define NQ_SRC_BITS_H

/* Bit tricks of the search, one square per bit: bit c is column c. */

#include <assert.h>
#include <stdint.h>

static inline uint64_t lowest_bit(uint64_t set) {
  assert(set != 0);
  return set & (~set + 1);
}

static inline uint64_t drop_lowest_bit(uint64_t set) {
  assert(set != 0);
  return set & (set - 1);
}

static inline int bit_index(uint64_t bit) {
  assert(bit != 0);
  return __builtin_ctzll(bit);
}

static inline int bit_count(uint64_t set) { return __builtin_popcountll(set); }

/* The index-th lowest bit of `set` (index below its count): a random
 * square drawn among a row's free ones. */
static inline uint64_t nth_lowest_bit(uint64_t set, uint64_t index) {
  assert(index < (uint64_t)bit_count(set));
  for (; index > 0; index--)
    set = drop_lowest_bit(set);
  return lowest_bit(set);
}

static inline uint64_t column_bit(int col) {
  assert(col >= 0 && col < 64);
  return (uint64_t)1 << col;
}

/* How many of `set`'s columns lie below column `col`: its rank in `set`
 * when `set` holds it. */
static inline int column_rank(uint64_t set, int col) {
  return bit_count(set & (column_bit(col) - 1));
}

/* All n columns of an n-wide board; n = 64 fills the word. */
static inline uint64_t board_columns(int n) {
  assert(n >= 0 && n <= 64);
  return n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

#endif
