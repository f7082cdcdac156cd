/* The transpose works on blocks of 16 masks.  With SSE2 (every x86-64), a
 * block's bytes are regrouped so that one register holds byte j of all 16
 * masks; each movemask then reads one bit of the 16 masks at once, and
 * adding the register to itself brings the next bit up.  That is about
 * six instructions a bitset a block, against one loop turn a set bit when
 * the bits are scattered one by one (the fallback elsewhere).  Where the
 * CPU has AVX-512, a word of 64 masks is four registers, regrouped the
 * same way into four registers of 64 bytes, and each bitset's word is one
 * byte test against the bit (the transpose and the repack around it were
 * a third of the join's time at n = 22: docs/performance.md); where it
 * also has GFNI and VBMI, 512 masks at a time, each bitset's eight words
 * written as one line (transpose_lines_avx512). */

#include "bit_transpose.h"

#include "bit_avx2.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { BLOCK_MASKS = 16, WORD_BITS = 64 };

/* The block of `size` masks from `first` on, read in place where all lie
 * before `count`, else copied into `padded` with zeros past `count`. */
static const uint32_t *padded_block(const uint32_t *masks, size_t count, size_t first,
                                    uint32_t *padded, size_t size) {
  if (count - first >= size)
    return masks + first;
  memset(padded, 0, size * sizeof *padded);
  memcpy(padded, masks + first, (count - first) * sizeof *padded);
  return padded;
}

/* Byte j of 16 masks x0..x3 (four a register, in order) as the 16 bytes
 * of bytes[j]: three rounds of interleaving (after the third, v0 holds
 * byte 0 of masks 0..7, then byte 1; v1 bytes 2 and 3; v2 and v3 the same
 * for masks 8..15), then the halves put together.  One body for SSE2's
 * registers and, lane by lane, AVX2's (`v`: _mm or _mm256). */
#define NQ_REGROUP_BYTES(v, bytes, x0, x1, x2, x3)                                                \
  do {                                                                                             \
    const __typeof__(x0) s0 = v##_unpacklo_epi8(x0, x1), s1 = v##_unpackhi_epi8(x0, x1);         \
    const __typeof__(x0) s2 = v##_unpacklo_epi8(x2, x3), s3 = v##_unpackhi_epi8(x2, x3);         \
    const __typeof__(x0) u0 = v##_unpacklo_epi8(s0, s1), u1 = v##_unpackhi_epi8(s0, s1);         \
    const __typeof__(x0) u2 = v##_unpacklo_epi8(s2, s3), u3 = v##_unpackhi_epi8(s2, s3);         \
    const __typeof__(x0) v0 = v##_unpacklo_epi8(u0, u1), v1 = v##_unpackhi_epi8(u0, u1);         \
    const __typeof__(x0) v2 = v##_unpacklo_epi8(u2, u3), v3 = v##_unpackhi_epi8(u2, u3);         \
    (bytes)[0] = v##_unpacklo_epi64(v0, v2);                                                       \
    (bytes)[1] = v##_unpackhi_epi64(v0, v2);                                                       \
    (bytes)[2] = v##_unpacklo_epi64(v1, v3);                                                       \
    (bytes)[3] = v##_unpackhi_epi64(v1, v3);                                                       \
  } while (0)

#ifdef __SSE2__
static void regroup_bytes(__m128i bytes[4], const uint32_t block[BLOCK_MASKS]) {
  const __m128i x0 = _mm_loadu_si128((const __m128i *)&block[0]);
  const __m128i x1 = _mm_loadu_si128((const __m128i *)&block[4]);
  const __m128i x2 = _mm_loadu_si128((const __m128i *)&block[8]);
  const __m128i x3 = _mm_loadu_si128((const __m128i *)&block[12]);
  NQ_REGROUP_BYTES(_mm, bytes, x0, x1, x2, x3);
}

