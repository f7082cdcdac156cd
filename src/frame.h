#ifndef NQ_SRC_FRAME_H
#define NQ_SRC_FRAME_H

/* The squares of a frame's fixed queens, shared by the unit generator and
 * the kernel. */

#include "nqueens/units.h"

typedef struct nq__square {
  int row, col;
} nq__square_t;

/* Fills top, left, right and (BORDER frames only: a SIDES frame leaves the
 * bottom row open) bottom; returns how many.  A corner queen appears twice,
 * on the same square. */
static inline int nq__frame_squares(int n, const nq_frame_t *frame, nq__square_t squares[4]) {
  squares[0] = (nq__square_t){0, frame->top};
  squares[1] = (nq__square_t){frame->left, 0};
  squares[2] = (nq__square_t){frame->right, n - 1};
  squares[3] = (nq__square_t){n - 1, frame->bottom};
  return frame->kind == NQ_FRAME_BORDER ? 4 : 3;
}

#endif
