/* A bucket of the join sampled for the estimate (nq__join_sample_weighted,
 * join_bucket.h): its tops listed exactly, then Knuth's random paths
 * through its bottom walk, each step the walk's own (join_walk.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bits.h"
#include "cpu_time.h"
#include "join_bucket.h"
#include "join_walk.h"
#include "nqueens/error.h"
#include "random.h"

/* The node a descent stands at: the bottom rows above `row` placed, and
 * the tops they leave. */
typedef struct descent_node {
  int row;
  uint64_t enterable; /* row m: the columns of non-zero weight; below it, all */
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
  double started = nq__thread_seconds();
  if (at->row > scratch->top_rows && at->table->words == 1)
    nq__join_walk_rest_in_one_word(&below, at->table, at->row, at->allowed, at->ld, at->rd,
                          at->ruled_out[0]);
  else
    nq__join_walk_bottom(&below, at->row, at->allowed, at->ld, at->rd, at->table, at->index,
                at->ruled_out, at->live);
  double seconds = nq__thread_seconds() - started;
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
  const int depth = at->row - scratch->top_rows + 1;
  const uint64_t squares = at->allowed & at->enterable & ~at->ld & ~at->rd;
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
  uint64_t below_ld, below_rd;
  nq__join_below(scratch, at->row, queen, at->ld, at->rd, &below_ld, &below_rd);
  const uint64_t below = at->allowed & ~queen;
  if ((below & ~below_ld & ~below_rd) == 0)
    return 0;
  double started = nq__thread_seconds();
  uint64_t *next = scratch->ruled_out[depth], left = 0;
  uint32_t *next_index = scratch->live_index[depth];
  size_t next_live =
      nq__join_narrow(scratch, next_index, next, at->index, at->ruled_out, at->live,
                      nq__join_ruled_out_along_ld(scratch, at->table, at->row, column),
                      nq__join_ruled_out_along_rd(scratch, at->table, at->row, column), &left);
  const top_table_t *table =
      left > 0 && at->table->words > 1
          ? nq__join_repacked(scratch, at->row, at->table, next, next_index, &next_live, left, below)
          : at->table;
  double seconds = nq__thread_seconds() - started;
  d->seconds += d->weight * seconds;
  walked->seconds += seconds;
  *at = (descent_node_t){.row = at->row + 1, .enterable = ~(uint64_t)0, .allowed = below,
                         .ld = below_ld, .rd = below_rd, .table = table, .index = next_index,
                         .ruled_out = next, .live = next_live};
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
  uint64_t weighted = 0; /* row m's columns whose queen counts here */
  for (int c = 0; c < scratch->n; c++)
    if (walk->first_row_weight[c] != 0)
      weighted |= column_bit(c);
  descent_node_t at = {.row = scratch->top_rows, .enterable = weighted,
                       .allowed = walk->board & ~top_columns, .table = bucket,
                       .index = scratch->live_index[0], .ruled_out = scratch->ruled_out[0],
                       .live = bucket->words};
  descent_t d = {.weight = 1.0, .multiplicity = 1.0};
  while (at.row < stop_row) {
    if (nq__join_cancel_asked(scratch) ||
        !step_down(&d, walked, scratch, walk->first_row_weight, &at, random_state))
      return d;
  }
  finish_exactly(&d, walked, scratch, walk->first_row_weight, &at);
  return d;
}

int nq__join_sample_weighted(nq__join_sample_t *estimate, nq__join_sample_t *walked,
                             nq_join_scratch_t *scratch, int n, int top_rows, uint64_t top_columns,
                             const uint8_t first_row_weight[NQ_JOIN_MAX_N], int long_diagonals,
                             int exact_rows, int descents, uint64_t *random_state) {
  *estimate = *walked = (nq__join_sample_t){0};
  /* The walk takes its last JOIN_FUSED_ROWS rows in one step (join_bucket.c),
   * so a path stops above them at the latest. */
  int stop_row = n - (exact_rows > JOIN_FUSED_ROWS ? exact_rows : JOIN_FUSED_ROWS);
  if (stop_row <= top_rows || top_rows >= n - 1 || descents < 1) {
    /* Nothing to draw: the bucket exactly, once. */
    uint64_t solutions = 0;
    nq_join_stats_t stats = {0};
    double started = nq__thread_seconds();
    int rc = nq__join_weighted(&solutions, &stats, scratch, n, top_rows, top_columns,
                               first_row_weight, long_diagonals);
    double seconds = nq__thread_seconds() - started;
    *estimate = (nq__join_sample_t){(double)solutions, (double)stats.bottom_nodes, seconds};
    *walked = (nq__join_sample_t){0, (double)stats.bottom_nodes, seconds};
    return rc;
  }
  bottom_walk_t walk;
  double started = nq__thread_seconds();
  int rc = nq__join_open_bucket(&walk, scratch, n, top_rows, top_columns, first_row_weight,
                                long_diagonals);
  double listing = nq__thread_seconds() - started;
  /* Each part of the bucket's tops is sampled as a bucket of its own: the
   * sum of their estimates is the bucket's. */
  while (rc == NQ_OK && !scratch->abandoned) {
    started = nq__thread_seconds();
    rc = nq__join_next_part(&walk);
    listing += nq__thread_seconds() - started;
    if (rc != NQ_OK || scratch->tables[0].tops == 0)
      break;
    for (int k = 0; k < descents && !scratch->abandoned; k++) {
      descent_t d = descend(walked, &walk, top_columns, stop_row, random_state);
      estimate->solutions += d.solutions / descents;
      estimate->bottom_nodes += d.nodes / descents;
      estimate->seconds += d.seconds / descents;
    }
  }
  estimate->seconds += listing;
  walked->seconds += listing;
  return rc != NQ_OK ? rc : scratch->abandoned ? NQ_ESTOPPED : NQ_OK;
}
