#ifndef NQ_SRC_SEARCH_H
#define NQ_SRC_SEARCH_H

/* The searcher's tables, shared by the scalar walk (kernel.c) and the lane
 * walk (lanes.c). */

#include <stddef.h>
#include <stdint.h>

#include "nqueens/kernel.h"

/* Asked at coarse points of a unit's walk (nq__kernel_set_cancel): non-zero
 * abandons the unit. */
typedef int (*nq__cancel_fn)(void *context);

struct nq_search {
  int n;
  nq_walk_t walk;   /* SCALAR or AVX512 */
  int lanes_min_rows; /* with AVX512, units with fewer steps left run scalar
                         (NQ_LANES_MIN_ROWS; tests lower it to reach small units) */
  int has_frame;    /* frame and the tables below describe a checked frame */
  nq_frame_t frame;
  int last_row;                /* the deepest row the search fills */
  uint64_t row_mask[NQ_MAX_N]; /* squares a queen may take in each row */
  /* The rows the counting walk visits, its steps: rows up to last_row that
   * hold no frame queen (frame queens always fit, and their attacks are
   * already in the masks).  walk_row[i] is step i's row, walk_mask[i] its
   * mask, walk_gap[i] the rows from it to step i + 1. */
  int walk_rows;
  int walk_row[NQ_MAX_N];
  int walk_gap[NQ_MAX_N];
  uint64_t walk_mask[NQ_MAX_N];
  nq__cancel_fn cancelled; /* NULL: units always run to the end */
  void *cancel_context;
};

/* Where a unit's counting walk starts: walk step `step`, with the attacks
 * of the unit's queens moved to that step's row. */
typedef struct nq__walk_start {
  int step;
  uint64_t cols, diag_left, diag_right;
} nq__walk_start_t;

/* Checks `unit` as nq_kernel_solve does (frame, prefix), prepares its
 * frame's tables in `search` and fills `start`.  NQ_OK, or NQ_EUNIT. */
int nq__kernel_walk_start(nq__walk_start_t *start, nq_search_t *search, const nq_unit_t *unit);

/* Counts the completions below `start` in the searcher's current frame (the
 * one nq__kernel_walk_start prepared last), as nq_kernel_solve would count
 * a unit that starts there: same walk, same node count (the queens placed
 * from start->step down).  The estimator's exact counts under its probes.
 * NQ_EINVAL without a frame or for a step outside the walk. */
int nq__kernel_count_from(nq_unit_result_t *result, const nq_search_t *search,
                          const nq__walk_start_t *start);

/* Lets the caller abandon long units: the walks call `cancelled(context)`
 * at coarse points, never in their innermost loop (the scalar walk before
 * each subtree rooted CANCEL_STEPS steps above its closed-form bottom, the
 * classifying walk when it backs up to that depth, the lane walk before
 * each chunk of roots; the scalar and lane walks also every
 * NQ_SEARCH_NODES_BETWEEN_ASKS nodes above those points, where on large
 * boards they can dead-end for minutes without reaching one), and when it
 * returns non-zero nq_kernel_solve
 * stops and returns NQ_ESTOPPED, with the unit's result undefined: it must
 * be solved again.  Units too short to reach such a point run to the end.
 * `cancelled` may call anything but this searcher; NULL removes the hook. */
void nq__kernel_set_cancel(nq_search_t *search, nq__cancel_fn cancelled, void *context);

/* A few milliseconds of a walk above its asking points. */
#define NQ_SEARCH_NODES_BETWEEN_ASKS (1u << 20)

/* Inside the walks: has the caller asked to abandon the unit? */
static inline int nq__search_cancelled(const nq_search_t *search) {
  return search->cancelled != NULL && search->cancelled(search->cancel_context);
}

#endif
