#ifndef NQ_SRC_BIT_TRANSPOSE_H
#define NQ_SRC_BIT_TRANSPOSE_H

/* A bit matrix turned on its side: `count` masks of `width` bits become
 * `width` bitsets over the masks.  The join stores its top halves this way
 * (src/join/join_tables.c), once a part and again at every repack, so it is a third
 * of the join's time when done bit by bit. */

#include <stddef.h>
#include <stdint.h>

/* The gather's vector path stores what it keeps as whole registers of 16
 * 32-bit values, not a masked store of the kept lanes alone (slower on a
 * Zen 4: docs/performance.md), so its output has room for
 * NQ_BIT_STORE_SLACK values past the last kept, left unspecified. */
enum { NQ_BIT_STORE_SLACK = 16 };

enum { NQ_BIT_TRANSPOSE_MAX_WIDTH = 32 };

/* Bit t of bitset p (rows[p * stride], words of 64 masks) becomes bit p of
 * masks[t], for p < width <= NQ_BIT_TRANSPOSE_MAX_WIDTH and t < count.
 * The words 0 .. (count + 63) / 64 - 1 of each of the `width` bitsets are
 * written whole (bits from `count` on are 0); no other word is touched.
 * Bits of the masks at `width` and above must be 0. */
void nq__bit_transpose(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                       int width);

/* The same in blocks of 16 masks (SSE2, or bit by bit), whatever the CPU
 * has, and in blocks of 32 with AVX2 (the portable one on a CPU without):
 * nq__bit_transpose takes AVX-512 where the CPU has it
 * (nq__bit_transpose_has_avx512), else AVX2 where it has that, else the
 * portable one; the tests hold all three to the definition. */
void nq__bit_transpose_portable(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                                int width);
void nq__bit_transpose_avx2(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                            int width);
int nq__bit_transpose_has_avx512(void);

/* The other way round, the join's repack: the pairs (a[t], b[t]) whose bit
 * is clear in their word, for t = 64 * word_index[k] + bit and k < words,
 * appended in that order to into_a and into_b; returns how many.  Reads
 * only the pairs it keeps; with AVX-512, 16 at a time compressed and
 * stored as a whole register (with AVX2, 8), so into_a and into_b must
 * have room for NQ_BIT_STORE_SLACK pairs past the last kept, whose values
 * it leaves unspecified. */
size_t nq__bit_gather_pairs(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                            const uint32_t *b, const uint32_t *word_index,
                            const uint64_t *ruled_out, size_t words);
/* With AVX2, eight a step (stored as whole registers of eight: the same
 * slack suffices); the portable one on a CPU without AVX2. */
size_t nq__bit_gather_pairs_avx2(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                                 const uint32_t *b, const uint32_t *word_index,
                                 const uint64_t *ruled_out, size_t words);
size_t nq__bit_gather_pairs_portable(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                                     const uint32_t *b, const uint32_t *word_index,
                                     const uint64_t *ruled_out, size_t words);

/* The words of `from` that share no bit with `mask`, appended in order
 * to `into`, which has room for `count` and is written nowhere else;
 * returns how many.  The join's completions
 * that fit (src/join/join_bucket.c); with AVX-512, 16 at a time compressed,
 * with AVX2 eight at a time (the _avx2 one: the portable one on a CPU
 * without AVX2), the portable one a word at a time. */
size_t nq__bit_select_disjoint(uint32_t *into, const uint32_t *from, size_t count, uint32_t mask);
size_t nq__bit_select_disjoint_avx2(uint32_t *into, const uint32_t *from, size_t count,
                                    uint32_t mask);
size_t nq__bit_select_disjoint_portable(uint32_t *into, const uint32_t *from, size_t count,
                                        uint32_t mask);

#endif