/* Bits `shift` .. `shift` + 15 of acc[p] from bit p of the block's masks. */
static void add_block(uint64_t *acc, const uint32_t block[BLOCK_MASKS], int width, int shift) {
  __m128i bytes[4];
  regroup_bytes(bytes, block);
  for (int j = 0; 8 * j < width; j++) {
    __m128i column = bytes[j];
    for (int p = 8 * j + 7; p >= 8 * j; p--) {
      const unsigned bits = (unsigned)_mm_movemask_epi8(column);
      column = _mm_add_epi8(column, column);
      if (p < width)
        acc[p] |= (uint64_t)bits << shift;
    }
  }
}
#else
static void add_block(uint64_t *acc, const uint32_t block[BLOCK_MASKS], int width, int shift) {
  (void)width;
  for (int i = 0; i < BLOCK_MASKS; i++)
    for (uint32_t mask = block[i]; mask != 0; mask &= mask - 1)
      acc[__builtin_ctz(mask)] |= (uint64_t)1 << (shift + i);
}
#endif

void nq__bit_transpose_portable(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                                int width) {
  const size_t words = (count + WORD_BITS - 1) / WORD_BITS;
  for (size_t w = 0; w < words; w++) {
    uint64_t acc[NQ_BIT_TRANSPOSE_MAX_WIDTH] = {0};
    for (size_t first = w * WORD_BITS; first < count && first < (w + 1) * WORD_BITS;
         first += BLOCK_MASKS) {
      uint32_t padded[BLOCK_MASKS];
      add_block(acc, padded_block(masks, count, first, padded, BLOCK_MASKS), width,
                (int)(first % WORD_BITS));
    }
    for (int p = 0; p < width; p++)
      rows[(size_t)p * stride + w] = acc[p];
  }
}

size_t nq__bit_gather_pairs_portable(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                                     const uint32_t *b, const uint32_t *word_index,
                                     const uint64_t *ruled_out, size_t words) {
  size_t kept = 0;
  for (size_t k = 0; k < words; k++)
    for (uint64_t left = ~ruled_out[k]; left != 0; left &= left - 1) {
      size_t t = (size_t)word_index[k] * WORD_BITS + (size_t)__builtin_ctzll(left);
      into_a[kept] = a[t];
      into_b[kept] = b[t];
      kept++;
    }
  return kept;
}

/* Each word written, and the end moved past it only where it fits: no
 * branch on the data. */
size_t nq__bit_select_disjoint_portable(uint32_t *into, const uint32_t *from, size_t count,
                                        uint32_t mask) {
  size_t kept = 0;
  for (size_t k = 0; k < count; k++) {
    into[kept] = from[k];
    kept += (from[k] & mask) == 0;
  }
  return kept;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("avx512f"))) static size_t
select_disjoint_avx512(uint32_t *into, const uint32_t *from, size_t count, uint32_t mask) {
  const __m512i against = _mm512_set1_epi32((int)mask);
  size_t kept = 0;
  for (size_t k = 0; k < count; k += 16) {
    const __mmask16 present = (__mmask16)(count - k >= 16 ? 0xffffu : (1u << (count - k)) - 1);
    const __m512i words = _mm512_maskz_loadu_epi32(present, from + k);
    const __mmask16 fits = _mm512_mask_testn_epi32_mask(present, words, against);
    /* Compressed in a register, then stored: a compressing store to
     * memory is microcoded on some CPUs (Zen 4). */
    const __mmask16 front = (__mmask16)((1u << __builtin_popcount(fits)) - 1);
    _mm512_mask_storeu_epi32(into + kept, front, _mm512_maskz_compress_epi32(fits, words));
    kept += (size_t)__builtin_popcount(fits);
  }
  return kept;
}

/* Eight at a time, left-packed by a permute (bit_avx2.h) and stored
 * whole: the store ends at most at word k + 8 of `into`, inside its room
 * of `count` while a whole block of eight is read; the last words, fewer
 * than eight, one at a time. */
__attribute__((target("avx2"))) static size_t
select_disjoint_avx2(uint32_t *into, const uint32_t *from, size_t count, uint32_t mask) {
  const __m256i against = _mm256_set1_epi32((int)mask);
  size_t kept = 0, k = 0;
  for (; k + 8 <= count; k += 8) {
    const __m256i words = _mm256_loadu_si256((const __m256i *)(from + k));
    const __m256i disjoint =
        _mm256_cmpeq_epi32(_mm256_and_si256(words, against), _mm256_setzero_si256());
    const unsigned fits = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(disjoint));
    _mm256_storeu_si256((__m256i *)(into + kept), nq__bit_compact(words, fits));
    kept += (size_t)__builtin_popcount(fits);
  }
  return kept + nq__bit_select_disjoint_portable(into + kept, from + k, count - k, mask);
}

