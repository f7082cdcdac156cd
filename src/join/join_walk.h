#ifndef NQ_SRC_JOIN_WALK_H
#define NQ_SRC_JOIN_WALK_H

/* The join's bucket walk inside (join_bucket.c), shared with its sampled form
 * (join_sample.c): the tables of tops, the scratch memory, and the steps
 * of the bottom walk.  Nothing outside src/join/ sees these. */

#include <stddef.h>
#include <stdint.h>

#include "bit_count.h"
#include "bits.h"
#include "join_completions.h"
#include "join_quarters.h"
#include "nqueens/join.h"

/* Survivors move to a table of their own only where at least
 * JOIN_REPACK_ROWS rows lie below the child: a repack costs a pass over
 * every survivor's masks, repaid only by a large subtree.  At the last row
 * that may repack, when they fill less than 1 / JOIN_REPACK_SPARSE of their
 * live words; above it, where a subtree is several times larger a row up,
 * whenever any top was ruled out.  A repacked table holds at most 1 /
 * JOIN_REPACK_SHARE (at the last row) or 1 / JOIN_REPACK_SHARE_ABOVE of
 * the part's room, what the memory bound reckons (join_memory.c); the
 * tuning runs are in docs/research.md and docs/performance.md. */
enum {
  JOIN_REPACK_ROWS = 6,
  JOIN_REPACK_SPARSE = 4,
  JOIN_REPACK_SHARE = 4,
  JOIN_REPACK_SHARE_ABOVE = 2
};

/* The rule for a queen on one row: repack survivors that fill less than 1 /
 * sparse of their live words and are at most 1 / share of the part's
 * room; share 0 where they never are.  The walk asks where it may repack
 * (nq__join_repacked), the memory bound once a depth. */
typedef struct repack_rule {
  uint64_t sparse, share;
} repack_rule_t;

/* The most tops a part of board n takes, however much memory its scratch
 * may have.  From n = 25, where a set's tops pass a few million, a set
 * walked in parts took less time than whole, though every part walks the
 * bottom again: a part's tables, read at every node of the walk's first
 * rows, stay nearer the core.  The fastest measured were 2^(n - 4) tops at
 * n = 25 and 26 and 2^(n - 5) at 27 and 28 (whole sets, a part size on
 * both cores at once); half or twice that cost a few percent more, and
 * below n = 25 any split did (docs/performance.md has the runs). */
enum { JOIN_PART_CAP_FROM_N = 25, JOIN_PART_CAP_SHIFT = 4, JOIN_PART_CAP_HALVED_FROM_N = 27 };
static inline size_t nq__join_part_cap(int n) {
  if (n < JOIN_PART_CAP_FROM_N)
    return SIZE_MAX;
  return (size_t)1 << (n - JOIN_PART_CAP_SHIFT - (n >= JOIN_PART_CAP_HALVED_FROM_N));
}

/* A narrowing of words all live keeps them all, full ones too, unless
 * more than 1 / JOIN_FULL_WORDS_KEPT of them are full (join_bucket.c). */
enum { JOIN_FULL_WORDS_KEPT = 8 };

static inline repack_rule_t nq__join_repack_rule(int n, int row) {
  const int rows_below_child = n - 2 - row;
  if (rows_below_child < JOIN_REPACK_ROWS)
    return (repack_rule_t){.sparse = 0, .share = 0};
  if (rows_below_child == JOIN_REPACK_ROWS)
    return (repack_rule_t){.sparse = JOIN_REPACK_SPARSE, .share = JOIN_REPACK_SHARE};
  return (repack_rule_t){.sparse = 1, .share = JOIN_REPACK_SHARE_ABOVE};
}

/* Whether `left` tops in `live` words, in a part of `part_words`, move to a
 * table of their own under `rule`. */
static inline int nq__join_repack_pays(repack_rule_t rule, uint64_t left, size_t live,
                                       size_t part_words) {
  return rule.share != 0 && left * rule.sparse < (uint64_t)live * 64 &&
         left * rule.share <= (uint64_t)part_words * 64;
}

/* A set of top halves, as masks on row m and transposed: bit t of the
 * bitset of ld square p is set when top t attacks square p along ld. */
