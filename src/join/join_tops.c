/* A bucket's tops built from quarters.  A top half (rows 0..m-1 on the
 * bucket's m columns S) is an upper quarter (rows 0..a-1, on a columns of
 * S) and a lower quarter (rows a..m-1, on the other m - a) whose
 * diagonals do not meet.  The bucket holds both quarters' placements
 * grouped by the columns the upper one takes (join_quarters.h) and tries
 * every pair of a group with two ANDs.  Listing the tops row by row
 * instead searched each upper quarter once per completion it might have, a
 * node of tens of cycles each; the quarters' nodes and pairs are as many
 * (about 13 a top at n = 18) but a pair is two ANDs without a branch the
 * data decides (docs/performance.md has the time shares). */

#include "bit_avx2.h"
#include "bit_transpose.h"
#include "bits.h"
#include "join_memory.h"
#include "join_quarters.h"
#include "join_tops.h"
#include "join_walk.h"
#include "nqueens/error.h"

/* One upper quarter against a group's lower ones: its diagonals, where
 * the top's masks on row m lie in the ORed words (ld from bit n - m, rd
 * from bit m, `board` wide), and, under the long-diagonal rule, the bits
 * of a top on the main long diagonal (ld) and on the other (rd): a top on
 * both is left out (0: none is). */
typedef struct pairing {
  uint64_t ld, rd, board;
  int ld_shift, rd_shift;
  uint64_t on_main, on_anti;
} pairing_t;

/* Each pair whose diagonals do not meet, as the top's masks, appended;
 * returns how many.  Every pair is written and only a fit moves the end
 * on, which keeps the loop free of a branch the data would decide. */
static size_t pair_portable(uint32_t *into_ld, uint32_t *into_rd, const pairing_t *p,
                            const uint64_t *ld, const uint64_t *rd, size_t count) {
  size_t end = 0;
  for (size_t l = 0; l < count; l++) {
    const uint64_t meet = (p->ld & ld[l]) | (p->rd & rd[l]);
    const uint64_t top_ld = ((p->ld | ld[l]) >> p->ld_shift) & p->board;
    const uint64_t top_rd = (p->rd | rd[l]) >> p->rd_shift;
    into_ld[end] = (uint32_t)top_ld;
    into_rd[end] = (uint32_t)top_rd;
    end += (meet == 0) & !((top_ld & p->on_main) && (top_rd & p->on_anti));
  }
  return end;
}

/* One upper quarter against narrowed lower ones (join_quarter_tables.h):
 * its words narrowed alike, the top's ld mask then from bit 0 once moved
 * up by ld_up (the narrowing's ld shift past pairing_t's), and its rd mask
 * from bit rd_shift. */
typedef struct narrow_pairing {
  uint32_t ld, rd, board;
  int ld_up, rd_shift;
  uint32_t on_main, on_anti;
} narrow_pairing_t;

static narrow_pairing_t narrowed(const pairing_t *p, join_narrowing_t narrowing) {
  return (narrow_pairing_t){.ld = (uint32_t)(p->ld >> narrowing.ld_shift),
                            .rd = (uint32_t)(p->rd >> narrowing.rd_shift),
                            .board = (uint32_t)p->board,
                            .ld_up = narrowing.ld_shift - p->ld_shift,
                            .rd_shift = p->rd_shift - narrowing.rd_shift,
                            .on_main = (uint32_t)p->on_main,
                            .on_anti = (uint32_t)p->on_anti};
}

