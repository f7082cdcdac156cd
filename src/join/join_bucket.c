/* The join method: Q(n) as a sum over column sets S of the pairs of a top
 * half (rows 0..m-1, columns S) and a bottom half (rows m..n-1, the other
 * columns) whose diagonals do not meet.  A top half is summed up by what
 * its queens attack on row m, two n-bit masks (ld, rd); a bottom queen at
 * (r, c) meets a top half's diagonals on row m at c - (r - m) and
 * c + (r - m).  The tops of a bucket are stored transposed, one bitset
 * over the tops for each square of row m and each diagonal direction; the
 * bottom halves are walked as a search, and each queen placed ORs its two
 * bitsets into the set of tops ruled out.  The last queen then counts its
 * fitting tops with popcounts, 64 tops a word, and a subtree ends as soon
 * as no top is left.  So the walk visits bottom halves, not solutions: its
 * nodes grow more slowly than Q(n), but each costs the words its
 * surviving tops occupy (docs/research.md has the measurements). */

#include "nqueens/join.h"

#include <string.h>

#include "bit_avx2.h"
#include "bit_count.h"
#include "bit_transpose.h"
#include "bits.h"
#include "join_bucket.h"
#include "join_memory.h"
#include "join_runs.h"
#include "join_tables.h"
#include "join_tops.h"
#include "join_walk.h"
#include "nqueens/error.h"

/* The bottom walk asks the cancel hook (nq__join_cancel_asked, once in a
 * while) as it enters a node of its first rows: a stop then waits for no
 * more than a small subtree, and the hook costs nothing measurable
 * (entries below those rows, where nearly all the work is, never ask).  A
 * subtree grows about tenfold with each row below it, so the rows that ask
 * grow with the bottom half: the first 4 up to 11 bottom rows, then one
 * more a row (docs/performance.md, "Stops", has the waits this was chosen
 * by). */
enum { CANCEL_MIN_DEPTHS = 4, CANCEL_ROWS_BELOW = 7 };

static int cancel_depths(const nq_join_scratch_t *scratch) {
  int depths = scratch->n - scratch->top_rows - CANCEL_ROWS_BELOW;
  return depths > CANCEL_MIN_DEPTHS ? depths : CANCEL_MIN_DEPTHS;
}

/* nq__join_repacked (join_walk.h), inlined into the walk below, where it
 * is asked at every node that narrows: the decision is a few compares and
 * the call around them measurable at Q(18). */
static inline const top_table_t *repacked(nq_join_scratch_t *scratch, int row,
                                          const top_table_t *from, uint64_t *ruled_out,
                                          uint32_t *live_index, size_t *live, uint64_t survivors,
                                          uint64_t columns) {
  if (!nq__join_repack_pays(nq__join_repack_rule(scratch->n, row), survivors, *live,
                            scratch->tables[0].words))
    return from;
  top_table_t *into = &scratch->tables[row - scratch->top_rows + 1];
  int rc = nq__join_repack(into, from, ruled_out, live_index, live, survivors, scratch, columns);
  return rc == NQ_OK ? into : from;
}

const top_table_t *nq__join_repacked(nq_join_scratch_t *scratch, int row, const top_table_t *from,
                                     uint64_t *ruled_out, uint32_t *live_index, size_t *live,
                                     uint64_t survivors, uint64_t columns) {
  return repacked(scratch, row, from, ruled_out, live_index, live, survivors, columns);
}

/* A column's cells in a group's square from the five rows that attack
 * it, bit j for row j: bit 5j (row j's cell in column 0 of the square),
 * and the same with the rows in reverse order (bit j for row 4 - j). */
#define NQ_SPREAD_ROWS(x)                                                                          \
  ((uint32_t)(((x)&1u) | (((x)&2u) << 4) | (((x)&4u) << 8) | (((x)&8u) << 12) | (((x)&16u) << 16)))
#define NQ_SPREAD_ROWS_REVERSED(x)                                                                 \
  ((uint32_t)((((x)&1u) << 20) | (((x)&2u) << 14) | (((x)&4u) << 8) | (((x)&8u) << 2) |            \
              (((x)&16u) >> 4)))
#define NQ_SPREAD_8(f, x) f(x), f(x + 1), f(x + 2), f(x + 3), f(x + 4), f(x + 5), f(x + 6), f(x + 7)
#define NQ_SPREAD_32(f)                                                                            \
  NQ_SPREAD_8(f, 0u), NQ_SPREAD_8(f, 8u), NQ_SPREAD_8(f, 16u), NQ_SPREAD_8(f, 24u)
_Static_assert(JOIN_COMPLETION_ROWS == 5, "the spread tables below are for five rows");
static const uint32_t rows_spread[32] = {NQ_SPREAD_32(NQ_SPREAD_ROWS)};
static const uint32_t rows_spread_reversed[32] = {NQ_SPREAD_32(NQ_SPREAD_ROWS_REVERSED)};

/* The cells of a group's square (numbered as its placements') that the
 * queens above attack, `column` the group's columns and ld, rd the
 * diagonals attacking the first of its rows: row j sees them j rows on,
 * so column c is attacked on row j by rd's bit c + j and ld's bit c - j,
 * five-bit windows of each read at once and spread over the rows by a
 * table (not 25 bits tested one by one). */
