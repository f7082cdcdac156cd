/* The helpers of one counting run (run.h), which the master, the
 * workers, the threads and the verification share: threads, stops, polls,
 * and a unit solved through the run's method and the test hooks. */

#include <stdatomic.h>
#include <stdlib.h>

#include "method_backtrack.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "run.h"
#include "simulated.h"

int nq__run_choose_method(nq__run_t *run) {
  const nq_count_options_t *options = run->options;
  run->method = nq__method_of(options->method);
  if (run->method == NULL || options->n < 0 || options->n > NQ_MAX_N || options->depth < 0)
    return NQ_EINVAL;
  run->params = (nq__method_params_t){
      .n = options->n,
      .unit_param = options->depth > 0 ? options->depth
                                       : run->method->default_unit_param(options->n),
      .unique = options->unique,
      .walk = options->walk};
  if (run->method->id == NQ_COUNT_JOIN)
    run->params.solver_bytes =
        nq_join_thread_bytes(options->n, options->threads, options->memory);
  if (run->method->id != NQ_COUNT_BACKTRACK && (options->walk != NQ_WALK_AUTO || options->gpu))
    return NQ_EINVAL;
  return run->method->check(&run->params);
}

int nq__run_threads(const nq__run_t *run) {
  return run->gpu != NULL || run->options->threads < 1 ? 1 : run->options->threads;
}

int nq__run_stop_asked(const nq__run_t *run) {
  return run->options->stop != NULL && *run->options->stop != 0;
}

int nq__run_poll_due(double *last_poll) {
  double now = MPI_Wtime();
  if (now - *last_poll < NQ_POLL_SECONDS)
    return 0;
  *last_poll = now;
  return 1;
}

int nq__run_solver_open(nq__run_solver_t **out_solver, const nq__run_t *run) {
  nq__run_solver_t *solver = calloc(1, sizeof *solver);
  *out_solver = NULL;
  if (solver == NULL)
    return NQ_ENOMEM;
  int rc = run->method->solver_open(&solver->method_solver, &run->params);
  if (rc != NQ_OK) {
    free(solver);
    return rc;
  }
  *out_solver = solver;
  return NQ_OK;
}

void nq__run_solver_close(const nq__run_t *run, nq__run_solver_t *solver) {
  if (solver == NULL)
    return;
  run->method->solver_close(solver->method_solver);
  free(solver);
}

void nq__run_solver_set_cancel(const nq__run_t *run, nq__run_solver_t *solver,
                               nq__method_cancel_fn cancelled, void *context) {
  solver->cancelled = cancelled;
  solver->cancel_context = context;
  run->method->solver_set_cancel(solver->method_solver, cancelled, context);
}

/* The test's signal: faults.stop_rank sets its stop flag as it starts
 * `count` more units past faults.stop_after_units. */
static void count_started_units(const nq__run_t *run, size_t count) {
  if (run->rank != run->faults.stop_rank || run->units_started == NULL)
    return;
  uint64_t started = atomic_fetch_add(run->units_started, count) + count;
  if (started > run->faults.stop_after_units && run->options->stop != NULL)
    *run->options->stop = 1;
}

/* A simulated unit (bench_master): its cost slept in slices, the solver's
 * cancel hook asked between them. */
static int simulate(nq_unit_result_t *result, const nq__run_solver_t *solver,
                    const nq__faults_t *faults, const nq__work_t *unit) {
  double seconds = faults->simulated_seconds(unit->id, faults->simulated_context);
  double slice =
      faults->simulated_poll_seconds > 0 ? faults->simulated_poll_seconds : NQ_POLL_SECONDS;
  return nq__simulated_solve(result, unit->id, seconds, slice, solver->cancelled,
                             solver->cancel_context);
}

int nq__run_solve(nq_unit_result_t *result, nq__run_solver_t *solver, const nq__run_t *run,
                  const nq__work_t *unit) {
  count_started_units(run, 1);
  if (unit->id == run->faults.failing_unit)
    return NQ_EUNIT;
  if (run->faults.simulated_seconds != NULL)
    return simulate(result, solver, &run->faults, unit);
  int rc = run->method->solve(result, solver->method_solver, unit, &run->params);
  if (rc == NQ_OK && run->rank == run->faults.wrong_count_rank)
    result->solutions++;
  return rc;
}

/* A GPU rank counts the backtracker's units alone (--gpu refuses other
 * methods). */
int nq__run_solve_batch(nq_unit_result_t *results, const nq__run_t *run, const nq__work_t *units,
                        size_t count) {
  count_started_units(run, count);
  nq_unit_t *unpacked = malloc((count ? count : 1) * sizeof *unpacked);
  if (unpacked == NULL)
    return NQ_ENOMEM;
  int rc = NQ_OK;
  for (size_t i = 0; i < count; i++) {
    if (units[i].id == run->faults.failing_unit)
      rc = NQ_EUNIT;
    nq__backtrack_unit_of(&unpacked[i], &units[i]);
  }
  if (rc == NQ_OK)
    rc = nq__gpu_solver_solve(run->gpu, results, unpacked, count, run->options->unique);
  free(unpacked);
  for (size_t i = 0; rc == NQ_OK && run->rank == run->faults.wrong_count_rank && i < count; i++)
    results[i].solutions++;
  return rc;
}
