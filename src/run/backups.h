#ifndef NQ_SRC_BACKUPS_H
#define NQ_SRC_BACKUPS_H

/* The master's ledger of batches out, and their backup copies.  Once every
 * unit is handed out, a worker left with nothing gets a copy of the oldest
 * batch still unanswered that has no copy yet: a slow or stopped rank then
 * costs the run nothing.  The first answer counts; a copy's answer must
 * agree with it exactly, or the run fails (NQ_ECHECK): a differing answer
 * is never dropped. */

#include <stddef.h>
#include <stdint.h>

#include "totals.h"

typedef struct nq__batch nq__batch_t;

typedef struct nq__backups {
  nq__batch_t *oldest, *newest; /* unanswered batches, in the order sent */
  size_t unanswered;
  uint64_t copies_sent, copies_confirmed;
  int nodes_compared; /* the method's nodes_are_fixed: else a copy's nodes may differ */
} nq__backups_t;

/* What an answer is to its batch. */
typedef enum nq__answer {
  NQ_ANSWER_FIRST,     /* the batch's first: its results count */
  NQ_ANSWER_CONFIRMED, /* a later one that agrees exactly with the first */
  NQ_ANSWER_CONFLICT,  /* a later one that differs: the run must fail */
  NQ_ANSWER_LATE       /* a later one that brings nothing (stopped, failed) */
} nq__answer_t;

void nq__backups_init(nq__backups_t *backups, int nodes_compared);
void nq__backups_clear(nq__backups_t *backups);

/* Records a batch sent as `packed` (its message: the unit count, then the
 * units), which must stay as it is until the batch is answered.  NULL
 * when memory ran out. */
nq__batch_t *nq__backups_sent(nq__backups_t *backups, const uint64_t *packed);

/* The oldest unanswered batch with no copy yet and at most `most_units`
 * units, now counted as copied; NULL if there is none.  Its message is
 * nq__batch_packed's. */
nq__batch_t *nq__backups_pick(nq__backups_t *backups, uint64_t most_units);
const uint64_t *nq__batch_packed(const nq__batch_t *batch);

/* The answer of the holder on `rank` to `batch`: `status` and, when it is
 * NQ_OK, the `results` message part (count results of NQ_RESULT_WORDS
 * words); *first_rank (unless NULL) gets the rank whose answer came first,
 * which a conflict names beside this one.  The batch is freed once every
 * holder has answered: `batch` may not be used after. */
nq__answer_t nq__backups_answer(nq__backups_t *backups, nq__batch_t *batch, int rank, int status,
                                const uint64_t *results, uint64_t count, int *first_rank);

#endif