size_t nq__bit_select_disjoint(uint32_t *into, const uint32_t *from, size_t count, uint32_t mask) {
  if (nq__bit_transpose_has_avx512())
    return select_disjoint_avx512(into, from, count, mask);
  return nq__bit_select_disjoint_avx2(into, from, count, mask);
}

size_t nq__bit_select_disjoint_avx2(uint32_t *into, const uint32_t *from, size_t count,
                                    uint32_t mask) {
  if (nq__bit_has_avx2())
    return select_disjoint_avx2(into, from, count, mask);
  return nq__bit_select_disjoint_portable(into, from, count, mask);
}

/* How many live words ahead the gather asks for the pairs it will read.
 * A repack reads each of its parent's pairs once, in runs cut by the
 * live words' gaps and the quarters it skips (which may be what keeps a
 * hardware prefetcher from following them; not measured): asked for
 * ahead, the repacks of large boards measured faster, and 8, 16 or 32
 * words ahead alike (docs/performance.md). */
enum { GATHER_AHEAD = 16 };

/* The lines holding a word's 64 pairs, asked for.  A prefetch reads
 * nothing and cannot fault, so the quarters with no pair kept are asked
 * for too (asking for the kept ones alone cost more than it saved); the
 * last word's may lie past the arrays' end, where no pointer may point,
 * so the addresses are worked out as integers. */
static inline void prefetch_word_pairs(const uint32_t *a, const uint32_t *b, size_t first) {
  const size_t line = 16 * sizeof *a;
  const uintptr_t at_a = (uintptr_t)a + first * sizeof *a, at_b = (uintptr_t)b + first * sizeof *b;
  for (size_t quarter = 0; quarter < 4; quarter++) {
    __builtin_prefetch((const void *)(at_a + quarter * line));
    __builtin_prefetch((const void *)(at_b + quarter * line));
  }
}

/* Each quarter of a word: the kept lanes loaded (the others are not
 * read), compressed to the front and stored as a whole register, the
 * lanes past the kept ones overwritten by the next quarter's or left in
 * the slack (bit_transpose.h). */
__attribute__((target("avx512f"))) static size_t
gather_pairs_avx512(uint32_t *into_a, uint32_t *into_b, const uint32_t *a, const uint32_t *b,
                    const uint32_t *word_index, const uint64_t *ruled_out, size_t words) {
  size_t kept = 0;
  for (size_t k = 0; k < words; k++) {
    if (k + GATHER_AHEAD < words)
      prefetch_word_pairs(a, b, (size_t)word_index[k + GATHER_AHEAD] * WORD_BITS);
    const uint64_t keep = ~ruled_out[k];
    const size_t first = (size_t)word_index[k] * WORD_BITS;
    for (int quarter = 0; quarter < 4 && (keep >> (16 * quarter)) != 0; quarter++) {
      const __mmask16 lanes = (__mmask16)(keep >> (16 * quarter));
      const size_t at = first + (size_t)(16 * quarter);
      _mm512_storeu_si512(into_a + kept, _mm512_maskz_compress_epi32(
                                             lanes, _mm512_maskz_loadu_epi32(lanes, a + at)));
      _mm512_storeu_si512(into_b + kept, _mm512_maskz_compress_epi32(
                                             lanes, _mm512_maskz_loadu_epi32(lanes, b + at)));
      kept += (size_t)__builtin_popcount(lanes);
    }
  }
  return kept;
}

/* With AVX2 and no AVX-512: each eighth of a word with a pair kept, its
 * kept lanes loaded under a mask (so only the kept pairs are read),
 * left-packed by a permute (bit_avx2.h) and stored as a whole register of
 * eight, within the slack. */
