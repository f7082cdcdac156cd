/* A bucket's tops built from quarters.  A top half (rows 0..m-1 on the
 * bucket's m columns S) is an upper quarter (rows 0..a-1, on a columns of
 * S) and a lower quarter (rows a..m-1, on the other m - a) whose
 * diagonals do not meet.  Each bucket finds both quarters' placements in
 * the process's tables of them (join_quarter_tables.h) where those are
 * kept, else by a small search each, groups them by the part of S the
 * upper quarter takes, and tries every pair of a group with two ANDs.
 * Listing the tops row by row instead searched each upper quarter once
 * per completion it might have, a node of tens of cycles each; the
 * quarters' nodes and pairs are as many (about 13 a top at n = 18) but a
 * pair is two ANDs without a branch the data decides (docs/performance.md
 * has the time shares). */

#include <stdlib.h>

#include "bit_transpose.h"
#include "bits.h"
#include "grow.h"
#include "join_quarter_tables.h"
#include "join_sets.h"
#include "join_tops.h"
#include "join_walk.h"
#include "nqueens/error.h"

/* The groups are the a-subsets of S, numbered by their rank among them;
 * a is the largest at most m / 2 whose subsets number at most MAX_GROUPS,
 * so that the groups' starts stay small for any cut (m <= 16, every
 * default cut, always takes a = m / 2). */
enum { MAX_GROUPS = 1 << 16 };

static int upper_rows(int m, uint32_t group_limit) {
  int a = m / 2;
  while (a > 0 && nq__join_binomial(m, a) > group_limit)
    a--;
  return a;
}

/* What a quarter's search needs: the rows it fills, and the bucket's
 * columns with each one's place among them. */
typedef struct quarter_search {
  join_quarter_list_t *list;
  int n, end_row;
  uint64_t columns;    /* S */
  uint32_t all_places; /* every place of S, as bits */
  uint32_t place_bit[NQ_JOIN_MAX_N];
  int column_at[NQ_JOIN_MAX_N];                           /* the column of each place */
  uint32_t rank_of[NQ_JOIN_MAX_N + 1][NQ_JOIN_MAX_N + 1]; /* nq__join_binomial(place, k) */
  int is_upper;
  uint64_t nodes;
} quarter_search_t;

/* The rank of an upper_size-subset of S's places among all of them (the
 * combinatorial number system): a dense group number. */
static uint32_t group_of(const quarter_search_t *s, uint32_t places) {
  uint32_t rank = 0;
  for (int k = 1; places != 0; k++, places &= places - 1)
    rank += s->rank_of[__builtin_ctz(places)][k];
  return rank;
}

static int record_quarter(quarter_search_t *s, uint32_t places, uint64_t ld, uint64_t rd) {
  join_quarter_list_t *list = s->list;
  if (nq__grow((void **)&list->listed, &list->listed_capacity, list->count + 1,
               sizeof *list->listed) != NQ_OK)
    return NQ_ENOMEM;
  /* An upper quarter's group is the places it takes; a lower one's, the
   * places it leaves. */
  uint32_t upper_places = s->is_upper ? places : s->all_places & ~places;
  list->listed[list->count++] =
      (join_quarter_t){.ld = ld, .rd = rd, .group = group_of(s, upper_places)};
  return NQ_OK;
}

/* Every placement of rows row..end_row-1 on S's columns not yet `used`. */
static int search_quarter(quarter_search_t *s, int row, uint64_t used, uint32_t places, uint64_t ld,
                          uint64_t rd) {
  if (row == s->end_row)
    return record_quarter(s, places, ld, rd);
  const int n = s->n;
  uint64_t attacked = (ld >> (n - row)) | (rd >> row); /* bit c: column c of `row` */
  for (uint64_t free_squares = s->columns & ~used & ~attacked; free_squares != 0;
       free_squares = drop_lowest_bit(free_squares)) {
    uint64_t queen = lowest_bit(free_squares);
    int column = bit_index(queen);
    s->nodes++;
    int rc = search_quarter(s, row + 1, used | queen, places | s->place_bit[column],
                            ld | column_bit(column - row + n), rd | column_bit(column + row));
    if (rc != NQ_OK)
      return rc;
  }
  return NQ_OK;
}