static uint32_t cells_attacked(const int column[JOIN_COMPLETION_ROWS], uint64_t ld, uint64_t rd) {
  const uint64_t ld_below = ld << (JOIN_COMPLETION_ROWS - 1); /* bit c + 4: ld's bit c */
  uint32_t cells = 0;
  for (int i = 0; i < JOIN_COMPLETION_ROWS; i++) {
    const int c = column[i];
    cells |= (rows_spread[(rd >> c) & 31] | rows_spread_reversed[(ld_below >> c) & 31]) << i;
  }
  return cells;
}

/* The completions of the last JOIN_COMPLETION_ROWS rows on the columns
 * `allowed` (as many) that no queen above attacks (ld and rd attacking
 * the first of those rows), selected from board n's list without a branch
 * (with AVX-512, 16 at a time: a test and a compress); the node and its
 * fitting completions are counted in *stats, for every caller alike. */
typedef struct completions_fitting {
  int column[JOIN_COMPLETION_ROWS]; /* the group's columns, left to right */
  join_completion_t fitting[JOIN_MOST_COMPLETIONS];
  size_t fits;
  uint32_t tried;
  int above_on_diagonal; /* the queens above hold a long diagonal */
} completions_fitting_t;

static void select_completions(completions_fitting_t *out, nq_join_stats_t *stats,
                               const nq_join_scratch_t *scratch, uint64_t allowed, uint64_t ld,
                               uint64_t rd) {
  const join_completions_t *c = scratch->completions;
  const uint32_t g = nq__join_completion_group(c, allowed);
  for (int i = 0; i < JOIN_COMPLETION_ROWS; i++, allowed = drop_lowest_bit(allowed))
    out->column[i] = bit_index(lowest_bit(allowed));
  const uint32_t attacked = cells_attacked(out->column, ld, rd);
  /* Under the long-diagonal rule a completion on both is another pair's
   * (one on either, with a bottom queen above on the other, meets the
   * diagonal that queen closed). */
  const uint32_t end = scratch->long_diagonals ? c->ruled_end[g] : c->start[g + 1];
  out->tried = end - c->start[g];
  out->fits =
      nq__bit_select_disjoint(out->fitting, c->placements + c->start[g], out->tried, attacked);
  out->above_on_diagonal =
      (int)nq__join_on_long_diagonal(scratch->n, scratch->n - JOIN_COMPLETION_ROWS, 0, ld, rd);
  stats->fused_nodes++;
  stats->completions += out->fits;
}

/* Whether a fitting completion's solutions hold a long diagonal. */
static int completion_on_long_diagonal(const completions_fitting_t *f, join_completion_t fit) {
  return f->above_on_diagonal || (fit & (JOIN_ON_MAIN_DIAGONAL | JOIN_ON_ANTI_DIAGONAL)) != 0;
}

/* The walk of a table of one word (a bucket of 64 tops or fewer, or
 * survivors repacked that few): the tops left are `alive`, and
 * ld_word[p] / rd_word[p] say which of them attack square p of row m, so a
 * node is the backtracker's plus two loads and an AND. */
typedef struct one_word_walk {
  const nq_join_scratch_t *scratch;
  nq_join_stats_t *stats; /* the fused rows' counters go straight there */
  const uint64_t *ld_word, *rd_word;
  uint64_t twice; /* the tops counted twice under a bottom on a long diagonal */
  int top_rows, last_row;
  int completion_row; /* the first of the rows taken from the list; past the board: none */
  uint64_t nodes;
} one_word_walk_t;

/* The last JOIN_COMPLETION_ROWS rows on the columns `allowed`, from the
 * list: each fitting completion leaves the tops of `alive` that none of
 * its queens rules out.  Searching those rows took a node and a branch for
 * each square tried (docs/performance.md). */
static uint64_t complete_one_word(one_word_walk_t *walk, uint64_t allowed, uint64_t ld, uint64_t rd,
                                  uint64_t alive) {
  completions_fitting_t c;
  select_completions(&c, walk->stats, walk->scratch, allowed, ld, rd);
  walk->nodes += c.tried;
  const int first_distance = walk->completion_row - walk->top_rows;
  uint64_t solutions = 0;
  for (size_t k = 0; k < c.fits; k++) {
    const join_completion_t fit = c.fitting[k];
    uint64_t ruled_out = 0;
    for (int j = 0; j < JOIN_COMPLETION_ROWS; j++) {
      const int at = c.column[nq__join_completion_column_index(fit, j)];
      ruled_out |= walk->ld_word[at - first_distance - j] | walk->rd_word[at + first_distance + j];
    }
    const uint64_t left = alive & ~ruled_out;
    const uint64_t twice = walk->twice & -(uint64_t)completion_on_long_diagonal(&c, fit);
    solutions += (uint64_t)bit_count(left) + (uint64_t)bit_count(left & twice);
  }
  return solutions;
}

static uint64_t walk_one_word(one_word_walk_t *walk, int row, uint64_t allowed, uint64_t ld,
                              uint64_t rd, uint64_t alive) {
  if (row == walk->completion_row)
    return complete_one_word(walk, allowed, ld, rd, alive);
  const int distance = row - walk->top_rows;
  const uint64_t *ld_word = walk->ld_word - distance, *rd_word = walk->rd_word + distance;
  uint64_t solutions = 0;
  for (uint64_t free_squares = allowed & ~ld & ~rd; free_squares != 0;
       free_squares = drop_lowest_bit(free_squares)) {
    uint64_t queen = lowest_bit(free_squares);
    int column = bit_index(queen);
    uint64_t left = alive & ~(ld_word[column] | rd_word[column]);
    walk->nodes++;
    if (left == 0)
      continue;
    if (row == walk->last_row) {
      const uint64_t on_diagonal = nq__join_on_long_diagonal(walk->scratch->n, row, queen, ld, rd);
      solutions +=
          (uint64_t)bit_count(left) + (uint64_t)bit_count(left & walk->twice & -on_diagonal);
      continue;
    }
    uint64_t below_ld, below_rd;
    nq__join_below(walk->scratch, row, queen, ld, rd, &below_ld, &below_rd);
    solutions += walk_one_word(walk, row + 1, allowed & ~queen, below_ld, below_rd, left);
  }
  return solutions;
}