__attribute__((target("avx2"))) static size_t
gather_pairs_avx2(uint32_t *into_a, uint32_t *into_b, const uint32_t *a, const uint32_t *b,
                  const uint32_t *word_index, const uint64_t *ruled_out, size_t words) {
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  size_t kept = 0;
  for (size_t k = 0; k < words; k++) {
    if (k + GATHER_AHEAD < words)
      prefetch_word_pairs(a, b, (size_t)word_index[k + GATHER_AHEAD] * WORD_BITS);
    const uint64_t keep = ~ruled_out[k];
    const size_t first = (size_t)word_index[k] * WORD_BITS;
    for (int eighth = 0; eighth < 8 && (keep >> (8 * eighth)) != 0; eighth++) {
      const unsigned lanes = (unsigned)(keep >> (8 * eighth)) & 0xffu;
      if (lanes == 0)
        continue;
      const __m256i load = _mm256_cmpeq_epi32(
          _mm256_and_si256(_mm256_set1_epi32((int)lanes), lane_bit), lane_bit);
      const size_t at = first + (size_t)(8 * eighth);
      const __m256i kept_a = _mm256_maskload_epi32((const int *)(a + at), load);
      const __m256i kept_b = _mm256_maskload_epi32((const int *)(b + at), load);
      _mm256_storeu_si256((__m256i *)(into_a + kept), nq__bit_compact(kept_a, lanes));
      _mm256_storeu_si256((__m256i *)(into_b + kept), nq__bit_compact(kept_b, lanes));
      kept += (size_t)__builtin_popcount(lanes);
    }
  }
  return kept;
}

size_t nq__bit_gather_pairs(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                            const uint32_t *b, const uint32_t *word_index,
                            const uint64_t *ruled_out, size_t words) {
  if (nq__bit_transpose_has_avx512())
    return gather_pairs_avx512(into_a, into_b, a, b, word_index, ruled_out, words);
  return nq__bit_gather_pairs_avx2(into_a, into_b, a, b, word_index, ruled_out, words);
}

size_t nq__bit_gather_pairs_avx2(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                                 const uint32_t *b, const uint32_t *word_index,
                                 const uint64_t *ruled_out, size_t words) {
  if (nq__bit_has_avx2())
    return gather_pairs_avx2(into_a, into_b, a, b, word_index, ruled_out, words);
  return nq__bit_gather_pairs_portable(into_a, into_b, a, b, word_index, ruled_out, words);
}

/* Byte j of masks 0..63 as the 64 bytes of planes[j], the masks given as
 * four registers of 16: in each 128-bit lane, byte j of its four masks
 * brought together (a byte shuffle) and then the lane's dword j moved to
 * lane j (a dword permute), so lane j of register i holds byte j of masks
 * 16i .. 16i + 15; a 4 x 4 transpose of the lanes then puts them side by
 * side. */
__attribute__((target("avx512f,avx512bw"))) static inline void byte_planes(__m512i planes[4],
                                                                  const __m512i q[4]) {
  const __m512i bytes_together =
      _mm512_set4_epi32(0x0f0b0703, 0x0e0a0602, 0x0d090501, 0x0c080400);
  const __m512i dword_to_lane =
      _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  __m512i r[4];
  for (int i = 0; i < 4; i++)
    r[i] = _mm512_permutexvar_epi32(dword_to_lane, _mm512_shuffle_epi8(q[i], bytes_together));
  const __m512i low01 = _mm512_shuffle_i64x2(r[0], r[1], _MM_SHUFFLE(1, 0, 1, 0));
  const __m512i high01 = _mm512_shuffle_i64x2(r[0], r[1], _MM_SHUFFLE(3, 2, 3, 2));
  const __m512i low23 = _mm512_shuffle_i64x2(r[2], r[3], _MM_SHUFFLE(1, 0, 1, 0));
  const __m512i high23 = _mm512_shuffle_i64x2(r[2], r[3], _MM_SHUFFLE(3, 2, 3, 2));
  planes[0] = _mm512_shuffle_i64x2(low01, low23, _MM_SHUFFLE(2, 0, 2, 0));
  planes[1] = _mm512_shuffle_i64x2(low01, low23, _MM_SHUFFLE(3, 1, 3, 1));
  planes[2] = _mm512_shuffle_i64x2(high01, high23, _MM_SHUFFLE(2, 0, 2, 0));
  planes[3] = _mm512_shuffle_i64x2(high01, high23, _MM_SHUFFLE(3, 1, 3, 1));
}

