#ifndef NQ_SRC_POOL_H
#define NQ_SRC_POOL_H

/* A rank's search threads.  The rank's own thread (the only one that calls
 * MPI) submits batches of units and collects their results in submission
 * order; `helpers` more threads take units from the batches in order and
 * solve them, and so does the rank's thread whenever it has nothing else
 * to do (nq__pool_solve_one, with its own searcher, whose cancel hook may
 * talk MPI).  Nothing here calls MPI. */

#include <stddef.h>
#include <stdint.h>

#include "method.h"
#include "nqueens/kernel.h"

typedef struct nq__pool nq__pool_t;
struct nq__run;
struct nq__run_solver;

/* A finished batch, handed back by nq__pool_collect: the caller's tag, and
 * the results in unit order when status is NQ_OK (a failing unit's code,
 * or NQ_ESTOPPED for an abandoned batch, voids them). */
typedef struct nq__pool_batch {
  uint64_t tag;
  int status;
  size_t count;
  const nq_unit_result_t *results;
} nq__pool_batch_t;

/* Starts `helpers` threads (0: none; the rank's thread then solves every
 * unit itself), each with its own searcher for run->options.  NQ_ENOMEM,
 * or a searcher's or thread's failure; on failure nothing is left running. */
int nq__pool_create(nq__pool_t **pool, const struct nq__run *run, int helpers);

/* Stops and joins the helpers (abandoning units in progress) and frees
 * everything.  NULL is ignored. */
void nq__pool_destroy(nq__pool_t *pool);

/* Queues a copy of `units`.  With `status` other than NQ_OK the batch is
 * not solved but still comes back in its turn with that status (a worker
 * answers every batch in order, even after a failure).  NQ_ENOMEM. */
int nq__pool_submit(nq__pool_t *pool, uint64_t tag, const nq__work_t *units, size_t count,
                    int status);

/* Solves the next unit nobody has taken, with `search`.  Returns 1 when it
 * solved (or abandoned) one, 0 when every unit is taken. */
int nq__pool_solve_one(nq__pool_t *pool, struct nq__run_solver *search);

/* The oldest batch, when it is finished: fills *batch and returns 1; its
 * results stay valid until nq__pool_release.  0 when none is ready. */
int nq__pool_collect(nq__pool_t *pool, nq__pool_batch_t *batch);

/* Frees the batch nq__pool_collect returned last. */
void nq__pool_release(nq__pool_t *pool);

/* Abandons every unit in progress and every batch not yet started: each
 * comes back with NQ_ESTOPPED (finished batches keep their results). */
void nq__pool_cancel(nq__pool_t *pool);

/* Batches submitted and not yet released; units queued and not yet taken. */
size_t nq__pool_batches(nq__pool_t *pool);
size_t nq__pool_untaken(nq__pool_t *pool);

/* Waits (at most `seconds`) until a batch may be collected or a unit may
 * be taken: the rank's thread sleeps here instead of spinning while only
 * helpers work. */
void nq__pool_wait(nq__pool_t *pool, double seconds);

#endif
