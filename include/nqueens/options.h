#ifndef NQUEENS_OPTIONS_H
#define NQUEENS_OPTIONS_H

/* How to count: a run's options, the counting methods and the limits that
 * the run, the estimate, the sums, the journal and the command line share.
 * Apart from count.h (the run and its result) so that the layers under the
 * run take them without the run. */

#include <gmp.h>
#include <signal.h>
#include <stdint.h>

#include "nqueens/kernel.h"

/* How a count's units are counted: the backtracker walks every solution
 * through work units of frames and pre-placed rows (include/nqueens/units.h,
 * kernel.h); the join counts, for each set of columns the top half of the
 * board uses, the top and bottom halves that fit (include/nqueens/join.h). */
typedef enum nq_count_method { NQ_COUNT_BACKTRACK = 0, NQ_COUNT_JOIN } nq_count_method_t;

#define NQ_COUNT_MESSAGE_SIZE 1024
/* The total of solutions is also kept modulo these primes, summed unit by
 * unit apart from the big integers: a cheap cross-check that the GMP sum
 * was not corrupted (the count fails with NQ_ECHECK if they disagree). */
#define NQ_COUNT_RESIDUES 3
#define NQ_COUNT_RESIDUE_PRIMES {4294967291u, 4294967279u, 4294967231u}
/* The join's tables of tops on one rank, all its threads together, are
 * bounded by options.memory, by default this many bytes (4 GiB). */
#define NQ_COUNT_DEFAULT_MEMORY ((size_t)4 << 30)
/* Search threads a rank may run (-t). */
#define NQ_COUNT_MAX_THREADS 4096

/* Where a run stands, as rank 0 sees it (see nq_count_options.progress). */
typedef struct nq_count_progress {
  uint64_t units_done, units_total;
  uint64_t units_resumed; /* of units_done, those taken from the checkpoint journal */
  const mpz_t *solutions; /* the total so far */
  double seconds;         /* since the run started */
  int final;              /* 1 on the last call: every unit is done, or the run
                             stopped (options.stop) with units_done short */
} nq_count_progress_t;

typedef void (*nq_count_progress_fn)(const nq_count_progress_t *progress, void *context);

/* How to count: the board and how the work is cut. */
typedef struct nq_count_options {
  int n;
  nq_count_method_t method; /* the join counts Q(n) and U(n): no walk or gpu */
  int unique;          /* also count solutions up to rotation and reflection */
  int depth;           /* the backtracker: rows pre-placed per unit (0 =
                          nq_units_depth(n)); the join: the top half's rows
                          (0 = nq_join_default_top_rows(n)) */
  int batch_units;     /* units per message; 0 = default */
  nq_walk_t walk;      /* how units are counted; AUTO = the fastest here */
  int threads;         /* search threads on each CPU rank; 0 or 1: one.  More
                          than one needs MPI initialised with at least
                          MPI_THREAD_FUNNELED (else NQ_EINVAL everywhere):
                          only the calling thread talks MPI */
  int gpu;             /* ranks with a CUDA device count on it (see docs/design.md) */
  size_t memory;       /* the join: bytes its tables of tops may hold on a rank,
                          shared among its threads (nq_join_scratch_limit);
                          0 = NQ_COUNT_DEFAULT_MEMORY */
  /* Rank 0 calls `progress` (when set) at most every progress_seconds,
   * from the master's loop, and once more when the count is complete. */
  nq_count_progress_fn progress;
  void *progress_context;
  double progress_seconds;
  /* A checkpoint journal (rank 0's path; NULL: none): each finished batch
   * is recorded as it arrives, and a rerun with the same options resumes
   * from what it holds (docs/design.md, "Checkpoint journal"). */
  const char *checkpoint;
  /* Count only slice slice_index (0-based) of slice_count (0 or 1: the
   * whole count; include/nqueens/slice.h says how units are dealt). */
  int slice_index, slice_count;
  /* With a checkpoint, once the count is complete: solve again about this
   * share (0 < verify <= 1; 0: none) of the journal's batches, chosen by
   * verify_seed, each on another rank than the one that solved it, and
   * compare; the outcome goes into the journal as check lines, and a
   * difference fails the run with NQ_ECHECK. */
  double verify;
  uint64_t verify_seed;
  /* When set, the run stops soon after *stop becomes non-zero on any rank
   * (a signal handler sets it): no more work goes out, every rank
   * abandons the unit it is in (the search looks at coarse points of its
   * walk; a GPU rank only between batches), and every rank returns
   * NQ_ESTOPPED.  NULL: the run ends only when the count is complete. */
  volatile sig_atomic_t *stop;
} nq_count_options_t;

#endif
