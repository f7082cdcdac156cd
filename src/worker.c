#include <stdio.h>
#include <stdlib.h>

#include "messages.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "run.h"
#include "search.h"

enum { MASTER = 0 };

typedef struct worker {
  const nq__run_t *run;
  MPI_Comm comm;
  nq_search_t *search;
  int batch_units; /* the most units a batch may carry to this rank */
  int inbox_words;
  uint64_t *inbox[2];
  uint64_t *outbox;
  nq_unit_t *units; /* a batch unpacked, for the GPU solver */
  nq_unit_result_t *results;
  /* The receive of the master's next message, posted while a batch is
   * solved; the cancel hook may complete it, and then keeps its status. */
  MPI_Request next;
  MPI_Status next_status;
  int next_arrived;
  int stopped;      /* asked to stop: this rank's flag, or the master's cancel */
  int hook_failed;  /* an MPI call made from the cancel hook failed */
  double last_poll; /* when the cancel hook last looked for the master's cancel */
} worker_t;

/* Has the master's cancel arrived?  It comes in order after the batches
 * sent before it: either as the next message itself, or, once the next
 * batch is here, queued behind it (found by MPI_Iprobe, received later
 * in order). */
static int master_cancelled(worker_t *w, int *cancelled) {
  *cancelled = 0;
  if (!w->next_arrived) {
    NQ_MPI_CHECK(w->comm, MPI_Test(&w->next, &w->next_arrived, &w->next_status));
    if (!w->next_arrived)
      return NQ_OK;
  }
  if (w->next_status.MPI_TAG == NQ_TAG_CANCEL) {
    *cancelled = 1;
    return NQ_OK;
  }
  NQ_MPI_CHECK(w->comm, MPI_Iprobe(MASTER, NQ_TAG_CANCEL, w->comm, cancelled, MPI_STATUS_IGNORE));
  return NQ_OK;
}

/* Asked before each unit and by the searcher at coarse points inside one:
 * this rank's stop flag, and every NQ_POLL_SECONDS the master's cancel.
 * Once asked to stop, the worker stays stopped. */
static int worker_cancelled(void *context) {
  worker_t *w = context;
  if (!w->stopped && nq__run_stop_asked(w->run))
    w->stopped = 1;
  if (!w->stopped && nq__run_poll_due(&w->last_poll) &&
      master_cancelled(w, &w->stopped) != NQ_OK)
    w->hook_failed = w->stopped = 1;
  return w->stopped;
}

/* The outbox's header: the batch's status and how many results follow. */
static int close_outbox(worker_t *w, int status, uint64_t results) {
  w->outbox[0] = (uint64_t)(int64_t)status;
  w->outbox[1] = results;
  return (int)(2 + results * NQ_RESULT_WORDS);
}

/* All units of the batch at once on this rank's GPU solver. */
static int solve_batch_on_gpu(worker_t *w, const uint64_t *batch, uint64_t unit_count,
                              int *out_words) {
  for (uint64_t i = 0; i < unit_count; i++)
    nq__unit_unpack(&w->units[i], batch + 1 + i * NQ_UNIT_WORDS);
  int rc = nq__run_solve_batch(w->results, w->run, w->units, unit_count);
  if (rc != NQ_OK) {
    *out_words = close_outbox(w, rc, 0);
    return rc;
  }
  for (uint64_t i = 0; i < unit_count; i++)
    nq__result_pack(w->outbox + 2 + i * NQ_RESULT_WORDS, &w->results[i]);
  *out_words = close_outbox(w, NQ_OK, unit_count);
  return NQ_OK;
}

/* Solves a batch of `words` words into the outbox; a failing unit voids the
 * batch and its code goes back as the status word, as does a stop (the
 * units of an abandoned batch are simply not done).  A GPU batch is not
 * abandoned once launched. */
