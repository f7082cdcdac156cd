#ifndef NQUEENS_KERNEL_H
#define NQUEENS_KERNEL_H

#include <stdint.h>

#include "nqueens/units.h"

/* What a frame allows in each row, prepared once per frame and shared by
 * all units of that frame. */
typedef struct nq_search {
  int n;
  int last_row;                  /* the deepest row the search fills */
  uint64_t row_mask[NQ_MAX_N];   /* squares a queen may take in each row */
  nq_frame_t frame;
  /* The rows the counting walk visits: rows up to last_row that hold no
   * frame queen (frame queens always fit, and their attacks are already in
   * the masks).  walk_row[i] is a row, walk_mask[i] its mask, walk_gap[i]
   * the distance to walk_row[i + 1]. */
  int walk_rows;
  int walk_row[NQ_MAX_N];
  int walk_gap[NQ_MAX_N];
  uint64_t walk_mask[NQ_MAX_N];
} nq_search_t;

/* The outcome of one unit. */
typedef struct nq_unit_result {
  uint64_t id;
  uint64_t solutions;       /* completions of the unit */
  uint64_t stabilizer_sum;  /* sum over completions of how many of the
                               frame's symmetries fix them (Burnside) */
  uint64_t nodes;           /* queens placed by the search */
  uint32_t weight;          /* the frame's orbit size */
} nq_unit_result_t;

int nq_kernel_prepare(nq_search_t *search, int n, const nq_frame_t *frame);

/* Counts the completions of `unit` (whose frame must be search->frame).
 * With `classify` set, also fills stabilizer_sum, which needs every
 * completion checked against the frame's symmetries; without, it is 0. */
int nq_kernel_solve(nq_unit_result_t *result, const nq_search_t *search,
                    const nq_unit_t *unit, int classify);

#endif