/* Below `row`, with the tops of the one-word `table` outside ruled_out[0]. */
void nq__join_walk_rest_in_one_word(bottom_walk_t *walk, const top_table_t *table, int row,
                                    uint64_t allowed, uint64_t ld, uint64_t rd,
                                    uint64_t ruled_out) {
  const int n = walk->scratch->n, m = walk->scratch->top_rows;
  one_word_walk_t one = {.scratch = walk->scratch,
                         .stats = &walk->stats,
                         .ld_word = table->attacking + ld_bitset_index(n, m, 0),
                         .rd_word = table->attacking + rd_bitset_index(n, m, 0),
                         .twice = nq__join_twice_in_word(table, 0),
                         .top_rows = m,
                         .last_row = n - 1,
                         .completion_row =
                             walk->scratch->completions != NULL ? n - JOIN_COMPLETION_ROWS : n};
  walk->solutions += walk_one_word(&one, row, allowed, ld, rd, ~ruled_out);
  walk->stats.bottom_nodes += one.nodes;
  walk->stats.words += one.nodes;
}

#ifdef JOIN_X86_SIMD
/* narrow_in_run's words eight a step.  (ORing first with or_in_run_avx512
 * and counting in a second pass took 1.5% to 2.5% more time from n = 18
 * to 22: docs/performance.md.) */
__attribute__((target("avx512f,avx512vpopcntdq"))) static size_t
narrow_in_run_avx512(uint64_t *next, const uint64_t *ruled_out, size_t live, const uint64_t *by_ld,
                     const uint64_t *by_rd, uint64_t *left) {
  const __m512i full = _mm512_set1_epi64(-1);
  __m512i fitting = _mm512_setzero_si512();
  size_t full_words = 0;
  for (size_t w = 0; w < live; w += 8) {
    const __mmask8 lanes = lanes_left(live - w);
    const __m512i v = or_of_three(lanes, ruled_out + w, by_ld + w, by_rd + w);
    _mm512_mask_storeu_epi64(next + w, lanes, v);
    fitting =
        _mm512_add_epi64(fitting, _mm512_maskz_popcnt_epi64(lanes, _mm512_andnot_si512(v, full)));
    full_words += (size_t)__builtin_popcount(_mm512_mask_cmpeq_epi64_mask(lanes, v, full));
  }
  *left = (uint64_t)_mm512_reduce_add_epi64(fitting);
  return full_words;
}

/* Four a step with AVX2, the tops left counted a byte at a time
 * (bit_avx2.h); the last few words one at a time. */
__attribute__((target("avx2"))) static size_t
narrow_in_run_avx2(uint64_t *next, const uint64_t *ruled_out, size_t live, const uint64_t *by_ld,
                   const uint64_t *by_rd, uint64_t *left) {
  const __m256i full = _mm256_set1_epi64x(-1);
  __m256i fitting = _mm256_setzero_si256();
  size_t full_words = 0, w = 0;
  for (; w + 4 <= live; w += 4) {
    const __m256i v = _mm256_or_si256(
        _mm256_or_si256(nq__bit_load_four(ruled_out + w), nq__bit_load_four(by_ld + w)),
        nq__bit_load_four(by_rd + w));
    _mm256_storeu_si256((__m256i *)(next + w), v);
    fitting = _mm256_add_epi64(
        fitting, nq__bit_lanes_sum(nq__bit_bytes_count(_mm256_xor_si256(v, full))));
    full_words += (size_t)__builtin_popcount(
        (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, full))));
  }
  uint64_t tail = 0;
  for (; w < live; w++) {
    next[w] = ruled_out[w] | by_ld[w] | by_rd[w];
    full_words += next[w] == ~(uint64_t)0;
    tail += (uint64_t)bit_count(~next[w]);
  }
  *left = nq__bit_sum_of_four(fitting) + tail;
  return full_words;
}
#endif

/* The words of a table all live (index 0, 1, ...) once a queen's two
 * bitsets join them, read in a run and every one written: returns how
 * many are full, the tops left in *left.  The caller writes their index. */
static size_t narrow_in_run(const nq_join_scratch_t *scratch, uint64_t *next,
                            const uint64_t *ruled_out, size_t live, const uint64_t *by_ld,
                            const uint64_t *by_rd, uint64_t *left) {
#ifdef JOIN_X86_SIMD
  if (nq__join_allows(&scratch->quarters, JOIN_AVX512) &&
      __builtin_cpu_supports("avx512vpopcntdq"))
    return narrow_in_run_avx512(next, ruled_out, live, by_ld, by_rd, left);
  if (nq__join_allows(&scratch->quarters, JOIN_AVX2) && nq__bit_has_avx2())
    return narrow_in_run_avx2(next, ruled_out, live, by_ld, by_rd, left);
#else
  (void)scratch;
#endif
  size_t full_words = 0;
  uint64_t fitting = 0;
  for (size_t w = 0; w < live; w++) {
    next[w] = ruled_out[w] | by_ld[w] | by_rd[w];
    full_words += next[w] == ~(uint64_t)0;
    fitting += (uint64_t)bit_count(~next[w]);
  }
  *left = fitting;
  return full_words;
}

