#ifndef NQ_SRC_BIT_AVX2_H
#define NQ_SRC_BIT_AVX2_H

/* What AVX-512 does in one instruction and AVX2 lacks, for the join's
 * loops on CPUs with AVX2 and no AVX-512.
 *
 * Left-packing eight 32-bit lanes by a mask (AVX-512's compress): the lanes whose
 * bit is set in `keep`, moved to the front in order by one permute, whose
 * indexes come from a table of the 256 masks.  (BMI2's pdep and pext
 * would make the indexes without a table, but take hundreds of cycles on
 * Zen 2 and older AMD CPUs, which are AVX2 machines.) */

#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* Byte j of entry `keep`: the lane of the j-th set bit of keep (bytes past
 * its count: 0). */
extern const uint64_t nq__bit_compact_lanes[256];

__attribute__((target("avx2"))) static inline __m256i nq__bit_compact_order(unsigned keep) {
  return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)nq__bit_compact_lanes[keep & 0xffu]));
}

/* The lanes of v kept by `keep`, at the front. */
__attribute__((target("avx2"))) static inline __m256i nq__bit_compact(__m256i v, unsigned keep) {
  return _mm256_permutevar8x32_epi32(v, nq__bit_compact_order(keep));
}

/* Four words from `words` on. */
__attribute__((target("avx2"))) static inline __m256i nq__bit_load_four(const uint64_t *words) {
  return _mm256_loadu_si256((const __m256i *)words);
}

/* The count of set bits of each byte of v (AVX-512's popcount, a byte
 * at a time): a byte shuffle looks up each nibble's count. */
__attribute__((target("avx2"))) static inline __m256i nq__bit_bytes_count(__m256i v) {
  const __m256i nibble_counts =
      _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1,
                       2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  return _mm256_add_epi8(
      _mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(v, low)),
      _mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
}

/* Each 64-bit lane's bytes (each at most 255) summed into the lane: a sum
 * of absolute differences from zero. */
__attribute__((target("avx2"))) static inline __m256i nq__bit_lanes_sum(__m256i bytes) {
  return _mm256_sad_epu8(bytes, _mm256_setzero_si256());
}

/* The four lanes' sum. */
__attribute__((target("avx2"))) static inline uint64_t nq__bit_sum_of_four(__m256i v) {
  const __m128i two = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  return (uint64_t)_mm_cvtsi128_si64(two) + (uint64_t)_mm_extract_epi64(two, 1);
}

/* Whether this CPU runs the AVX2 paths (the dispatchers ask it after
 * AVX-512). */
static inline int nq__bit_has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#else
static inline int nq__bit_has_avx2(void) { return 0; }
#endif

#endif