typedef struct top_table {
  uint32_t *ld, *rd; /* n <= 32 squares */
  size_t tops, words;
  /* Words from one bitset to the next (nq__join_bitset_stride). */
  size_t stride;
  size_t once; /* tops [0, once) count once; those after, on one long diagonal,
                  twice under a bottom on the other (the long-diagonal rule) */
  size_t capacity, attacking_capacity; /* allocated: tops, and words of attacking */
  uint64_t *attacking; /* bitsets of `words` words, `stride` apart: ld
                          square p of row m and rd square p, on the row and
                          as far off it as a bottom queen's diagonals reach
                          (nq__join_bitset_reach), those off it empty, so a
                          queen needs no test; then the completions' queen
                          bitsets (queen_bitset_index) */
} top_table_t;

/* Words from one bitset to the next for a table of `words`: a power of
 * two up to 8, then a multiple of 8, so that with the bitsets' start on a
 * 64-byte line no bitset's block of eight words (an AVX-512 load) spans
 * two lines. */
static inline size_t nq__join_bitset_stride(size_t words) {
  if (words <= 2)
    return words;
  if (words <= 4)
    return 4;
  return (words + 7) & ~(size_t)7;
}

/* How far off row m (top_rows) a bottom queen's diagonals cross it: a
 * queen r - m rows below square c crosses ld square c - (r - m) and rd
 * square c + (r - m), so at most n - 1 - m squares past either end.
 * Empty bitsets up to there and no further: each is memory a part's tops
 * lack and a clearing at every repack. */
static inline int nq__join_bitset_reach(int n, int top_rows) { return n - 1 - top_rows; }

/* ld squares -reach .. n - 1 from 0, then rd squares 0 .. n - 1 + reach. */
static inline size_t ld_bitset_index(int n, int top_rows, int square) {
  return (size_t)(nq__join_bitset_reach(n, top_rows) + square);
}
static inline size_t rd_bitset_index(int n, int top_rows, int square) {
  return (size_t)(nq__join_bitset_reach(n, top_rows) + n + square);
}
/* How many ld and rd bitsets a table has, on the row and off it. */
static inline size_t diagonal_bitsets(int n, int top_rows) {
  return (size_t)(2 * n + 2 * nq__join_bitset_reach(n, top_rows));
}
/* After the diagonals', one bitset a queen of the fused rows'
 * completions: for row j of the last JOIN_COMPLETION_ROWS and the
 * bottom's column of rank `slot` (the bucket's bottom columns in order),
 * its ld and rd bitsets ORed, so that a completion ORs five bitsets, not
 * ten. */
static inline size_t queen_bitset_index(int n, int top_rows, int j, int slot) {
  return diagonal_bitsets(n, top_rows) + (size_t)(j * (n - top_rows) + slot);
}
static inline size_t nq__join_bitsets_of_table(int n, int top_rows) {
  return queen_bitset_index(n, top_rows, JOIN_COMPLETION_ROWS, 0);
}

/* The bottom walk counts its last JOIN_FUSED_ROWS rows in one pass over
 * the live words for each completion, without narrowing in between; a
 * sampled path must not draw inside them. */
enum { JOIN_FUSED_ROWS = JOIN_COMPLETION_ROWS + 1 };

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
  uint64_t bottom_columns; /* the bucket's */
  /* The long-diagonal rule holds for the bucket in hand (join_bucket.c): the
   * bottom walk then closes the other long diagonal under a queen on one. */
  int long_diagonals;
  /* Asked before each queen of the bottom walk's first rows
   * (cancel_depths; nq__join_set_cancel); NULL: a bucket runs to its end. */
  int (*cancelled)(void *context);
  void *cancel_context;
  int cancel_countdown; /* entries until the hook is asked again */
  int cancel_depth;     /* the deepest bottom row that asks (cancel_depths) */
  int abandoned;        /* the bucket in hand was abandoned */
  join_quarters_t quarters; /* the tops' quarters (join_tops.c) */
  const join_completions_t *completions; /* board n's, shared; NULL: none used */
  size_t memory_limit;      /* bytes (nq_join_scratch_limit); 0: none */
  size_t part_cap;          /* the most tops a part takes; 0: nq__join_part_cap */
  /* The fused rows' fitting completions, as the bitsets each ORs, in the
   * order selected: those counted once, then those that may count twice
   * (join_bucket.c); here, not on the walk's stack, which every depth of it
   * would carry. */
  nq_bit_sets_t completion_sets[JOIN_MOST_COMPLETIONS];
};