/* The words narrow_in_run left, less the full ones, moved to the front
 * with their indexes: as nq__join_narrow's general pass would leave them,
 * without ORing them again. */
static size_t drop_full_words(uint32_t *next_index, uint64_t *next, size_t live) {
  size_t kept = 0;
  for (size_t w = 0; w < live; w++) {
    next_index[kept] = (uint32_t)w;
    next[kept] = next[w];
    kept += next[w] != ~(uint64_t)0;
  }
  return kept;
}

/* The live words once a queen's two bitsets join them; words left full
 * (no top fits) drop out.  Returns how many stay, and the tops left in
 * *left.  Where every word of the table is live (the index 0, 1, ...:
 * most calls on large boards, docs/algorithm.md) and few become full, all
 * are kept: a full word counts nothing wherever it is read, and the next
 * depth's words stay in a run, read with no index (docs/performance.md). */
size_t nq__join_narrow(const nq_join_scratch_t *scratch, uint32_t *next_index, uint64_t *next,
                       const uint32_t *index, const uint64_t *ruled_out, size_t live,
                       const uint64_t *by_ld, const uint64_t *by_rd, uint64_t *left) {
  if (live > 0 && index[live - 1] == live - 1) {
    const size_t full_words = narrow_in_run(scratch, next, ruled_out, live, by_ld, by_rd, left);
    if (full_words * JOIN_FULL_WORDS_KEPT > live)
      return drop_full_words(next_index, next, live);
    index_in_run(next_index, live);
    return live;
  }
  size_t next_live = 0;
  uint64_t fitting = 0;
  for (size_t k = 0; k < live; k++) {
    uint64_t value = ruled_out[k] | by_ld[index[k]] | by_rd[index[k]];
    next_index[next_live] = index[k];
    next[next_live] = value;
    next_live += value != ~(uint64_t)0;
    fitting += (uint64_t)bit_count(~value);
  }
  *left = fitting;
  return next_live;
}

/* The tops left in the live words once a queen's two bitsets join them. */
static uint64_t tops_fitting(const uint32_t *index, const uint64_t *ruled_out, size_t live,
                             const uint64_t *by_ld, const uint64_t *by_rd) {
  uint64_t fitting = 0;
  for (size_t k = 0; k < live; k++)
    fitting += (uint64_t)bit_count(~(ruled_out[k] | by_ld[index[k]] | by_rd[index[k]]));
  return fitting;
}

/* The last two rows: a queen of the row above the last (its bitsets
 * by_ld, by_rd) and each queen the last row still allows (`squares`, ld
 * and rd the diagonals there); each pair adds the tops neither rules out. */
static void count_last_two_rows(bottom_walk_t *walk, const top_table_t *table,
                                const uint32_t *index, const uint64_t *ruled_out, size_t live,
                                const uint64_t *by_ld, const uint64_t *by_rd, uint64_t squares,
                                uint64_t ld, uint64_t rd, uint64_t *nodes, uint64_t *combined) {
  nq_join_scratch_t *scratch = walk->scratch;
  int row = scratch->n - 1;
  for (; squares != 0; squares = drop_lowest_bit(squares)) {
    uint64_t queen = lowest_bit(squares);
    int column = bit_index(queen);
    const uint64_t *last_ld = nq__join_ruled_out_along_ld(scratch, table, row, column);
    const uint64_t *last_rd = nq__join_ruled_out_along_rd(scratch, table, row, column);
    const int twice_counts =
        table->once < table->tops && nq__join_on_long_diagonal(scratch->n, row, queen, ld, rd);
    uint64_t fitting = 0;
    for (size_t k = 0; k < live; k++) {
      size_t w = index[k];
      fitting += nq__join_counted(
          table, w, ~(ruled_out[k] | by_ld[w] | by_rd[w] | last_ld[w] | last_rd[w]), twice_counts);
    }
    walk->solutions += fitting;
    ++*nodes;
    *combined += live;
  }
}

/* The walk's last JOIN_FUSED_ROWS rows, from a queen on the first of them
 * (the live words not yet narrowed by it): each completion of the rows
 * below, taken from the bucket's list of them, adds the tops that none of
 * its queens rules out, in one pass over the live words, into which that
 * first queen's bitsets are ORed once where some completion fits (full
 * words are kept: dropping them cost what it saved, docs/performance.md).
 * Narrowing row by row would store the words at each depth and call down
 * for the next row;
 * this close to the end a queen has few completions, so one pass each
 * costs less (six rows measured best with the list, five with a search:
 * docs/performance.md). */
typedef struct fused_rows {
  bottom_walk_t *walk;
  const top_table_t *table;
  const uint32_t *index;
  const uint64_t *ruled_out;
  size_t live;
  const uint64_t *first_ld, *first_rd; /* the bitsets of the first fused row's queen */
  uint64_t *above;                     /* room for the table's words: the tops the queens down
                                          to that one rule out (the walk's next depth's) */
  /* How many of the scratch's completion_sets count once, from the
   * first, and how many after them may count twice. */
  size_t onces, twices;
  uint64_t nodes, combined;
} fused_rows_t;

/* The tops the queens down to the first fused row's rule out, once for
 * all its completions, by table word (the words no longer live are full):
 * a completion then ORs its own five bitsets alone, over all the table's
 * words in a run, which are nearly all live this far down
 * (docs/performance.md), so no index is read. */