static size_t pair_narrow_portable(uint32_t *into_ld, uint32_t *into_rd, const narrow_pairing_t *p,
                                   const uint32_t *ld, const uint32_t *rd, size_t count) {
  size_t end = 0;
  for (size_t l = 0; l < count; l++) {
    const uint32_t meet = (p->ld & ld[l]) | (p->rd & rd[l]);
    const uint32_t top_ld = ((p->ld | ld[l]) << p->ld_up) & p->board;
    const uint32_t top_rd = (p->rd | rd[l]) >> p->rd_shift;
    into_ld[end] = top_ld;
    into_rd[end] = top_rd;
    end += (meet == 0) & !((top_ld & p->on_main) && (top_rd & p->on_anti));
  }
  return end;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* Sixteen narrowed lower quarters an instruction, as pair_avx512 below
 * takes eight wide ones, and no narrowing to store them. */
__attribute__((target("avx512f"))) static size_t
pair_narrow_avx512(uint32_t *into_ld, uint32_t *into_rd, const narrow_pairing_t *p,
                   const uint32_t *ld, const uint32_t *rd, size_t count) {
  const __m512i upper_ld = _mm512_set1_epi32((int)p->ld);
  const __m512i upper_rd = _mm512_set1_epi32((int)p->rd);
  const __m512i board = _mm512_set1_epi32((int)p->board);
  const __m128i ld_up = _mm_cvtsi32_si128(p->ld_up), rd_shift = _mm_cvtsi32_si128(p->rd_shift);
  const __m512i on_main = _mm512_set1_epi32((int)p->on_main);
  const __m512i on_anti = _mm512_set1_epi32((int)p->on_anti);
  size_t end = 0;
  for (size_t l = 0; l < count; l += 16) {
    const __mmask16 present = (__mmask16)(count - l >= 16 ? 0xffffu : (1u << (count - l)) - 1);
    const __m512i lower_ld = _mm512_maskz_loadu_epi32(present, ld + l);
    const __m512i lower_rd = _mm512_maskz_loadu_epi32(present, rd + l);
    const __m512i top_ld =
        _mm512_and_si512(_mm512_sll_epi32(_mm512_or_si512(upper_ld, lower_ld), ld_up), board);
    const __m512i top_rd = _mm512_srl_epi32(_mm512_or_si512(upper_rd, lower_rd), rd_shift);
    const __mmask16 fits = _mm512_mask_testn_epi32_mask(present, upper_ld, lower_ld) &
                           _mm512_testn_epi32_mask(upper_rd, lower_rd) &
                           (__mmask16) ~(_mm512_test_epi32_mask(top_ld, on_main) &
                                         _mm512_test_epi32_mask(top_rd, on_anti));
    const int kept = __builtin_popcount(fits);
    const __mmask16 front = (__mmask16)((1u << kept) - 1);
    _mm512_mask_storeu_epi32(into_ld + end, front, _mm512_maskz_compress_epi32(fits, top_ld));
    _mm512_mask_storeu_epi32(into_rd + end, front, _mm512_maskz_compress_epi32(fits, top_rd));
    end += (size_t)kept;
  }
  return end;
}

/* Eight lower quarters an instruction: two tests for the fit, the masks
 * ORed and shifted, the fitting ones compressed in a register (a
 * compressing store to memory is microcoded on Zen 4), narrowed to 32 bits
 * and stored as many as they are. */
__attribute__((target("avx512f,avx512vl"))) static size_t
pair_avx512(uint32_t *into_ld, uint32_t *into_rd, const pairing_t *p, const uint64_t *ld,
            const uint64_t *rd, size_t count) {
  const __m512i upper_ld = _mm512_set1_epi64((long long)p->ld);
  const __m512i upper_rd = _mm512_set1_epi64((long long)p->rd);
  const __m512i board = _mm512_set1_epi64((long long)p->board);
  const __m512i ld_shift = _mm512_set1_epi64(p->ld_shift),
                rd_shift = _mm512_set1_epi64(p->rd_shift);
  const __m512i on_main = _mm512_set1_epi64((long long)p->on_main);
  const __m512i on_anti = _mm512_set1_epi64((long long)p->on_anti);
  size_t end = 0;
  for (size_t l = 0; l < count; l += 8) {
    const __mmask8 present = (__mmask8)(count - l >= 8 ? 0xffu : (1u << (count - l)) - 1);
    const __m512i lower_ld = _mm512_maskz_loadu_epi64(present, ld + l);
    const __m512i lower_rd = _mm512_maskz_loadu_epi64(present, rd + l);
    const __m512i top_ld =
        _mm512_and_si512(_mm512_srlv_epi64(_mm512_or_si512(upper_ld, lower_ld), ld_shift), board);
    const __m512i top_rd = _mm512_srlv_epi64(_mm512_or_si512(upper_rd, lower_rd), rd_shift);
    const __mmask8 fits = _mm512_mask_testn_epi64_mask(present, upper_ld, lower_ld) &
                          _mm512_testn_epi64_mask(upper_rd, lower_rd) &
                          (__mmask8) ~(_mm512_test_epi64_mask(top_ld, on_main) &
                                       _mm512_test_epi64_mask(top_rd, on_anti));
    const int kept = __builtin_popcount(fits);
    const __mmask8 front = (__mmask8)((1u << kept) - 1);
    _mm256_mask_storeu_epi32(into_ld + end, front,
                             _mm512_cvtepi64_epi32(_mm512_maskz_compress_epi64(fits, top_ld)));
    _mm256_mask_storeu_epi32(into_rd + end, front,
                             _mm512_cvtepi64_epi32(_mm512_maskz_compress_epi64(fits, top_rd)));
    end += (size_t)kept;
  }
  return end;
}

/* Without AVX-512 but with AVX2: eight narrowed lower quarters a register,
 * the fitting tops left-packed by a permute (bit_avx2.h) and stored
 * whole.  A store at `end` ends by word l + 8, within the room of `count`
 * reserved, for every whole block of eight; the last ones, fewer, one at a
 * time. */
__attribute__((target("avx2"))) static size_t
pair_narrow_avx2(uint32_t *into_ld, uint32_t *into_rd, const narrow_pairing_t *p,
                 const uint32_t *ld, const uint32_t *rd, size_t count) {
  const __m256i upper_ld = _mm256_set1_epi32((int)p->ld);
  const __m256i upper_rd = _mm256_set1_epi32((int)p->rd);
  const __m256i board = _mm256_set1_epi32((int)p->board);
  const __m128i ld_up = _mm_cvtsi32_si128(p->ld_up), rd_shift = _mm_cvtsi32_si128(p->rd_shift);
  const __m256i on_main = _mm256_set1_epi32((int)p->on_main);
  const __m256i on_anti = _mm256_set1_epi32((int)p->on_anti);
  const __m256i zero = _mm256_setzero_si256();
  size_t end = 0, l = 0;
  for (; l + 8 <= count; l += 8) {
    const __m256i lower_ld = _mm256_loadu_si256((const __m256i *)(ld + l));
    const __m256i lower_rd = _mm256_loadu_si256((const __m256i *)(rd + l));
    const __m256i top_ld =
        _mm256_and_si256(_mm256_sll_epi32(_mm256_or_si256(upper_ld, lower_ld), ld_up), board);
    const __m256i top_rd = _mm256_srl_epi32(_mm256_or_si256(upper_rd, lower_rd), rd_shift);
    const __m256i meet = _mm256_or_si256(_mm256_and_si256(upper_ld, lower_ld),
                                         _mm256_and_si256(upper_rd, lower_rd));
    /* Off one long diagonal or the other, as the rule asks (join_bucket.c). */
    const __m256i off_one = _mm256_or_si256(
        _mm256_cmpeq_epi32(_mm256_and_si256(top_ld, on_main), zero),
        _mm256_cmpeq_epi32(_mm256_and_si256(top_rd, on_anti), zero));
    const __m256i fit = _mm256_and_si256(_mm256_cmpeq_epi32(meet, zero), off_one);
    const unsigned fits = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(fit));
    _mm256_storeu_si256((__m256i *)(into_ld + end), nq__bit_compact(top_ld, fits));
    _mm256_storeu_si256((__m256i *)(into_rd + end), nq__bit_compact(top_rd, fits));
    end += (size_t)__builtin_popcount(fits);
  }
  return end + pair_narrow_portable(into_ld + end, into_rd + end, p, ld + l, rd + l, count - l);
}

