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

/* The bits of word w from bit `from` of the whole on (bit_count.h). */
static uint64_t word_bits_from(size_t from, size_t w) {
  if (from <= 64 * w)
    return ~(uint64_t)0;
  return from - 64 * w >= 64 ? 0 : ~(uint64_t)0 << (from - 64 * w);
}

uint64_t nq__bit_count_clear_twice_portable(const uint64_t *base, const nq_bit_sets_t *sets,
                                            size_t lists, size_t twice_lists, size_t twice_from,
                                            size_t words) {
  uint64_t count = nq__bit_count_clear_portable(base, sets, twice_lists, 0, words);
  for (size_t k = twice_lists; k < lists; k++)
    for (size_t w = 0; w < words; w++) {
      uint64_t value = base[w];
      for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
        value |= sets[k][s][w];
      count +=
          (uint64_t)bit_count(~value) + (uint64_t)bit_count(~value & word_bits_from(twice_from, w));
    }
  return count;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

_Static_assert(NQ_BIT_COUNT_SETS == 5, "the AVX-512 count below ORs five sets");

/* Eight words: the six ORed three at a time (a ternary-logic
 * instruction each, the last one also taking the complement); `lanes`
 * says which of the eight are in range (the others are not read, and
 * their lanes are to be left out of any count). */
__attribute__((target("avx512f,avx512vpopcntdq"))) static inline __m512i
nor_in_eight(const uint64_t *base, const nq_bit_sets_t sets, size_t w, __mmask8 lanes) {
  enum { OR3 = 0xfe, NOR3 = 0x01 };
#define NQ_LOAD(p) _mm512_maskz_loadu_epi64(lanes, (p) + w)
  __m512i v = _mm512_ternarylogic_epi64(NQ_LOAD(base), NQ_LOAD(sets[0]), NQ_LOAD(sets[1]), OR3);
  v = _mm512_ternarylogic_epi64(v, NQ_LOAD(sets[2]), NQ_LOAD(sets[3]), OR3);
  const __m512i last = NQ_LOAD(sets[4]);
  v = _mm512_ternarylogic_epi64(v, last, last, NOR3);
#undef NQ_LOAD
  return v;
}

/* The zero bits of eight words, a count a lane. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static inline __m512i
clear_in_eight(const uint64_t *base, const nq_bit_sets_t sets, size_t w, __mmask8 lanes) {
  return _mm512_maskz_popcnt_epi64(lanes, nor_in_eight(base, sets, w, lanes));
}

/* The bits of words w..w+7 from bit `from` of the whole on (bit b of word
 * w is bit 64 w + b): all of a word past it, none before it, and in the
 * word that holds it the bits from it up (a shift; a shift by 64 or more
 * leaves nothing). */
__attribute__((target("avx512f"))) static inline __m512i bits_from(size_t from, size_t w) {
  const __m512i first_bits =
      _mm512_add_epi64(_mm512_set1_epi64((long long)(64 * w)),
                       _mm512_setr_epi64(0, 64, 128, 192, 256, 320, 384, 448));
  const __m512i before = _mm512_sub_epi64(_mm512_set1_epi64((long long)from), first_bits);
  const __m512i all = _mm512_set1_epi64(-1);
  const __mmask8 past = _mm512_cmple_epi64_mask(before, _mm512_setzero_si512());
  return _mm512_mask_mov_epi64(_mm512_sllv_epi64(all, before), past, all);
}

/* The zero bits of eight words, those from bit `from` on twice. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static inline __m512i
clear_twice_in_eight(const uint64_t *base, const nq_bit_sets_t sets, size_t w, __mmask8 lanes,
                     size_t from) {
  const __m512i nor = nor_in_eight(base, sets, w, lanes);
  return _mm512_add_epi64(
      _mm512_maskz_popcnt_epi64(lanes, nor),
      _mm512_maskz_popcnt_epi64(lanes, _mm512_and_si512(nor, bits_from(from, w))));
}

/* The zero bits of the lists' words from..to-1, added to total's lanes. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static inline __m512i
add_clear(__m512i total, const uint64_t *base, const nq_bit_sets_t *sets, size_t lists, size_t from,
          size_t to) {
  const size_t tail = (to - from) % 8, end = to - tail;
  const __mmask8 tail_lanes = (__mmask8)((1u << tail) - 1);
  for (size_t k = 0; k < lists; k++) {
    for (size_t w = from; w < end; w += 8)
      total = _mm512_add_epi64(total, clear_in_eight(base, sets[k], w, (__mmask8)0xff));
    if (tail != 0)
      total = _mm512_add_epi64(total, clear_in_eight(base, sets[k], end, tail_lanes));
  }
  return total;
}

/* The lanes are summed once, after every list. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static uint64_t
count_clear_avx512(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists, size_t from,
                   size_t to) {
  return (uint64_t)_mm512_reduce_add_epi64(
      add_clear(_mm512_setzero_si512(), base, sets, lists, from, to));
}

/* The lists before twice_lists as count_clear_avx512's, the others with
 * their bits from twice_from on twice, all in the same lanes. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static uint64_t
count_clear_twice_avx512(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                         size_t twice_lists, size_t twice_from, size_t words) {
  __m512i total = add_clear(_mm512_setzero_si512(), base, sets, twice_lists, 0, words);
  const size_t tail = words % 8, end = words - tail;
  const __mmask8 tail_lanes = (__mmask8)((1u << tail) - 1);
  for (size_t k = twice_lists; k < lists; k++) {
    for (size_t w = 0; w < end; w += 8)
      total = _mm512_add_epi64(total,
                               clear_twice_in_eight(base, sets[k], w, (__mmask8)0xff, twice_from));
    if (tail != 0)
      total =
          _mm512_add_epi64(total, clear_twice_in_eight(base, sets[k], end, tail_lanes, twice_from));
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

uint64_t nq__bit_count_clear_twice(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                   size_t twice_lists, size_t twice_from, size_t words) {
  if (words == 0 || lists == 0)
    return 0;
  if (has_avx512())
    return count_clear_twice_avx512(base, sets, lists, twice_lists, twice_from, words);
  return nq__bit_count_clear_twice_portable(base, sets, lists, twice_lists, twice_from, words);
}

#else

uint64_t nq__bit_count_clear(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                             size_t from, size_t to) {
  return nq__bit_count_clear_portable(base, sets, lists, from, to);
}

uint64_t nq__bit_count_clear_twice(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                   size_t twice_lists, size_t twice_from, size_t words) {
  return nq__bit_count_clear_twice_portable(base, sets, lists, twice_lists, twice_from, words);
}

#endif
