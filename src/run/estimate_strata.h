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

/* Quantity `of` over `strata` strata: per stratum the mean of its probes,
 * summed; the variance, per stratum the sample variance over its probes
 * over their count; the degrees of freedom of that sum, Welch and
 * Satterthwaite's (sum of v)^2 / sum of v^2 / (m - 1), v a stratum's share
 * of the variance and m its probes.  A stratum of one probe adds its value
 * and nothing to the variance; no spread anywhere gives INFINITY degrees. */
nq_estimate_value_t nq__estimate_stratified(const nq__stratum_sums_t *sums, uint64_t strata,
                                            int of);

#endif
