#ifndef NQ_SRC_OUTPUT_COUNT_H
#define NQ_SRC_OUTPUT_COUNT_H

#include "cli.h"
#include "nqueens/count.h"
#include "output.h"

/* A count's result, as text or one JSON line; `journaled`: the count kept a
 * checkpoint journal (a slice's text then says to merge the journals). */
int nq__output_count(nq__output_t *output, nq__format_t format, int n, int unique,
                     int journaled, const nq_count_result_t *result);

/* The residues of the count as a JSON member (",\"solutions_mod\":{...}"). */
void nq__output_residues(nq__output_t *output, const uint32_t *residues);

#endif
