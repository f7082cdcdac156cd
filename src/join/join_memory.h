#ifndef NQ_SRC_JOIN_MEMORY_H
#define NQ_SRC_JOIN_MEMORY_H

/* A join scratch's memory (join_memory.c), for the bucket's walk and the
 * tests: what a part and a scratch hold at their worst, and the cap on a
 * part's tops. */

#include <stddef.h>
#include <stdint.h>

#include "join_walk.h"

/* The bytes of a part of `tops` tops at its worst: its table, the
 * survivors' tables at the depths that repack, the walk's stacks. */
size_t nq__join_part_bytes(int n, int top_rows, size_t tops);

/* The bytes the scratch holds now: its quarters, tables and stacks. */
size_t nq__join_scratch_bytes(const nq_join_scratch_t *scratch);

/* The bytes the quarters' lists hold (their capacity). */
size_t nq__join_quarters_bytes(const join_quarters_t *quarters);

/* At most `tops` tops a part from now on, whatever the memory allows; 0
 * restores the default (nq__join_part_cap, join_walk.h): the tests walk
 * small boards in parts this way. */
void nq__join_cap_part_tops(nq_join_scratch_t *scratch, size_t tops);

/* The most bytes a bucket's quarters may take listed whole under the
 * scratch's limit (join_quarters.c): a share of it that leaves a part of
 * 64 tops and the quarters held a group at a time their room; SIZE_MAX
 * without a limit. */
size_t nq__join_whole_quarters_budget(const nq_join_scratch_t *scratch);

/* The most tops the bucket's next part may take within the scratch's
 * limit, once its quarters are held; SIZE_MAX without a limit, and at
 * least 64 (a limit below the quarters and 64 tops is exceeded). */
size_t nq__join_part_most(const nq_join_scratch_t *scratch);

#endif