/* The same for wide lower quarters, four a register: each fitting top's
 * two 64-bit masks left-packed as their low halves (lane i's is dword 2i)
 * and stored as four 32-bit values, ending by word l + 4. */
__attribute__((target("avx2"))) static size_t pair_avx2(uint32_t *into_ld, uint32_t *into_rd,
                                                       const pairing_t *p, const uint64_t *ld,
                                                       const uint64_t *rd, size_t count) {
  const __m256i upper_ld = _mm256_set1_epi64x((long long)p->ld);
  const __m256i upper_rd = _mm256_set1_epi64x((long long)p->rd);
  const __m256i board = _mm256_set1_epi64x((long long)p->board);
  const __m128i ld_shift = _mm_cvtsi32_si128(p->ld_shift);
  const __m128i rd_shift = _mm_cvtsi32_si128(p->rd_shift);
  const __m256i on_main = _mm256_set1_epi64x((long long)p->on_main);
  const __m256i on_anti = _mm256_set1_epi64x((long long)p->on_anti);
  const __m256i zero = _mm256_setzero_si256();
  size_t end = 0, l = 0;
  for (; l + 4 <= count; l += 4) {
    const __m256i lower_ld = _mm256_loadu_si256((const __m256i *)(ld + l));
    const __m256i lower_rd = _mm256_loadu_si256((const __m256i *)(rd + l));
    const __m256i top_ld =
        _mm256_and_si256(_mm256_srl_epi64(_mm256_or_si256(upper_ld, lower_ld), ld_shift), board);
    const __m256i top_rd = _mm256_srl_epi64(_mm256_or_si256(upper_rd, lower_rd), rd_shift);
    const __m256i meet = _mm256_or_si256(_mm256_and_si256(upper_ld, lower_ld),
                                         _mm256_and_si256(upper_rd, lower_rd));
    const __m256i off_one = _mm256_or_si256(
        _mm256_cmpeq_epi64(_mm256_and_si256(top_ld, on_main), zero),
        _mm256_cmpeq_epi64(_mm256_and_si256(top_rd, on_anti), zero));
    const __m256i fit = _mm256_and_si256(_mm256_cmpeq_epi64(meet, zero), off_one);
    const unsigned fits = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(fit));
    const __m256i low_halves = _mm256_slli_epi32(nq__bit_compact_order(fits), 1);
    _mm_storeu_si128((__m128i *)(into_ld + end),
                     _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(top_ld, low_halves)));
    _mm_storeu_si128((__m128i *)(into_rd + end),
                     _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(top_rd, low_halves)));
    end += (size_t)__builtin_popcount(fits);
  }
  return end + pair_portable(into_ld + end, into_rd + end, p, ld + l, rd + l, count - l);
}

