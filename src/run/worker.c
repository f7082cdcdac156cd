#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "messages.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "pool.h"
#include "run.h"

enum { MASTER = 0 };

typedef struct worker {
  const nq__run_t *run;
  MPI_Comm comm;
  nq__run_solver_t *search; /* this thread's; its cancel hook talks to the master */
  nq__pool_t *pool;    /* the rank's search threads (CPU ranks) */
  int batch_units;     /* the most units a batch may carry to this rank */
  int inbox_words;
  uint64_t *inbox;
  uint64_t *outbox;
  nq__work_t *units; /* a batch unpacked */
  nq_unit_result_t *results; /* the GPU solver's */
  /* The receive of the master's next message, always posted while the
   * worker runs; it may complete in the cancel hook. */
  MPI_Request next;
  MPI_Status next_status;
  int next_arrived;
  int failure;      /* the first failure or stop: every later batch gets it */
  int stopped;      /* asked to stop: this rank's flag, or the master's cancel */
  int discarding;   /* told to drop the copies it holds: the count is done */
  int stop_received;
  int hook_failed;  /* an MPI call made from the cancel hook failed */
  double last_poll; /* when the cancel hook last talked to the master */
} worker_t;

static int post_next(worker_t *w) {
  w->next_arrived = 0;
  NQ_MPI_CHECK(w->comm, MPI_Irecv(w->inbox, w->inbox_words, MPI_UINT64_T, MASTER, MPI_ANY_TAG,
                                  w->comm, &w->next));
  return NQ_OK;
}

static void note_failure(worker_t *w, int code) {
  if (w->failure == NQ_OK)
    w->failure = code;
}

/* Abandon everything: the master's cancel, or this rank's own stop flag
 * (whose NQ_ESTOPPED answers then stop the master). */
static void stop_here(worker_t *w) {
  if (w->stopped)
    return;
  w->stopped = 1;
  note_failure(w, NQ_ESTOPPED);
  if (w->pool != NULL)
    nq__pool_cancel(w->pool);
}

/* The outbox's header: the batch's status and how many results follow. */
static int close_outbox(worker_t *w, int status, uint64_t results) {
  w->outbox[0] = (uint64_t)(int64_t)status;
  w->outbox[1] = results;
  return (int)(2 + results * NQ_RESULT_WORDS);
}

static int send_answer(worker_t *w, int status, const nq_unit_result_t *results, size_t count) {
  if (status != NQ_OK)
    count = 0;
  for (size_t i = 0; i < count; i++)
    nq__result_pack(w->outbox + 2 + i * NQ_RESULT_WORDS, &results[i]);
  int words = close_outbox(w, status, count);
  NQ_MPI_CHECK(w->comm, MPI_Send(w->outbox, words, MPI_UINT64_T, MASTER, NQ_TAG_RESULT, w->comm));
  return NQ_OK;
}

/* Every batch the threads have finished, in the order it came. */
static int send_finished(worker_t *w) {
  nq__pool_batch_t batch;
  while (w->pool != NULL && nq__pool_collect(w->pool, &batch)) {
    /* A dropped copy is no failure of this rank's. */
    if (batch.status != NQ_OK && !(w->discarding && batch.status == NQ_ESTOPPED))
      note_failure(w, batch.status);
    int rc = send_answer(w, batch.status, batch.results, batch.count);
    nq__pool_release(w->pool);
    if (rc != NQ_OK)
      return rc;
  }
  return NQ_OK;
}

/* A batch's units, checked and unpacked into w->units; its status. */
static int unpack_batch(worker_t *w, const MPI_Status *status, size_t *count) {
  int words = 0;
  *count = 0;
  if (status->MPI_TAG != NQ_TAG_WORK ||
      MPI_Get_count(status, MPI_UINT64_T, &words) != MPI_SUCCESS || words < 1)
    return NQ_EPROTO;
  uint64_t units = w->inbox[0];
  if (units > (uint64_t)w->batch_units || (uint64_t)words != 1 + units * NQ_UNIT_WORDS)
    return NQ_EPROTO;
  for (uint64_t i = 0; i < units; i++)
    nq__work_unpack(&w->units[i], w->inbox + 1 + i * NQ_UNIT_WORDS);
  *count = (size_t)units;
  return NQ_OK;
}

/* A GPU rank solves a batch as it comes: one launch, not abandoned. */
static int solve_on_gpu(worker_t *w, int status, size_t count) {
  if (status == NQ_OK)
    status = nq__run_solve_batch(w->results, w->run, w->units, count);
  note_failure(w, status);
  return send_answer(w, status, w->results, count);
}

/* One message from the master.  Every message but a stop or a cancel gets
 * an answer, in order: a batch joins the threads' queue, already failed
 * when anything failed before (a message of no known kind included). */
static int take_message(worker_t *w, const MPI_Status *status) {
  if (status->MPI_TAG == NQ_TAG_STOP) {
    if (w->run->rank == w->run->faults.late_stop_rank && w->run->options->stop != NULL) {
      *w->run->options->stop = 1;
      stop_here(w);
    }
    w->stop_received = 1;
    if (w->run->rank == w->run->faults.end_stall_rank)
      raise(SIGSTOP);
    return NQ_OK;
  }
  if (status->MPI_TAG == NQ_TAG_CANCEL) {
    stop_here(w);
    return post_next(w);
  }
  if (status->MPI_TAG == NQ_TAG_DISCARD) {
    w->discarding = 1;
    if (w->pool != NULL)
      nq__pool_cancel(w->pool);
    return post_next(w);
  }
  size_t count = 0;
  int batch_status = unpack_batch(w, status, &count);
  note_failure(w, batch_status);
  if (w->failure != NQ_OK)
    batch_status = w->failure;
  int rc = post_next(w);
  if (rc != NQ_OK)
    return rc;
  if (w->run->gpu != NULL)
    return solve_on_gpu(w, batch_status, count);
  return nq__pool_submit(w->pool, 0, w->units, count, batch_status);
}

