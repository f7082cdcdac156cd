#ifndef NQ_SRC_JOIN_BUCKET_H
#define NQ_SRC_JOIN_BUCKET_H

/* One bucket of the join (join_bucket.c), each queen of row m weighted by the
 * column sets and middle queens it stands for: counted exactly, or
 * sampled for the estimate.  The unit scheme (join_units.c) supplies the
 * weights. */

#include <stddef.h>
#include <stdint.h>

#include "join_quarters.h"
#include "nqueens/join.h"

/* n and the cut a join takes, and a column set of the cut's size. */
int nq__join_bucket_is_valid(int n, int top_rows, uint64_t top_columns);

/* Sum over the queens c of row m of first_row_weight[c] times the
 * solutions with top columns `top_columns` and that queen; the counters
 * added to *stats (when not NULL).  With `long_diagonals`, where the cut
 * allows it (nq__join_long_diagonal_rule_fits), each solution counts by
 * the long-diagonal rule instead of once (join_units.c).  NQ_ENOMEM,
 * NQ_ESTOPPED. */
int nq__join_weighted(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                      int n, int top_rows, uint64_t top_columns,
                      const uint8_t first_row_weight[NQ_JOIN_MAX_N], int long_diagonals);

/* Whether the long-diagonal rule can hold for the cut: the board cut in
 * half, or on an odd board at its middle row (the bottom's first), so that
 * the up-down flip maps tops to bottoms. */
int nq__join_long_diagonal_rule_fits(int n, int top_rows);

/* The widest vectors the quarters' pairing, the live words' narrowing and
 * the fused rows' listing take from now on, where the CPU has them
 * (join_quarters.h: JOIN_AVX512, the default, JOIN_AVX2, what a CPU
 * without AVX-512 runs, or JOIN_PLAIN): the tests hold all three to the
 * counts. */
void nq__join_widest_vectors(nq_join_scratch_t *scratch, join_vectors_t widest);

/* The lower quarters kept in wide words from now on (1), or narrowed to
 * 32 bits where they fit (0, the default; join_quarter_tables.h): the tests hold
 * both to the counts, since every board they count fits narrowed. */
void nq__join_wide_pairing(nq_join_scratch_t *scratch, int wide);

/* A bucket's solutions, bottom-walk nodes and thread CPU seconds. */
typedef struct nq__join_sample {
  double solutions, bottom_nodes, seconds;
} nq__join_sample_t;

/* Knuth's estimate of what nq__join_weighted would find and cost: the
 * tops listed exactly, then `descents` random paths down the bottom walk
 * to `exact_rows` rows above the board's end, or JOIN_FUSED_ROWS
 * (join_walk.h) where that is more (each step one of the squares the walk
 * would enter, drawn uniformly from *random_state), each walked
 * exactly from there; their mean, each path weighted by 1 / its
 * probability, is unbiased for the solutions, the nodes and the time
 * (the listing's own time added once).  *walked: the nodes and time this
 * spent walking, for the rate.  Where exact_rows leaves no row to draw
 * (at least the bottom's rows), the bucket exactly.  NQ_ENOMEM,
 * NQ_ESTOPPED. */
int nq__join_sample_weighted(nq__join_sample_t *estimate, nq__join_sample_t *walked,
                             nq_join_scratch_t *scratch, int n, int top_rows, uint64_t top_columns,
                             const uint8_t first_row_weight[NQ_JOIN_MAX_N], int long_diagonals,
                             int exact_rows, int descents, uint64_t *random_state);

#endif
