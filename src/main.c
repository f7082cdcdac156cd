#include <mpi.h>
#include <stdio.h>

#include "nqueens/app.h"

int main(int argc, char **argv) {
  nq_app_tune_singleton();
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
    return 1;
  int status = nq_app_main(argc, argv, MPI_COMM_WORLD, stdout, stderr);
  if (status == NQ_EXIT_ABORT)
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (fflush(stdout) != 0 && status == 0)
    status = 1;
  MPI_Finalize();
  return status;
}