/* Room for the list's grouped words: wide, or narrowed (join_quarter_tables.h). */
static int reserve_grouped(join_quarter_list_t *list, int narrowed) {
  if (narrowed)
    return nq__grow((void **)&list->narrow_ld, &list->narrow_ld_capacity, list->count,
                    sizeof *list->narrow_ld) == NQ_OK &&
                   nq__grow((void **)&list->narrow_rd, &list->narrow_rd_capacity, list->count,
                            sizeof *list->narrow_rd) == NQ_OK
               ? NQ_OK
               : NQ_ENOMEM;
  return nq__grow((void **)&list->grouped_ld, &list->grouped_ld_capacity, list->count,
                  sizeof *list->grouped_ld) == NQ_OK &&
                 nq__grow((void **)&list->grouped_rd, &list->grouped_rd_capacity, list->count,
                          sizeof *list->grouped_rd) == NQ_OK
             ? NQ_OK
             : NQ_ENOMEM;
}

/* The list's placements ordered by group (a counting sort), with each
 * group's start; their words narrowed into 32 bits by `narrowing` where
 * it is given (join_quarter_tables.h), else kept wide. */
static int group_quarters(join_quarter_list_t *list, uint32_t groups,
                          const join_narrowing_t *narrowing) {
  if (reserve_grouped(list, narrowing != NULL) != NQ_OK ||
      nq__grow((void **)&list->start, &list->start_capacity, (size_t)groups + 1,
               sizeof *list->start) != NQ_OK)
    return NQ_ENOMEM;
  for (uint32_t g = 0; g <= groups; g++)
    list->start[g] = 0;
  for (size_t i = 0; i < list->count; i++)
    list->start[list->listed[i].group + 1]++;
  for (uint32_t g = 0; g < groups; g++)
    list->start[g + 1] += list->start[g];
  /* Placing each at its group's start moves the starts on by a group;
   * one pass back restores them. */
  for (size_t i = 0; i < list->count; i++) {
    const uint32_t at = list->start[list->listed[i].group]++;
    if (narrowing != NULL) {
      list->narrow_ld[at] = (uint32_t)(list->listed[i].ld >> narrowing->ld_shift);
      list->narrow_rd[at] = (uint32_t)(list->listed[i].rd >> narrowing->rd_shift);
    } else {
      list->grouped_ld[at] = list->listed[i].ld;
      list->grouped_rd[at] = list->listed[i].rd;
    }
  }
  for (uint32_t g = groups; g > 0; g--)
    list->start[g] = list->start[g - 1];
  list->start[0] = 0;
  return NQ_OK;
}

/* The columns of S at `places`. */
static uint64_t columns_at(const quarter_search_t *s, uint32_t places) {
  uint64_t columns = 0;
  for (; places != 0; places &= places - 1)
    columns |= column_bit(s->column_at[__builtin_ctz(places)]);
  return columns;
}

/* Room for the groups' ranges. */
static int reserve_ranges(join_quarter_list_t *list, uint32_t groups) {
  size_t begin_room = list->range_capacity, end_room = list->range_capacity;
  if (nq__grow((void **)&list->begin, &begin_room, groups, sizeof *list->begin) != NQ_OK ||
      nq__grow((void **)&list->end, &end_room, groups, sizeof *list->end) != NQ_OK)
    return NQ_ENOMEM;
  list->range_capacity = begin_room;
  return NQ_OK;
}

/* The quarter's groups found in the process's table of its rows: for
 * each upper_size-subset of S's places, in the order of their ranks, the
 * placements on those columns (an upper quarter) or on the others of S (a
 * lower one). */
static int find_in_table(const quarter_search_t *s, join_quarter_list_t *list,
                         const join_quarter_table_t *table, int upper_size, uint32_t groups) {
  if (reserve_ranges(list, groups) != NQ_OK)
    return NQ_ENOMEM;
  list->ld = table->ld;
  list->rd = table->rd;
  list->ld32 = table->ld32;
  list->rd32 = table->rd32;
  list->count = 0;
  uint32_t places = (uint32_t)nq__join_first_set(upper_size);
  for (uint32_t g = 0; g < groups; g++) {
    if (g > 0) /* (the one empty set has no next) */
      places = (uint32_t)nq__join_next_set(places, 32);
    const uint64_t upper_columns = columns_at(s, places);
    const uint32_t rank =
        nq__join_set_rank(&table->ranks, s->is_upper ? upper_columns : s->columns & ~upper_columns);
    list->begin[g] = table->start[rank];
    list->end[g] = table->start[rank + 1];
    list->count += list->end[g] - list->begin[g];
  }
  return NQ_OK;
}

