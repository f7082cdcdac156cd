#ifndef NQ_SRC_RUN_H
#define NQ_SRC_RUN_H

/* One counting run as the master and the workers see it, with the test
 * hooks that make failures happen on purpose. */

#include <stdint.h>

#include <mpi.h>

#include "nqueens/count.h"
#include "nqueens/kernel.h"
#include "totals.h"

/* Failures injected by tests; NQ_NO_FAULTS injects none. */
typedef struct nq__faults {
  uint64_t failing_unit;  /* solving this unit id fails with NQ_EUNIT, wherever it runs */
  int walk_refusing_rank; /* this rank acts as if its CPU could not run an explicit walk */
} nq__faults_t;

#define NQ_NO_FAULTS ((nq__faults_t){.failing_unit = UINT64_MAX, .walk_refusing_rank = -1})

typedef struct nq__run {
  const nq_count_options_t *options;
  nq__faults_t faults;
} nq__run_t;

/* nq_count_run with faults injected. */
int nq__count_run_with_faults(nq_count_result_t *result, const nq_count_options_t *options,
                              nq__faults_t faults, MPI_Comm comm);

/* Solves one unit where it runs, through the fault hook. */
int nq__run_solve(nq_unit_result_t *result, nq_search_t *search, const nq__run_t *run,
                  const nq_unit_t *unit);

/* The two roles (master.c, worker.c).  The master returns the first unit
 * failure with the rank that had it, after every worker has stopped. */
int nq__master_run(nq__totals_t *totals, int *failed_rank, const nq__run_t *run, MPI_Comm comm);
int nq__worker_run(const nq__run_t *run, MPI_Comm comm);

#endif
