/* The count of what ORed bitsets leave (bit_count.h). */

#include "bit_count.h"

#include "bit_avx2.h"
#include "bits.h"

/* Word w of the base and one list's sets, ORed. */
static inline uint64_t ored_word(const uint64_t *base, const nq_bit_sets_t sets, size_t w) {
  uint64_t value = base[w];
  for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
    value |= sets[s][w];
  return value;
}

uint64_t nq__bit_count_clear_portable(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                      size_t from, size_t to) {
  uint64_t count = 0;
  for (size_t k = 0; k < lists; k++)
    for (size_t w = from; w < to; w++)
      count += (uint64_t)bit_count(~ored_word(base, sets[k], w));
  return count;
}

/* The bits of word w from bit `from` of the whole on (bit_count.h). */
static uint64_t word_bits_from(size_t from, size_t w) {
  if (from <= 64 * w)
    return ~(uint64_t)0;
  return from - 64 * w >= 64 ? 0 : ~(uint64_t)0 << (from - 64 * w);
}

/* One list's zero bits in words 0..words-1, those from bit `twice_from`
 * on twice. */
static uint64_t count_twice_in_words(const uint64_t *base, const nq_bit_sets_t sets,
                                     size_t twice_from, size_t words) {
  uint64_t count = 0;
  for (size_t w = 0; w < words; w++) {
    const uint64_t clear = ~ored_word(base, sets, w);
    count +=
        (uint64_t)bit_count(clear) + (uint64_t)bit_count(clear & word_bits_from(twice_from, w));
  }
  return count;
}

uint64_t nq__bit_count_clear_twice_portable(const uint64_t *base, const nq_bit_sets_t *sets,
                                            size_t lists, size_t twice_lists, size_t twice_from,
                                            size_t words) {
  uint64_t count = nq__bit_count_clear_portable(base, sets, twice_lists, 0, words);
  for (size_t k = twice_lists; k < lists; k++)
    count += count_twice_in_words(base, sets[k], twice_from, words);
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

/* With AVX2 and no AVX-512: four words a register, their zero bits
 * counted a byte at a time (bit_avx2.h), as AVX2 has no popcount of its
 * own. */

/* Four words ORed and complemented.  A block with fewer than four words
 * left reads the others under a mask (`lanes`: all ones for a word in
 * range; a masked load cannot fault), and they count nothing (0 after the
 * complement); a whole block takes plain loads, cheaper than masked ones. */
__attribute__((target("avx2"))) static inline __m256i
nor_in_four(const uint64_t *base, const nq_bit_sets_t sets, size_t w, int whole, __m256i lanes) {
#define NQ_LOAD_FOUR(p)                                                                            \
  (whole ? nq__bit_load_four((p) + w)                                                             \
         : _mm256_maskload_epi64((const long long *)((p) + w), lanes))
  __m256i v = _mm256_or_si256(NQ_LOAD_FOUR(base), NQ_LOAD_FOUR(sets[0]));
  for (int s = 1; s < NQ_BIT_COUNT_SETS; s++)
    v = _mm256_or_si256(v, NQ_LOAD_FOUR(sets[s]));
#undef NQ_LOAD_FOUR
  return _mm256_xor_si256(v, lanes);
}

/* The lanes of a block of four words with `left` to go, all ones each. */
__attribute__((target("avx2"))) static inline __m256i lanes_of_four(size_t left) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(left >= 4 ? 4 : (long long)left),
                            _mm256_setr_epi64x(0, 1, 2, 3));
}

/* bits_from's four words. */
__attribute__((target("avx2"))) static inline __m256i bits_from_in_four(size_t from, size_t w) {
  const __m256i first_bits = _mm256_add_epi64(_mm256_set1_epi64x((long long)(64 * w)),
                                              _mm256_setr_epi64x(0, 64, 128, 192));
  const __m256i before = _mm256_sub_epi64(_mm256_set1_epi64x((long long)from), first_bits);
  const __m256i all = _mm256_set1_epi64x(-1);
  const __m256i inside = _mm256_cmpgt_epi64(before, _mm256_setzero_si256());
  return _mm256_blendv_epi8(all, _mm256_sllv_epi64(all, before), inside);
}

/* The zero bits of four words w.. (`clear`), a count a lane, those from
 * bit `twice_from` on twice when `twice` (a byte's two counts, at most
 * 16, added before the lanes' sums). */
