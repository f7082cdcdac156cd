#ifndef NQ_SRC_VERIFY_H
#define NQ_SRC_VERIFY_H

/* --verify (verify.c): a share of the journal's batches solved again on
 * other ranks and compared, each verdict written as a check line the
 * moment it is known, so that a stop or a kill loses only the batches in
 * hand and a rerun of the same command checks only what is left. */

#include <mpi.h>

#include "journal.h"
#include "run.h"

/* What verification learns (rank 0); the caller copies it into whatever
 * result it reports. */
typedef struct nq__verify_outcome {
  uint64_t batches, units; /* solved again and compared, with those an
                              earlier run checked */
  uint64_t by_other_ranks; /* of the batches, those checked by a rank other
                              than the one its record names */
  uint64_t differing;      /* batches whose count differed from the record */
  uint64_t first, end;     /* the first such batch: units first..end - 1 */
  int silent_ranks;        /* ranks that never gave their last word */
  int first_silent_rank;   /* the lowest of them, else -1 */
} nq__verify_outcome_t;

/* The sample and this rank's share of it, and what came of it. */
typedef struct nq__verify {
  void *drawing;    /* rank 0: the drawn batches and their records' sums */
  uint64_t *dealt;  /* every rank: [first, count, checking rank] a batch still to check */
  uint64_t count;   /* batches in `dealt` */
  int *done;        /* rank 0: by rank, whether its last word came in */
  nq__verify_outcome_t outcome; /* rank 0 */
} nq__verify_t;

/* Collective, after a complete count, with the journal closed (rank 0
 * reads it: reading a journal this process holds open would drop its
 * lock): draws the sample (the same for the same seed and journal),
 * takes out the batches an earlier run checked already (counted in
 * v->outcome), and deals the rest.  NQ_EJOURNAL when the journal cannot
 * be read back (the reason in `message`), NQ_ENOMEM, on every rank. */
int nq__verify_draw(nq__verify_t *v, char message[static NQ__MESSAGE_SIZE],
                    const nq__run_t *run, MPI_Comm comm);

/* Collective, with the journal open again on rank 0 (run->journal): each
 * rank solves its share, rank 0 judging every answer as it comes into
 * v->outcome and a check line.  Stops soon after a stop
 * is asked on any rank (options.stop).  On every rank: NQ_ECHECK when a
 * batch differs from its record, NQ_ESTOPPED after a stop, NQ_EIO when
 * the journal cannot be written, or a unit's failure. */
int nq__verify_solve(nq__verify_t *v, const nq__run_t *run, MPI_Comm comm);

void nq__verify_clear(nq__verify_t *v);

#endif
