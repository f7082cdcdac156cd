/* --estimate: every rank and thread probes; rank 0 writes the result. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */

#include "app_modes.h"

#include "nqueens/error.h"
#include "output_estimate.h"

static int write_estimate(const nq__cli_t *cli, const nq_estimate_result_t *result, FILE *out,
                          FILE *err) {
  static const char what[] = "writing the estimate failed";
  nq__output_t output;
  if (nq__app_open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  int rc = nq__output_estimate(&output, cli->format, cli->n, cli->estimate_ranks, cli->seed,
                               result);
  return nq__app_close_output(&output, rc, err, what);
}

/* --estimate: every rank and thread probes; rank 0 writes the result. */
int nq__app_run_estimate(const nq__cli_t *cli, volatile sig_atomic_t *stop, MPI_Comm comm,
                        int rank, FILE *out, FILE *err) {
  const int threads = cli->threads ? cli->threads : nq__app_default_threads();
  size_t memory = 0;
  int refused = nq__app_join_memory(&memory, cli, threads, comm, rank, err);
  if (refused != NQ_EXIT_OK)
    return refused;
  nq_estimate_options_t options = {.n = cli->n,
                                   .method = nq__app_count_method(cli),
                                   .probes = cli->estimate_samples,
                                   .strata = cli->estimate_strata,
                                   .seconds = cli->estimate_seconds,
                                   .seed = cli->seed,
                                   .threads = threads,
                                   .memory = memory,
                                   .walk = cli->walk,
                                   .stop = stop};
  nq_estimate_result_t result;
  int rc = nq_estimate_run(&result, &options, comm);
  if (rc == NQ_ENOTSUP)
    return nq__app_walk_refused(err, rank, cli);
  if (rc == NQ_EMPI)
    return nq__app_runtime_failure(err, "estimating failed", rc, 0);
  if (rc == NQ_ESTOPPED) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: stopped cleanly; nothing was saved (an estimate keeps "
                   "nothing): rerun to start over\n");
    return NQ_EXIT_STOPPED;
  }
  if (rc != NQ_OK) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: estimating failed: %s\n", nq_strerror(rc));
    return NQ_EXIT_FAILURE;
  }
  return rank == 0 ? write_estimate(cli, &result, out, err) : NQ_EXIT_OK;
}
