#ifndef NQUEENS_UNITS_H
#define NQUEENS_UNITS_H

#include <stdint.h>

#define NQ_MAX_N 64
/* Boards below this size are searched whole (an "open" frame): their
 * border lines overlap too much for the frame scheme to pay. */
#define NQ_FRAME_MIN_N 5
/* Rows a unit may carry pre-placed (row 0 included). */
#define NQ_UNIT_MAX_DEPTH 8

typedef enum nq_frame_kind {
  NQ_FRAME_OPEN = 0,   /* nothing fixed: the whole board (n < NQ_FRAME_MIN_N) */
  NQ_FRAME_BORDER = 1, /* all four border queens fixed */
  NQ_FRAME_SIDES = 2   /* top, left and right fixed; bottom from a set */
} nq_frame_kind_t;

/* A frame fixes the queen on each of the four border lines of the board:
 * every solution has exactly one queen in row 0, row n-1, column 0 and
 * column n-1 (a corner queen serves two lines).  Only frames that are the
 * smallest of their orbit under the 8 board symmetries are searched; each
 * stands for `weight` = 8 / |stabilizer| frames.
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
  uint8_t stabilizer; /* symmetries mapping the frame onto itself */
} nq_frame_t;

/* A work unit: a frame plus the queens of rows 0..depth-1 (prefix[0] is
 * the frame's top queen).  Its job is to count the completions. */
typedef struct nq_unit {
  uint64_t id; /* position in the enumeration for this n: stable */
  nq_frame_t frame;
  uint8_t depth;
  uint8_t prefix[NQ_UNIT_MAX_DEPTH];
} nq_unit_t;

/* Streams the units of one board size in id order without holding them. */
typedef struct nq_unit_gen nq_unit_gen_t;

/* Rows pre-placed per unit (row 0 included) for board size n: deep enough
 * that large boards split into many small units. */
int nq_units_depth(int n);

/* NQ_OK when n and depth (0 = nq_units_depth(n)) can be enumerated:
 * n in 0..NQ_MAX_N, and a depth that leaves the last searched row free. */
int nq_units_check(int n, int depth);

/* `depth` 0 means nq_units_depth(n).  Returns NQ_EINVAL for n outside
 * 0..NQ_MAX_N or a depth the board cannot take, NQ_ENOMEM. */
int nq_unit_gen_create(nq_unit_gen_t **out_gen, int n, int depth);
/* 1 and the next unit, 0 when the enumeration is over, or a negative
 * NQ_E* code (a frame the kernel refused: a bug, never silently skipped). */
int nq_unit_gen_next(nq_unit_gen_t *gen, nq_unit_t *out_unit);
void nq_unit_gen_destroy(nq_unit_gen_t *gen);

/* The bottom-row columns a SIDES frame stands for: those b for which the
 * BORDER frame (top, b, left, right) is valid, canonical and asymmetric. */
uint64_t nq_frame_sides_bottoms(int n, const nq_frame_t *sides);

/* Is `frame` a valid (non-attacking, consistent) border placement for n? */
int nq_frame_is_valid(int n, const nq_frame_t *frame);
/* Fills weight and stabilizer; returns 1 when the frame is the canonical
 * (smallest) member of its orbit, 0 otherwise. */
int nq_frame_classify(int n, nq_frame_t *frame);

#endif