__attribute__((target("avx2"))) static inline __m256i
clear_count(__m256i clear, size_t w, int twice, size_t twice_from) {
  __m256i bytes = nq__bit_bytes_count(clear);
  if (twice)
    bytes = _mm256_add_epi8(
        bytes, nq__bit_bytes_count(_mm256_and_si256(clear, bits_from_in_four(twice_from, w))));
  return nq__bit_lanes_sum(bytes);
}

/* The zero bits of one list's words from..to-1, a count a lane, as
 * clear_count takes them.  The tables this far down are often a few
 * words, so the last block is read under a mask rather than a word at a
 * time. */
__attribute__((target("avx2"))) static inline __m256i
clear_in_words(const uint64_t *base, const nq_bit_sets_t sets, size_t from, size_t to, int twice,
               size_t twice_from) {
  const __m256i all = _mm256_set1_epi64x(-1);
  __m256i total = _mm256_setzero_si256();
  size_t w = from;
  for (; w + 4 <= to; w += 4)
    total = _mm256_add_epi64(
        total, clear_count(nor_in_four(base, sets, w, 1, all), w, twice, twice_from));
  if (w < to) {
    const __m256i last = nor_in_four(base, sets, w, 0, lanes_of_four(to - w));
    total = _mm256_add_epi64(total, clear_count(last, w, twice, twice_from));
  }
  return total;
}

__attribute__((target("avx2"))) static uint64_t
count_clear_avx2(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists, size_t from,
                 size_t to) {
  __m256i total = _mm256_setzero_si256();
  for (size_t k = 0; k < lists; k++)
    total = _mm256_add_epi64(total, clear_in_words(base, sets[k], from, to, 0, 0));
  return nq__bit_sum_of_four(total);
}

__attribute__((target("avx2"))) static uint64_t
count_clear_twice_avx2(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                       size_t twice_lists, size_t twice_from, size_t words) {
  __m256i total = _mm256_setzero_si256();
  for (size_t k = 0; k < lists; k++)
    total = _mm256_add_epi64(
        total, clear_in_words(base, sets[k], 0, words, k >= twice_lists, twice_from));
  return nq__bit_sum_of_four(total);
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
  return nq__bit_count_clear_avx2(base, sets, lists, from, to);
}

/* (An empty range or no list counts 0 in every form: the guards above are
 * the AVX-512 form's.) */
uint64_t nq__bit_count_clear_avx2(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                  size_t from, size_t to) {
  if (nq__bit_has_avx2())
    return count_clear_avx2(base, sets, lists, from, to);
  return nq__bit_count_clear_portable(base, sets, lists, from, to);
}

uint64_t nq__bit_count_clear_twice(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                   size_t twice_lists, size_t twice_from, size_t words) {
  if (words == 0 || lists == 0)
    return 0;
  if (has_avx512())
    return count_clear_twice_avx512(base, sets, lists, twice_lists, twice_from, words);
  return nq__bit_count_clear_twice_avx2(base, sets, lists, twice_lists, twice_from, words);
}

uint64_t nq__bit_count_clear_twice_avx2(const uint64_t *base, const nq_bit_sets_t *sets,
                                        size_t lists, size_t twice_lists, size_t twice_from,
                                        size_t words) {
  if (nq__bit_has_avx2())
    return count_clear_twice_avx2(base, sets, lists, twice_lists, twice_from, words);
  return nq__bit_count_clear_twice_portable(base, sets, lists, twice_lists, twice_from, words);
}

#else

uint64_t nq__bit_count_clear(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                             size_t from, size_t to) {
  return nq__bit_count_clear_portable(base, sets, lists, from, to);
}

uint64_t nq__bit_count_clear_avx2(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                  size_t from, size_t to) {
  return nq__bit_count_clear_portable(base, sets, lists, from, to);
}

uint64_t nq__bit_count_clear_twice_avx2(const uint64_t *base, const nq_bit_sets_t *sets,
                                        size_t lists, size_t twice_lists, size_t twice_from,
                                        size_t words) {
  return nq__bit_count_clear_twice_portable(base, sets, lists, twice_lists, twice_from, words);
}

uint64_t nq__bit_count_clear_twice(const uint64_t *base, const nq_bit_sets_t *sets, size_t lists,
                                   size_t twice_lists, size_t twice_from, size_t words) {
  return nq__bit_count_clear_twice_portable(base, sets, lists, twice_lists, twice_from, words);
}

#endif
