#ifndef NQUEENS_JOIN_H
#define NQUEENS_JOIN_H

/* The join method (research, `--method join`): Q(n) counted by cutting the
 * board at a middle row and counting, for each set S of columns the top
 * rows use, the pairs of a top half and a bottom half that fit together,
 * instead of walking each solution.  docs/research.md has the design, the
 * measurements and why it does not replace the backtracker. */

#include <gmp.h>
#include <mpi.h>
#include <stdint.h>

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

/* The default cut: the top has (n + 1) / 2 rows (none below n = 2). */
int nq_join_default_top_rows(int n);

/* Counts the n-queens solutions whose rows 0..top_rows-1 hold their queens
 * in exactly the columns of `top_columns` (a set of top_rows columns),
 * into *solutions, and adds to *stats (when not NULL).  NQ_EINVAL for n
 * outside 1..NQ_MAX_N, top_rows outside 1..n-1 or a column set of another
 * size; NQ_ENOMEM. */
int nq_join_bucket(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                   int n, int top_rows, uint64_t top_columns);

/* Q(n) by the join: every canonical column set (one per orbit under the
 * left-right mirror and, when top_rows = n/2 exactly, the up-down flip),
 * weighted by its orbit, dealt over the ranks of `comm` and `threads`
 * threads on each.  top_rows 0: nq_join_default_top_rows(n).  The total
 * and the summed stats are valid on rank 0; every rank returns the same
 * code.  Collective.  NQ_EINVAL, NQ_ENOMEM, NQ_EMPI. */
int nq_join_count(mpz_t solutions, nq_join_stats_t *stats, int n, int top_rows, int threads,
                  MPI_Comm comm);

#endif
