#define _POSIX_C_SOURCE 200809L /* setenv */

#include "app.h"

#include <stdlib.h>

#include "cli.h"
#include "nqueens/error.h"
#include "output.h"
#include "nqueens/count.h"
#include "nqueens/solutions.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

static int started_by_launcher(void) {
  static const char *const launcher_variables[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                                   "PMI_RANK", "PMI_SIZE", "SLURM_STEP_ID"};
  for (size_t i = 0; i < sizeof launcher_variables / sizeof launcher_variables[0]; i++)
    if (getenv(launcher_variables[i]) != NULL)
      return 1;
  return 0;
}

void nq__app_tune_singleton(void) {
  if (started_by_launcher())
    return;
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  setenv("OMPI_MCA_pml", "ob1", 0);
  setenv("OMPI_MCA_btl", "self", 0);
}

static int runtime_failure(FILE *err, const char *what, int code) {
  fprintf(err, "nqueens-mpi: %s: %s\n", what, nq_strerror(code));
  return code == NQ_EMPI ? NQ_EXIT_ABORT : NQ_EXIT_FAILURE;
}

/* Everything written must reach the stream: a full disk is a failure. */
static int flushed(FILE *out) { return fflush(out) == 0 && !ferror(out) ? NQ_OK : NQ_EIO; }

/* A failed unit is reported once, by rank 0, naming the rank that ran it;
 * an MPI failure by the rank that saw it (the job is then aborted). */
static int count_failure(FILE *err, int rank, int code, const nq_count_result_t *result) {
  if (code == NQ_EMPI)
    return runtime_failure(err, "counting failed", code);
  if (rank == 0 && result->failed_rank >= 0)
    fprintf(err, "nqueens-mpi: counting failed on rank %d: %s\n", result->failed_rank,
            nq_strerror(code));
  else if (rank == 0)
    fprintf(err, "nqueens-mpi: counting failed: %s\n", nq_strerror(code));
  return NQ_EXIT_FAILURE;
}

static int run_count(const nq_cli_t *cli, MPI_Comm comm, int rank, FILE *out, FILE *err) {
  nq_count_options_t options = {.n = cli->n, .unique = cli->unique, .walk = cli->walk};
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = nq_count_run(&result, &options, comm), status = NQ_EXIT_OK;
  if (rc == NQ_ENOTSUP) {
    /* Refused on every rank at once, before any work: a usage error. */
    if (rank == 0)
      fprintf(err,
              "nqueens-mpi: --walk %s needs AVX-512 F, CD and VPOPCNTDQ on every rank's CPU "
              "and a build with the lane walk (see --version)\n",
              nq_walk_name(cli->walk));
    status = NQ_EXIT_USAGE;
  } else if (rc != NQ_OK)
    status = count_failure(err, rank, rc, &result);
  else if (rank == 0 && (nq__output_count(out, cli->format, cli->n, cli->unique, &result) != NQ_OK ||
                         flushed(out) != NQ_OK))
    status = runtime_failure(err, "writing the count failed", NQ_EIO);
  nq_count_result_clear(&result);
  return status;
}

/* One line: the version and the walks this CPU can run. */
static void print_version(FILE *out) {
  fprintf(out, "nqueens-mpi %s (walks: scalar%s)\n", NQ_VERSION,
          nq_walk_supported(NQ_WALK_AVX512, 1) ? ", avx512" : "");
}

static int write_board(const uint8_t *columns, int n, void *writer) {
  return nq__output_board(writer, columns, n);
}

/* Printing a board costs more than finding it, so listing is rank 0's
 * alone: more ranks would only wait on the output stream. */
static int run_list(const nq_cli_t *cli, FILE *out, FILE *err) {
  nq_board_writer_t writer;
  int rc = nq__output_boards_begin(&writer, out, cli->format, cli->n);
  if (rc == NQ_OK)
    rc = nq_solutions_each(cli->n, cli->limit, write_board, &writer);
  if (rc == NQ_OK)
    rc = nq__output_boards_end(&writer);
  if (rc == NQ_OK)
    rc = flushed(out);
  return rc == NQ_OK ? NQ_EXIT_OK : runtime_failure(err, "listing failed", rc);
}

static int run_first(const nq_cli_t *cli, FILE *out, FILE *err) {
  uint8_t columns[64];
  nq_first_kind_t kind;
  double started = MPI_Wtime();
  int rc = nq_solutions_first(columns, &kind, cli->n);
  if (rc == NQ_OK)
    rc = nq__output_first(out, cli->format, cli->n, columns, kind, MPI_Wtime() - started);
  if (rc == NQ_OK)
    rc = flushed(out);
  return rc == NQ_OK ? NQ_EXIT_OK : runtime_failure(err, "--first failed", rc);
}

int nq__app_main(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *err) {
  nq_cli_t cli;
  char message[256];
  int rank = 0;
  /* Errors come back as codes (reported with their place by NQ_MPI_CHECK)
   * rather than killing the job without a word. */
  if (MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
      MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) {
    fprintf(err, "nqueens-mpi: cannot query the MPI communicator\n");
    return NQ_EXIT_ABORT;
  }
  /* Every rank parses the same argv and reaches the same verdict, so bad
   * input ends all ranks quietly with one message from rank 0. */
  if (nq__cli_parse(&cli, message, sizeof message, argc, argv) != NQ_OK) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: %s (see --help)\n", message);
    return NQ_EXIT_USAGE;
  }
  if (cli.mode == NQ_MODE_COUNT)
    return run_count(&cli, comm, rank, out, err);
  if (rank != 0)
    return NQ_EXIT_OK;
  switch (cli.mode) {
  case NQ_MODE_HELP: nq__cli_print_help(out); break;
  case NQ_MODE_VERSION: print_version(out); break;
  case NQ_MODE_LIST: return run_list(&cli, out, err);
  default: return run_first(&cli, out, err);
  }
  return flushed(out) == NQ_OK ? NQ_EXIT_OK : runtime_failure(err, "writing failed", NQ_EIO);
}
