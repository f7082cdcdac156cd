#ifndef NQ_SRC_OUTPUT_ESTIMATE_H
#define NQ_SRC_OUTPUT_ESTIMATE_H

#include "cli.h"
#include "nqueens/estimate.h"
#include "output.h"

/* An estimate (--estimate): each value with its 95% interval, the time on
 * one core, on the run's threads and, when `cores` > 0, on that many. */
int nq__output_estimate(nq__output_t *output, nq__format_t format, int n, uint64_t cores,
                        uint64_t seed, const nq_estimate_result_t *result);

#endif
