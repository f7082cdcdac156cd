/* The join's tables of tops (join_tables.h): a scratch's memory, a part's
 * or a repack's tops transposed into bitsets, and the survivors of a node
 * packed into a table of their own. */

#include "join_tables.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "bit_transpose.h"
#include "bits.h"
#include "join_runs.h"
#include "join_tops.h"
#include "nqueens/error.h"

int nq_join_scratch_create(nq_join_scratch_t **scratch) {
  *scratch = calloc(1, sizeof **scratch);
  return *scratch == NULL ? NQ_ENOMEM : NQ_OK;
}

/* The tables and the walk's stacks freed, to be allocated again as a
 * part needs them. */
void nq__join_release_tables(nq_join_scratch_t *scratch) {
  for (int d = 0; d < JOIN_MAX_DEPTH; d++) {
    free(scratch->tables[d].ld);
    free(scratch->tables[d].rd);
    free(scratch->tables[d].attacking);
    scratch->tables[d] = (top_table_t){0};
    free(scratch->ruled_out[d]);
    free(scratch->live_index[d]);
    scratch->ruled_out[d] = NULL;
    scratch->live_index[d] = NULL;
  }
  scratch->stack_words = 0;
  scratch->stack_depths = 0;
}

void nq_join_scratch_destroy(nq_join_scratch_t *scratch) {
  if (scratch == NULL)
    return;
  nq__join_release_tables(scratch);
  nq__join_quarters_free(&scratch->quarters);
  free(scratch);
}

/* Room for the bitsets of `table`'s tops (join_walk.h). */
int nq__join_reserve_bitsets(top_table_t *table, const nq_join_scratch_t *scratch) {
  size_t needed = nq__join_bitsets_of_table(scratch->n, scratch->top_rows) *
                  nq__join_bitset_stride(nq__join_table_words(table->tops));
  if (needed <= table->attacking_capacity)
    return NQ_OK;
  free(table->attacking);
  /* On a line of its own (nq__join_bitset_stride); aligned_alloc takes a
   * multiple of the alignment. */
  const size_t line = 64, bytes = needed * sizeof *table->attacking;
  table->attacking = aligned_alloc(line, (bytes + line - 1) / line * line);
  table->attacking_capacity = table->attacking == NULL ? 0 : needed;
  return table->attacking == NULL ? NQ_ENOMEM : NQ_OK;
}

/* Room for `words` live words at each of `depths` depths: no depth holds
 * more than the bucket's. */
int nq__join_reserve_stacks(nq_join_scratch_t *scratch, size_t words, int depths) {
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

/* The completions' queen bitsets (join_walk.h) on the `columns` still free
 * below: the others are never read.  Written only where the fused rows
 * will read them, which one-word tables never reach. */
static void combine_queen_bitsets(top_table_t *table, const nq_join_scratch_t *scratch,
                                  uint64_t columns) {
  const int n = scratch->n, top_rows = scratch->top_rows;
  if (scratch->completions == NULL || table->words == 1)
    return;
  for (uint64_t left = columns; left != 0; left = drop_lowest_bit(left)) {
    const int column = bit_index(lowest_bit(left));
    const int slot = column_rank(scratch->bottom_columns, column);
    for (int j = 0; j < JOIN_COMPLETION_ROWS; j++) {
      const int rows_down = n - JOIN_COMPLETION_ROWS + j - top_rows;
      uint64_t *both = table->attacking + queen_bitset_index(n, top_rows, j, slot) * table->stride;
      const uint64_t *ld =
          table->attacking + ld_bitset_index(n, top_rows, column - rows_down) * table->stride;
      const uint64_t *rd =
          table->attacking + rd_bitset_index(n, top_rows, column + rows_down) * table->stride;
      /* (rd twice: a second helper for two sources would save one load
       * from L1.  The plain loop was scalar and read table->words back
       * after every store, 7% of a Q(22) set's time: docs/performance.md.) */
      or_in_run(scratch, both, ld, rd, rd, table->words);
    }
  }
}

/* Fills the table's bitsets from its masks, and `ruled_out` with none of
 * its tops ruled out, only the padding past the last, so padding never
 * counts as a fit.  The squares off row m (ld squares below 0, rd squares
 * from n on) have empty bitsets; the queen bitsets are written for `columns`. */
void nq__join_transpose(top_table_t *table, uint64_t *ruled_out, uint32_t *live_index,
                        const nq_join_scratch_t *scratch, uint64_t columns) {
  const int n = scratch->n, m = scratch->top_rows, reach = nq__join_bitset_reach(n, m);
  assert(table->tops > 0); /* else the on-board bitsets would stay unwritten */
  size_t words = table->words = nq__join_table_words(table->tops);
  size_t stride = table->stride = nq__join_bitset_stride(words);
  uint64_t *on_board_ld = table->attacking + ld_bitset_index(n, m, 0) * stride;
  uint64_t *on_board_rd = table->attacking + rd_bitset_index(n, m, 0) * stride;
  /* The squares off row m: empty.  The words between a bitset's last and
   * the next one's first are never read (every pass stops at `words`). */
  memset(table->attacking, 0, (size_t)reach * stride * sizeof(uint64_t));
  memset(on_board_rd + (size_t)n * stride, 0, (size_t)reach * stride * sizeof(uint64_t));
  nq__bit_transpose(on_board_ld, stride, table->ld, table->tops, n);
  nq__bit_transpose(on_board_rd, stride, table->rd, table->tops, n);
  combine_queen_bitsets(table, scratch, columns);
  memset(ruled_out, 0, words * sizeof(uint64_t));
  index_in_run(live_index, words);
  if (table->tops % 64 != 0)
    ruled_out[words - 1] = ~board_columns((int)(table->tops % 64));
}

/* The `survivors` tops of `from` left in its *live words, packed into
 * `into` (its queen bitsets for the `columns` still free below); the live
 * words then start afresh for `into`.  NQ_ENOMEM leaves
 * everything as it was: the walk goes on without the repack, slower, not
 * wrong.  (Ordering the packed tops by the next row's queens, so that each
 * queen's survivors share words, was measured and lost: docs/research.md.) */
int nq__join_repack(top_table_t *into, const top_table_t *from, uint64_t *ruled_out,
                    uint32_t *live_index, size_t *live, uint64_t survivors,
                    const nq_join_scratch_t *scratch, uint64_t columns) {
  into->tops = 0;
  /* The gather stores whole registers (NQ_BIT_STORE_SLACK). */
  if (nq__join_reserve_masks(into, survivors + NQ_BIT_STORE_SLACK) != NQ_OK)
    return NQ_ENOMEM;
  into->tops = survivors;
  if (nq__join_reserve_bitsets(into, scratch) != NQ_OK) {
    into->tops = 0;
    return NQ_ENOMEM;
  }
  /* The gather keeps the tops' order, so those counted once stay first. */
  size_t once = survivors;
  if (from->once < from->tops)
    for (size_t k = 0; k < *live; k++)
      once -= (uint64_t)bit_count(~ruled_out[k] & nq__join_twice_in_word(from, live_index[k]));
  into->once = once;
  size_t kept =
      nq__bit_gather_pairs(into->ld, into->rd, from->ld, from->rd, live_index, ruled_out, *live);
  assert(kept == survivors);
  (void)kept;
  nq__join_transpose(into, ruled_out, live_index, scratch, columns);
  *live = into->words;
  return NQ_OK;
}
