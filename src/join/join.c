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

#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "nqueens/join.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bit_transpose.h"
#include "bits.h"
#include "grow.h"
#include "join_bucket.h"
#include "join_units.h"
#include "nqueens/error.h"
#include "random.h"

/* Survivors move to a table of their own when they fill less than
 * 1 / JOIN_REPACK_DENSITY of their live words, and only where at least
 * JOIN_REPACK_ROWS rows lie below the child: a repack costs a pass over
 * every survivor's masks, repaid only by a large subtree (the tuning runs
 * are in docs/research.md). */
enum { JOIN_REPACK_DENSITY = 4, JOIN_REPACK_ROWS = 6 };

/* A set of top halves, as masks on row m and transposed: bit t of the
 * bitset of ld square p is set when top t attacks square p along ld. */
typedef struct top_table {
  uint32_t *ld, *rd; /* n <= 32 squares */
  size_t tops, words;
  size_t capacity, attacking_capacity; /* allocated: tops, and words of attacking */
  uint64_t *attacking; /* 4n bitsets of `words` words: ld square p (-n < p < n)
                          at n + p, rd square p (0 <= p < 2n) at 2n + p; those
                          off row m stay empty, so a queen needs no test */
} top_table_t;

static size_t ld_bitset_index(int n, int square) { return (size_t)(n + square); }
static size_t rd_bitset_index(int n, int square) { return (size_t)(2 * n + square); }

/* Depths of the bottom walk: a bottom half has at most n - 1 rows. */
enum { JOIN_MAX_DEPTH = NQ_JOIN_MAX_N };

/* Table 0 holds the bucket's tops; table d the survivors packed at depth d
 * of the bottom walk, each sized to what it holds.  At depth d, the tops of
 * the table in use that the bottom queens rule out, as the words that
 * still have a top left: their indexes live_index[d] and values
 * ruled_out[d], room for stack_words words each at depths below
 * stack_depths (the bottom's rows and one). */
struct nq_join_scratch {
  top_table_t tables[JOIN_MAX_DEPTH];
  uint64_t *ruled_out[JOIN_MAX_DEPTH];
  uint32_t *live_index[JOIN_MAX_DEPTH];
  size_t stack_words;
  int stack_depths;
  int n, top_rows;
  /* Asked before each queen of the bottom walk's first rows
   * (cancel_depths; nq__join_set_cancel); NULL: a bucket runs to its end. */
  int (*cancelled)(void *context);
  void *cancel_context;
  int cancel_countdown; /* entries until the hook is asked again */
  int cancel_depth;     /* the deepest bottom row that asks (cancel_depths) */
  int abandoned;        /* the bucket in hand was abandoned */
};

/* The bottom walk asks the cancel hook as it enters a node of its first
 * rows, once in CANCEL_EVERY such entries: a stop then waits for no more
 * than a small subtree, and the hook costs nothing measurable (entries
 * below those rows, where nearly all the work is, never ask).  A subtree
 * grows about tenfold with each row below it, so the rows that ask grow
 * with the bottom half: the first 4 up to 11 bottom rows, then one more a
 * row (docs/performance.md, "Stops", has the waits this was chosen by). */
enum { CANCEL_EVERY = 64, CANCEL_MIN_DEPTHS = 4, CANCEL_ROWS_BELOW = 7 };

static int cancel_depths(const nq_join_scratch_t *scratch) {
  int depths = scratch->n - scratch->top_rows - CANCEL_ROWS_BELOW;
  return depths > CANCEL_MIN_DEPTHS ? depths : CANCEL_MIN_DEPTHS;
}

/* The walk's constants for one bucket, and what it adds up. */
typedef struct bottom_walk {
  nq_join_scratch_t *scratch;
  const uint8_t *first_row_weight; /* per column of row m: how many column
                                      sets and middle queens the subtree
                                      stands for (0: another's to count) */
  uint64_t board;
  uint64_t solutions;
  nq_join_stats_t stats;
} bottom_walk_t;