/* Bit p of masks 64w .. 64w + 63 as one word, for the words from
 * `first` on: one byte test of the plane that holds it, where four
 * 16-lane dword tests had to be moved out of their mask registers,
 * shifted and ORed together. */
__attribute__((target("avx512f,avx512bw"))) static void
transpose_words_avx512(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                       int width, size_t first) {
  const size_t words = (count + WORD_BITS - 1) / WORD_BITS;
  for (size_t w = first; w < words; w++) {
    uint32_t padded[WORD_BITS];
    const uint32_t *block = padded_block(masks, count, w * WORD_BITS, padded, WORD_BITS);
    const __m512i q[4] = {_mm512_loadu_si512(block), _mm512_loadu_si512(block + 16),
                          _mm512_loadu_si512(block + 32), _mm512_loadu_si512(block + 48)};
    __m512i planes[4];
    byte_planes(planes, q);
    for (int j = 0; 8 * j < width; j++) {
      const __m512i plane = planes[j];
      for (int bit = 0; bit < 8 && 8 * j + bit < width; bit++)
        rows[(size_t)(8 * j + bit) * stride + w] =
            (uint64_t)_mm512_test_epi8_mask(plane, _mm512_set1_epi8((char)(1 << bit)));
    }
  }
}

/* Eight words of 64 masks a line: byte j of masks 64b .. 64b + 63 gathered
 * from the four registers that hold them, each group of eight bytes in
 * reverse, so that one affine instruction (gf2p8affineqb, its matrix the
 * group and its input a single bit a byte) turns each 8 x 8 block of bits
 * on its side; a byte permute makes qword k the word of bit 8j + k of the
 * block's 64 masks, and an 8 x 8 transpose of qwords over the line's eight
 * blocks makes register k the line of bitset 8j + k: one 64-byte store,
 * where the byte tests store a word at a time into as many lines as the
 * masks have bits (docs/performance.md). */
enum { LINE_WORDS = 8, LINE_MASKS = LINE_WORDS * WORD_BITS };

/* Byte j of the 64 masks of a block, byte r of each group of eight at
 * 7 - r: lane 8g + 7 - r takes byte 4(8g + r) + j of the block's 256,
 * from its first 128 bytes for the low half of the lanes and its last 128
 * for the high half (a two-register permute reads its index modulo 128). */
#define NQ_GROUP(g, j)                                                                             \
  (4 * (8 * (g) + 7) + (j)) % 128, (4 * (8 * (g) + 6) + (j)) % 128,                                \
      (4 * (8 * (g) + 5) + (j)) % 128, (4 * (8 * (g) + 4) + (j)) % 128,                            \
      (4 * (8 * (g) + 3) + (j)) % 128, (4 * (8 * (g) + 2) + (j)) % 128,                            \
      (4 * (8 * (g) + 1) + (j)) % 128, (4 * (8 * (g)) + (j)) % 128
#define NQ_PLANE(j)                                                                                \
  {NQ_GROUP(0, j), NQ_GROUP(1, j), NQ_GROUP(2, j), NQ_GROUP(3, j),                                 \
   NQ_GROUP(4, j), NQ_GROUP(5, j), NQ_GROUP(6, j), NQ_GROUP(7, j)}
static const uint8_t plane_index[4][64] __attribute__((aligned(64))) = {NQ_PLANE(0), NQ_PLANE(1),
                                                                       NQ_PLANE(2), NQ_PLANE(3)};
#undef NQ_PLANE
#undef NQ_GROUP

/* Byte k of qword g to byte g of qword k: lane 8k + g takes byte 8g + k. */
#define NQ_COLUMN(k) k, 8 + k, 16 + k, 24 + k, 32 + k, 40 + k, 48 + k, 56 + k
static const uint8_t column_index[64] __attribute__((aligned(64))) = {
    NQ_COLUMN(0), NQ_COLUMN(1), NQ_COLUMN(2), NQ_COLUMN(3),
    NQ_COLUMN(4), NQ_COLUMN(5), NQ_COLUMN(6), NQ_COLUMN(7)};
