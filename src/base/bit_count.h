#ifndef NQ_SRC_BIT_COUNT_H
#define NQ_SRC_BIT_COUNT_H

/* What is left once bitsets are ORed together, counted: the join's last
 * rows (src/join/join_bucket.c) OR each completion's five bitsets into the
 * words of the tops still fitting and count the tops that none of them
 * rules out, a large part of the join's time (docs/performance.md).
 * Those words are nearly all of a table's, so they are read in a run,
 * with AVX-512 eight at a time, with AVX2 four. */

#include <stddef.h>
#include <stdint.h>

enum { NQ_BIT_COUNT_SETS = 5 };

/* One list of the sets ORed: a completion's five bitsets, one a queen. */
typedef const uint64_t *nq_bit_sets_t[NQ_BIT_COUNT_SETS];

/* The sum, over the lists sets[0..lists-1] and the words w in from..to-1,
 * of the zero bits of base[w] | sets[k][0][w] | ... | sets[k][9][w].
 * Several lists a call: on small tables the call and the final sum of the
 * lanes cost as much as the words (docs/performance.md). */
uint64_t nq__bit_count_clear(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                             size_t from, size_t to);

/* The same a word at a time, whatever the CPU, and four words at a time
 * where the CPU has AVX2 (else the portable one): nq__bit_count_clear
 * takes AVX-512 (F and VPOPCNTDQ) where the CPU has it, AVX2 where it has
 * that, the portable one otherwise; the tests hold all three to the
 * definition. */
uint64_t nq__bit_count_clear_portable(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                      size_t from, size_t to);
uint64_t nq__bit_count_clear_avx2(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                  size_t from, size_t to);

/* The same over the words 0..words-1, where a list from `twice_lists` on
 * counts its zero bits from bit `twice_from` on (bit b of word w being bit
 * 64 w + b) twice: the join's completions that may count twice under the
 * long-diagonal rule, whose tops from a point of the table on count
 * twice, all in one call with those counted once. */
uint64_t nq__bit_count_clear_twice(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                   size_t twice_lists, size_t twice_from, size_t words);
uint64_t nq__bit_count_clear_twice_portable(const uint64_t *base, const nq_bit_sets_t *sets,
                                            size_t lists, size_t twice_lists, size_t twice_from,
                                            size_t words);
uint64_t nq__bit_count_clear_twice_avx2(const uint64_t *base, const nq_bit_sets_t *sets,
                                        size_t lists, size_t twice_lists, size_t twice_from,
                                        size_t words);

#endif
