#ifndef NQ_SRC_COUNT_FAULTS_H
#define NQ_SRC_COUNT_FAULTS_H

/* The run's entry with faults injected (count.c): the tests' way in, and
 * the command line's test hooks (app.c).  Apart from run.h, which the
 * layers under count.c include, so that none of them sees the public
 * result. */

#include <mpi.h>

#include "nqueens/count.h"
#include "run.h"

/* nq_count_run with `faults` injected (run.h, nq__faults_t). */
int nq__count_run_with_faults(nq_count_result_t *result, const nq_count_options_t *options,
                              nq__faults_t faults, MPI_Comm comm);

#endif