#undef NQ_COLUMN

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static inline __m512i
plane_reversed(const uint32_t *block, const __m512i index) {
  const __m512i low =
      _mm512_permutex2var_epi8(_mm512_loadu_si512(block), index, _mm512_loadu_si512(block + 16));
  const __m512i high = _mm512_permutex2var_epi8(_mm512_loadu_si512(block + 32), index,
                                                _mm512_loadu_si512(block + 48));
  return _mm512_mask_blend_epi8((__mmask64)0xffffffff00000000ull, low, high);
}

/* Registers r[b] (qword k: word k of block b) become r[k] (qword b): three
 * rounds of butterflies, registers d = 1, 2, 4 apart.  Qword k of the
 * pair's first (keep) is its own where bit d of k is clear, else the
 * second's k - d; of the second (swap), the first's k + d where clear, else
 * its own (8 + k: the second register's, in a two-register permute). */
static const long long keep_index[3][8] __attribute__((aligned(64))) = {
    {0, 8, 2, 10, 4, 12, 6, 14}, {0, 1, 8, 9, 4, 5, 12, 13}, {0, 1, 2, 3, 8, 9, 10, 11}};
static const long long swap_index[3][8] __attribute__((aligned(64))) = {
    {1, 9, 3, 11, 5, 13, 7, 15}, {2, 3, 10, 11, 6, 7, 14, 15}, {4, 5, 6, 7, 12, 13, 14, 15}};

__attribute__((target("avx512f"))) static inline void transpose_qwords(__m512i r[8]) {
  for (int round = 0; round < 3; round++) {
    const int d = 1 << round;
    const __m512i keep = _mm512_load_si512(keep_index[round]);
    const __m512i swap = _mm512_load_si512(swap_index[round]);
    for (int b = 0; b < 8; b++)
      if ((b & d) == 0) {
        const __m512i x = r[b], y = r[b | d];
        r[b] = _mm512_permutex2var_epi64(x, keep, y);
        r[b | d] = _mm512_permutex2var_epi64(x, swap, y);
      }
  }
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,gfni"))) static size_t
transpose_lines_avx512(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                       int width) {
  const size_t lines = count / LINE_MASKS;
  if (lines == 0)
    return 0;
  /* Input of the affine: byte k of each qword the bit k alone. */
  const __m512i single_bits = _mm512_set1_epi64((long long)0x8040201008040201ull);
  const __m512i columns = _mm512_load_si512(column_index);
  for (size_t line = 0; line < lines; line++)
    for (int j = 0; 8 * j < width; j++) {
      const __m512i gather = _mm512_load_si512(plane_index[j]);
      __m512i r[8];
      for (int b = 0; b < 8; b++) {
        const uint32_t *block = masks + line * LINE_MASKS + (size_t)b * WORD_BITS;
        const __m512i turned =
            _mm512_gf2p8affine_epi64_epi8(single_bits, plane_reversed(block, gather), 0);
        r[b] = _mm512_permutexvar_epi8(columns, turned);
      }
      transpose_qwords(r);
      const int bits = width - 8 * j < 8 ? width - 8 * j : 8;
      for (int k = 0; k < bits; k++)
        _mm512_storeu_si512(rows + (size_t)(8 * j + k) * stride + line * LINE_WORDS, r[k]);
    }
  return lines * LINE_WORDS;
}

static int has_lines(void) {
  return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni");
}

__attribute__((target("avx512f,avx512bw"))) static void
transpose_avx512(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count, int width) {
  const size_t first = has_lines() ? transpose_lines_avx512(rows, stride, masks, count, width) : 0;
  transpose_words_avx512(rows, stride, masks, count, width, first);
}

/* With AVX2 and no AVX-512: 32 masks at a time, the SSE2 regrouping of
 * add_block done in both 128-bit lanes at once (masks 0..15 in the low
 * lane, 16..31 in the high), so that one byte movemask reads a bit of all
 * 32; a word's two blocks side by side, so that each bitset's word is
 * stored once, whole. */
enum { BLOCK_MASKS_AVX2 = 32 };

__attribute__((target("avx2"))) static inline __m256i two_lanes(const uint32_t *low,
                                                               const uint32_t *high) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)low)),
                                 _mm_loadu_si128((const __m128i *)high), 1);
}

