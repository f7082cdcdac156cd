/* What the join's files below its walk share of a scratch: the cancel
 * hook, asked once in a while, and room for a table's masks. */

#include "grow.h"
#include "join_walk.h"
#include "nqueens/error.h"

/* Asked once in CANCEL_EVERY calls: the walk asks at each node of its
 * first rows (join_bucket.c), the quarters' pairing at each group. */
enum { CANCEL_EVERY = 64 };

int nq__join_cancel_asked(nq_join_scratch_t *scratch) {
  if (scratch->abandoned || scratch->cancelled == NULL || --scratch->cancel_countdown > 0)
    return scratch->abandoned;
  scratch->cancel_countdown = CANCEL_EVERY;
  scratch->abandoned = scratch->cancelled(scratch->cancel_context) != 0;
  return scratch->abandoned;
}

int nq__join_reserve_masks(top_table_t *table, size_t tops) {
  /* Both arrays grow alike from the same room; the table's room changes
   * only once both have it. */
  size_t ld_room = table->capacity, rd_room = table->capacity;
  if (nq__grow((void **)&table->ld, &ld_room, tops, sizeof *table->ld) != NQ_OK ||
      nq__grow((void **)&table->rd, &rd_room, tops, sizeof *table->rd) != NQ_OK)
    return NQ_ENOMEM;
  table->capacity = ld_room;
  return NQ_OK;
}
