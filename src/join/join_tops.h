#ifndef NQ_SRC_JOIN_TOPS_H
#define NQ_SRC_JOIN_TOPS_H

/* A bucket's tops, built from quarters (join_tops.c), for the bucket's
 * walk and its memory: the quarters listed, their pairs put into a part's
 * table, and the settings the tests reach every split with. */

#include <stddef.h>
#include <stdint.h>

#include "join_walk.h"

/* The tops of the bucket on `top_columns` (scratch's n and top_rows):
 * start readies its quarters; each next_tops then puts the next part of
 * its tops into table 0, untransposed, `most` of them where that many are
 * left, none once all are out.  The quarters' search nodes and the pairs
 * of quarters tried are added to *nodes.  NQ_ENOMEM, NQ_ESTOPPED. */
int nq__join_start_tops(nq_join_scratch_t *scratch, uint64_t *nodes, uint64_t top_columns);
int nq__join_next_tops(nq_join_scratch_t *scratch, uint64_t *nodes, size_t most);

/* At most `groups` groups of quarters for the tops (join_tops.c) from now
 * on; 0 restores the default.  Fewer groups make the upper quarter
 * shorter, down to none (the tops listed row by row) at 1: the tests
 * reach every split on small boards this way. */
void nq__join_limit_quarter_groups(nq_join_scratch_t *scratch, uint32_t groups);

/* The quarters searched bucket by bucket from now on (1), or read from
 * the process's tables where they are kept (0, the default): the tests
 * hold both to the counts. */
void nq__join_private_quarters(nq_join_scratch_t *scratch, int private_quarters);

#endif