/* bytes[j]: byte j of the block's 32 masks, masks 0..15 in the low lane. */
__attribute__((target("avx2"))) static void regroup_bytes_avx2(__m256i bytes[4],
                                                              const uint32_t *block) {
  const __m256i x0 = two_lanes(&block[0], &block[16]), x1 = two_lanes(&block[4], &block[20]);
  const __m256i x2 = two_lanes(&block[8], &block[24]), x3 = two_lanes(&block[12], &block[28]);
  NQ_REGROUP_BYTES(_mm256, bytes, x0, x1, x2, x3);
}

/* The block of 32 masks from `first` as its bytes, zeros past `count`. */
__attribute__((target("avx2"))) static void block_bytes_avx2(__m256i bytes[4],
                                                            const uint32_t *masks, size_t count,
                                                            size_t first) {
  if (first >= count) {
    for (int j = 0; j < 4; j++)
      bytes[j] = _mm256_setzero_si256();
    return;
  }
  uint32_t padded[BLOCK_MASKS_AVX2];
  regroup_bytes_avx2(bytes, padded_block(masks, count, first, padded, BLOCK_MASKS_AVX2));
}

__attribute__((target("avx2"))) static void
transpose_avx2(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count, int width) {
  const size_t words = (count + WORD_BITS - 1) / WORD_BITS;
  for (size_t w = 0; w < words; w++) {
    __m256i low[4], high[4];
    block_bytes_avx2(low, masks, count, w * WORD_BITS);
    block_bytes_avx2(high, masks, count, w * WORD_BITS + BLOCK_MASKS_AVX2);
    for (int j = 0; 8 * j < width; j++) {
      __m256i low_column = low[j], high_column = high[j];
      for (int p = 8 * j + 7; p >= 8 * j; p--) {
        const uint32_t low_bits = (uint32_t)_mm256_movemask_epi8(low_column);
        const uint32_t high_bits = (uint32_t)_mm256_movemask_epi8(high_column);
        low_column = _mm256_add_epi8(low_column, low_column);
        high_column = _mm256_add_epi8(high_column, high_column);
        if (p < width)
          rows[(size_t)p * stride + w] = low_bits | (uint64_t)high_bits << BLOCK_MASKS_AVX2;
      }
    }
  }
}

void nq__bit_transpose_avx2(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                            int width) {
  if (nq__bit_has_avx2())
    transpose_avx2(rows, stride, masks, count, width);
  else
    nq__bit_transpose_portable(rows, stride, masks, count, width);
}

/* BW for the transpose's byte tests: every AVX-512 CPU but the Xeon Phi has it. */
int nq__bit_transpose_has_avx512(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

void nq__bit_transpose(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                       int width) {
  if (nq__bit_transpose_has_avx512())
    transpose_avx512(rows, stride, masks, count, width);
  else
    nq__bit_transpose_avx2(rows, stride, masks, count, width);
}
#else
int nq__bit_transpose_has_avx512(void) { return 0; }

void nq__bit_transpose_avx2(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                            int width) {
  nq__bit_transpose_portable(rows, stride, masks, count, width);
}

size_t nq__bit_select_disjoint(uint32_t *into, const uint32_t *from, size_t count, uint32_t mask) {
  return nq__bit_select_disjoint_portable(into, from, count, mask);
}

size_t nq__bit_select_disjoint_avx2(uint32_t *into, const uint32_t *from, size_t count,
                                    uint32_t mask) {
  return nq__bit_select_disjoint_portable(into, from, count, mask);
}

size_t nq__bit_gather_pairs(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                            const uint32_t *b, const uint32_t *word_index,
                            const uint64_t *ruled_out, size_t words) {
  return nq__bit_gather_pairs_portable(into_a, into_b, a, b, word_index, ruled_out, words);
}

size_t nq__bit_gather_pairs_avx2(uint32_t *into_a, uint32_t *into_b, const uint32_t *a,
                                 const uint32_t *b, const uint32_t *word_index,
                                 const uint64_t *ruled_out, size_t words) {
  return nq__bit_gather_pairs_portable(into_a, into_b, a, b, word_index, ruled_out, words);
}

void nq__bit_transpose(uint64_t *rows, size_t stride, const uint32_t *masks, size_t count,
                       int width) {
  nq__bit_transpose_portable(rows, stride, masks, count, width);
}
#endif