/* Everything this rank owes the master or has from it, without waiting:
 * finished batches go out, arrived messages come in. */
static int communicate(worker_t *w) {
  if (!w->stopped && nq__run_stop_asked(w->run))
    stop_here(w);
  int rc = send_finished(w);
  while (rc == NQ_OK && !w->stop_received) {
    if (!w->next_arrived)
      NQ_MPI_CHECK(w->comm, MPI_Test(&w->next, &w->next_arrived, &w->next_status));
    if (!w->next_arrived)
      break;
    rc = take_message(w, &w->next_status);
  }
  return rc == NQ_OK ? send_finished(w) : rc;
}

/* The searcher of this thread asks at coarse points inside a unit: every
 * NQ_POLL_SECONDS it talks to the master, so that the other threads'
 * finished batches go out and new ones come in while this thread is deep
 * in a long unit.  Non-zero abandons the unit. */
static int worker_cancelled(void *context) {
  worker_t *w = context;
  if (!w->stopped && nq__run_stop_asked(w->run))
    stop_here(w);
  if (!w->hook_failed && nq__run_poll_due(&w->last_poll) && communicate(w) != NQ_OK) {
    w->hook_failed = 1;
    stop_here(w);
  }
  return w->stopped || w->discarding;
}

/* Nothing to solve here: wait for the master, or for the other threads. */
static int wait_for_work(worker_t *w) {
  if (w->pool != NULL && nq__pool_batches(w->pool) > 0) {
    nq__pool_wait(w->pool, NQ_POLL_SECONDS);
    return NQ_OK;
  }
  if (!w->next_arrived)
    NQ_MPI_CHECK(w->comm, MPI_Wait(&w->next, &w->next_status));
  w->next_arrived = 1;
  return NQ_OK;
}

/* Solves units while answering the master, until it says stop (which it
 * does only once every batch was answered).  Returns the first failure,
 * NQ_ESTOPPED after a stop, or NQ_OK. */
static int serve(worker_t *w) {
  int rc = post_next(w);
  for (;;) {
    if (rc == NQ_OK)
      rc = communicate(w);
    if (rc == NQ_OK && w->hook_failed)
      rc = NQ_EMPI;
    if (rc != NQ_OK)
      return rc;
    if (w->stop_received)
      return w->failure;
    if (w->pool == NULL || !nq__pool_solve_one(w->pool, w->search))
      rc = wait_for_work(w);
  }
}

/* Buffers for the largest batch this rank takes. */
static int allocate_buffers(worker_t *w, int rank) {
  size_t units = (size_t)w->run->batch_units[rank];
  w->batch_units = (int)units;
  w->inbox_words = (int)(1 + units * NQ_UNIT_WORDS);
  w->inbox = malloc((size_t)w->inbox_words * sizeof(uint64_t));
  w->outbox = malloc((2 + units * NQ_RESULT_WORDS) * sizeof(uint64_t));
  w->units = malloc(units * sizeof *w->units);
  if (w->run->gpu != NULL && (w->results = malloc(units * sizeof *w->results)) == NULL)
    return NQ_ENOMEM;
  return w->inbox && w->outbox && w->units ? NQ_OK : NQ_ENOMEM;
}

static void free_buffers(worker_t *w) {
  free(w->inbox);
  free(w->outbox);
  free(w->units);
  free(w->results);
}

/* This thread's searcher and, on a CPU rank, the other threads.  A worker
 * that cannot search still serves, answering every batch with its failure. */
static int set_up_search(worker_t *w) {
  if (w->run->gpu != NULL)
    return NQ_OK;
  int rc = nq__run_solver_open(&w->search, w->run);
  if (rc == NQ_OK) {
    nq__run_solver_set_cancel(w->run, w->search, worker_cancelled, w);
    rc = nq__pool_create(&w->pool, w->run, nq__run_threads(w->run) - 1);
  }
  if (rc != NQ_OK && w->pool == NULL)
    rc = nq__pool_create(&w->pool, w->run, 0) == NQ_OK ? rc : NQ_ENOMEM;
  return rc;
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
  /* One without buffers cannot even listen, and the job must abort. */
  if (rc == NQ_OK) {
    int search_rc = set_up_search(w);
    if (search_rc == NQ_ENOMEM && w->pool == NULL) {
      rc = NQ_EMPI;
    } else {
      note_failure(w, search_rc);
      rc = serve(w);
    }
  } else {
    fprintf(stderr, "nqueens-mpi: rank %d: no memory for batches of %d units\n", rank,
            run->batch_units[rank]);
    rc = NQ_EMPI;
  }
  nq__pool_destroy(w->pool);
  nq__run_solver_close(run, w->search);
  free_buffers(w);
  free(w);
  /* The master waits for this, within its patience, before the steps
   * every rank must join (master.c, await_last_words). */
  if (rc != NQ_EMPI)
    NQ_MPI_CHECK(comm, MPI_Send(NULL, 0, MPI_UINT64_T, MASTER, NQ_TAG_ENDED, comm));
  return rc;
}
