#include <mpi.h>
#include <stdio.h>

#include "app.h"
#include "stop_signals.h"

#ifdef NQ_TEST_FAULTS_FROM_ENV
#include <stdlib.h>

#include "app_faults.h"

/* The test build's binary only (nqueens-mpi-faults, tests/CMakeLists.txt):
 * NQ_TEST_WRONG_COUNT=R makes rank R report one solution too many for
 * every unit it solves, the fault --verify and --merge are there to
 * catch; NQ_TEST_STALL_AT_END=R stops rank R (SIGSTOP) when its stop
 * arrives, after its last answer.  The installed nqueens-mpi is built
 * without this. */
static int rank_from_environment(const char *name) {
  const char *value = getenv(name);
  return value == NULL || value[0] == '\0' ? -1 : atoi(value);
}

static void inject_faults_from_environment(void) {
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.wrong_count_rank = rank_from_environment("NQ_TEST_WRONG_COUNT");
  faults.end_stall_rank = rank_from_environment("NQ_TEST_STALL_AT_END");
  if (faults.wrong_count_rank >= 0 || faults.end_stall_rank >= 0)
    nq__app_inject_faults(&faults);
}
#endif

int main(int argc, char **argv) {
  /* Before anything that takes time: a stop signal in the first moments
   * waits for the run to decide how to take it (stop_signals.h). */
  nq__stop_signals_block();
  nq__app_tune_singleton();
#ifdef NQ_TEST_FAULTS_FROM_ENV
  inject_faults_from_environment();
#endif
  /* Search threads (-t) live beside the one thread that calls MPI; an MPI
   * that cannot allow that is caught by nq_count_run (MPI_Query_thread). */
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "nqueens-mpi: MPI_Init_thread failed\n");
    return NQ_EXIT_FAILURE;
  }
  int status = nq__app_main(argc, argv, MPI_COMM_WORLD, stdout, stderr);
  if (status == NQ_EXIT_ABORT)
    MPI_Abort(MPI_COMM_WORLD, NQ_EXIT_FAILURE);
  if (status > 0 && (status & NQ_EXIT_WITHOUT_SILENT_RANKS)) {
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, status & ~NQ_EXIT_WITHOUT_SILENT_RANKS);
  }
  if (MPI_Finalize() != MPI_SUCCESS && status == NQ_EXIT_OK) {
    fprintf(stderr, "nqueens-mpi: MPI_Finalize failed\n");
    status = NQ_EXIT_FAILURE;
  }
  return status;
}
