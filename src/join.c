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

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bit_transpose.h"
#include "bits.h"
#include "grow.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "random.h"
#include "totals.h"

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
};

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
  int code = reserve_masks(bucket, bucket->tops + 1);
  if (code != NQ_OK)
    return code;
  bucket->ld[bucket->tops] = ld;
  bucket->rd[bucket->tops] = rd;
  bucket->tops++;
  return NQ_OK;
}

/* Every placement of rows row..m-1 on the columns `allowed` (one for each
 * of those rows), one queen a row; each complete one is stored with its
 * attacks on row m.  The last row has one column left, so it needs no
 * loop and no call. */
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
  for (uint64_t free_squares = allowed & ~ld & ~rd; free_squares != 0;
       free_squares = drop_lowest_bit(free_squares)) {
    uint64_t queen = lowest_bit(free_squares);
    ++*nodes;
    int code = collect_tops(scratch, nodes, row + 1, allowed & ~queen,
                            ((ld | queen) << 1) & board, (rd | queen) >> 1);
    if (code != NQ_OK)
      return code;
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
      fitting += (uint64_t)bit_count(~(ruled_out[k] | by_ld[w] | by_rd[w] | last_ld[w] | last_rd[w]));
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

/* Sum over the queens c of row m of first_row_weight[c] times the
 * solutions with top columns `top_columns` and that queen. */
static int join_weighted(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                         int n, int top_rows, uint64_t top_columns,
                         const uint8_t first_row_weight[NQ_JOIN_MAX_N]) {
  scratch->n = n;
  scratch->top_rows = top_rows;
  top_table_t *bucket = &scratch->tables[0];
  bucket->tops = 0;
  bottom_walk_t walk = {
      .scratch = scratch, .first_row_weight = first_row_weight, .board = board_columns(n)};
  int code = collect_tops(scratch, &walk.stats.top_nodes, 0, top_columns, 0, 0);
  if (code == NQ_OK)
    code = reserve_bitsets(bucket, n);
  if (code == NQ_OK)
    code = reserve_stacks(scratch, words_for(bucket->tops), n - top_rows + 1);
  if (code != NQ_OK)
    return code;
  walk.stats.buckets = 1;
  walk.stats.tops = walk.stats.max_tops = bucket->tops;
  if (bucket->tops > 0) {
    transpose(bucket, scratch->ruled_out[0], scratch->live_index[0], n);
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
  return NQ_OK;
}

int nq_join_bucket(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                   int n, int top_rows, uint64_t top_columns) {
  if (n < 1 || n > NQ_JOIN_MAX_N || top_rows < 1 || top_rows >= n ||
      (top_columns & ~board_columns(n)) != 0 || bit_count(top_columns) != top_rows)
    return NQ_EINVAL;
  uint8_t every_queen[NQ_JOIN_MAX_N];
  memset(every_queen, 1, sizeof every_queen);
  return join_weighted(solutions, stats, scratch, n, top_rows, top_columns, every_queen);
}

static uint64_t mirrored(uint64_t columns, int n) {
  uint64_t mirror = 0;
  for (int c = 0; c < n; c++)
    if (columns & column_bit(c))
      mirror |= column_bit(n - 1 - c);
  return mirror;
}

/* How many members the orbit of `members[0]` has, or 0 when it is not the
 * least of them (pairs compare as (set, column), lexicographically). */
typedef struct set_and_queen {
  uint64_t columns;
  int middle; /* the middle row's queen, or -1 */
} set_and_queen_t;

static int is_before(set_and_queen_t a, set_and_queen_t b) {
  return a.columns < b.columns || (a.columns == b.columns && a.middle < b.middle);
}

static int orbit_size(const set_and_queen_t *members, int count) {
  int distinct = 0;
  for (int i = 0; i < count; i++) {
    if (is_before(members[i], members[0]))
      return 0;
    int seen = 0;
    for (int j = 0; j < i; j++)
      seen |= members[j].columns == members[i].columns && members[j].middle == members[i].middle;
    distinct += !seen;
  }
  return distinct;
}

/* The weight of each queen c of row m for the top columns S: how many
 * (column set, queen) pairs it stands for, 0 where another pair of its
 * orbit counts them.  The left-right mirror maps the solutions with top
 * columns S and queen c on row m to those with mirror(S) and n-1-c.  The
 * up-down flip maps them to those with top columns the bottom's: when the
 * top is half the board, the complement of S (any c); when a middle row
 * m = (n-1)/2 separates two halves, the columns neither S nor c hold, and
 * the same c.  Returns 1 when some weight is not 0. */
static int first_row_weights(uint8_t weight[NQ_JOIN_MAX_N], uint64_t columns, int n, int top_rows) {
  uint64_t board = board_columns(n);
  int any = 0;
  memset(weight, 0, NQ_JOIN_MAX_N);
  if (2 * top_rows + 1 != n) {
    set_and_queen_t orbit[4] = {{columns, -1}, {mirrored(columns, n), -1}};
    int count = 2;
    if (2 * top_rows == n) {
      orbit[2] = (set_and_queen_t){board & ~columns, -1};
      orbit[3] = (set_and_queen_t){mirrored(board & ~columns, n), -1};
      count = 4;
    }
    int size = orbit_size(orbit, count);
    for (int c = 0; c < n; c++)
      weight[c] = (uint8_t)size;
    return size != 0;
  }
  for (int c = 0; c < n; c++) {
    if (columns & column_bit(c))
      continue;
    uint64_t bottom = board & ~columns & ~column_bit(c);
    set_and_queen_t orbit[4] = {{columns, c},
                                {mirrored(columns, n), n - 1 - c},
                                {bottom, c},
                                {mirrored(bottom, n), n - 1 - c}};
    weight[c] = (uint8_t)orbit_size(orbit, 4);
    any |= weight[c] != 0;
  }
  return any;
}

/* The next larger set with as many columns (Gosper's hack); the caller
 * stops once it passes the board. */
static uint64_t next_same_size(uint64_t set) {
  uint64_t low = lowest_bit(set), ripple = set + low;
  return ripple | (((set ^ ripple) >> 2) / low);
}

typedef struct canonical_bucket {
  uint64_t columns;
} canonical_bucket_t;

/* This rank's canonical buckets: the k-th canonical set goes to rank
 * k mod ranks. */
static int list_buckets(canonical_bucket_t **out, size_t *count, int n, int top_rows, int rank,
                        int ranks) {
  size_t capacity = 0, listed = 0, seen = 0;
  canonical_bucket_t *buckets = NULL;
  uint64_t board = board_columns(n);
  for (uint64_t set = board_columns(top_rows); set <= board && set != 0;
       set = next_same_size(set)) {
    uint8_t weight[NQ_JOIN_MAX_N];
    if (!first_row_weights(weight, set, n, top_rows) || seen++ % (size_t)ranks != (size_t)rank)
      continue;
    if (nq__grow((void **)&buckets, &capacity, listed + 1, sizeof *buckets) != NQ_OK) {
      free(buckets);
      return NQ_ENOMEM;
    }
    buckets[listed++] = (canonical_bucket_t){set};
  }
  *out = buckets;
  *count = listed;
  return NQ_OK;
}

/* The rank's buckets in an order drawn at random, the same on every run:
 * in the order listed, the first buckets are cheaper than the rest, so
 * progress counted in buckets ran ahead of the work and the ETA read about
 * half the time left.  In a random order, the share of buckets done
 * estimates the share of work done. */
static void shuffle_buckets(canonical_bucket_t *buckets, size_t count) {
  uint64_t state = 0x6a6f696e; /* any fixed seed */
  for (size_t i = count; i > 1; i--) {
    size_t j = (size_t)(nq__random_next(&state) % i);
    canonical_bucket_t swapped = buckets[i - 1];
    buckets[i - 1] = buckets[j];
    buckets[j] = swapped;
  }
}

/* A bucket's weighted count as a unit result: the totals of src/totals.c
 * then keep the sum and, apart from it, its residues, which rank 0 checks
 * the assembled total against. */
static void add_bucket(nq__totals_t *totals, uint64_t solutions) {
  const nq_unit_result_t bucket = {.solutions = solutions, .weight = 1};
  nq__totals_add(totals, &bucket);
}

/* A rank's buckets, taken one at a time by its threads; a thread that
 * fails or stops raises `abandoned`, and the others take no more. */
typedef struct join_share {
  const canonical_bucket_t *buckets;
  size_t count;
  atomic_size_t next, finished;
  atomic_int abandoned;
  const nq_join_options_t *options;
  int top_rows;
  double started, next_report; /* progress: MPI_Wtime, read by thread 0 (the
                                   caller's, MPI's own thread) alone */
} join_share_t;

typedef struct join_thread {
  join_share_t *share;
  pthread_t thread;
  int reports; /* this thread calls the progress function */
  nq__totals_t totals;
  nq_join_stats_t stats;
  int code;
} join_thread_t;

static void report_progress(join_share_t *share, int final) {
  const nq_join_options_t *options = share->options;
  double now = MPI_Wtime();
  if (!final && now < share->next_report)
    return;
  share->next_report = now + options->progress_seconds;
  options->progress(atomic_load(&share->finished), share->count, now - share->started, final,
                    options->progress_context);
}

static void *join_thread_main(void *argument) {
  join_thread_t *self = argument;
  join_share_t *share = self->share;
  const int n = share->options->n;
  nq_join_scratch_t *scratch = NULL;
  self->code = nq_join_scratch_create(&scratch);
  volatile sig_atomic_t *stop = share->options->stop;
  for (size_t i; self->code == NQ_OK && (i = atomic_fetch_add(&share->next, 1)) < share->count;) {
    if (atomic_load(&share->abandoned))
      break;
    if (stop != NULL && *stop) {
      self->code = NQ_ESTOPPED;
      break;
    }
    uint64_t bucket_solutions = 0, columns = share->buckets[i].columns;
    uint8_t weight[NQ_JOIN_MAX_N];
    first_row_weights(weight, columns, n, share->top_rows);
    self->code = join_weighted(&bucket_solutions, &self->stats, scratch, n, share->top_rows,
                               columns, weight);
    add_bucket(&self->totals, bucket_solutions);
    atomic_fetch_add(&share->finished, 1);
    if (self->reports)
      report_progress(share, 0);
  }
  if (self->code != NQ_OK)
    atomic_store(&share->abandoned, 1);
  nq_join_scratch_destroy(scratch);
  return NULL;
}

/* Runs the rank's buckets on its threads (the caller's among them, the one
 * that reports progress). */
static int join_on_threads(nq__totals_t *totals, nq_join_stats_t *stats, join_share_t *share,
                           int threads) {
  join_thread_t *team = calloc((size_t)threads, sizeof *team);
  if (team == NULL)
    return NQ_ENOMEM;
  int started = 1, code = NQ_OK;
  for (int t = 0; t < threads; t++) {
    team[t].share = share;
    nq__totals_init(&team[t].totals);
  }
  team[0].reports = share->options->progress != NULL;
  for (; started < threads; started++)
    if (pthread_create(&team[started].thread, NULL, join_thread_main, &team[started]) != 0) {
      code = NQ_ENOMEM;
      break;
    }
  join_thread_main(&team[0]);
  for (int t = 0; t < started; t++) {
    if (t > 0)
      pthread_join(team[t].thread, NULL);
    if (team[t].code != NQ_OK)
      code = team[t].code;
    nq__totals_merge(totals, &team[t].totals);
    add_stats(stats, &team[t].stats);
  }
  for (int t = 0; t < threads; t++)
    nq__totals_clear(&team[t].totals);
  if (team[0].reports)
    report_progress(share, 1);
  free(team);
  return code;
}

static int join_rank(nq__totals_t *totals, nq_join_stats_t *stats, const nq_join_options_t *options,
                     int top_rows, int rank, int ranks) {
  canonical_bucket_t *buckets = NULL;
  size_t count = 0;
  int code = list_buckets(&buckets, &count, options->n, top_rows, rank, ranks);
  if (code != NQ_OK)
    return code;
  shuffle_buckets(buckets, count);
  join_share_t share = {.buckets = buckets, .count = count, .options = options,
                        .top_rows = top_rows};
  atomic_init(&share.next, 0);
  atomic_init(&share.finished, 0);
  atomic_init(&share.abandoned, 0);
  share.started = share.next_report = MPI_Wtime();
  share.next_report += options->progress_seconds;
  code = join_on_threads(totals, stats, &share, options->threads < 1 ? 1 : options->threads);
  free(buckets);
  return code;
}

/* The stats that add up over ranks (max_tops is a maximum). */
enum { STAT_FIELDS = 7 };

static void stats_to_words(uint64_t words[STAT_FIELDS], const nq_join_stats_t *stats) {
  const uint64_t fields[STAT_FIELDS] = {stats->buckets,      stats->tops,  stats->top_nodes,
                                        stats->bottom_nodes, stats->words, stats->pruned,
                                        stats->repacks};
  memcpy(words, fields, sizeof fields);
}

static int reduce_stats(nq_join_stats_t *stats, MPI_Comm comm) {
  uint64_t sums[STAT_FIELDS], summed[STAT_FIELDS] = {0}, largest = 0;
  stats_to_words(sums, stats);
  NQ_MPI_CHECK(comm, MPI_Reduce(sums, summed, STAT_FIELDS, MPI_UINT64_T, MPI_SUM, 0, comm));
  NQ_MPI_CHECK(comm, MPI_Reduce(&stats->max_tops, &largest, 1, MPI_UINT64_T, MPI_MAX, 0, comm));
  *stats = (nq_join_stats_t){.buckets = summed[0],      .tops = summed[1],
                             .top_nodes = summed[2],    .bottom_nodes = summed[3],
                             .words = summed[4],        .pruned = summed[5],
                             .repacks = summed[6],      .max_tops = largest};
  return NQ_OK;
}

/* A rank's totals on the wire: the solutions in 128 bits (two words), then
 * their residues. */
enum { SUM_WORDS = 2 + NQ_COUNT_RESIDUES };

static int pack_totals(uint64_t words[SUM_WORDS], const nq__totals_t *totals) {
  unsigned __int128 solutions = 0;
  int code = nq__totals_to_u128(&solutions, totals->solutions);
  uint32_t residues[NQ_COUNT_RESIDUES];
  nq__totals_residues(residues, totals);
  words[0] = (uint64_t)solutions;
  words[1] = (uint64_t)(solutions >> 64);
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    words[2 + i] = residues[i];
  return code;
}

/* Rank 0's total from every rank's words; NQ_ECHECK when the big integer
 * disagrees with the residues summed apart from it. */
static int assemble_total(mpz_t total, const uint64_t *all, int ranks) {
  nq__totals_t sum, part;
  nq__totals_init(&sum);
  nq__totals_init(&part);
  for (int r = 0; r < ranks; r++) {
    const uint64_t *words = all + (size_t)r * SUM_WORDS;
    nq__totals_from_u128(part.solutions, (unsigned __int128)words[1] << 64 | words[0]);
    for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
      part.residues[i] = (uint32_t)words[2 + i];
    nq__totals_merge(&sum, &part);
  }
  int code = nq__totals_check_residues(&sum);
  mpz_set(total, sum.solutions);
  nq__totals_clear(&part);
  nq__totals_clear(&sum);
  return code;
}

/* Sums every rank's share on rank 0, and the stats.  The code is rank 0's
 * on every rank. */
static int gather_on_rank0(mpz_t total, nq_join_stats_t *stats, const nq__totals_t *totals,
                           MPI_Comm comm) {
  int rank, ranks;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &ranks));
  uint64_t mine[SUM_WORDS];
  int packed = pack_totals(mine, totals), code = NQ_OK;
  NQ_MPI_CHECK(comm, MPI_Allreduce(&packed, &code, 1, MPI_INT, MPI_MIN, comm));
  uint64_t *all = rank == 0 ? malloc(SUM_WORDS * (size_t)ranks * sizeof *all) : NULL;
  if (code == NQ_OK && rank == 0 && all == NULL)
    code = NQ_ENOMEM;
  NQ_MPI_CHECK(comm, MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  if (code == NQ_OK) {
    NQ_MPI_CHECK(comm,
                 MPI_Gather(mine, SUM_WORDS, MPI_UINT64_T, all, SUM_WORDS, MPI_UINT64_T, 0, comm));
    code = reduce_stats(stats, comm);
  }
  if (code == NQ_OK && rank == 0)
    code = assemble_total(total, all, ranks);
  free(all);
  NQ_MPI_CHECK(comm, MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  return code;
}

int nq_join_count(mpz_t solutions, nq_join_stats_t *stats, const nq_join_options_t *options,
                  MPI_Comm comm) {
  int rank, ranks;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &ranks));
  const int n = options->n;
  const int top_rows = options->top_rows == 0 ? nq_join_default_top_rows(n) : options->top_rows;
  if (n < 0 || n > NQ_JOIN_MAX_N || options->threads < 0 || options->threads > 4096 ||
      (n >= 2 && (top_rows < 1 || top_rows >= n)))
    return NQ_EINVAL;
  nq_join_options_t mine = *options;
  if (rank != 0)
    mine.progress = NULL;
  nq_join_stats_t rank_stats = {0};
  nq__totals_t totals;
  nq__totals_init(&totals);
  int code = NQ_OK, agreed = NQ_OK;
  if (n < 2) {
    /* No row to cut: the empty board and the lone queen. */
    if (rank == 0)
      add_bucket(&totals, 1);
  } else {
    code = join_rank(&totals, &rank_stats, &mine, top_rows, rank, ranks);
  }
  int mpi_code = MPI_Allreduce(&code, &agreed, 1, MPI_INT, MPI_MIN, comm);
  if (mpi_code != MPI_SUCCESS) {
    nq__mpi_report(mpi_code, "MPI_Allreduce", __FILE__, __LINE__, comm);
    agreed = NQ_EMPI;
  }
  if (agreed == NQ_OK)
    agreed = gather_on_rank0(solutions, &rank_stats, &totals, comm);
  if (agreed == NQ_OK && stats != NULL && rank == 0)
    *stats = rank_stats;
  nq__totals_clear(&totals);
  return agreed;
}
