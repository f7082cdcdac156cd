#include <string.h>

#include "nqueens/error.h"
#include "protocol.h"

enum { MASTER = 0 };

typedef struct worker {
  const nq_count_options_t *options;
  MPI_Comm comm;
  nq_search_t search;
  uint64_t inbox[2][1 + NQ_BATCH_MAX * NQ_UNIT_WORDS];
  uint64_t outbox[2 + NQ_BATCH_MAX * NQ_RESULT_WORDS];
} worker_t;

/* Solves one batch into the outbox; a failing unit stops the batch and its
 * code goes back as the status word. */
static int solve_batch(worker_t *w, const uint64_t *batch, int *out_words) {
  uint64_t unit_count = batch[0];
  int status = NQ_OK;
  uint64_t done = 0;
  if (unit_count > NQ_BATCH_MAX)
    status = NQ_EPROTO;
  for (; status == NQ_OK && done < unit_count; done++) {
    nq_unit_t unit;
    nq_unit_result_t result;
    nq__unit_unpack(&unit, batch + 1 + done * NQ_UNIT_WORDS);
    status = nq__solve_unit(&result, &w->search, w->options->n, &unit, w->options->unique);
    if (status == NQ_OK)
      nq__result_pack(w->outbox + 2 + done * NQ_RESULT_WORDS, &result);
  }
  if (status != NQ_OK)
    done = 0;
  w->outbox[0] = (uint64_t)(int64_t)status;
  w->outbox[1] = done;
  *out_words = (int)(2 + done * NQ_RESULT_WORDS);
  return status;
}

/* Keeps the next batch's receive posted while solving the current one, so
 * the master's reply to the previous result is already here when needed. */
int nq__worker_run(const nq_count_options_t *options, MPI_Comm comm) {
  worker_t w;
  memset(&w, 0, sizeof w);
  w.options = options;
  w.comm = comm;
  w.search.n = -1;
  int inbox_words = 1 + NQ_BATCH_MAX * NQ_UNIT_WORDS;
  int current = 0;
  MPI_Request request;
  NQ_MPI_CHECK(comm, MPI_Irecv(w.inbox[current], inbox_words, MPI_UINT64_T, MASTER,
                               MPI_ANY_TAG, comm, &request));
  for (;;) {
    MPI_Status status;
    NQ_MPI_CHECK(comm, MPI_Wait(&request, &status));
    if (status.MPI_TAG == NQ_TAG_STOP)
      return NQ_OK;
    if (status.MPI_TAG != NQ_TAG_WORK)
      return NQ_EPROTO;
    int next = 1 - current;
    NQ_MPI_CHECK(comm, MPI_Irecv(w.inbox[next], inbox_words, MPI_UINT64_T, MASTER,
                                 MPI_ANY_TAG, comm, &request));
    int words = 0;
    int rc = solve_batch(&w, w.inbox[current], &words);
    NQ_MPI_CHECK(comm, MPI_Send(w.outbox, words, MPI_UINT64_T, MASTER, NQ_TAG_RESULT, comm));
    if (rc != NQ_OK) {
      MPI_Cancel(&request);
      return rc;
    }
    current = next;
  }
}
