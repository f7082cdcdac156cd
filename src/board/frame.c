#include "nqueens/frame.h"

#include "bits.h"
#include "frame_rows.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"

int nq__frame_squares(int n, const nq_frame_t *frame, nq__square_t squares[4]) {
  squares[0] = (nq__square_t){0, frame->top};
  squares[1] = (nq__square_t){frame->left, 0};
  squares[2] = (nq__square_t){frame->right, n - 1};
  squares[3] = (nq__square_t){n - 1, frame->bottom};
  return frame->kind == NQ_FRAME_BORDER ? 4 : 3;
}

/* ---- validity ---- */

static int attack(nq__square_t a, nq__square_t b) {
  if (a.row == b.row && a.col == b.col)
    return 0; /* one corner queen listed for two lines */
  return a.row == b.row || a.col == b.col || a.row - a.col == b.row - b.col ||
         a.row + a.col == b.row + b.col;
}

/* A corner queen lies on two border lines: both must name it. */
static int corners_consistent(int n, const nq_frame_t *f) {
  int last = n - 1;
  return (f->top == 0) == (f->left == 0) && (f->top == last) == (f->right == 0) &&
         (f->bottom == 0) == (f->left == last) && (f->bottom == last) == (f->right == last);
}

static int squares_at_peace(const nq__square_t *squares, int count) {
  for (int i = 0; i < count; i++)
    for (int j = i + 1; j < count; j++)
      if (attack(squares[i], squares[j]))
        return 0;
  return 1;
}

static int border_is_valid(int n, const nq_frame_t *frame) {
  if (frame->top >= n || frame->bottom >= n || frame->left >= n || frame->right >= n)
    return 0;
  nq__square_t squares[4];
  int count = nq__frame_squares(n, frame, squares);
  return corners_consistent(n, frame) && squares_at_peace(squares, count);
}

static int frame_board_size_ok(int n) { return n >= NQ_FRAME_MIN_N && n <= NQ_MAX_N; }

int nq_frame_is_valid(int n, const nq_frame_t *frame) {
  if (!frame_board_size_ok(n))
    return 0;
  if (frame->kind == NQ_FRAME_BORDER)
    return border_is_valid(n, frame);
  if (frame->kind == NQ_FRAME_SIDES)
    return frame->bottom == 0 && nq_frame_sides_bottoms(n, frame) != 0;
  return 0;
}

/* ---- canonical order, weights and stabilizers ---- */

static nq_frame_t frame_image(int n, const nq_frame_t *frame, nq_symmetry_t sym) {
  nq__square_t squares[4];
  nq_frame_t image = *frame;
  int count = nq__frame_squares(n, frame, squares);
  for (int i = 0; i < count; i++) {
    int row, col;
    nq_symmetry_apply(sym, n, squares[i].row, squares[i].col, &row, &col);
    if (row == 0)
      image.top = (uint8_t)col;
    if (row == n - 1)
      image.bottom = (uint8_t)col;
    if (col == 0)
      image.left = (uint8_t)row;
    if (col == n - 1)
      image.right = (uint8_t)row;
  }
  return image;
}

/* Orders the frames of an orbit; the smallest is the one searched.  Any
 * order is correct, but not equally fast: putting the left column's queen
 * as low as possible (then the top queen as far right as possible) lets the
 * frame queens' diagonals prune the widest rows of the tree, the ones just
 * above the bottom.  The best of all 384 orders of the four fields, each
 * taken rising or falling (docs/algorithm.md has the node counts). */
static uint64_t frame_code(int n, const nq_frame_t *f) {
  uint64_t side = (uint64_t)n, last = side - 1;
  return (((last - f->left) * side + (last - f->top)) * side + f->bottom) * side + f->right;
}

int nq_frame_classify(int n, nq_frame_t *frame) {
  if (frame->kind != NQ_FRAME_BORDER || !frame_board_size_ok(n) || !border_is_valid(n, frame)) {
    frame->weight = 0; /* no orbit: the images of a broken frame are not frames */
    frame->stabilizer = 0;
    return 0;
  }
  uint64_t code = frame_code(n, frame);
  int canonical = 1;
  uint32_t stabilizer = 0;
  for (int sym = 0; sym < NQ_SYM_COUNT; sym++) {
    nq_frame_t image = frame_image(n, frame, (nq_symmetry_t)sym);
    uint64_t image_code = frame_code(n, &image);
    if (image_code == code)
      stabilizer |= 1u << sym;
    else if (image_code < code)
      canonical = 0;
  }
  frame->stabilizer = (uint8_t)stabilizer;
  frame->weight = (uint8_t)(NQ_SYM_COUNT / nq_symmetry_set_size(stabilizer));
  return canonical;
}

/* ---- SIDES bottoms ---- */

