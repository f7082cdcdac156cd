#ifndef NQUEENS_COUNT_H
#define NQUEENS_COUNT_H

#include <gmp.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>

#include "nqueens/options.h"

/* Why a verification is pending (nq_count_result_t.verify_pending). */
enum { NQ_VERIFY_DONE_OR_NONE = 0, NQ_VERIFY_STOPPED = 1, NQ_VERIFY_NOT_RUN = 2 };

/* Totals of a run, valid on rank 0 of the communicator. */
typedef struct nq_count_result {
  mpz_t solutions;
  mpz_t unique;        /* set when options.unique; in a slice, 8 x its share of U(n)
                          (a slice's share of U need not be whole) */
  mpz_t nodes;         /* queens placed by all searches */
  uint64_t units;      /* work units solved */
  int ranks;
  int threads;         /* search threads over all ranks (a GPU rank's: 1) */
  int depth;           /* the unit parameter (options.depth resolved): unit ids depend on it */
  size_t memory;       /* the join: options.memory resolved (bytes a rank); 0 otherwise */
  int slice_index, slice_count; /* the slice counted (0 of 1: the whole count) */
  nq_count_method_t method;
  nq_walk_t walk;      /* the walk rank 0 counted with (resolved; the backtracker's) */
  int gpu_ranks;       /* ranks that counted on a GPU */
  uint64_t resumed_units; /* units whose counts came from the checkpoint journal */
  uint64_t restarts;      /* earlier runs of the count that opened its checkpoint journal */
  uint32_t solutions_mod[NQ_COUNT_RESIDUES]; /* solutions modulo NQ_COUNT_RESIDUE_PRIMES */
  /* Backup copies of the last batches, sent to ranks left idle at the end
   * of the run, and those whose answer came back and agreed exactly with
   * the first (one that differs fails the run with NQ_ECHECK). */
  uint64_t copies_sent, copies_confirmed;
  /* Ranks that held a batch past the end's patience (10 s; 120 s with GPU
   * ranks) once every unit was done, or the run was stopping: stopped or
   * hung processes.  The run ended without their answers (the result
   * holds everything without them); they may never reach MPI_Finalize,
   * so the caller must end the job with MPI_Abort. */
  int silent_ranks, first_silent_rank;
  int verify_pending; /* NQ_ESTOPPED with the count complete but options.verify not:
                         NQ_VERIFY_STOPPED during it, or NQ_VERIFY_NOT_RUN (a silent
                         rank in the count kept it from running); a rerun verifies
                         what is left */
  /* --verify: batches and units solved again, and those that differed (the
   * first such batch's units in verify_first..verify_end - 1); of the
   * batches, those whose check line names another rank than their record
   * (rank numbers are each run's own: a check by rank 1 of rank 1's batch
   * in an earlier run counts as the same rank) */
  uint64_t verified_batches, verified_units, verify_differing;
  uint64_t verified_by_other_ranks;
  uint64_t verify_first, verify_end;
  /* Rank 0, with a checkpoint: why it was refused (NQ_EJOURNAL) or could
   * not be written, or a warning (a torn last record dropped); else "". */
  char message[NQ_COUNT_MESSAGE_SIZE];
  int failed_rank;     /* after a unit failed: the rank that ran it, else -1 */
  int disagreeing_rank; /* after failed_rank counted units another rank had
                           counted otherwise (NQ_ECHECK): that rank, else -1 */
  double seconds;      /* this run's */
  /* With a checkpoint: the count's own time, summed over the runs that
   * counted (the earlier ones' from the journal's timestamps, without the
   * time between them, and this one's if it solved anything), and those
   * runs.  A rerun of a finished count solves nothing: its answer keeps
   * the count's figures. */
  double count_seconds;
  uint64_t count_runs;
} nq_count_result_t;

/* CUDA GPUs this process sees: 0 without any, or in a build without CUDA. */
int nq_count_gpus(void);

void nq_count_result_init(nq_count_result_t *result);
void nq_count_result_clear(nq_count_result_t *result);

/* Collective over `comm`: rank 0 generates units and sums results while
 * computing units itself between messages; every other rank is a worker.
 * Returns 0, or a negative NQ_E* code: NQ_EINVAL on every rank for options
 * no rank can run; NQ_ENOTSUP on every rank when options.walk is explicit
 * and some rank's CPU cannot run it; NQ_ENOGPU on every rank when
 * options.gpu finds no GPU on any rank; NQ_EJOURNAL on every rank when the
 * checkpoint journal cannot serve this run, NQ_EBUSY on every rank when
 * another live run holds it (result->message says why); a unit's failure
 * on rank 0 (with result->failed_rank)
 * and on the rank that ran it, after every rank has stopped cleanly;
 * NQ_ESTOPPED on every rank, after every rank has left the run cleanly,
 * when options.stop asked for a stop before the count was complete (the
 * result then holds no totals, only result->units finished, those resumed
 * included, and `comm` is ready for another run);
 * NQ_EMPI on the rank whose MPI call failed, which must then abort. */
int nq_count_run(nq_count_result_t *result, const nq_count_options_t *options, MPI_Comm comm);

#endif
