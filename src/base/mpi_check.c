#include "mpi_check.h"

#include <stdio.h>

void nq__mpi_report(int mpi_code, const char *call, const char *file, int line, MPI_Comm comm) {
  char message[MPI_MAX_ERROR_STRING];
  int length = 0, rank = -1;
  MPI_Error_string(mpi_code, message, &length);
  MPI_Comm_rank(comm, &rank);
  fprintf(stderr, "nqueens-mpi: rank %d: %s failed at %s:%d: %s\n", rank, call, file, line,
          message);
}