static void rule_out_above(fused_rows_t *f) {
  const size_t words = f->table->words;
  if (f->live == words) {
    /* Every word live: the index is 0, 1, ... (the live words keep the
     * table's order), so the words are read in a run, with no index loaded
     * and no store scattered. */
    or_in_run(f->walk->scratch, f->above, f->ruled_out, f->first_ld, f->first_rd, words);
    return;
  }
  memset(f->above, 0xff, words * sizeof *f->above);
  for (size_t k = 0; k < f->live; k++) {
    const size_t w = f->index[k];
    f->above[w] = f->ruled_out[k] | f->first_ld[w] | f->first_rd[w];
  }
}

_Static_assert((int)JOIN_COMPLETION_ROWS == (int)NQ_BIT_COUNT_SETS,
               "a completion's queen bitsets are what nq__bit_count_clear ORs");

/* How many of the fitting completions, from the first, count once: a
 * group lists those on no long diagonal first (join_completions.c) and
 * the selection keeps the order, so they are listed in order, with no
 * branch on where each goes. */
static size_t counted_once(const completions_fitting_t *c, int some_twice) {
  if (!some_twice)
    return c->fits;
  if (c->above_on_diagonal)
    return 0;
  size_t onces = 0;
  for (size_t k = 0; k < c->fits; k++)
    onces += (c->fitting[k] & (JOIN_ON_MAIN_DIAGONAL | JOIN_ON_ANTI_DIAGONAL)) == 0;
  return onces;
}

/* The tops every listed completion leaves, all in one call: a table this
 * far down is often a few words, and a call a completion cost as much
 * again in its own start and end (docs/performance.md).  Those listed
 * after the onces count the table's tops from table->once on twice. */
static void count_completions(fused_rows_t *f) {
  const nq_bit_sets_t *sets = f->walk->scratch->completion_sets;
  const size_t words = f->table->words;
  f->walk->solutions += f->twices == 0
                            ? nq__bit_count_clear(f->above, sets, f->onces, 0, words)
                            : nq__bit_count_clear_twice(f->above, sets, f->onces + f->twices,
                                                        f->onces, f->table->once, words);
}

/* Where a fitting completion's five bitsets lie: row j's queen bitsets
 * start row_step words after row j - 1's and lie a stride apart from one
 * bottom column to the next, so a row's first and a column's offset make
 * them.  Plain values, from which the AVX-512 listing builds its lanes in
 * registers: its lanes stored one at a time and loaded back as a vector,
 * the load waited for the stores to land (docs/performance.md). */
typedef struct completion_layout {
  const uint64_t *first; /* row 0's queen bitset of the first bottom column */
  size_t row_step, stride;
  const int *column; /* the group's JOIN_COMPLETION_ROWS columns */
  uint64_t bottom_columns;
} completion_layout_t;
_Static_assert((int)JOIN_COMPLETION_ROWS == (int)NQ_BIT_COUNT_SETS,
               "a completion's rows are what nq__bit_count_clear lists");

/* Each fitting completion's five bitsets as a list for nq__bit_count_clear,
 * its queens' row by row. */
static void list_sets_portable(nq_bit_sets_t *listed, const join_completion_t *fits, size_t count,
                               const completion_layout_t *l) {
  size_t offset_of_column[JOIN_COMPLETION_ROWS];
  for (int i = 0; i < JOIN_COMPLETION_ROWS; i++)
    offset_of_column[i] = (size_t)column_rank(l->bottom_columns, l->column[i]) * l->stride;
  for (size_t k = 0; k < count; k++)
    for (int j = 0; j < JOIN_COMPLETION_ROWS; j++)
      listed[k][j] = l->first + (size_t)j * l->row_step +
                     offset_of_column[nq__join_completion_column_index(fits[k], j)];
}

#ifdef JOIN_X86_SIMD

/* A completion's five rows at once, a lane each: the row's five cells
 * shifted down, its one queen's column the count of the cells below it
 * (a popcount), that column's offset picked by a permute and added to the
 * row's first bitset; one store, where the scalar loop takes a count of
 * trailing zeros and an addition a row (docs/performance.md has what
 * that cost).  The rows' firsts and the columns' offsets (in bytes), a
 * lane each, are worked out in registers. */
__attribute__((target("avx512f,avx512dq,avx512vpopcntdq"))) static void
list_sets_avx512(nq_bit_sets_t *listed, const join_completion_t *fits, size_t count,
                 const completion_layout_t *l) {
  _Static_assert(JOIN_COMPLETION_ROWS == 5, "the shifts below are for five rows of five cells");
  const __m512i shifts = _mm512_setr_epi64(0, 5, 10, 15, 20, 0, 0, 0);
  const __m512i row_cells = _mm512_set1_epi64((1 << JOIN_COMPLETION_ROWS) - 1);
  const __mmask8 rows = (1u << JOIN_COMPLETION_ROWS) - 1;
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i group_column = _mm512_cvtepi32_epi64(
      _mm512_castsi512_si256(_mm512_maskz_loadu_epi32((__mmask16)rows, l->column)));
  const __m512i slot = _mm512_popcnt_epi64(
      _mm512_and_si512(_mm512_sub_epi64(_mm512_sllv_epi64(one, group_column), one),
                       _mm512_set1_epi64((long long)l->bottom_columns)));
  const long long word = (long long)sizeof(uint64_t);
  const __m512i offsets = _mm512_mullo_epi64(slot, _mm512_set1_epi64((long long)l->stride * word));
  const __m512i of_rows =
      _mm512_add_epi64(_mm512_set1_epi64((long long)(uintptr_t)l->first),
                       _mm512_mullo_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                          _mm512_set1_epi64((long long)l->row_step * word)));
  for (size_t k = 0; k < count; k++) {
    const __m512i queen =
        _mm512_and_si512(_mm512_srlv_epi64(_mm512_set1_epi64(fits[k]), shifts), row_cells);
    const __m512i column = _mm512_popcnt_epi64(_mm512_sub_epi64(queen, _mm512_set1_epi64(1)));
    const __m512i bytes = _mm512_permutexvar_epi64(column, offsets);
    _mm512_mask_storeu_epi64((void *)&listed[k][0], rows, _mm512_add_epi64(of_rows, bytes));
  }
}

