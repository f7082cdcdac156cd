#ifndef NQUEENS_APP_H
#define NQUEENS_APP_H

#include <mpi.h>
#include <stdio.h>

#include "nqueens/cli.h"

/* Call before MPI_Init.  When no launcher started this process (a plain
 * `nqueens-mpi -n 16`), asks Open MPI for a lean single-process start:
 * no helper daemon, the ob1 messaging layer and the self transport.  That
 * skips probing the network stacks a lone process never uses (start-up
 * 335 ms -> 45 ms here: hyperfine -N -r 10 "build/nqueens-mpi -n 4").  Settings already in the environment win. */
void nq_app_tune_singleton(void);

/* The whole command line on every rank of `comm`.  Only rank 0 writes to
 * `out` and `err`.  Returns the exit status (NQ_EXIT_*), or NQ_EXIT_ABORT. */
int nq_app_main(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *err);

#endif
