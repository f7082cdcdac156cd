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

int nq__agree_worst(int code, MPI_Comm comm) {
  int worst = code;
  int mpi_code = MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MIN, comm);
  if (mpi_code == MPI_SUCCESS)
    return worst;
  nq__mpi_report(mpi_code, "MPI_Allreduce (the worst code)", __FILE__, __LINE__, comm);
  return NQ_EMPI;
}

int nq__agree_with_rank0(int code, MPI_Comm comm) {
  int mpi_code = MPI_Bcast(&code, 1, MPI_INT, 0, comm);
  if (mpi_code == MPI_SUCCESS)
    return code;
  nq__mpi_report(mpi_code, "MPI_Bcast (rank 0's code)", __FILE__, __LINE__, comm);
  return NQ_EMPI;
}

int nq__private_comm(MPI_Comm *own, MPI_Comm comm) {
  int mpi_code = MPI_Comm_dup(comm, own);
  if (mpi_code != MPI_SUCCESS) {
    nq__mpi_report(mpi_code, "MPI_Comm_dup (the private communicator)", __FILE__, __LINE__, comm);
    return NQ_EMPI;
  }
  mpi_code = MPI_Comm_set_errhandler(*own, MPI_ERRORS_RETURN);
  if (mpi_code != MPI_SUCCESS) {
    nq__mpi_report(mpi_code, "MPI_Comm_set_errhandler", __FILE__, __LINE__, comm);
    MPI_Comm_free(own);
    return NQ_EMPI;
  }
  return NQ_OK;
}

int nq__private_comm_free(MPI_Comm *own) {
  int mpi_code = MPI_Comm_free(own);
  if (mpi_code == MPI_SUCCESS)
    return NQ_OK;
  nq__mpi_report(mpi_code, "MPI_Comm_free (the private communicator)", __FILE__, __LINE__,
                 MPI_COMM_SELF);
  return NQ_EMPI;
}
