#ifndef NQ_SRC_METHOD_BACKTRACK_H
#define NQ_SRC_METHOD_BACKTRACK_H

/* The backtracker's units as the engine carries them (method.h): for the
 * GPU ranks' batches, which count backtracker units alone, and the tests
 * that pin the wire layout. */

#include "method.h"
#include "nqueens/units.h"

void nq__backtrack_work_of(nq__work_t *work, const nq_unit_t *unit);
void nq__backtrack_unit_of(nq_unit_t *unit, const nq__work_t *work);

#endif
