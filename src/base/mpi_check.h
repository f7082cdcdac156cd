#ifndef NQ_SRC_MPI_CHECK_H
#define NQ_SRC_MPI_CHECK_H

/* Every MPI call goes through NQ_MPI_CHECK: on failure it says where and
 * why on stderr, and hands NQ_EMPI back to the caller (main then aborts
 * the job).  The communicator must have MPI_ERRORS_RETURN. */

#include <mpi.h>

#include "nqueens/error.h"

void nq__mpi_report(int mpi_code, const char *call, const char *file, int line, MPI_Comm comm);

#define NQ_MPI_CHECK(comm, call)                                         \
  do {                                                                   \
    int nq__mpi_code_ = (call);                                          \
    if (nq__mpi_code_ != MPI_SUCCESS) {                                  \
      nq__mpi_report(nq__mpi_code_, #call, __FILE__, __LINE__, (comm));  \
      return NQ_EMPI;                                                    \
    }                                                                    \
  } while (0)

/* The verdicts every rank must share before it acts, so that no rank goes
 * on alone into a collective the others have left.  Collective; each
 * returns the agreed code, or NQ_EMPI (reported) when the collective
 * itself failed. */
/* The lowest code of all ranks: NQ_OK is 0 and every failure negative, so
 * any rank's failure is every rank's. */
int nq__agree_worst(int code, MPI_Comm comm);
/* Rank 0's code (the rank that alone decided: a journal, the units). */
int nq__agree_with_rank0(int code, MPI_Comm comm);

/* Collective: a private duplicate of `comm` for a library entry (count,
 * estimate), so that its tags never meet the caller's messages, with
 * MPI_ERRORS_RETURN, so that its errors come back as codes instead of
 * ending the job.  NQ_EMPI (reported) leaves nothing to free; else the
 * caller frees *own with nq__private_comm_free. */
int nq__private_comm(MPI_Comm *own, MPI_Comm comm);
int nq__private_comm_free(MPI_Comm *own);

#endif
