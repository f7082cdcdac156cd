#ifndef NQUEENS_JOIN_H
#define NQUEENS_JOIN_H

/* The join method (`--method join`, and `--method auto`'s choice for plain
 * counts where it measured faster): Q(n) counted by cutting the board at a
 * middle row and counting, for each set S of columns the top rows use, the
 * pairs of a top half and a bottom half that fit together, instead of
 * walking each solution.  docs/algorithm.md (section 7) has the design,
 * docs/research.md the measurements and where it beats the backtracker. */

#include <gmp.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>

/* The largest board the join counts: its masks, and the column sets it
 * enumerates, C(n, n/2) of them. */
#define NQ_JOIN_MAX_N 32

/* What a join did, for the measurements. */
typedef struct nq_join_stats {
  uint64_t buckets;      /* column sets joined (canonical ones only) */
  uint64_t tops;         /* top halves enumerated */
  uint64_t top_nodes;    /* queens placed enumerating them */
  uint64_t bottom_nodes; /* queens placed by the bottom searches */
  uint64_t words;        /* 64-bit words combined (ORed or counted) */
  uint64_t pruned;       /* bottom subtrees cut because no top fit any more */
  uint64_t repacks;      /* survivors moved to a table of their own */
  uint64_t max_tops;     /* the largest bucket's top halves */
} nq_join_stats_t;

/* Scratch memory of one joiner: reused from bucket to bucket. */
typedef struct nq_join_scratch nq_join_scratch_t;

int nq_join_scratch_create(nq_join_scratch_t **scratch);
void nq_join_scratch_destroy(nq_join_scratch_t *scratch);

/* The default cut: the top has n / 2 rows (on odd boards the middle row
 * then lies between two halves of n / 2 rows). */
int nq_join_default_top_rows(int n);

/* Counts the n-queens solutions whose rows 0..top_rows-1 hold their queens
 * in exactly the columns of `top_columns` (a set of top_rows columns),
 * into *solutions, and adds to *stats (when not NULL).  NQ_EINVAL for n
 * outside 1..NQ_JOIN_MAX_N, top_rows outside 1..n-1 or a column set of another size;
 * NQ_ENOMEM. */
int nq_join_bucket(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                   int n, int top_rows, uint64_t top_columns);

/* Rank 0's progress: the buckets its threads have finished of its share
 * (the ranks' shares are dealt alike, so it stands for the whole), the
 * seconds since the start, and final = 1 once, when the share is done. */
typedef void (*nq_join_progress_fn)(uint64_t buckets_done, uint64_t buckets_total,
                                    double seconds, int final, void *context);

typedef struct nq_join_options {
  int n;
  int top_rows; /* 0: nq_join_default_top_rows(n) */
  int threads;  /* on each rank; 0 or 1: one */
  nq_join_progress_fn progress; /* rank 0 calls it when set, from its own
                                   thread, at most every progress_seconds */
  void *progress_context;
  double progress_seconds;
  /* When set, a rank's threads take no more buckets once *stop is not 0
   * (a signal handler sets it), and every rank returns NQ_ESTOPPED once
   * each has stopped or finished: nothing of the count is kept. */
  volatile sig_atomic_t *stop;
} nq_join_options_t;

/* Q(n) by the join: every canonical column set (one per orbit under the
 * left-right mirror and the up-down flip, see docs/algorithm.md), weighted
 * by its orbit, dealt over the ranks of `comm` and the threads of each.
 * The total is also summed modulo three primes, bucket by bucket, and
 * checked against the big integer (NQ_ECHECK if they disagree).  The total
 * and the summed stats are valid on rank 0; every rank returns the same
 * code.  Collective.  NQ_EINVAL (n outside 0..NQ_JOIN_MAX_N, a cut outside 1..n-1,
 * threads outside 0..4096), NQ_ENOMEM, NQ_EMPI, NQ_ECHECK, NQ_ESTOPPED. */
int nq_join_count(mpz_t solutions, nq_join_stats_t *stats, const nq_join_options_t *options,
                  MPI_Comm comm);

#endif
