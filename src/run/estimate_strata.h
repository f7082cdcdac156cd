#ifndef NQ_SRC_ESTIMATE_STRATA_H
#define NQ_SRC_ESTIMATE_STRATA_H

/* The estimate's strata (estimate.c): what the probes of each stratum
 * sum to, and how those sums make an estimate, its error and the error's
 * degrees of freedom.  Apart so that the tests can give it sums worked
 * out by hand. */

#include <stdint.h>

#include "nqueens/estimate.h"

/* The quantities a probe measures, each scaled to its stratum. */
enum { NQ__OF_SOLUTIONS, NQ__OF_NODES, NQ__OF_SECONDS, NQ__QUANTITIES };

/* Per stratum (a frame; for the join a block of column sets), the sums the
 * estimate and its variance need: all doubles, so that they are summed
 * over ranks as one array. */
typedef struct nq__stratum_sums {
  double probes;
  double sum[NQ__QUANTITIES], squares[NQ__QUANTITIES];
} nq__stratum_sums_t;

/* Where block s of `strata` blocks of consecutive items starts, of
 * `items` in all (s = strata: the end); the blocks' sizes differ by one at
 * most.  The join's strata are such blocks of its column sets. */
static inline uint64_t nq__stratum_first(uint64_t items, uint64_t strata, uint64_t s) {
  return (uint64_t)((unsigned __int128)items * s / strata);
}

/* The items of block s. */
static inline uint64_t nq__stratum_size(uint64_t items, uint64_t strata, uint64_t s) {
  return nq__stratum_first(items, strata, s + 1) - nq__stratum_first(items, strata, s);
}

/* Quantity `of` over `strata` strata: per stratum the mean of its probes,
 * summed; the variance, per stratum the sample variance over its probes
 * over their count; the degrees of freedom of that sum, Welch and
 * Satterthwaite's (sum of v)^2 / sum of v^2 / (m - 1), v a stratum's share
 * of the variance and m its probes.  A stratum of one probe adds its value
 * and nothing to the variance; no spread anywhere gives INFINITY degrees.
 * `population`: 0 where the probes are drawn with replacement (Knuth's
 * paths); else the items cut into the strata as nq__stratum_first cuts
 * them, each drawn at most once, so that a stratum's share carries the
 * finite population's correction 1 - m / size, and one drawn whole adds
 * its exact sum and no variance. */
nq_estimate_value_t nq__estimate_stratified(const nq__stratum_sums_t *sums, uint64_t strata,
                                            int of, uint64_t population);

#endif
