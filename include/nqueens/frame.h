#ifndef NQUEENS_FRAME_H
#define NQUEENS_FRAME_H

/* Frames: the queens on the four border lines of the board, the unit of
 * symmetry the whole search is cut by.  Every solution has exactly one
 * queen in row 0, row n-1, column 0 and column n-1 (a corner queen serves
 * two lines); only frames that are the smallest of their orbit under the 8
 * board symmetries are searched, each standing for `weight` frames. */

#include <stdint.h>

#define NQ_MAX_N 64
/* Boards below this size are searched whole (an "open" frame): their
 * border lines overlap too much for the frame scheme to pay. */
#define NQ_FRAME_MIN_N 5

typedef enum nq_frame_kind {
  NQ_FRAME_OPEN = 0,   /* nothing fixed: the whole board (n < NQ_FRAME_MIN_N) */
  NQ_FRAME_BORDER = 1, /* all four border queens fixed */
  NQ_FRAME_SIDES = 2   /* top, left and right fixed; bottom from a set */
} nq_frame_kind_t;

/* The four border queens.  top and bottom name COLUMNS (of the queens in
 * rows 0 and n-1); left and right name ROWS (of the queens in columns 0
 * and n-1).
 *
 * A SIDES frame bundles the BORDER frames that share top, left and right
 * and have no symmetry (weight 8): its bottom row may take any column in
 * nq_frame_sides_bottoms().  One search then serves them all, instead of
 * one search per bottom queen.  Frames with symmetries stay BORDER frames,
 * because their completions must be classified.  `bottom` is 0 in a SIDES
 * frame. */
typedef struct nq_frame {
  uint8_t kind;       /* nq_frame_kind_t */
  uint8_t top;        /* column of the queen in row 0 */
  uint8_t bottom;     /* column of the queen in row n-1 */
  uint8_t left;       /* row of the queen in column 0 */
  uint8_t right;      /* row of the queen in column n-1 */
  uint8_t weight;     /* size of the frame's orbit: 1, 2, 4 or 8 */
  uint8_t stabilizer; /* symmetries mapping the frame onto itself (nq_symmetry_t bits) */
} nq_frame_t;

/* 1 when `frame` is a valid border placement for n: on the board,
 * non-attacking, corners named by both their lines (SIDES: with at least
 * one bottom).  Weight and stabilizer are not looked at. */
int nq_frame_is_valid(int n, const nq_frame_t *frame);

/* Fills weight and stabilizer of a valid BORDER frame; returns 1 when the
 * frame is the canonical (smallest) member of its orbit, 0 otherwise.  Any
 * other frame gets weight and stabilizer 0 and returns 0. */
int nq_frame_classify(int n, nq_frame_t *frame);

/* The bottom-row columns a SIDES frame stands for: those b for which the
 * BORDER frame (top, b, left, right) is valid, canonical and asymmetric. */
uint64_t nq_frame_sides_bottoms(int n, const nq_frame_t *sides);

/* NQ_OK when `frame` can be searched for n: valid, canonical, and with
 * the weight and stabilizer its orbit has (SIDES: 8 and the identity;
 * OPEN: only below NQ_FRAME_MIN_N, all other fields 0 but weight 1 and
 * all symmetries).  Else NQ_EUNIT. */
int nq_frame_check(int n, const nq_frame_t *frame);

#endif