/* Whether the bucket in hand is abandoned: the hook's answer, asked once
 * in CANCEL_EVERY calls. */
static int cancel_asked(nq_join_scratch_t *scratch) {
  if (scratch->abandoned || scratch->cancelled == NULL || --scratch->cancel_countdown > 0)
    return scratch->abandoned;
  scratch->cancel_countdown = CANCEL_EVERY;
  scratch->abandoned = scratch->cancelled(scratch->cancel_context) != 0;
  return scratch->abandoned;
}

/* Half the board: the up-down flip then halves the work, on odd boards
 * with the middle row's queen between the halves. */
int nq_join_default_top_rows(int n) { return n / 2; }

static size_t words_for(size_t tops) { return tops == 0 ? 1 : (tops + 63) / 64; }

int nq_join_scratch_create(nq_join_scratch_t **scratch) {
  *scratch = calloc(1, sizeof **scratch);
  return *scratch == NULL ? NQ_ENOMEM : NQ_OK;
}

void nq_join_scratch_destroy(nq_join_scratch_t *scratch) {
  if (scratch == NULL)
    return;
  for (int d = 0; d < JOIN_MAX_DEPTH; d++) {
    free(scratch->tables[d].ld);
    free(scratch->tables[d].rd);
    free(scratch->tables[d].attacking);
    free(scratch->ruled_out[d]);
    free(scratch->live_index[d]);
  }
  free(scratch);
}

/* Room in `table` for `tops` masks, keeping those it holds. */
static int reserve_masks(top_table_t *table, size_t tops) {
  /* Both arrays grow alike from the same room; the table's room changes
   * only once both have it. */
  size_t ld_room = table->capacity, rd_room = table->capacity;
  if (nq__grow((void **)&table->ld, &ld_room, tops, sizeof *table->ld) != NQ_OK ||
      nq__grow((void **)&table->rd, &rd_room, tops, sizeof *table->rd) != NQ_OK)
    return NQ_ENOMEM;
  table->capacity = ld_room;
  return NQ_OK;
}

/* Room for the bitsets of `table`'s tops on an n-wide board. */
static int reserve_bitsets(top_table_t *table, int n) {
  size_t needed = (size_t)(4 * n) * words_for(table->tops);
  if (needed <= table->attacking_capacity)
    return NQ_OK;
  free(table->attacking);
  table->attacking = malloc(needed * sizeof *table->attacking);
  table->attacking_capacity = table->attacking == NULL ? 0 : needed;
  return table->attacking == NULL ? NQ_ENOMEM : NQ_OK;
}

/* Room for `words` live words at each of `depths` depths: no depth holds
 * more than the bucket's. */
static int reserve_stacks(nq_join_scratch_t *scratch, size_t words, int depths) {
  if (words <= scratch->stack_words && depths <= scratch->stack_depths)
    return NQ_OK;
  if (words < scratch->stack_words)
    words = scratch->stack_words;
  if (depths < scratch->stack_depths)
    depths = scratch->stack_depths;
  scratch->stack_words = 0;
  scratch->stack_depths = 0;
  for (int d = 0; d < depths; d++) {
    free(scratch->ruled_out[d]);
    free(scratch->live_index[d]);
    scratch->ruled_out[d] = malloc(words * sizeof *scratch->ruled_out[d]);
    scratch->live_index[d] = malloc(words * sizeof *scratch->live_index[d]);
    if (scratch->ruled_out[d] == NULL || scratch->live_index[d] == NULL)
      return NQ_ENOMEM;
  }
  scratch->stack_words = words;
  scratch->stack_depths = depths;
  return NQ_OK;
}