/* The walk's constants for one bucket, and what it adds up. */
typedef struct bottom_walk {
  nq_join_scratch_t *scratch;
  const uint8_t *first_row_weight; /* per column of row m: how many column
                                      sets and middle queens the subtree
                                      stands for (0: another's to count) */
  uint64_t board;
  uint64_t solutions;
  int overflowed; /* a sum or a weight went past 64 bits: the count is void */
  nq_join_stats_t stats;
} bottom_walk_t;

/* What the walk found since `before`, taken `weight` times, with the carry
 * checked: a bucket's count is a share of Q(n), and Q(n) passes 2^64
 * before n = 32.  Every bottom queen's subtree ends here, so the sums
 * inside one (plain adds, each far below 2^64: the deepest subtree is a
 * row or two) need no check of their own: where one wraps walk->solutions,
 * the difference from `before` is still the true one, and the add below
 * carries. */
static inline void nq__join_weigh_since(bottom_walk_t *walk, uint64_t before, uint64_t weight) {
  uint64_t weighed;
  int wrapped = __builtin_mul_overflow(walk->solutions - before, weight, &weighed);
  wrapped |= __builtin_add_overflow(before, weighed, &walk->solutions);
  walk->overflowed |= wrapped;
}

/* What a bottom queen at `column` of `row` rules out: the tops attacking
 * the squares of row m its two diagonals cross. */
static inline const uint64_t *nq__join_ruled_out_along_ld(
    const nq_join_scratch_t *scratch, const top_table_t *table, int row, int column) {
  int square = column - (row - scratch->top_rows);
  return table->attacking + ld_bitset_index(scratch->n, scratch->top_rows, square) * table->stride;
}

static inline const uint64_t *nq__join_ruled_out_along_rd(
    const nq_join_scratch_t *scratch, const top_table_t *table, int row, int column) {
  int square = column + (row - scratch->top_rows);
  return table->attacking + rd_bitset_index(scratch->n, scratch->top_rows, square) * table->stride;
}

/* The diagonals of the row below a bottom queen at `row`.  Under the
 * long-diagonal rule a queen on one of the board's two longest diagonals
 * also closes the other, as if a queen stood on it: a bottom holding both
 * is another pair's to count (join_bucket.c has the rule). */
static inline void nq__join_below(const nq_join_scratch_t *scratch, int row, uint64_t queen,
                                  uint64_t ld, uint64_t rd, uint64_t *below_ld,
                                  uint64_t *below_rd) {
  const int n = scratch->n;
  const uint64_t rule = (uint64_t)scratch->long_diagonals;
  const uint64_t on_main = rule & (queen == column_bit(row));
  const uint64_t on_anti = rule & (queen == column_bit(n - 1 - row));
  *below_ld = (((ld | queen) << 1) | (on_anti << (row + 1))) & board_columns(n);
  *below_rd = ((rd | queen) >> 1) | ((on_main << (n - 1 - row)) >> 1);
}

/* Whether the bottom down to a queen at `row` (ld and rd the diagonals
 * its rows above hold there) has a queen on a long diagonal: the main one
 * is column `row` of ld, the other column n - 1 - row of rd, and under the
 * rule either queen marks both.  Only the long-diagonal rule asks. */
static inline uint64_t nq__join_on_long_diagonal(int n, int row, uint64_t queen, uint64_t ld,
                                                 uint64_t rd) {
  return (((ld | queen) >> row) | ((rd | queen) >> (n - 1 - row))) & 1;
}

/* The tops of word w of `table` that count twice under a bottom on a
 * long diagonal: those from table->once on. */
static inline uint64_t nq__join_twice_in_word(const top_table_t *table, size_t w) {
  const size_t first = 64 * w;
  if (first + 64 <= table->once)
    return 0;
  if (first >= table->once)
    return ~(uint64_t)0;
  return ~(uint64_t)0 << (table->once - first);
}

