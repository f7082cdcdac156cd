#include <stdlib.h>

#include "messages.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "run.h"

enum { MASTER = 0 };

typedef struct worker {
  const nq__run_t *run;
  MPI_Comm comm;
  nq_search_t *search;
  uint64_t inbox[2][NQ_WORK_MAX_WORDS];
  uint64_t outbox[NQ_RESULT_MAX_WORDS];
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
    int rc = nq__run_solve(&result, w->search, w->run, &unit);
    if (rc != NQ_OK) {
      *out_words = close_outbox(w, rc, 0);
      return rc;
    }
    nq__result_pack(w->outbox + 2 + done * NQ_RESULT_WORDS, &result);
  }
  *out_words = close_outbox(w, NQ_OK, unit_count);
  return NQ_OK;
}

/* The answer to one message that is not a stop: its results, or, once
 * anything failed (this batch, an earlier one, a message of no known
 * kind), the failure. */
static int answer(worker_t *w, const MPI_Status *status, const uint64_t *message, int *failure) {
  int words = 0, out_words = 0;
  if (status->MPI_TAG != NQ_TAG_WORK && *failure == NQ_OK)
    *failure = NQ_EPROTO;
  if (*failure == NQ_OK) {
    NQ_MPI_CHECK(w->comm, MPI_Get_count(status, MPI_UINT64_T, &words));
    *failure = solve_batch(w, message, words, &out_words);
  } else {
    out_words = close_outbox(w, *failure, 0);
  }
  NQ_MPI_CHECK(w->comm,
               MPI_Send(w->outbox, out_words, MPI_UINT64_T, MASTER, NQ_TAG_RESULT, w->comm));
  return NQ_OK;
}

/* Keeps the next batch's receive posted while solving the current one, so
 * the master's reply to the previous result is already here when needed.
 * Every message but a stop gets an answer, so the master never waits for
 * one that will not come; after a failure (`failure` may come in set) the
 * worker keeps answering with it until the master says stop. */
static int serve(worker_t *w, int failure) {
  int current = 0;
  MPI_Request request;
  NQ_MPI_CHECK(w->comm, MPI_Irecv(w->inbox[current], NQ_WORK_MAX_WORDS, MPI_UINT64_T, MASTER,
                                  MPI_ANY_TAG, w->comm, &request));
  for (;;) {
    MPI_Status status;
    NQ_MPI_CHECK(w->comm, MPI_Wait(&request, &status));
    if (status.MPI_TAG == NQ_TAG_STOP)
      return failure;
    int next = 1 - current;
    NQ_MPI_CHECK(w->comm, MPI_Irecv(w->inbox[next], NQ_WORK_MAX_WORDS, MPI_UINT64_T, MASTER,
                                    MPI_ANY_TAG, w->comm, &request));
    int rc = answer(w, &status, w->inbox[current], &failure);
    if (rc != NQ_OK)
      return rc;
    current = next;
  }
}

int nq__worker_run(const nq__run_t *run, MPI_Comm comm) {
  worker_t *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NQ_ENOMEM;
  w->run = run;
  w->comm = comm;
  /* A worker that cannot search still serves, answering with its failure. */
  int rc = serve(w, nq_kernel_create(&w->search, run->options->n, run->options->walk));
  nq_kernel_destroy(w->search);
  free(w);
  return rc;
}
