#ifndef NQ_SRC_MPI_CHECK_H
#define NQ_SRC_MPI_CHECK_H

/* Every MPI call goes through NQ_MPI_CHECK: on failure it says where and
 * why on stderr, and hands NQ_EMPI back to the caller (main then aborts
 * the job).  The communicator must have MPI_ERRORS_RETURN. */

#include <mpi.h>

#include "nqueens/error.h"

void nq__mpi_report(int mpi_code, const char *call, const char *file, int line, MPI_Comm comm);

#define NQ_MPI_CHECK(comm, call)                                          \
  do {                                                                    \
    int nq__mpi_code_ = (call);                                            \
    if (nq__mpi_code_ != MPI_SUCCESS) {                                    \
      nq__mpi_report(nq__mpi_code_, #call, __FILE__, __LINE__, (comm));    \
      return NQ_EMPI;                                                     \
    }                                                                     \
  } while (0)

#endif
