#ifndef NQUEENS_APP_H
#define NQUEENS_APP_H

#include <mpi.h>
#include <stdio.h>

/* Returned when the job must be torn down with MPI_Abort: an MPI call
 * failed and other ranks may be blocked waiting on this one. */
#define NQ_EXIT_ABORT 3

/* The whole command line on every rank of `comm`.  Only rank 0 writes to
 * `out` and `err`.  Returns the exit status (NQ_EXIT_*), or NQ_EXIT_ABORT. */
int nq_app_main(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *err);

#endif
