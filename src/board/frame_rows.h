#ifndef NQ_SRC_FRAME_ROWS_H
#define NQ_SRC_FRAME_ROWS_H

/* What a frame leaves for the rest of the board, shared by the unit
 * generator and the search kernel (frame.c). */

#include <stdint.h>

#include "nqueens/frame.h"

typedef struct nq__square {
  int row, col;
} nq__square_t;

/* Fills the squares of top, left, right and (BORDER frames only: a SIDES
 * frame leaves the bottom row open) bottom; returns how many.  A corner
 * queen appears twice, on the same square. */
int nq__frame_squares(int n, const nq_frame_t *frame, nq__square_t squares[4]);

/* Sorts the bottom columns that complete the (top, left, right) of `sides`
 * into a valid canonical BORDER frame: without symmetry (`asymmetric`, the
 * SIDES frame's set) or with (`symmetric`, searched as BORDER frames). */
void nq__frame_bottoms(int n, const nq_frame_t *sides, uint64_t *asymmetric,
                       uint64_t *symmetric);

/* The squares a frame leaves to the search, row by row. */
typedef struct nq__frame_rows {
  uint64_t mask[NQ_MAX_N]; /* squares a queen may take in each row */
  uint64_t fixed_rows;     /* bit r: row r holds a frame queen */
  int last_row;            /* the deepest row a search must fill */
} nq__frame_rows_t;

/* Free rows lose the frame queens' columns and diagonals up front, so a
 * search never places a queen a frame queen attacks, and frame queens
 * always fit in their own rows.  A SIDES frame's last row takes `bottoms`
 * (its nq_frame_sides_bottoms set), searched as a row; a BORDER frame's
 * bottom queen always fits, so its search stops one row above.  `frame`
 * must be valid for n. */
void nq__frame_rows(nq__frame_rows_t *rows, int n, const nq_frame_t *frame, uint64_t bottoms);

/* nq_frame_check, then nq__frame_rows with the frame's own bottoms: what a
 * searcher does with a frame it did not make.  NQ_OK or NQ_EUNIT. */
int nq__frame_rows_checked(nq__frame_rows_t *rows, int n, const nq_frame_t *frame);

#endif
