#ifndef NQ_SRC_SIMULATED_H
#define NQ_SRC_SIMULATED_H

/* Simulated units (nq__faults_t.simulated_seconds): the scheduling measured
 * without the search, on many more ranks than there are cores. */

#include <stdint.h>

#include "nqueens/kernel.h"

/* Asked between slices of sleep: non-zero abandons the unit. */
typedef int (*nq__simulated_cancel_fn)(void *context);

/* Sleeps unit `id`'s simulated cost of `seconds` (0: returns at once), in
 * slices of `slice` seconds with `cancelled(context)` (if not NULL) asked
 * between them, as a walk asks its cancel hook; a hook that says stop
 * gives NQ_ESTOPPED.  (Hundreds of ranks waking every millisecond would
 * fill a few cores: a benchmark may slice more coarsely where the hook
 * serves only stops.)  The result
 * counts one solution with weight 1 and stabilizer_sum 8, and id + 1
 * nodes: a run of every unit totals exactly `units` solutions (and U =
 * units with --unique) and units (units + 1) / 2 nodes, so a unit lost or
 * counted twice shows. */
int nq__simulated_solve(nq_unit_result_t *result, uint64_t id, double seconds, double slice,
                        nq__simulated_cancel_fn cancelled, void *context);

#endif
