#ifndef NQ_SRC_RUN_H
#define NQ_SRC_RUN_H

/* One counting run as the master and the workers see it, with the test
 * hooks that make failures happen on purpose. */

#include <stdint.h>

#include <mpi.h>

#include "gpu.h"
#include "journal.h"
#include "method.h"
#include "nqueens/options.h"
#include "nqueens/kernel.h"
#include "nqueens/slice.h"
#include "totals.h"

/* Units per message to a GPU rank: enough sub-problems (a few hundred per
 * unit) to keep a whole GPU busy through one launch. */
#define NQ_GPU_BATCH_UNITS 65536

/* Failures injected by tests; NQ_NO_FAULTS injects none. */
typedef struct nq__faults {
  uint64_t failing_unit;  /* solving this unit id fails with NQ_EUNIT, wherever it runs */
  int walk_refusing_rank; /* this rank acts as if its CPU could not run an explicit walk */
  int gpu_stand_in_rank;  /* with options.gpu, this rank is a GPU rank that walks on the
                             host: GPU ranks' batching tested without a GPU */
  int hide_gpus;          /* every rank acts as if it saw no CUDA device */
  int wrong_count_rank;   /* this rank reports one solution too many for every unit
                             (NQ_TEST_WRONG_COUNT: what verification and merge must catch) */
  int stop_rank;          /* this rank sets *options.stop, as a signal would, */
  uint64_t stop_after_units; /* when it starts its unit after this many */
  int late_stop_rank; /* this worker sets *options.stop, and sees it, as the master's last
                         word arrives: a signal after its last batch was in */
  int end_stall_rank; /* this worker stops itself (SIGSTOP) once its stop arrives, as a
                         process stopped or hung after its last answer would */
  /* Benchmarks of the scheduling (tests/bench_master.c): when set, a CPU
   * unit is not searched but costs simulated_seconds(id, simulated_context)
   * of sleep, and its result is made for exact accounting (simulated.h).
   * Called on whichever rank solves the unit; NULL: the real search. */
  double (*simulated_seconds)(uint64_t unit_id, void *context);
  void *simulated_context;
  double simulated_poll_seconds; /* how often a simulated unit asks the cancel
                                    hook; 0: every NQ_POLL_SECONDS */
} nq__faults_t;

#define NQ_NO_FAULTS                                                                     \
  ((nq__faults_t){.failing_unit = UINT64_MAX, .walk_refusing_rank = -1,                  \
                  .gpu_stand_in_rank = -1, .stop_rank = -1, .wrong_count_rank = -1,     \
                  .late_stop_rank = -1, .end_stall_rank = -1})

/* How often, at most, a rank inside a unit looks for messages: a worker
 * for the master's cancel, the master for its workers' results. */
#define NQ_POLL_SECONDS 0.001

typedef struct nq__run {
  const nq_count_options_t *options;
  const nq__method_t *method;  /* how units are listed and counted */
  nq__method_params_t params;  /* n, the resolved unit parameter, the method's options */
  nq__faults_t faults;
  /* This rank's part (count.c sets it up before the roles start): */
  int rank;
  _Atomic uint64_t *units_started; /* this rank's, for faults.stop_after_units */
  nq__gpu_device_t *gpu_device; /* the device it drives, or NULL */
  nq__gpu_solver_t *gpu;        /* its GPU solver (on the device or a stand-in), or NULL */
  int *batch_units;             /* units per batch each rank takes, by rank */
  int gpu_ranks;                /* ranks with a GPU solver, over the whole run */
  int threads_total;            /* search threads over the whole run */
  /* Rank 0 with a checkpoint: the open journal and what it held. */
  nq__journal_t *journal;
  nq__journal_state_t resumed;
  uint64_t units_total; /* counted once when a journal or progress needs it */
  uint64_t verify_seed; /* options.verify's sample */
  nq_slice_t slice;     /* the part of the units this run counts */
  uint64_t slice_units; /* units in it */
} nq__run_t;

/* Sets run->method and run->params from run->options: the method the
 * options name and its resolved unit parameter.  NQ_EINVAL for options it
 * cannot count (the join: no walk or GPU; a cut off the board). */
int nq__run_choose_method(nq__run_t *run);

/* Search threads on this rank: options.threads (at least 1), but 1 on a
 * rank that drives a GPU. */
int nq__run_threads(const nq__run_t *run);

/* Whether this rank was asked to stop (options.stop). */
int nq__run_stop_asked(const nq__run_t *run);

/* Whether NQ_POLL_SECONDS have passed since *last_poll; if so, restarts
 * the interval. */
int nq__run_poll_due(double *last_poll);

/* One thread's solver for the run's method, and the cancel hook it asks
 * at coarse points inside a unit (the method's solver asks it; so does a
 * simulated unit). */
typedef struct nq__run_solver {
  void *method_solver;
  nq__method_cancel_fn cancelled;
  void *cancel_context;
} nq__run_solver_t;

int nq__run_solver_open(nq__run_solver_t **out_solver, const nq__run_t *run);
void nq__run_solver_close(const nq__run_t *run, nq__run_solver_t *solver);
void nq__run_solver_set_cancel(const nq__run_t *run, nq__run_solver_t *solver,
                               nq__method_cancel_fn cancelled, void *context);

/* Solves one unit where it runs, through the fault hook. */
int nq__run_solve(nq_unit_result_t *result, nq__run_solver_t *solver, const nq__run_t *run,
                  const nq__work_t *unit);

/* Solves a batch on this rank's GPU solver, through the fault hook. */
int nq__run_solve_batch(nq_unit_result_t *results, const nq__run_t *run, const nq__work_t *units,
                        size_t count);

/* Which ranks drive a GPU (gpu_ranks.c): with options.gpu, on each node
 * the ranks other than the master take devices 0, 1, ... in rank order,
 * the master only when it is alone; a rank without a device counts on its
 * CPU.  Fills run->gpu_device, run->gpu and run->gpu_ranks on every rank;
 * NQ_ENOGPU on every rank when options.gpu finds no GPU anywhere. */
int nq__gpu_ranks_open(nq__run_t *run, MPI_Comm comm);
void nq__gpu_ranks_close(nq__run_t *run);

/* What the master learns besides the totals; the caller copies it into
 * whatever result it reports. */
typedef struct nq__master_outcome {
  int failed_rank; /* the rank whose unit failed, else -1 */
  int disagreeing_rank; /* after two ranks' answers differed (NQ_ECHECK): the first's, else -1 */
  uint64_t copies_sent, copies_confirmed; /* backup copies (backups.h) */
  int silent_ranks;      /* peers that never answered their last batch, or never gave
                            their last word after the stop */
  int first_silent_rank; /* the lowest of them, else -1 */
  /* The patience that found ranks silent: waiting, not the count's time
   * (a 0.003 s count would report its 10 s). */
  double silent_wait_seconds;
} nq__master_outcome_t;

/* The two roles (master.c, worker.c).  The master returns the first unit
 * failure with the rank that had it (outcome->failed_rank), after every
 * worker has stopped; or, once any rank was asked to stop, NQ_ESTOPPED,
 * as every worker then does. */
int nq__master_run(nq__totals_t *totals, nq__master_outcome_t *outcome, const nq__run_t *run,
                   MPI_Comm comm);
int nq__worker_run(const nq__run_t *run, MPI_Comm comm);

#endif