static int push_top(nq_join_scratch_t *scratch, uint32_t ld, uint32_t rd) {
  top_table_t *bucket = &scratch->tables[0];
  int rc = reserve_masks(bucket, bucket->tops + 1);
  if (rc != NQ_OK)
    return rc;
  bucket->ld[bucket->tops] = ld;
  bucket->rd[bucket->tops] = rd;
  bucket->tops++;
  return NQ_OK;
}

/* Every placement of rows row..m-1 on the columns `allowed` (one for each
 * of those rows), one queen a row; each complete one is stored with its
 * attacks on row m.  The last row has one column left, so it needs no
 * loop and no call.  Rows with as many rows below them as the bottom
 * walk's asking rows ask the cancel hook too: at record sizes a stop was
 * seen waiting on this listing (docs/performance.md, "Stops"). */
static int collect_tops(nq_join_scratch_t *scratch, uint64_t *nodes, int row, uint64_t allowed,
                        uint64_t ld, uint64_t rd) {
  const uint64_t board = board_columns(scratch->n);
  if (row == scratch->top_rows - 1) {
    if ((allowed & (ld | rd)) != 0)
      return NQ_OK;
    ++*nodes;
    return push_top(scratch, (uint32_t)(((ld | allowed) << 1) & board),
                    (uint32_t)((rd | allowed) >> 1));
  }
  if (scratch->top_rows - 1 - row >= CANCEL_ROWS_BELOW && cancel_asked(scratch))
    return NQ_ESTOPPED;
  for (uint64_t free_squares = allowed & ~ld & ~rd; free_squares != 0;
       free_squares = drop_lowest_bit(free_squares)) {
    uint64_t queen = lowest_bit(free_squares);
    ++*nodes;
    int rc = collect_tops(scratch, nodes, row + 1, allowed & ~queen,
                            ((ld | queen) << 1) & board, (rd | queen) >> 1);
    if (rc != NQ_OK)
      return rc;
  }
  return NQ_OK;
}

/* Fills the table's bitsets from its masks, and `ruled_out` with none of
 * its tops ruled out, only the padding past the last, so padding never
 * counts as a fit.  The squares off row m (ld squares below 0, rd squares
 * from n on) have empty bitsets. */
static void transpose(top_table_t *table, uint64_t *ruled_out, uint32_t *live_index, int n) {
  assert(table->tops > 0); /* else the on-board bitsets would stay unwritten */
  size_t words = table->words = words_for(table->tops);
  uint64_t *on_board_ld = table->attacking + ld_bitset_index(n, 0) * words;
  uint64_t *on_board_rd = table->attacking + rd_bitset_index(n, 0) * words;
  memset(table->attacking, 0, (size_t)n * words * sizeof(uint64_t));
  memset(on_board_rd + (size_t)n * words, 0, (size_t)n * words * sizeof(uint64_t));
  nq__bit_transpose(on_board_ld, words, table->ld, table->tops, n);
  nq__bit_transpose(on_board_rd, words, table->rd, table->tops, n);
  memset(ruled_out, 0, words * sizeof(uint64_t));
  for (size_t w = 0; w < words; w++)
    live_index[w] = (uint32_t)w;
  if (table->tops % 64 != 0)
    ruled_out[words - 1] = ~board_columns((int)(table->tops % 64));
}

/* The `survivors` tops of `from` left in its *live words, packed into
 * `into`; the live words then start afresh for `into`.  NQ_ENOMEM leaves
 * everything as it was: the walk goes on without the repack, slower, not
 * wrong.  (Ordering the packed tops by the next row's queens, so that each
 * queen's survivors share words, was measured and lost: docs/research.md.) */