/* The transpose's AVX-512 (base/bit_transpose.h) and the 256-bit masked
 * stores of AVX-512VL. */
static int has_avx512(void) {
  return nq__bit_transpose_has_avx512() && __builtin_cpu_supports("avx512vl");
}
#else
static size_t pair_avx512(uint32_t *into_ld, uint32_t *into_rd, const pairing_t *p,
                          const uint64_t *ld, const uint64_t *rd, size_t count) {
  return pair_portable(into_ld, into_rd, p, ld, rd, count);
}
static size_t pair_narrow_avx512(uint32_t *into_ld, uint32_t *into_rd, const narrow_pairing_t *p,
                                 const uint32_t *ld, const uint32_t *rd, size_t count) {
  return pair_narrow_portable(into_ld, into_rd, p, ld, rd, count);
}
static size_t pair_avx2(uint32_t *into_ld, uint32_t *into_rd, const pairing_t *p,
                        const uint64_t *ld, const uint64_t *rd, size_t count) {
  return pair_portable(into_ld, into_rd, p, ld, rd, count);
}
static size_t pair_narrow_avx2(uint32_t *into_ld, uint32_t *into_rd, const narrow_pairing_t *p,
                               const uint32_t *ld, const uint32_t *rd, size_t count) {
  return pair_narrow_portable(into_ld, into_rd, p, ld, rd, count);
}
static int has_avx512(void) { return 0; }
#endif

