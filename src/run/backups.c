#include "backups.h"

#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "nqueens/error.h"

struct nq__batch {
  nq__batch_t *older, *newer; /* in the unanswered list */
  const uint64_t *packed;
  int holders;  /* ranks that still owe an answer */
  int copied;
  int answered;
  int first_rank;          /* the rank whose answer came first */
  uint64_t *first_results; /* the first answer's results, kept while a copy is out */
  uint64_t first_count;
};

void nq__backups_init(nq__backups_t *backups, int nodes_compared) {
  memset(backups, 0, sizeof *backups);
  backups->nodes_compared = nodes_compared;
}

static void unlink_batch(nq__backups_t *backups, nq__batch_t *batch) {
  if (batch->older != NULL)
    batch->older->newer = batch->newer;
  else
    backups->oldest = batch->newer;
  if (batch->newer != NULL)
    batch->newer->older = batch->older;
  else
    backups->newest = batch->older;
  batch->older = batch->newer = NULL;
  backups->unanswered--;
}

static void free_batch(nq__batch_t *batch) {
  free(batch->first_results);
  free(batch);
}

/* Only unanswered batches are listed; answered ones with a copy still out
 * are freed by their last answer (or here, if a run ends without it). */
void nq__backups_clear(nq__backups_t *backups) {
  while (backups->oldest != NULL) {
    nq__batch_t *batch = backups->oldest;
    unlink_batch(backups, batch);
    free_batch(batch);
  }
}

nq__batch_t *nq__backups_sent(nq__backups_t *backups, const uint64_t *packed) {
  nq__batch_t *batch = calloc(1, sizeof *batch);
  if (batch == NULL)
    return NULL;
  batch->packed = packed;
  batch->holders = 1;
  batch->older = backups->newest;
  if (backups->newest != NULL)
    backups->newest->newer = batch;
  else
    backups->oldest = batch;
  backups->newest = batch;
  backups->unanswered++;
  return batch;
}

nq__batch_t *nq__backups_pick(nq__backups_t *backups, uint64_t most_units) {
  for (nq__batch_t *batch = backups->oldest; batch != NULL; batch = batch->newer)
    if (!batch->copied && batch->packed[0] <= most_units) {
      batch->copied = 1;
      batch->holders++;
      backups->copies_sent++;
      return batch;
    }
  return NULL;
}

const uint64_t *nq__batch_packed(const nq__batch_t *batch) { return batch->packed; }

/* The first answer: kept word for word when a copy is out, to compare. */
static nq__answer_t first_answer(nq__backups_t *backups, nq__batch_t *batch, int rank,
                                 int status, const uint64_t *results, uint64_t count) {
  batch->answered = 1;
  batch->first_rank = rank;
  unlink_batch(backups, batch);
  if (status == NQ_OK && batch->holders > 0) {
    size_t words = (size_t)count * NQ_RESULT_WORDS;
    batch->first_results = malloc((words ? words : 1) * sizeof *batch->first_results);
    if (batch->first_results != NULL)
      memcpy(batch->first_results, results, words * sizeof *results);
    batch->first_count = count;
  }
  return NQ_ANSWER_FIRST;
}

/* Whether two answers of `count` units agree: every word, the nodes
 * only where they are compared. */
static int answers_agree(const nq__backups_t *backups, const uint64_t *a, const uint64_t *b,
                         uint64_t count) {
  for (uint64_t i = 0; i < count * NQ_RESULT_WORDS; i++)
    if (a[i] != b[i] && (backups->nodes_compared || i % NQ_RESULT_WORDS != NQ_RESULT_NODES_WORD))
      return 0;
  return 1;
}

/* A later answer: agreeing, differing, or bringing nothing.  A first answer
 * that could not be kept (no memory) confirms nothing but is no conflict. */
static nq__answer_t later_answer(nq__backups_t *backups, const nq__batch_t *batch, int status,
                                 const uint64_t *results, uint64_t count) {
  if (status != NQ_OK || batch->first_results == NULL)
    return NQ_ANSWER_LATE;
  if (count != batch->first_count || !answers_agree(backups, results, batch->first_results, count))
    return NQ_ANSWER_CONFLICT;
  backups->copies_confirmed++;
  return NQ_ANSWER_CONFIRMED;
}

nq__answer_t nq__backups_answer(nq__backups_t *backups, nq__batch_t *batch, int rank, int status,
                                const uint64_t *results, uint64_t count, int *first_rank) {
  batch->holders--;
  nq__answer_t answer = batch->answered
                            ? later_answer(backups, batch, status, results, count)
                            : first_answer(backups, batch, rank, status, results, count);
  if (first_rank != NULL)
    *first_rank = batch->first_rank;
  if (batch->holders == 0)
    free_batch(batch);
  return answer;
}