static int solve_batch(worker_t *w, const uint64_t *batch, int words, int *out_words) {
  uint64_t unit_count = words > 0 ? batch[0] : 0;
  int rc = NQ_OK;
  if (words < 1 || unit_count > (uint64_t)w->batch_units ||
      (uint64_t)words != 1 + unit_count * NQ_UNIT_WORDS)
    rc = NQ_EPROTO;
  else if (worker_cancelled(w))
    rc = NQ_ESTOPPED;
  if (rc != NQ_OK) {
    *out_words = close_outbox(w, rc, 0);
    return rc;
  }
  if (w->run->gpu != NULL)
    return solve_batch_on_gpu(w, batch, unit_count, out_words);
  for (uint64_t done = 0; done < unit_count; done++) {
    nq_unit_t unit;
    nq_unit_result_t result;
    nq__unit_unpack(&unit, batch + 1 + done * NQ_UNIT_WORDS);
    /* Short units never reach the searcher's questions: ask between them. */
    rc = done > 0 && worker_cancelled(w) ? NQ_ESTOPPED
                                         : nq__run_solve(&result, w->search, w->run, &unit);
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
  if (*failure == NQ_OK && w->stopped)
    *failure = NQ_ESTOPPED;
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

/* The master's cancel: whatever this worker does from now on, the run
 * ends stopped (unless something failed first). */
static void cancel(worker_t *w, int *failure) {
  w->stopped = 1;
  if (*failure == NQ_OK)
    *failure = NQ_ESTOPPED;
}

static int post_next(worker_t *w, uint64_t *inbox) {
  w->next_arrived = 0;
  NQ_MPI_CHECK(w->comm, MPI_Irecv(inbox, w->inbox_words, MPI_UINT64_T, MASTER, MPI_ANY_TAG,
                                  w->comm, &w->next));
  return NQ_OK;
}

static int wait_next(worker_t *w, MPI_Status *status) {
  if (!w->next_arrived)
    NQ_MPI_CHECK(w->comm, MPI_Wait(&w->next, &w->next_status));
  w->next_arrived = 1;
  *status = w->next_status;
  return NQ_OK;
}

/* Keeps the next batch's receive posted while solving the current one, so
 * the master's reply to the previous result is already here when needed.
 * Every message but a stop or a cancel gets an answer, so the master never
 * waits for one that will not come; after a failure or a stop (`failure`
 * may come in set) the worker keeps answering with it until the master
 * says stop. */
static int serve(worker_t *w, int failure) {
  int current = 0, rc = post_next(w, w->inbox[current]);
  for (;;) {
    MPI_Status status;
    if (rc == NQ_OK)
      rc = wait_next(w, &status);
    if (rc != NQ_OK)
      return rc;
    if (status.MPI_TAG == NQ_TAG_STOP)
      return failure;
    int next = 1 - current;
    rc = post_next(w, w->inbox[next]);
    if (rc == NQ_OK && status.MPI_TAG == NQ_TAG_CANCEL)
      cancel(w, &failure);
    else if (rc == NQ_OK)
      rc = answer(w, &status, w->inbox[current], &failure);
    if (rc == NQ_OK && w->hook_failed)
      rc = NQ_EMPI;
    current = next;
  }
}

/* Buffers for the largest batch this rank takes. */
static int allocate_buffers(worker_t *w, int rank) {
  size_t units = (size_t)w->run->batch_units[rank];
  w->batch_units = (int)units;
  w->inbox_words = (int)(1 + units * NQ_UNIT_WORDS);
  for (int i = 0; i < 2; i++)
    w->inbox[i] = malloc((size_t)w->inbox_words * sizeof(uint64_t));
  w->outbox = malloc((2 + units * NQ_RESULT_WORDS) * sizeof(uint64_t));
  if (w->run->gpu != NULL) {
    w->units = malloc(units * sizeof *w->units);
    w->results = malloc(units * sizeof *w->results);
    if (w->units == NULL || w->results == NULL)
      return NQ_ENOMEM;
  }
  return w->inbox[0] && w->inbox[1] && w->outbox ? NQ_OK : NQ_ENOMEM;
}

static void free_buffers(worker_t *w) {
  free(w->inbox[0]);
  free(w->inbox[1]);
  free(w->outbox);
  free(w->units);
  free(w->results);
}

int nq__worker_run(const nq__run_t *run, MPI_Comm comm) {
  int rank = 0;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  worker_t *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NQ_ENOMEM;
  w->run = run;
  w->comm = comm;
  int rc = allocate_buffers(w, rank);
  /* A worker that cannot search still serves, answering with its failure;
   * one without buffers cannot even listen, and the job must abort. */
  if (rc == NQ_OK) {
    int search_rc = nq_kernel_create(&w->search, run->options->n, run->options->walk);
    if (search_rc == NQ_OK)
      nq__kernel_set_cancel(w->search, worker_cancelled, w);
    rc = serve(w, search_rc);
  } else {
    fprintf(stderr, "nqueens-mpi: rank %d: no memory for batches of %d units\n", rank,
            run->batch_units[rank]);
    rc = NQ_EMPI;
  }
  nq_kernel_destroy(w->search);
  free_buffers(w);
  free(w);
  return rc;
}