/* What every pair of the bucket shares: the board, the shifts, the long
 * diagonals' squares under the rule; the upper quarter's words to come. */
static pairing_t bucket_pairing(const nq_join_scratch_t *scratch) {
  const int n = scratch->n, m = scratch->top_rows;
  const uint64_t rule = scratch->long_diagonals ? ~(uint64_t)0 : 0;
  return (pairing_t){.board = board_columns(n),
                     .ld_shift = n - m,
                     .rd_shift = m,
                     .on_main = rule & nq__join_main_diagonal_square(m),
                     .on_anti = rule & nq__join_anti_diagonal_square(n, m)};
}

/* The tops of the upper quarter in p with `count` lower quarters from the
 * first-th of the lower list's words, into room already reserved. */
static void pair_upper(top_table_t *tops, const join_quarters_t *q, const pairing_t *p,
                       size_t first, size_t count) {
  uint32_t *into_ld = tops->ld + tops->tops, *into_rd = tops->rd + tops->tops;
  if (q->lower.ld32 != NULL) {
    const narrow_pairing_t narrow = narrowed(p, q->narrowing);
    const uint32_t *ld = q->lower.ld32 + first, *rd = q->lower.rd32 + first;
    tops->tops +=
        q->pairing == JOIN_AVX512 ? pair_narrow_avx512(into_ld, into_rd, &narrow, ld, rd, count)
        : q->pairing == JOIN_AVX2 ? pair_narrow_avx2(into_ld, into_rd, &narrow, ld, rd, count)
                                  : pair_narrow_portable(into_ld, into_rd, &narrow, ld, rd, count);
  } else {
    const uint64_t *ld = q->lower.ld + first, *rd = q->lower.rd + first;
    tops->tops += q->pairing == JOIN_AVX512 ? pair_avx512(into_ld, into_rd, p, ld, rd, count)
                  : q->pairing == JOIN_AVX2 ? pair_avx2(into_ld, into_rd, p, ld, rd, count)
                                            : pair_portable(into_ld, into_rd, p, ld, rd, count);
  }
}

int nq__join_start_tops(nq_join_scratch_t *scratch, uint64_t *nodes, uint64_t top_columns) {
  join_quarters_t *q = &scratch->quarters;
  const int n = scratch->n, m = scratch->top_rows, a = nq__join_upper_rows(m, q->group_limit);
  q->columns = top_columns;
  int places = 0;
  for (uint64_t c = top_columns; c != 0; c = drop_lowest_bit(c))
    q->column_at[places++] = bit_index(lowest_bit(c));
  q->upper_rows = a;
  q->groups = nq__join_binomial(m, a);
  q->pairing = nq__join_allows(q, JOIN_AVX512) && has_avx512()     ? JOIN_AVX512
               : nq__join_allows(q, JOIN_AVX2) && nq__bit_has_avx2() ? JOIN_AVX2
                                                                     : JOIN_PLAIN;
  q->next_group = q->next_upper = 0;
  q->next_lower = 0;
  q->next_group_places = (uint32_t)nq__join_first_set(a);
  q->narrowing = nq__join_narrowing(n, m, a);
  /* Half the budget a quarter, decided before either is listed. */
  const size_t budget = nq__join_whole_quarters_budget(scratch);
  const join_quarter_choice_t upper = {.is_upper = 1,
                                       .shared = !q->private_quarters,
                                       .whole_budget = budget / 2};
  const join_quarter_choice_t lower = {
      .shared = !q->private_quarters,
      .narrowed = !q->wide_pairing && nq__join_narrow_fits(n, m, a),
      .whole_budget = budget / 2};
  int rc = nq__join_quarters_open(q, &q->upper, n, 0, a, &upper, nodes);
  if (rc == NQ_OK)
    rc = nq__join_quarters_open(q, &q->lower, n, a, m, &lower, nodes);
  if (rc != NQ_OK) /* no top to pair */
    q->next_group = q->groups;
  return rc;
}