static int repack(top_table_t *into, const top_table_t *from, uint64_t *ruled_out,
                  uint32_t *live_index, size_t *live, uint64_t survivors, int n) {
  into->tops = 0;
  if (reserve_masks(into, survivors) != NQ_OK)
    return NQ_ENOMEM;
  into->tops = survivors;
  if (reserve_bitsets(into, n) != NQ_OK) {
    into->tops = 0;
    return NQ_ENOMEM;
  }
  size_t kept = 0;
  for (size_t k = 0; k < *live; k++)
    for (uint64_t left = ~ruled_out[k]; left != 0; left = drop_lowest_bit(left)) {
      size_t t = (size_t)live_index[k] * 64 + (size_t)bit_index(lowest_bit(left));
      into->ld[kept] = from->ld[t];
      into->rd[kept] = from->rd[t];
      kept++;
    }
  assert(kept == survivors);
  transpose(into, ruled_out, live_index, n);
  *live = into->words;
  return NQ_OK;
}

/* What a bottom queen at `column` of `row` rules out: the tops attacking
 * the squares of row m its two diagonals cross. */
static const uint64_t *ruled_out_along_ld(const nq_join_scratch_t *scratch,
                                          const top_table_t *table, int row, int column) {
  int square = column - (row - scratch->top_rows);
  return table->attacking + ld_bitset_index(scratch->n, square) * table->words;
}

static const uint64_t *ruled_out_along_rd(const nq_join_scratch_t *scratch,
                                          const top_table_t *table, int row, int column) {
  int square = column + (row - scratch->top_rows);
  return table->attacking + rd_bitset_index(scratch->n, square) * table->words;
}

/* The walk of a table of one word (a bucket of 64 tops or fewer, or
 * survivors repacked that few): the tops left are `alive`, and
 * ld_word[p] / rd_word[p] say which of them attack square p of row m, so a
 * node is the backtracker's plus two loads and an AND. */
typedef struct one_word_walk {
  const uint64_t *ld_word, *rd_word;
  uint64_t board;
  int top_rows, last_row;
  uint64_t nodes;
} one_word_walk_t;

static uint64_t walk_one_word(one_word_walk_t *walk, int row, uint64_t allowed, uint64_t ld,
                              uint64_t rd, uint64_t alive) {
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
    if (row == walk->last_row)
      solutions += (uint64_t)bit_count(left);
    else
      solutions += walk_one_word(walk, row + 1, allowed & ~queen, ((ld | queen) << 1) & walk->board,
                                 (rd | queen) >> 1, left);
  }
  return solutions;
}

/* Below `row`, with the tops of the one-word `table` outside ruled_out[0]. */
static void walk_rest_in_one_word(bottom_walk_t *walk, const top_table_t *table, int row,
                                  uint64_t allowed, uint64_t ld, uint64_t rd,
                                  uint64_t ruled_out) {
  const int n = walk->scratch->n;
  one_word_walk_t one = {.ld_word = table->attacking + ld_bitset_index(n, 0),
                         .rd_word = table->attacking + rd_bitset_index(n, 0),
                         .board = walk->board,
                         .top_rows = walk->scratch->top_rows,
                         .last_row = n - 1};
  walk->solutions += walk_one_word(&one, row, allowed, ld, rd, ~ruled_out);
  walk->stats.bottom_nodes += one.nodes;
  walk->stats.words += one.nodes;
}

/* The live words once a queen's two bitsets join them; words left full
 * (no top fits) drop out.  Returns how many stay, and the tops left in
 * *left. */
static size_t narrow(uint32_t *next_index, uint64_t *next, const uint32_t *index,
                     const uint64_t *ruled_out, size_t live, const uint64_t *by_ld,
                     const uint64_t *by_rd, uint64_t *left) {
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
 * by_ld, by_rd) and each queen the last row still allows; each pair adds
 * the tops neither rules out. */
