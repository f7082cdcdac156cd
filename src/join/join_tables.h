#ifndef NQ_SRC_JOIN_TABLES_H
#define NQ_SRC_JOIN_TABLES_H

/* The join's tables of tops (join_tables.c), for the bucket's walk
 * (join_bucket.c): room for a part's table and the walk's stacks in a
 * scratch, a table's tops transposed into its bitsets, and the survivors
 * of a node packed into a table of their own. */

#include <stddef.h>
#include <stdint.h>

#include "join_walk.h"

/* The words a table of `tops` tops takes: one at least. */
static inline size_t nq__join_table_words(size_t tops) { return tops == 0 ? 1 : (tops + 63) / 64; }

/* Every table and the walk's stacks freed, to be allocated again as a
 * part needs them. */
void nq__join_release_tables(nq_join_scratch_t *scratch);

/* Room for the bitsets of `table`'s tops (join_walk.h).  NQ_ENOMEM. */
int nq__join_reserve_bitsets(top_table_t *table, const nq_join_scratch_t *scratch);

/* Room for `words` live words at each of `depths` depths of the walk.
 * NQ_ENOMEM. */
int nq__join_reserve_stacks(nq_join_scratch_t *scratch, size_t words, int depths);

/* Fills the table's bitsets from its masks, and `ruled_out` with none of
 * its tops ruled out (the padding past the last aside), its live words
 * all, in `live_index`; the queen bitsets for the bottom `columns` still
 * free. */
void nq__join_transpose(top_table_t *table, uint64_t *ruled_out, uint32_t *live_index,
                        const nq_join_scratch_t *scratch, uint64_t columns);

/* The `survivors` tops of `from` left in its *live words, packed into
 * `into` and transposed; the live words then start afresh for `into`.
 * NQ_ENOMEM leaves everything as it was. */
int nq__join_repack(top_table_t *into, const top_table_t *from, uint64_t *ruled_out,
                    uint32_t *live_index, size_t *live, uint64_t survivors,
                    const nq_join_scratch_t *scratch, uint64_t columns);

#endif
