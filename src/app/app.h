#ifndef NQ_SRC_APP_H
#define NQ_SRC_APP_H

#include <mpi.h>
#include <stdio.h>

/* Exit statuses of the command line.  NQ_EXIT_STOPPED: a signal stopped
 * the count cleanly.  NQ_EXIT_ABORT is never an exit status: it tells main
 * to tear the job down with MPI_Abort (an MPI call failed, and other ranks
 * may be blocked waiting on this one). */
enum {
  NQ_EXIT_OK = 0,
  NQ_EXIT_FAILURE = 1,
  NQ_EXIT_USAGE = 2,
  NQ_EXIT_STOPPED = 3,
  NQ_EXIT_BUSY = 4, /* the checkpoint journal is held by another live run: retry once it ends */
  /* Or-ed into a status: a rank fell silent (stopped or hung) and the run
   * ended without it; main ends the job with MPI_Abort(status), since
   * MPI_Finalize would wait for that rank forever. */
  NQ_EXIT_WITHOUT_SILENT_RANKS = 0x100,
  NQ_EXIT_ABORT = -1
};

/* Call before MPI_Init.  When no launcher started this process (a plain
 * `nqueens-mpi -n 16`), asks Open MPI for a lean single-process start:
 * no helper daemon, the ob1 messaging layer and the self transport.  That
 * skips probing the network stacks a lone process never uses, most of a
 * small run's start-up (docs/performance.md); and a session directory of
 * its own, so that singletons started together do not share one.
 * Settings already in the environment win. */
void nq__app_tune_singleton(void);

/* The whole command line on every rank of `comm`.  Only rank 0 writes to
 * `out` and `err`.  Returns the exit status (NQ_EXIT_*), or NQ_EXIT_ABORT. */
int nq__app_main(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *err);

#endif