static void count_last_two_rows(bottom_walk_t *walk, const top_table_t *table,
                                const uint32_t *index, const uint64_t *ruled_out, size_t live,
                                const uint64_t *by_ld, const uint64_t *by_rd, uint64_t squares,
                                uint64_t *nodes, uint64_t *combined) {
  nq_join_scratch_t *scratch = walk->scratch;
  int row = scratch->n - 1;
  for (; squares != 0; squares = drop_lowest_bit(squares)) {
    int column = bit_index(lowest_bit(squares));
    const uint64_t *last_ld = ruled_out_along_ld(scratch, table, row, column);
    const uint64_t *last_rd = ruled_out_along_rd(scratch, table, row, column);
    uint64_t fitting = 0;
    for (size_t k = 0; k < live; k++) {
      size_t w = index[k];
      fitting +=
          (uint64_t)bit_count(~(ruled_out[k] | by_ld[w] | by_rd[w] | last_ld[w] | last_rd[w]));
    }
    walk->solutions += fitting;
    ++*nodes;
    *combined += live;
  }
}

/* A bottom half of one row (the top is every row but the last): each
 * queen of the row, weighted, adds the tops it leaves. */
static void count_single_row(bottom_walk_t *walk, uint64_t squares, uint64_t *nodes,
                             uint64_t *combined) {
  nq_join_scratch_t *scratch = walk->scratch;
  const top_table_t *bucket = &scratch->tables[0];
  for (; squares != 0; squares = drop_lowest_bit(squares)) {
    int column = bit_index(lowest_bit(squares)), row = scratch->top_rows;
    walk->solutions += walk->first_row_weight[column] *
                       tops_fitting(scratch->live_index[0], scratch->ruled_out[0], bucket->words,
                                    ruled_out_along_ld(scratch, bucket, row, column),
                                    ruled_out_along_rd(scratch, bucket, row, column));
    ++*nodes;
    *combined += bucket->words;
  }
}

/* The bottom rows from `row` (above the last) down, inside `allowed`, with
 * the tops of `table` in its `live` words (indexes and values) still
 * fitting.  Near the top of the walk, where subtrees are large, survivors
 * that fill too few words move to a table of their own; below, the live
 * words alone keep a node's cost to what is left. */
static void walk_bottom(bottom_walk_t *walk, int row, uint64_t allowed, uint64_t ld,
                        uint64_t rd, const top_table_t *table, const uint32_t *index,
                        const uint64_t *ruled_out, size_t live) {
  nq_join_scratch_t *scratch = walk->scratch;
  const int depth = row - scratch->top_rows + 1, n = scratch->n;
  const int repack_allowed = n - 2 - row >= JOIN_REPACK_ROWS;
  uint64_t *next = scratch->ruled_out[depth];
  uint32_t *next_index = scratch->live_index[depth];
  uint64_t nodes = 0, combined = 0, pruned = 0, repacks = 0;
  const int asks = depth <= scratch->cancel_depth;
  if (asks && cancel_asked(scratch))
    return;
  for (uint64_t free_squares = allowed & ~ld & ~rd; free_squares != 0;
       free_squares = drop_lowest_bit(free_squares)) {
    uint64_t queen = lowest_bit(free_squares);
    int column = bit_index(queen);
    uint64_t weight = depth == 1 ? walk->first_row_weight[column] : 1;
    if (weight == 0)
      continue;
    nodes++;
    uint64_t below_ld = ((ld | queen) << 1) & walk->board, below_rd = (rd | queen) >> 1;
    uint64_t below = allowed & ~queen, next_squares = below & ~below_ld & ~below_rd;
    if (next_squares == 0)
      continue; /* the row below has no square left: no top to look at */
    const uint64_t *by_ld = ruled_out_along_ld(scratch, table, row, column);
    const uint64_t *by_rd = ruled_out_along_rd(scratch, table, row, column);
    uint64_t before = walk->solutions, left = 0;
    if (row + 1 == n - 1) {
      count_last_two_rows(walk, table, index, ruled_out, live, by_ld, by_rd, next_squares,
                          &nodes, &combined);
      walk->solutions = before + (walk->solutions - before) * weight;
      continue;
    }
    size_t next_live = narrow(next_index, next, index, ruled_out, live, by_ld, by_rd, &left);
    combined += live;
    const top_table_t *next_table = table;
    if (left == 0) {
      pruned++;
    } else if (table->words == 1) {
      walk_rest_in_one_word(walk, table, row + 1, below, below_ld, below_rd, next[0]);
    } else {
      if (repack_allowed && left * JOIN_REPACK_DENSITY < next_live * 64 &&
          repack(&scratch->tables[depth], table, next, next_index, &next_live, left, n) == NQ_OK) {
        next_table = &scratch->tables[depth];
        repacks++;
      }
      walk_bottom(walk, row + 1, below, below_ld, below_rd, next_table, next_index, next,
                  next_live);
      if (asks && scratch->abandoned)
        break;
    }
    walk->solutions = before + (walk->solutions - before) * weight;
  }
  walk->stats.bottom_nodes += nodes;
  walk->stats.words += combined;
  walk->stats.pruned += pruned;
  walk->stats.repacks += repacks;
}