void nq__frame_bottoms(int n, const nq_frame_t *sides, uint64_t *asymmetric,
                       uint64_t *symmetric) {
  *asymmetric = *symmetric = 0;
  for (int bottom = 0; bottom < n; bottom++) {
    nq_frame_t border = *sides;
    border.kind = NQ_FRAME_BORDER;
    border.bottom = (uint8_t)bottom;
    if (!border_is_valid(n, &border) || !nq_frame_classify(n, &border))
      continue;
    if (border.stabilizer == 1u << NQ_SYM_IDENTITY)
      *asymmetric |= column_bit(bottom);
    else
      *symmetric |= column_bit(bottom);
  }
}

uint64_t nq_frame_sides_bottoms(int n, const nq_frame_t *sides) {
  uint64_t asymmetric, symmetric;
  if (!frame_board_size_ok(n))
    return 0;
  nq__frame_bottoms(n, sides, &asymmetric, &symmetric);
  return asymmetric;
}

/* ---- the check a searcher makes before trusting a frame ---- */

static int open_frame_ok(int n, const nq_frame_t *frame) {
  return n >= 0 && n < NQ_FRAME_MIN_N && frame->weight == 1 && frame->stabilizer == NQ_SYM_ALL &&
         frame->top == 0 && frame->bottom == 0 && frame->left == 0 && frame->right == 0;
}

/* A SIDES frame is checked through its set of bottoms, which the caller
 * gets back: classifying them is the costly part. */
static int sides_frame_ok(int n, const nq_frame_t *frame, uint64_t *bottoms) {
  if (frame->weight != NQ_SYM_COUNT || frame->stabilizer != 1u << NQ_SYM_IDENTITY ||
      frame->bottom != 0)
    return 0;
  *bottoms = nq_frame_sides_bottoms(n, frame);
  return *bottoms != 0;
}

/* The weight multiplies every count of the frame: a searcher recomputes
 * it rather than trust the message that carried it. */
static int border_frame_ok(int n, const nq_frame_t *frame) {
  if (!nq_frame_is_valid(n, frame))
    return 0;
  nq_frame_t classified = *frame;
  return nq_frame_classify(n, &classified) && classified.weight == frame->weight &&
         classified.stabilizer == frame->stabilizer;
}

static int frame_checked(int n, const nq_frame_t *frame, uint64_t *bottoms) {
  int ok = 0;
  *bottoms = 0;
  switch (frame->kind) {
  case NQ_FRAME_OPEN: ok = open_frame_ok(n, frame); break;
  case NQ_FRAME_SIDES: ok = sides_frame_ok(n, frame, bottoms); break;
  case NQ_FRAME_BORDER: ok = border_frame_ok(n, frame); break;
  }
  return ok ? NQ_OK : NQ_EUNIT;
}

int nq_frame_check(int n, const nq_frame_t *frame) {
  uint64_t bottoms;
  return frame_checked(n, frame, &bottoms);
}

/* ---- the rows a frame leaves ---- */

/* Columns of `row` a frame queen attacks along its diagonals. */
static uint64_t diagonal_shadow(int n, nq__square_t queen, int row) {
  int distance = row > queen.row ? row - queen.row : queen.row - row;
  uint64_t shadow = 0;
  if (distance == 0)
    return 0;
  if (queen.col + distance < n)
    shadow |= column_bit(queen.col + distance);
  if (queen.col - distance >= 0)
    shadow |= column_bit(queen.col - distance);
  return shadow;
}

static void open_rows(nq__frame_rows_t *rows, int n) {
  for (int row = 0; row < n; row++)
    rows->mask[row] = board_columns(n);
  rows->fixed_rows = 0;
  rows->last_row = n - 1;
}

void nq__frame_rows(nq__frame_rows_t *rows, int n, const nq_frame_t *frame, uint64_t bottoms) {
  if (frame->kind == NQ_FRAME_OPEN) {
    open_rows(rows, n);
    return;
  }
  nq__square_t queens[4];
  int fixed = nq__frame_squares(n, frame, queens);
  uint64_t owned_columns = 0;
  for (int q = 0; q < fixed; q++)
    owned_columns |= column_bit(queens[q].col);
  for (int row = 0; row < n; row++) {
    uint64_t mask = board_columns(n) & ~owned_columns;
    for (int q = 0; q < fixed; q++)
      mask &= ~diagonal_shadow(n, queens[q], row);
    rows->mask[row] = mask;
  }
  rows->fixed_rows = 0;
  for (int q = 0; q < fixed; q++) {
    rows->mask[queens[q].row] = column_bit(queens[q].col);
    rows->fixed_rows |= column_bit(queens[q].row);
  }
  if (frame->kind == NQ_FRAME_SIDES) {
    rows->mask[n - 1] &= bottoms;
    rows->last_row = n - 1;
  } else {
    rows->last_row = n - 2;
  }
}

int nq__frame_rows_checked(nq__frame_rows_t *rows, int n, const nq_frame_t *frame) {
  uint64_t bottoms;
  int rc = frame_checked(n, frame, &bottoms);
  if (rc == NQ_OK)
    nq__frame_rows(rows, n, frame, bottoms);
  return rc;
}