/* What the tops `fits` of word w of `table` count: one each, and those
 * after table->once one more where `twice` (the bottom on a long
 * diagonal). */
static inline uint64_t nq__join_counted(const top_table_t *table, size_t w, uint64_t fits,
                                        int twice) {
  return (uint64_t)bit_count(fits) +
         (twice ? (uint64_t)bit_count(fits & nq__join_twice_in_word(table, w)) : 0);
}

/* Where a top on a long diagonal attacks row m (top_rows): the main one
 * (r = c) at ld square m, the other (r + c = n - 1) at rd square
 * n - 1 - m; the pairing and the ordering of a part's tops both ask. */
static inline uint64_t nq__join_main_diagonal_square(int top_rows) { return column_bit(top_rows); }
static inline uint64_t nq__join_anti_diagonal_square(int n, int top_rows) {
  return column_bit(n - 1 - top_rows);
}

/* Whether the bucket in hand is abandoned: the cancel hook's answer,
 * asked once in a while (join_bucket.c has the rule). */
int nq__join_cancel_asked(nq_join_scratch_t *scratch);

/* Room in `table` for `tops` masks, keeping those it holds. */
int nq__join_reserve_masks(top_table_t *table, size_t tops);

/* Opens the bucket: the walk's constants, its quarters listed and no top
 * yet; the long-diagonal rule held where asked and the cut allows it.
 * NQ_ENOMEM, NQ_ESTOPPED. */
int nq__join_open_bucket(bottom_walk_t *walk, nq_join_scratch_t *scratch, int n, int top_rows,
                         uint64_t top_columns, const uint8_t first_row_weight[NQ_JOIN_MAX_N],
                         int long_diagonals);

/* The bucket's next part of tops (nq__join_part_most) transposed: the walk's table 0
 * and its live words at depth 0; no top once the bucket is done.  Its
 * counters go to walk->stats.  NQ_ENOMEM, NQ_ESTOPPED. */
int nq__join_next_part(bottom_walk_t *walk);

/* Every part of the opened bucket against every bottom half, its
 * solutions added to walk->solutions (walk->overflowed past 64 bits).
 * NQ_ENOMEM, NQ_ESTOPPED. */
int nq__join_walk_parts(bottom_walk_t *walk, uint64_t top_columns);

/* The live words once a queen's two bitsets (by_ld, by_rd) join them;
 * words left full drop out, except where every word of the table was
 * live and few became full (JOIN_FULL_WORDS_KEPT): all then stay.
 * Returns how many stay, the tops left in *left. */
size_t nq__join_narrow(const nq_join_scratch_t *scratch, uint32_t *next_index, uint64_t *next,
                       const uint32_t *index, const uint64_t *ruled_out, size_t live,
                       const uint64_t *by_ld, const uint64_t *by_rd, uint64_t *left);

/* The table to go on with below a queen on `row` that left `survivors`
 * tops of `from` in its *live words: where the repack rule says a repack
 * pays, the table of the child's depth, the survivors packed into it and
 * its queen bitsets written for the `columns` still free below; else, or
 * where memory for it runs short (slower, not wrong), `from`.  The walk
 * and the estimate's descents both decide here, so a descent follows the
 * walk's path. */
const top_table_t *nq__join_repacked(nq_join_scratch_t *scratch, int row, const top_table_t *from,
                                     uint64_t *ruled_out, uint32_t *live_index, size_t *live,
                                     uint64_t survivors, uint64_t columns);

/* Below `row`, with the tops of the one-word `table` outside ruled_out. */
void nq__join_walk_rest_in_one_word(bottom_walk_t *walk, const top_table_t *table, int row,
                                    uint64_t allowed, uint64_t ld, uint64_t rd,
                                    uint64_t ruled_out);

/* The bottom rows from `row` (above the last) down, inside `allowed`,
 * with the tops of `table` in its `live` words still fitting. */
void nq__join_walk_bottom(bottom_walk_t *walk, int row, uint64_t allowed, uint64_t ld,
                          uint64_t rd, const top_table_t *table, const uint32_t *index,
                          const uint64_t *ruled_out, size_t live);

#endif