static void add_stats(nq_join_stats_t *into, const nq_join_stats_t *from) {
  into->buckets += from->buckets;
  into->tops += from->tops;
  into->top_nodes += from->top_nodes;
  into->bottom_nodes += from->bottom_nodes;
  into->words += from->words;
  into->pruned += from->pruned;
  into->repacks += from->repacks;
  if (from->max_tops > into->max_tops)
    into->max_tops = from->max_tops;
}

/* Lists the bucket's tops and transposes them: the walk's table 0 and its
 * live words at depth 0.  Its counters go to walk->stats. */
static int open_bucket(bottom_walk_t *walk, nq_join_scratch_t *scratch, int n, int top_rows,
                       uint64_t top_columns, const uint8_t first_row_weight[NQ_JOIN_MAX_N]) {
  scratch->n = n;
  scratch->top_rows = top_rows;
  scratch->cancel_depth = cancel_depths(scratch);
  scratch->abandoned = 0;
  top_table_t *bucket = &scratch->tables[0];
  bucket->tops = 0;
  *walk = (bottom_walk_t){
      .scratch = scratch, .first_row_weight = first_row_weight, .board = board_columns(n)};
  int rc = collect_tops(scratch, &walk->stats.top_nodes, 0, top_columns, 0, 0);
  if (rc == NQ_OK)
    rc = reserve_bitsets(bucket, n);
  if (rc == NQ_OK)
    rc = reserve_stacks(scratch, words_for(bucket->tops), n - top_rows + 1);
  if (rc != NQ_OK)
    return rc;
  walk->stats.buckets = 1;
  walk->stats.tops = walk->stats.max_tops = bucket->tops;
  if (bucket->tops > 0)
    transpose(bucket, scratch->ruled_out[0], scratch->live_index[0], n);
  return NQ_OK;
}

/* Sum over the queens c of row m of first_row_weight[c] times the
 * solutions with top columns `top_columns` and that queen. */
int nq__join_weighted(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                      int n, int top_rows, uint64_t top_columns,
                      const uint8_t first_row_weight[NQ_JOIN_MAX_N]) {
  bottom_walk_t walk;
  int rc = open_bucket(&walk, scratch, n, top_rows, top_columns, first_row_weight);
  if (rc != NQ_OK)
    return rc;
  const top_table_t *bucket = &scratch->tables[0];
  if (bucket->tops > 0) {
    uint64_t bottom_columns = walk.board & ~top_columns, nodes = 0, combined = 0;
    if (top_rows == n - 1)
      count_single_row(&walk, bottom_columns, &nodes, &combined);
    else
      walk_bottom(&walk, top_rows, bottom_columns, 0, 0, bucket, scratch->live_index[0],
                  scratch->ruled_out[0], bucket->words);
    walk.stats.bottom_nodes += nodes;
    walk.stats.words += combined;
  }
  *solutions = walk.solutions;
  if (stats != NULL)
    add_stats(stats, &walk.stats);
  return scratch->abandoned ? NQ_ESTOPPED : NQ_OK;
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
  return nq__join_weighted(solutions, stats, scratch, n, top_rows, top_columns, every_queen);
}

