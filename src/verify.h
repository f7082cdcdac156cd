#ifndef NQ_SRC_VERIFY_H
#define NQ_SRC_VERIFY_H

/* --verify (verify.c): a share of the journal's batches solved again on
 * other ranks and compared, the verdicts written as check lines. */

#include <mpi.h>

#include "nqueens/count.h"
#include "run.h"

/* The sample and, on rank 0, what the ranks found. */
typedef struct nq__verify {
  void *drawing;
  uint64_t *answers;
  size_t answer_count;
} nq__verify_t;

/* Collective, after a complete count, with the journal closed (rank 0
 * reads it: reading a journal this process holds open would drop its
 * lock): draws the sample, deals it, solves it.  NQ_EJOURNAL when the
 * journal cannot be read back (the reason in result->message), NQ_ENOMEM,
 * or a unit's failure, on every rank. */
int nq__verify_solve(nq__verify_t *v, nq_count_result_t *result, const nq__run_t *run,
                     MPI_Comm comm);

/* Rank 0, with the journal open again: the verdicts, into result's
 * verified_* fields and the journal's check lines.  NQ_ECHECK when a batch
 * differs from its record, NQ_EIO when the journal cannot be written. */
int nq__verify_judge(nq_count_result_t *result, nq__journal_t *journal, const nq__verify_t *v);

void nq__verify_clear(nq__verify_t *v);

#endif
