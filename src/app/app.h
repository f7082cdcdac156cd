#ifndef NQ_SRC_APP_H
#define NQ_SRC_APP_H

#include <mpi.h>
#include <stdio.h>

#include "cli.h"

/* Call before MPI_Init.  When no launcher started this process (a plain
 * `nqueens-mpi -n 16`), asks Open MPI for a lean single-process start:
 * no helper daemon, the ob1 messaging layer and the self transport.  That
 * skips probing the network stacks a lone process never uses, most of a
 * small run's start-up (docs/performance.md).  Settings already in the
 * environment win. */
void nq__app_tune_singleton(void);

/* The whole command line on every rank of `comm`.  Only rank 0 writes to
 * `out` and `err`.  Returns the exit status (NQ_EXIT_*), or NQ_EXIT_ABORT. */
int nq__app_main(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *err);

#endif