static void list_sets(const nq_join_scratch_t *scratch, nq_bit_sets_t *listed,
                      const join_completion_t *fits, size_t count, const completion_layout_t *l) {
  if (nq__join_allows(&scratch->quarters, JOIN_AVX512) && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq"))
    list_sets_avx512(listed, fits, count, l);
  else
    list_sets_portable(listed, fits, count, l);
}
#else
static void list_sets(const nq_join_scratch_t *scratch, nq_bit_sets_t *listed,
                      const join_completion_t *fits, size_t count, const completion_layout_t *l) {
  (void)scratch;
  list_sets_portable(listed, fits, count, l);
}
#endif

/* The fused rows below the first one's queen, on the columns `allowed`
 * (JOIN_COMPLETION_ROWS of them) where ld and rd attack that row: each of
 * board's completions on those columns (listed once a process) that
 * no queen above attacks, one AND with the cells they attack, is
 * counted.  A search of those rows would take about as many nodes a
 * point and branch at each. */
static void complete_from_list(fused_rows_t *f, uint64_t allowed, uint64_t ld, uint64_t rd) {
  const nq_join_scratch_t *scratch = f->walk->scratch;
  completions_fitting_t c;
  select_completions(&c, &f->walk->stats, scratch, allowed, ld, rd);
  f->nodes += c.tried;
  if (c.fits == 0)
    return;
  rule_out_above(f);
  const size_t stride = f->table->stride;
  const completion_layout_t layout = {
      .first =
          f->table->attacking + queen_bitset_index(scratch->n, scratch->top_rows, 0, 0) * stride,
      .row_step = (size_t)(scratch->n - scratch->top_rows) * stride,
      .stride = stride,
      .column = c.column,
      .bottom_columns = scratch->bottom_columns};
  list_sets(scratch, f->walk->scratch->completion_sets, c.fitting, c.fits, &layout);
  f->onces = counted_once(&c, f->table->once < f->table->tops);
  f->twices = c.fits - f->onces;
  f->combined += c.fits * f->live;
  count_completions(f);
}

/* The completions the next queen of the first fused row will read (the
 * next of `later`, below it the columns `allowed` but its own), asked
 * for ahead: the list is larger than the core's caches from n = 19 (2 MB)
 * and a group's first load was a third of the selection's time (perf
 * annotate). */
static void prefetch_next_completions(const join_completions_t *c, uint64_t allowed,
                                      uint64_t later) {
  if (later == 0)
    return;
  const uint32_t g = nq__join_completion_group(c, allowed & ~lowest_bit(later));
  const join_completion_t *first = c->placements + c->start[g];
  __builtin_prefetch(first);
  __builtin_prefetch(first + 16);
}

/* A bottom half of one row (the top is every row but the last): each
 * queen of the row, weighted, adds the tops it leaves. */
static void count_single_row(bottom_walk_t *walk, uint64_t squares, uint64_t *nodes,
                             uint64_t *combined) {
  nq_join_scratch_t *scratch = walk->scratch;
  const top_table_t *bucket = &scratch->tables[0];
  for (; squares != 0; squares = drop_lowest_bit(squares)) {
    int column = bit_index(lowest_bit(squares)), row = scratch->top_rows;
    const uint64_t before = walk->solutions;
    walk->solutions += tops_fitting(scratch->live_index[0], scratch->ruled_out[0], bucket->words,
                                    nq__join_ruled_out_along_ld(scratch, bucket, row, column),
                                    nq__join_ruled_out_along_rd(scratch, bucket, row, column));
    nq__join_weigh_since(walk, before, walk->first_row_weight[column]);
    ++*nodes;
    *combined += bucket->words;
  }
}

/* The bottom rows from `row` (above the last) down, inside `allowed`, with
 * the tops of `table` in its `live` words (indexes and values) still
 * fitting.  Near the top of the walk, where subtrees are large, survivors
 * that fill too few words move to a table of their own; below, the live
 * words alone keep a node's cost to what is left. */
void nq__join_walk_bottom(bottom_walk_t *walk, int row, uint64_t allowed, uint64_t ld, uint64_t rd,
                          const top_table_t *table, const uint32_t *index,
                          const uint64_t *ruled_out, size_t live) {
  nq_join_scratch_t *scratch = walk->scratch;
  const int depth = row - scratch->top_rows + 1, n = scratch->n;
  uint64_t *next = scratch->ruled_out[depth];
  uint32_t *next_index = scratch->live_index[depth];
  uint64_t nodes = 0, combined = 0, pruned = 0, repacks = 0, repacked_tops = 0;
  const int asks = depth <= scratch->cancel_depth;
  if (asks && nq__join_cancel_asked(scratch))
    return;
  for (uint64_t free_squares = allowed & ~ld & ~rd; free_squares != 0;
       free_squares = drop_lowest_bit(free_squares)) {
    uint64_t queen = lowest_bit(free_squares);
    int column = bit_index(queen);
    uint64_t weight = depth == 1 ? walk->first_row_weight[column] : 1;
    if (weight == 0)
      continue;
    nodes++;
    uint64_t below_ld, below_rd;
    nq__join_below(scratch, row, queen, ld, rd, &below_ld, &below_rd);
    uint64_t below = allowed & ~queen, next_squares = below & ~below_ld & ~below_rd;
    if (next_squares == 0)
      continue; /* the row below has no square left: no top to look at */
    const uint64_t *by_ld = nq__join_ruled_out_along_ld(scratch, table, row, column);
    const uint64_t *by_rd = nq__join_ruled_out_along_rd(scratch, table, row, column);
    uint64_t before = walk->solutions, left = 0;
    if (row + 1 == n - 1) {
      count_last_two_rows(walk, table, index, ruled_out, live, by_ld, by_rd, next_squares, below_ld,
                          below_rd, &nodes, &combined);
      nq__join_weigh_since(walk, before, weight);
      continue;
    }
    if (row + JOIN_FUSED_ROWS == n && table->words > 1) {
      prefetch_next_completions(scratch->completions, allowed, drop_lowest_bit(free_squares));
      fused_rows_t f = {.walk = walk,
                        .table = table,
                        .index = index,
                        .ruled_out = ruled_out,
                        .live = live,
                        .first_ld = by_ld,
                        .first_rd = by_rd,
                        .above = next};
      complete_from_list(&f, below, below_ld, below_rd);
      nodes += f.nodes;
      combined += f.combined;
      nq__join_weigh_since(walk, before, weight);
      continue;
    }
    size_t next_live =
        nq__join_narrow(scratch, next_index, next, index, ruled_out, live, by_ld, by_rd, &left);
    combined += live;
    if (left == 0) {
      pruned++;
    } else if (table->words == 1) {
      nq__join_walk_rest_in_one_word(walk, table, row + 1, below, below_ld, below_rd, next[0]);
    } else {
      const top_table_t *next_table =
          repacked(scratch, row, table, next, next_index, &next_live, left, below);
      if (next_table != table) {
        repacks++;
        repacked_tops += next_table->tops;
      }
      nq__join_walk_bottom(walk, row + 1, below, below_ld, below_rd, next_table, next_index, next,
                           next_live);
      if (asks && scratch->abandoned)
        break;
    }
    nq__join_weigh_since(walk, before, weight);
  }
  walk->stats.bottom_nodes += nodes;
  walk->stats.words += combined;
  walk->stats.pruned += pruned;
  walk->stats.repacks += repacks;
  walk->stats.repacked[row] += repacked_tops;
}

static void add_stats(nq_join_stats_t *into, const nq_join_stats_t *from) {
  into->buckets += from->buckets;
  into->tops += from->tops;
  into->top_nodes += from->top_nodes;
  into->bottom_nodes += from->bottom_nodes;
  into->words += from->words;
  into->fused_nodes += from->fused_nodes;
  into->completions += from->completions;
  into->pruned += from->pruned;
  into->repacks += from->repacks;
  for (int row = 0; row < NQ_JOIN_MAX_N; row++)
    into->repacked[row] += from->repacked[row];
  into->parts += from->parts;
  if (from->max_tops > into->max_tops)
    into->max_tops = from->max_tops;
}

/* Opens the bucket: the walk's constants, its quarters listed and no top
 * yet. */
int nq__join_open_bucket(bottom_walk_t *walk, nq_join_scratch_t *scratch, int n, int top_rows,
                         uint64_t top_columns, const uint8_t first_row_weight[NQ_JOIN_MAX_N],
                         int long_diagonals) {
  scratch->n = n;
  scratch->top_rows = top_rows;
  scratch->bottom_columns = board_columns(n) & ~top_columns;
  scratch->long_diagonals = long_diagonals && nq__join_long_diagonal_rule_fits(n, top_rows);
  scratch->cancel_depth = cancel_depths(scratch);
  scratch->abandoned = 0;
  scratch->tables[0].tops = 0;
  *walk = (bottom_walk_t){
      .scratch = scratch, .first_row_weight = first_row_weight, .board = board_columns(n)};
  walk->stats.buckets = 1;
  const size_t quarters_held = nq__join_quarters_bytes(&scratch->quarters);
  int rc = nq__join_start_tops(scratch, &walk->stats.top_nodes, top_columns);
  scratch->completions = NULL; /* (an earlier bucket's may be another board's) */
  if (rc == NQ_OK && n - top_rows >= JOIN_FUSED_ROWS) {
    scratch->completions = nq__join_completions(n);
    rc = scratch->completions != NULL ? NQ_OK : NQ_ENOMEM;
  }
  /* Tables sized for an earlier bucket's parts, whose quarters took less,
   * could now hold more than the limit leaves them. */
  if (scratch->memory_limit != 0 && nq__join_quarters_bytes(&scratch->quarters) > quarters_held)
    nq__join_release_tables(scratch);
  return rc;
}

int nq__join_long_diagonal_rule_fits(int n, int top_rows) {
  return n >= 4 && (2 * top_rows == n || 2 * top_rows + 1 == n);
}

/* The part's tops under the long-diagonal rule (those on both long
 * diagonals the pairing left out): those on neither first (counted once),
 * then those on one (counted twice under a bottom on the other). */
static void order_by_long_diagonals(top_table_t *part, int n, int m) {
  const uint64_t on_main = nq__join_main_diagonal_square(m);
  const uint64_t on_anti = nq__join_anti_diagonal_square(n, m);
  size_t once = 0;
  /* Every top swapped and only one on neither moves the end on: a top on
   * one diagonal then trades places with another such (their order does
   * not matter), and no branch waits on the data, where a third of the
   * tops went the other way unpredictably. */
  for (size_t t = 0; t < part->tops; t++) {
    const uint32_t ld = part->ld[t], rd = part->rd[t];
    part->ld[t] = part->ld[once];
    part->rd[t] = part->rd[once];
    part->ld[once] = ld;
    part->rd[once] = rd;
    once += ((ld & on_main) | (rd & on_anti)) == 0;
  }
  part->once = once;
}

/* The bucket's next part of tops transposed: table 0 and its live words
 * at depth 0; no top once the bucket is done. */
int nq__join_next_part(bottom_walk_t *walk) {
  nq_join_scratch_t *scratch = walk->scratch;
  top_table_t *part = &scratch->tables[0];
  int rc = nq__join_next_tops(scratch, &walk->stats.top_nodes, nq__join_part_most(scratch));
  part->once = part->tops;
  if (rc == NQ_OK && scratch->long_diagonals)
    order_by_long_diagonals(part, scratch->n, scratch->top_rows);
  if (rc == NQ_OK)
    rc = nq__join_reserve_bitsets(part, scratch);
  if (rc == NQ_OK)
    rc = nq__join_reserve_stacks(scratch, nq__join_table_words(part->tops),
                                 scratch->n - scratch->top_rows + 1);
  if (rc != NQ_OK || part->tops == 0)
    return rc;
  walk->stats.parts++;
  walk->stats.tops += part->tops;
  if (part->tops > walk->stats.max_tops)
    walk->stats.max_tops = part->tops;
  nq__join_transpose(part, scratch->ruled_out[0], scratch->live_index[0], scratch,
                     scratch->bottom_columns);
  return NQ_OK;
}

/* The bottom halves against the part of tops in table 0. */
static void walk_part(bottom_walk_t *walk, uint64_t top_columns) {
  nq_join_scratch_t *scratch = walk->scratch;
  const top_table_t *part = &scratch->tables[0];
  uint64_t bottom_columns = walk->board & ~top_columns, nodes = 0, combined = 0;
  if (scratch->top_rows == scratch->n - 1)
    count_single_row(walk, bottom_columns, &nodes, &combined);
  else
    nq__join_walk_bottom(walk, scratch->top_rows, bottom_columns, 0, 0, part,
                         scratch->live_index[0], scratch->ruled_out[0], part->words);
  walk->stats.bottom_nodes += nodes;
  walk->stats.words += combined;
}

int nq__join_walk_parts(bottom_walk_t *walk, uint64_t top_columns) {
  int rc = NQ_OK;
  while (rc == NQ_OK && !walk->scratch->abandoned) {
    rc = nq__join_next_part(walk);
    if (rc != NQ_OK || walk->scratch->tables[0].tops == 0)
      break;
    walk_part(walk, top_columns);
  }
  return rc;
}

/* Sum over the queens c of row m of first_row_weight[c] times the
 * solutions with top columns `top_columns` and that queen: the sum over
 * the bucket's parts of tops, each against every bottom half. */
int nq__join_weighted(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                      int n, int top_rows, uint64_t top_columns,
                      const uint8_t first_row_weight[NQ_JOIN_MAX_N], int long_diagonals) {
  bottom_walk_t walk;
  int rc = nq__join_open_bucket(&walk, scratch, n, top_rows, top_columns, first_row_weight,
                                long_diagonals);
  if (rc == NQ_OK)
    rc = nq__join_walk_parts(&walk, top_columns);
  *solutions = walk.solutions;
  if (stats != NULL)
    add_stats(stats, &walk.stats);
  if (rc == NQ_OK && walk.overflowed)
    rc = NQ_EOVERFLOW;
  return rc != NQ_OK ? rc : scratch->abandoned ? NQ_ESTOPPED : NQ_OK;
}

/* n and the cut a join takes, and a column set of the cut's size. */
int nq__join_bucket_is_valid(int n, int top_rows, uint64_t top_columns) {
  return n >= 1 && n <= NQ_JOIN_MAX_N && top_rows >= 1 && top_rows < n &&
         (top_columns & ~board_columns(n)) == 0 && bit_count(top_columns) == top_rows;
}

int nq_join_bucket(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                   int n, int top_rows, uint64_t top_columns) {
  if (!nq__join_bucket_is_valid(n, top_rows, top_columns))
    return NQ_EINVAL;
  uint8_t every_queen[NQ_JOIN_MAX_N];
  memset(every_queen, 1, sizeof every_queen);
  return nq__join_weighted(solutions, stats, scratch, n, top_rows, top_columns, every_queen, 0);
}

void nq__join_widest_vectors(nq_join_scratch_t *scratch, join_vectors_t widest) {
  scratch->quarters.widest = widest;
}

void nq__join_wide_pairing(nq_join_scratch_t *scratch, int wide) {
  scratch->quarters.wide_pairing = wide;
}

void nq__join_set_cancel(nq_join_scratch_t *scratch, int (*cancelled)(void *context),
                         void *context) {
  scratch->cancelled = cancelled;
  scratch->cancel_context = context;
}
