/* The count of what ORed bitsets leave (bit_count.h). */

#include "bit_count.h"

#include "bits.h"

uint64_t nq__bit_count_clear_portable(const uint64_t *base,
                                      const uint64_t *const sets[NQ_BIT_COUNT_SETS], size_t from,
                                      size_t to) {
  uint64_t count = 0;
  for (size_t w = from; w < to; w++) {
    uint64_t value = base[w];
    for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
      value |= sets[s][w];
    count += (uint64_t)bit_count(~value);
  }
  return count;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

_Static_assert(NQ_BIT_COUNT_SETS == 10, "the AVX-512 count below ORs ten sets");

/* Eight words: the eleven ORed three at a time (a ternary-logic
 * instruction each, the last one also taking the complement), then one
 * popcount a lane; `lanes` says which of the eight are in range (the
 * others are not read and count nothing). */
__attribute__((target("avx512f,avx512vpopcntdq"))) static inline __m512i
clear_in_eight(const uint64_t *base, const uint64_t *const sets[NQ_BIT_COUNT_SETS], size_t w,
               __mmask8 lanes) {
  enum { OR3 = 0xfe, NOR3 = 0x01 };
#define NQ_LOAD(p) _mm512_maskz_loadu_epi64(lanes, (p) + w)
  __m512i v = _mm512_ternarylogic_epi64(NQ_LOAD(base), NQ_LOAD(sets[0]), NQ_LOAD(sets[1]), OR3);
  v = _mm512_ternarylogic_epi64(v, NQ_LOAD(sets[2]), NQ_LOAD(sets[3]), OR3);
  v = _mm512_ternarylogic_epi64(v, NQ_LOAD(sets[4]), NQ_LOAD(sets[5]), OR3);
  v = _mm512_ternarylogic_epi64(v, NQ_LOAD(sets[6]), NQ_LOAD(sets[7]), OR3);
  v = _mm512_ternarylogic_epi64(v, NQ_LOAD(sets[8]), NQ_LOAD(sets[9]), NOR3);
#undef NQ_LOAD
  return _mm512_maskz_popcnt_epi64(lanes, v);
}

__attribute__((target("avx512f,avx512vpopcntdq"))) static uint64_t
count_clear_avx512(const uint64_t *base, const uint64_t *const sets[NQ_BIT_COUNT_SETS],
                   size_t from, size_t to) {
  __m512i total = _mm512_setzero_si512();
  size_t w = from;
  for (; w + 8 <= to; w += 8)
    total = _mm512_add_epi64(total, clear_in_eight(base, sets, w, (__mmask8)0xff));
  if (w < to)
    total = _mm512_add_epi64(
        total, clear_in_eight(base, sets, w, (__mmask8)((1u << (to - w)) - 1)));
  return (uint64_t)_mm512_reduce_add_epi64(total);
}

static int has_avx512(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
}

uint64_t nq__bit_count_clear(const uint64_t *base, const uint64_t *const sets[NQ_BIT_COUNT_SETS],
                             size_t from, size_t to) {
  if (has_avx512())
    return count_clear_avx512(base, sets, from, to);
  return nq__bit_count_clear_portable(base, sets, from, to);
}

#else

uint64_t nq__bit_count_clear(const uint64_t *base, const uint64_t *const sets[NQ_BIT_COUNT_SETS],
                             size_t from, size_t to) {
  return nq__bit_count_clear_portable(base, sets, from, to);
}

#endif
