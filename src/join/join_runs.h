#ifndef NQ_SRC_JOIN_RUNS_H
#define NQ_SRC_JOIN_RUNS_H

/* Runs of a table's words, shared by the tables' building (join_tables.c)
 * and the bottom walk (join_bucket.c): three ORed into a fourth, eight
 * words a store with AVX-512 (four with AVX2), and the index of a run of
 * words all live.
 * Inline here, since the walk calls them at every node that narrows. */

#include <stddef.h>
#include <stdint.h>

#include "bit_avx2.h"
#include "join_walk.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define JOIN_X86_SIMD 1
#include <immintrin.h>
#endif

#ifdef JOIN_X86_SIMD
/* The lanes of a block of eight words with `left` words to go. */
static inline __mmask8 lanes_left(size_t left) {
  return (__mmask8)(left >= 8 ? 0xffu : (1u << left) - 1u);
}

/* a | b | c over the block's `lanes`. */
__attribute__((target("avx512f"))) static inline __m512i
or_of_three(__mmask8 lanes, const uint64_t *a, const uint64_t *b, const uint64_t *c) {
  return _mm512_ternarylogic_epi64(_mm512_maskz_loadu_epi64(lanes, a),
                                   _mm512_maskz_loadu_epi64(lanes, b),
                                   _mm512_maskz_loadu_epi64(lanes, c), 0xfe);
}

/* to = a | b | c over `words` words.  With AVX-512, eight words a store,
 * as the count then loads them: the compiler's loop for this build's
 * baseline stored 16 bytes at a time, and a 64-byte load of words still
 * in flight in several stores waits for them to land (docs/performance.md). */
__attribute__((target("avx512f"))) static inline void
or_in_run_avx512(uint64_t *to, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                 size_t words) {
  for (size_t w = 0; w < words; w += 8) {
    const __mmask8 lanes = lanes_left(words - w);
    _mm512_mask_storeu_epi64(to + w, lanes, or_of_three(lanes, a + w, b + w, c + w));
  }
}

/* Without AVX-512, four words a store with AVX2; the last few one at a
 * time. */
__attribute__((target("avx2"))) static inline void
or_in_run_avx2(uint64_t *to, const uint64_t *a, const uint64_t *b, const uint64_t *c,
               size_t words) {
  size_t w = 0;
  for (; w + 4 <= words; w += 4) {
    const __m256i ored = _mm256_or_si256(
        _mm256_or_si256(nq__bit_load_four(a + w), nq__bit_load_four(b + w)),
        nq__bit_load_four(c + w));
    _mm256_storeu_si256((__m256i *)(to + w), ored);
  }
  for (; w < words; w++)
    to[w] = a[w] | b[w] | c[w];
}
#endif

static inline void or_in_run(const nq_join_scratch_t *scratch, uint64_t *to, const uint64_t *a,
                             const uint64_t *b, const uint64_t *c, size_t words) {
#ifdef JOIN_X86_SIMD
  if (nq__join_allows(&scratch->quarters, JOIN_AVX512) && __builtin_cpu_supports("avx512f")) {
    or_in_run_avx512(to, a, b, c, words);
    return;
  }
  if (nq__join_allows(&scratch->quarters, JOIN_AVX2) && nq__bit_has_avx2()) {
    or_in_run_avx2(to, a, b, c, words);
    return;
  }
#else
  (void)scratch;
#endif
  for (size_t w = 0; w < words; w++)
    to[w] = a[w] | b[w] | c[w];
}

/* The live words' index of a table whose words are all live: 0, 1, ... */
static inline void index_in_run(uint32_t *live_index, size_t words) {
  for (size_t w = 0; w < words; w++)
    live_index[w] = (uint32_t)w;
}

#endif
