#ifndef NQ_SRC_JOIN_UNITS_H
#define NQ_SRC_JOIN_UNITS_H

/* The join's units (join_bucket.c), for its method (method_join.c): the column
 * sets of the top half, one per orbit under the left-right mirror and the
 * up-down flip (the canonical ones, docs/algorithm.md section 7), walked
 * in increasing order of the set as a number (method_join.c lists them in
 * a fixed random order). */

#include <signal.h>
#include <stdint.h>

#include "join_bucket.h"
#include "join_sets.h"
#include "nqueens/join.h"


/* Every canonical set of the cut in increasing order, in a new array
 * (method_join.c; for n < 2 the one unit, set 0).  NQ_ENOMEM; or
 * NQ_ESTOPPED soon after *stop (when not NULL; seconds of listing from
 * n = 30), with no array. */
int nq__join_list_sets(uint64_t **sets, uint64_t *count, int n, int top_rows,
                       volatile sig_atomic_t *stop);

/* The `count` sets in the fixed random order of the unit ids, the same in
 * every run and on every rank for (n, top_rows).  NQ_ESTOPPED soon after
 * *stop (when not NULL), the order then half made: never to be used. */
int nq__join_shuffle_sets(uint64_t *sets, uint64_t count, int n, int top_rows,
                          volatile sig_atomic_t *stop);

/* The weight of each queen c of row m that the set `columns` counts
 * under the unit scheme `scheme` (the run's is nq_join_unit_scheme(n,
 * top_rows); the tests ask the other too): how many (set, queen) pairs of
 * its orbit it stands for, 0 where another member comes first.  0 when it
 * counts none (it is no unit of the cut), else 1. */
int nq__join_unit_weights(uint8_t weight[NQ_JOIN_MAX_N], uint64_t columns, int n, int top_rows,
                          int scheme);

/* Whether `columns` is a canonical set of the cut (its orbit's first). */
int nq__join_is_canonical(uint64_t columns, int n, int top_rows);

/* The solutions the canonical set `columns` stands for, its orbit's
 * weight included, and the join's counters into *stats (when not NULL).
 * NQ_EUNIT for a set that is not canonical or not of the cut, NQ_ENOMEM,
 * NQ_ESTOPPED when the cancel hook abandoned it. */
int nq__join_unit(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch, int n,
                  int top_rows, uint64_t columns);

/* nq__join_unit's count, work and time, estimated by Knuth's descents
 * through the set's bottom walk (join_bucket.h, nq__join_sample_weighted):
 * `descents` paths to `exact_rows` rows above the end, the rest exact.
 * NQ_EUNIT, NQ_ENOMEM, NQ_ESTOPPED. */
int nq__join_sample_unit(nq__join_sample_t *estimate, nq__join_sample_t *walked,
                         nq_join_scratch_t *scratch, int n, int top_rows, uint64_t columns,
                         int exact_rows, int descents, uint64_t *random_state);

/* Asked before each queen of the bottom walk's first rows: non-zero
 * abandons the bucket.  NULL removes the hook. */
void nq__join_set_cancel(nq_join_scratch_t *scratch, int (*cancelled)(void *context),
                         void *context);

#endif
