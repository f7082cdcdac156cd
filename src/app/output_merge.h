#ifndef NQ_SRC_OUTPUT_MERGE_H
#define NQ_SRC_OUTPUT_MERGE_H

#include "cli.h"
#include "merge.h"
#include "output.h"

/* --merge's result: what the journals cover, what they confirm or dispute,
 * and the total only when it is one. */
int nq__output_merge(nq__output_t *output, nq__format_t format, char *const *paths,
                     const nq__merge_result_t *result);

/* ,"complete":..., and the totals when the merge is one (its JSON and its
 * --json record share them). */
void nq__output_merge_totals(nq__output_t *output, const nq__merge_result_t *result);

/* The slices a merge wants again (1-based) as runs of consecutive ones,
 * "2, 5..7, 9", the first few runs, then ", ..." where more follow (JSON
 * lists every one): 1 when cut short, else 0. */
#define NQ__MERGE_SLICE_RUNS_SIZE 256 /* ten runs of slice numbers up to NQ_SLICE_MAX fit */
int nq__merge_slice_runs(char runs[NQ__MERGE_SLICE_RUNS_SIZE], const nq__merge_result_t *result);

#endif