/* ---- A bucket sampled: Knuth's descents through the bottom walk ---- */

static double thread_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* The node a descent stands at: the bottom rows above `row` placed, and
 * the tops they leave. */
typedef struct descent_node {
  int row;
  uint64_t allowed, ld, rd;
  const top_table_t *table;
  const uint32_t *index;
  const uint64_t *ruled_out;
  size_t live;
} descent_node_t;

/* What one descent found, each quantity scaled to the whole bucket. */
typedef struct descent {
  double weight;       /* 1 / the probability of the path so far */
  double multiplicity; /* the row-m queen's weight, once it is drawn */
  double solutions, nodes, seconds;
} descent_t;

/* The exact walk below `at`, weighted; `walked` gets its nodes and time. */
static void finish_exactly(descent_t *d, nq__join_sample_t *walked, nq_join_scratch_t *scratch,
                           const uint8_t *first_row_weight, const descent_node_t *at) {
  bottom_walk_t below = {
      .scratch = scratch, .first_row_weight = first_row_weight, .board = board_columns(scratch->n)};
  double started = thread_seconds();
  if (at->row > scratch->top_rows && at->table->words == 1)
    walk_rest_in_one_word(&below, at->table, at->row, at->allowed, at->ld, at->rd,
                          at->ruled_out[0]);
  else
    walk_bottom(&below, at->row, at->allowed, at->ld, at->rd, at->table, at->index,
                at->ruled_out, at->live);
  double seconds = thread_seconds() - started;
  d->solutions += d->weight * d->multiplicity * (double)below.solutions;
  d->nodes += d->weight * (double)below.stats.bottom_nodes;
  d->seconds += d->weight * seconds;
  walked->bottom_nodes += (double)below.stats.bottom_nodes;
  walked->seconds += seconds;
}

/* One step down: a queen of at->row drawn uniformly among the squares the
 * exact walk would enter (on row m those of non-zero weight), its tops
 * narrowed (and repacked, as the walk would) with the time weighted.
 * Returns 0 where the path ends: no square, no row below, no top left, or
 * a one-word table walked to the bottom at once. */
static int step_down(descent_t *d, nq__join_sample_t *walked, nq_join_scratch_t *scratch,
                     const uint8_t *first_row_weight, descent_node_t *at, uint64_t *random_state) {
  const int n = scratch->n, depth = at->row - scratch->top_rows + 1;
  uint64_t squares = at->allowed & ~at->ld & ~at->rd;
  if (depth == 1)
    for (uint64_t s = squares; s != 0; s = drop_lowest_bit(s))
      if (first_row_weight[bit_index(lowest_bit(s))] == 0)
        squares &= ~lowest_bit(s);
  const int branching = bit_count(squares);
  if (branching == 0)
    return 0;
  d->weight *= branching;
  d->nodes += d->weight;
  const uint64_t queen =
      nth_lowest_bit(squares, nq__random_below(random_state, (uint64_t)branching));
  const int column = bit_index(queen);
  if (depth == 1)
    d->multiplicity = first_row_weight[column];
  const uint64_t below_ld = ((at->ld | queen) << 1) & board_columns(n);
  const uint64_t below_rd = (at->rd | queen) >> 1, below = at->allowed & ~queen;
  if ((below & ~below_ld & ~below_rd) == 0)
    return 0;
  double started = thread_seconds();
  uint64_t *next = scratch->ruled_out[depth], left = 0;
  uint32_t *next_index = scratch->live_index[depth];
  size_t next_live = narrow(next_index, next, at->index, at->ruled_out, at->live,
                            ruled_out_along_ld(scratch, at->table, at->row, column),
                            ruled_out_along_rd(scratch, at->table, at->row, column), &left);
  const top_table_t *table = at->table;
  if (left > 0 && table->words > 1 && n - 2 - at->row >= JOIN_REPACK_ROWS &&
      left * JOIN_REPACK_DENSITY < next_live * 64 &&
      repack(&scratch->tables[depth], table, next, next_index, &next_live, left, n) == NQ_OK)
    table = &scratch->tables[depth];
  double seconds = thread_seconds() - started;
  d->seconds += d->weight * seconds;
  walked->seconds += seconds;
  *at =
      (descent_node_t){at->row + 1, below, below_ld, below_rd, table, next_index, next, next_live};
  if (left == 0)
    return 0;
  if (table->words == 1) { /* the walk goes to its one-word form here */
    finish_exactly(d, walked, scratch, first_row_weight, at);
    return 0;
  }
  return 1;
}