/* The search's groups as ranges of its own arrays. */
static int ranges_of_search(join_quarter_list_t *list, uint32_t groups, int narrowed) {
  if (reserve_ranges(list, groups) != NQ_OK)
    return NQ_ENOMEM;
  list->ld = narrowed ? NULL : list->grouped_ld;
  list->rd = narrowed ? NULL : list->grouped_rd;
  list->ld32 = narrowed ? list->narrow_ld : NULL;
  list->rd32 = narrowed ? list->narrow_rd : NULL;
  for (uint32_t g = 0; g < groups; g++) {
    list->begin[g] = list->start[g];
    list->end[g] = list->start[g + 1];
  }
  return NQ_OK;
}

/* The quarter's placements, from the process's table where one is kept
 * in the words asked for (narrowed by `narrowing`, or wide where it is
 * NULL), else searched. */
static int list_quarter(quarter_search_t *s, join_quarter_list_t *list, int first_row, int end_row,
                        int is_upper, int upper_size, uint32_t groups, int shared,
                        const join_narrowing_t *narrowing) {
  s->list = list;
  s->end_row = end_row;
  s->is_upper = is_upper;
  const join_quarter_table_t *table =
      shared ? nq__join_quarter_table(s->n, first_row, end_row - first_row) : NULL;
  if (table != NULL && (table->ld32 != NULL) == (narrowing != NULL))
    return find_in_table(s, list, table, upper_size, groups);
  list->count = 0;
  int rc = search_quarter(s, first_row, 0, 0, 0, 0);
  if (rc == NQ_OK)
    rc = group_quarters(list, groups, narrowing);
  return rc == NQ_OK ? ranges_of_search(list, groups, narrowing != NULL) : rc;
}

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
static int has_avx512(void) { return 0; }
#endif

/* The tops of upper quarter u with every lower quarter of its group g. */
static int pair_upper(top_table_t *tops, const join_quarters_t *q, uint32_t g, uint32_t u,
                      const nq_join_scratch_t *scratch, uint64_t *pairs) {
  const int n = scratch->n, m = scratch->top_rows;
  const uint32_t first = q->lower.begin[g];
  const size_t lowers = q->lower.end[g] - first;
  if (nq__join_reserve_masks(tops, tops->tops + lowers) != NQ_OK)
    return NQ_ENOMEM;
  const uint64_t rule = scratch->long_diagonals ? ~(uint64_t)0 : 0;
  const pairing_t p = {.ld = q->upper.ld[u],
                       .rd = q->upper.rd[u],
                       .board = board_columns(n),
                       .ld_shift = n - m,
                       .rd_shift = m,
                       .on_main = rule & nq__join_main_diagonal_square(m),
                       .on_anti = rule & nq__join_anti_diagonal_square(n, m)};
  uint32_t *into_ld = tops->ld + tops->tops, *into_rd = tops->rd + tops->tops;
  if (q->lower.ld32 != NULL) {
    const narrow_pairing_t narrow = narrowed(&p, q->narrowing);
    const uint32_t *ld = q->lower.ld32 + first, *rd = q->lower.rd32 + first;
    tops->tops += q->vector_pairing
                      ? pair_narrow_avx512(into_ld, into_rd, &narrow, ld, rd, lowers)
                      : pair_narrow_portable(into_ld, into_rd, &narrow, ld, rd, lowers);
  } else {
    const uint64_t *ld = q->lower.ld + first, *rd = q->lower.rd + first;
    tops->tops += q->vector_pairing ? pair_avx512(into_ld, into_rd, &p, ld, rd, lowers)
                                    : pair_portable(into_ld, into_rd, &p, ld, rd, lowers);
  }
  *pairs += lowers;
  return NQ_OK;
}

