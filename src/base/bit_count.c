/* The count of what ORed bitsets leave (bit_count.h). */

#include "bit_count.h"

#include "bits.h"

uint64_t nq__bit_count_clear_portable(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                      size_t from, size_t to) {
  uint64_t count = 0;
  for (size_t k = 0; k < lists; k++)
    for (size_t w = from; w < to; w++) {
      uint64_t value = base[w];
      for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
        value |= sets[k][s][w];
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
clear_in_eight(const uint64_t *base, const nq_bit_sets_t sets, size_t w, __mmask8 lanes) {
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

/* The lanes are summed once, after every list. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static uint64_t
count_clear_avx512(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists, size_t from,
                   size_t to) {
  __m512i total = _mm512_setzero_si512();
  const size_t tail = (to - from) % 8, end = to - tail;
  const __mmask8 tail_lanes = (__mmask8)((1u << tail) - 1);
  for (size_t k = 0; k < lists; k++) {
    for (size_t w = from; w < end; w += 8)
      total = _mm512_add_epi64(total, clear_in_eight(base, sets[k], w, (__mmask8)0xff));
    if (tail != 0)
      total = _mm512_add_epi64(total, clear_in_eight(base, sets[k], end, tail_lanes));
  }
  return (uint64_t)_mm512_reduce_add_epi64(total);
}

static int has_avx512(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
}

uint64_t nq__bit_count_clear(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                             size_t from, size_t to) {
  if (from >= to || lists == 0)
    return 0;
  if (has_avx512())
    return count_clear_avx512(base, sets, lists, from, to);
  return nq__bit_count_clear_portable(base, sets, lists, from, to);
}

#else

uint64_t nq__bit_count_clear(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                             size_t from, size_t to) {
  return nq__bit_count_clear_portable(base, sets, lists, from, to);
}

#endif