/* One descent from row m down to `stop_row`, the rest walked exactly. */
static descent_t descend(nq__join_sample_t *walked, bottom_walk_t *walk, uint64_t top_columns,
                         int stop_row, uint64_t *random_state) {
  nq_join_scratch_t *scratch = walk->scratch;
  const top_table_t *bucket = &scratch->tables[0];
  descent_node_t at = {scratch->top_rows, walk->board & ~top_columns, 0, 0, bucket,
                       scratch->live_index[0], scratch->ruled_out[0], bucket->words};
  descent_t d = {.weight = 1.0, .multiplicity = 1.0};
  while (at.row < stop_row) {
    if (cancel_asked(scratch) ||
        !step_down(&d, walked, scratch, walk->first_row_weight, &at, random_state))
      return d;
  }
  finish_exactly(&d, walked, scratch, walk->first_row_weight, &at);
  return d;
}

int nq__join_sample_weighted(nq__join_sample_t *estimate, nq__join_sample_t *walked,
                             nq_join_scratch_t *scratch, int n, int top_rows,
                             uint64_t top_columns, const uint8_t first_row_weight[NQ_JOIN_MAX_N],
                             int exact_rows, int descents, uint64_t *random_state) {
  *estimate = *walked = (nq__join_sample_t){0};
  int stop_row = n - exact_rows;
  if (stop_row <= top_rows || top_rows >= n - 1 || descents < 1) {
    /* Nothing to draw: the bucket exactly, once. */
    uint64_t solutions = 0;
    nq_join_stats_t stats = {0};
    double started = thread_seconds();
    int rc = nq__join_weighted(&solutions, &stats, scratch, n, top_rows, top_columns,
                                 first_row_weight);
    double seconds = thread_seconds() - started;
    *estimate = (nq__join_sample_t){(double)solutions, (double)stats.bottom_nodes, seconds};
    *walked = (nq__join_sample_t){0, (double)stats.bottom_nodes, seconds};
    return rc;
  }
  bottom_walk_t walk;
  double started = thread_seconds();
  int rc = open_bucket(&walk, scratch, n, top_rows, top_columns, first_row_weight);
  const double opening = thread_seconds() - started;
  if (rc != NQ_OK || scratch->tables[0].tops == 0) {
    *estimate = *walked = (nq__join_sample_t){0, 0, opening};
    return rc;
  }
  for (int k = 0; k < descents && !scratch->abandoned; k++) {
    descent_t d = descend(walked, &walk, top_columns, stop_row, random_state);
    estimate->solutions += d.solutions / descents;
    estimate->bottom_nodes += d.nodes / descents;
    estimate->seconds += d.seconds / descents;
  }
  estimate->seconds += opening;
  walked->seconds += opening;
  return scratch->abandoned ? NQ_ESTOPPED : NQ_OK;
}

void nq__join_set_cancel(nq_join_scratch_t *scratch, int (*cancelled)(void *context),
                         void *context) {
  scratch->cancelled = cancelled;
  scratch->cancel_context = context;
}