/* A search on `columns` whose groups are subsets of `size` of them. */
static void start_search(quarter_search_t *s, int n, uint64_t columns, int size) {
  *s = (quarter_search_t){.n = n, .columns = columns};
  int places = 0;
  for (uint64_t c = columns; c != 0; c = drop_lowest_bit(c), places++) {
    s->place_bit[bit_index(lowest_bit(c))] = (uint32_t)1 << places;
    s->column_at[places] = bit_index(lowest_bit(c));
  }
  s->all_places = (uint32_t)board_columns(places);
  for (int p = 0; p < places; p++)
    for (int k = 0; k <= size; k++)
      s->rank_of[p][k] = nq__join_binomial(p, k);
}

int nq__join_start_tops(nq_join_scratch_t *scratch, uint64_t *nodes, uint64_t top_columns) {
  join_quarters_t *q = &scratch->quarters;
  const uint32_t limit = q->group_limit ? q->group_limit : MAX_GROUPS;
  const int n = scratch->n, m = scratch->top_rows, a = upper_rows(m, limit);
  quarter_search_t s;
  start_search(&s, n, top_columns, a);
  q->groups = nq__join_binomial(m, a);
  q->vector_pairing = has_avx512() && !q->portable_pairing;
  q->next_group = q->next_upper = 0;
  const int shared = !q->private_quarters;
  const int narrow = !q->wide_pairing && nq__join_narrow_fits(n, m, a);
  q->narrowing = nq__join_narrowing(n, m, a);
  int rc = list_quarter(&s, &q->upper, 0, a, 1, a, q->groups, shared, NULL);
  if (rc == NQ_OK)
    rc = list_quarter(&s, &q->lower, a, m, 0, a, q->groups, shared, narrow ? &q->narrowing : NULL);
  *nodes += s.nodes;
  if (rc != NQ_OK) /* no top to pair */
    q->next_group = q->groups;
  q->largest_lower_group = 0;
  for (uint32_t g = 0; rc == NQ_OK && g < q->groups; g++)
    if (q->lower.end[g] - q->lower.begin[g] > q->largest_lower_group)
      q->largest_lower_group = q->lower.end[g] - q->lower.begin[g];
  return rc;
}

/* An upper quarter at a time, so a part overshoots `most` by less than
 * one group of lower quarters. */
int nq__join_next_tops(nq_join_scratch_t *scratch, uint64_t *nodes, size_t most) {
  join_quarters_t *q = &scratch->quarters;
  top_table_t *tops = &scratch->tables[0];
  tops->tops = 0;
  for (; q->next_group < q->groups; q->next_group++, q->next_upper = 0) {
    if (nq__join_cancel_asked(scratch))
      return NQ_ESTOPPED;
    const uint32_t g = q->next_group, uppers = q->upper.end[g] - q->upper.begin[g];
    for (; q->next_upper < uppers; q->next_upper++) {
      if (tops->tops >= most)
        return NQ_OK;
      int rc = pair_upper(tops, q, g, q->upper.begin[g] + q->next_upper, scratch, nodes);
      if (rc != NQ_OK)
        return rc;
    }
  }
  return NQ_OK;
}

size_t nq__join_shared_quarters_bytes(int n, int top_rows) {
  const int a = upper_rows(top_rows, MAX_GROUPS);
  const join_quarter_table_t *upper = nq__join_quarter_table(n, 0, a);
  const join_quarter_table_t *lower = nq__join_quarter_table(n, a, top_rows - a);
  return (upper != NULL ? upper->bytes : 0) + (lower != NULL ? lower->bytes : 0);
}

void nq__join_private_quarters(nq_join_scratch_t *scratch, int private_quarters) {
  scratch->quarters.private_quarters = private_quarters;
}

void nq__join_limit_quarter_groups(nq_join_scratch_t *scratch, uint32_t groups) {
  scratch->quarters.group_limit = groups;
}

static void free_list(join_quarter_list_t *list) {
  free(list->listed);
  free(list->grouped_ld);
  free(list->grouped_rd);
  free(list->narrow_ld);
  free(list->narrow_rd);
  free(list->start);
  free(list->begin);
  free(list->end);
}

void nq__join_quarters_free(join_quarters_t *quarters) {
  free_list(&quarters->upper);
  free_list(&quarters->lower);
}
