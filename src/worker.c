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

/* The outbox's header: the batch's status and how many results follow. */
static int close_outbox(worker_t *w, int status, uint64_t results) {
  w->outbox[0] = (uint64_t)(int64_t)status;
  w->outbox[1] = results;
  return (int)(2 + results * NQ_RESULT_WORDS);
}

/* Solves a batch of `words` words into the outbox; a failing unit voids the
 * batch and its code goes back as the status word. */
static int solve_batch(worker_t *w, const uint64_t *batch, int words, int *out_words) {
  uint64_t unit_count = words > 0 ? batch[0] : 0;
  if (words < 1 || unit_count > NQ_BATCH_MAX ||
      (uint64_t)words != 1 + unit_count * NQ_UNIT_WORDS) {
    *out_words = close_outbox(w, NQ_EPROTO, 0);
    return NQ_EPROTO;
  }
  for (uint64_t done = 0; done < unit_count; done++) {
    nq_unit_t unit;
    nq_unit_result_t result;
    nq__unit_unpack(&unit, batch + 1 + done * NQ_UNIT_WORDS);
    int rc = nq__solve_unit(&result, &w->search, w->options, &unit);
    if (rc != NQ_OK) {
      *out_words = close_outbox(w, rc, 0);
      return rc;
    }
    nq__result_pack(w->outbox + 2 + done * NQ_RESULT_WORDS, &result);
  }
  *out_words = close_outbox(w, NQ_OK, unit_count);
  return NQ_OK;
}

/* Keeps the next batch's receive posted while solving the current one, so
 * the master's reply to the previous result is already here when needed.
 * After a failure the worker stays in the protocol, answering each batch
 * with the failure, until the master says stop: nobody is left waiting. */
int nq__worker_run(const nq_count_options_t *options, MPI_Comm comm) {
  worker_t w;
  memset(&w, 0, sizeof w);
  w.options = options;
  w.comm = comm;
  w.search.n = -1;
  int inbox_words = 1 + NQ_BATCH_MAX * NQ_UNIT_WORDS, current = 0, failure = NQ_OK;
  MPI_Request request;
  NQ_MPI_CHECK(comm, MPI_Irecv(w.inbox[current], inbox_words, MPI_UINT64_T, MASTER,
                               MPI_ANY_TAG, comm, &request));
  for (;;) {
    MPI_Status status;
    int words = 0, out_words = 0;
    NQ_MPI_CHECK(comm, MPI_Wait(&request, &status));
    if (status.MPI_TAG == NQ_TAG_STOP)
      return failure;
    if (status.MPI_TAG != NQ_TAG_WORK)
      return NQ_EPROTO;
    NQ_MPI_CHECK(comm, MPI_Get_count(&status, MPI_UINT64_T, &words));
    int next = 1 - current;
    NQ_MPI_CHECK(comm, MPI_Irecv(w.inbox[next], inbox_words, MPI_UINT64_T, MASTER,
                                 MPI_ANY_TAG, comm, &request));
    if (failure == NQ_OK)
      failure = solve_batch(&w, w.inbox[current], words, &out_words);
    else
      out_words = close_outbox(&w, failure, 0);
    NQ_MPI_CHECK(comm, MPI_Send(w.outbox, out_words, MPI_UINT64_T, MASTER, NQ_TAG_RESULT, comm));
    current = next;
  }
}
