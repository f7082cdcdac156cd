#ifndef NQ_SRC_SIMULATED_H
#define NQ_SRC_SIMULATED_H

/* Simulated units (nq__faults_t.simulated_seconds): the scheduling measured
 * without the search, on many more ranks than there are cores. */

#include "nqueens/kernel.h"
#include "run.h"

/* Sleeps the unit's simulated cost (0 s: returns at once), in slices of
 * faults->simulated_poll_seconds (0: NQ_POLL_SECONDS) with the solver's
 * cancel hook asked between them, as a walk asks it; a hook that says stop
 * gives NQ_ESTOPPED.  (Hundreds of ranks waking every millisecond would
 * fill a few cores: a benchmark may slice more coarsely where the hook
 * serves only stops.)  The result
 * counts one solution with weight 1 and stabilizer_sum 8, and id + 1
 * nodes: a run of every unit totals exactly `units` solutions (and U =
 * units with --unique) and units (units + 1) / 2 nodes, so a unit lost or
 * counted twice shows. */
int nq__simulated_solve(nq_unit_result_t *result, const nq__run_solver_t *solver,
                        const nq__faults_t *faults, const nq__work_t *unit);

#endif