/* The tops of group next_group from its next pair on, until the part
 * holds `most`. */
static int pair_group(nq_join_scratch_t *scratch, uint64_t *pairs, size_t most) {
  join_quarters_t *q = &scratch->quarters;
  top_table_t *tops = &scratch->tables[0];
  const uint32_t g = q->next_group;
  const size_t uppers = nq__join_group_size(&q->upper, g);
  const size_t lowers = nq__join_group_size(&q->lower, g);
  const size_t upper_first = nq__join_group_first(&q->upper, g);
  const size_t lower_first = nq__join_group_first(&q->lower, g);
  pairing_t p = bucket_pairing(scratch);
  if (q->next_lower == 0 &&
      (lowers == 0 || uppers - q->next_upper <= (most - tops->tops) / lowers)) {
    /* The rest of the group fits (below n = 25, every group of a bucket
     * whose limit does not bite): no part to cut. */
    const size_t count = (uppers - q->next_upper) * lowers;
    if (nq__join_reserve_masks(tops, tops->tops + count) != NQ_OK)
      return NQ_ENOMEM;
    for (size_t u = upper_first + q->next_upper; u < upper_first + uppers; u++) {
      p.ld = q->upper.ld[u];
      p.rd = q->upper.rd[u];
      pair_upper(tops, q, &p, lower_first, lowers);
    }
    *pairs += count;
    q->next_upper = (uint32_t)uppers;
    return NQ_OK;
  }
  while (q->next_upper < uppers && tops->tops < most) {
    const size_t room = most - tops->tops, left = lowers - q->next_lower;
    const size_t count = left < room ? left : room;
    if (nq__join_reserve_masks(tops, tops->tops + count) != NQ_OK)
      return NQ_ENOMEM;
    p.ld = q->upper.ld[upper_first + q->next_upper];
    p.rd = q->upper.rd[upper_first + q->next_upper];
    pair_upper(tops, q, &p, lower_first + q->next_lower, count);
    *pairs += count;
    if (count == left) /* this upper quarter is done */
      q->next_upper++, q->next_lower = 0;
    else
      q->next_lower += count;
  }
  return NQ_OK;
}

/* A group's pairs at a time, cut where the part holds `most`, so no part
 * holds more. */
int nq__join_next_tops(nq_join_scratch_t *scratch, uint64_t *nodes, size_t most) {
  join_quarters_t *q = &scratch->quarters;
  top_table_t *tops = &scratch->tables[0];
  tops->tops = 0;
  for (; q->next_group < q->groups; nq__join_quarters_next_group(q)) {
    if (nq__join_cancel_asked(scratch))
      return NQ_ESTOPPED;
    int rc = q->upper.searched || q->lower.searched ? nq__join_quarters_hold(q, scratch->n, nodes)
                                                    : NQ_OK;
    if (rc == NQ_OK)
      rc = pair_group(scratch, nodes, most);
    if (rc != NQ_OK || tops->tops >= most)
      return rc;
  }
  return NQ_OK;
}

void nq__join_private_quarters(nq_join_scratch_t *scratch, int private_quarters) {
  scratch->quarters.private_quarters = private_quarters;
}

void nq__join_limit_quarter_groups(nq_join_scratch_t *scratch, uint32_t groups) {
  scratch->quarters.group_limit = groups;
}
