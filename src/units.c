#include "nqueens/units.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "frame.h"
#include "nqueens/error.h"
#include "nqueens/kernel.h"
#include "nqueens/symmetry.h"

struct nq_unit_gen {
  int n;
  int depth;
  uint64_t next_id;
  uint64_t next_frame_code; /* see frame_at() */
  uint64_t classified_triple; /* the (top, left, right) the two masks below describe */
  uint64_t asymmetric_bottoms, symmetric_bottoms;
  int in_frame;             /* a frame is chosen and its prefixes are being listed */
  nq_search_t search;
  int first_row;            /* first row the prefix enumeration fills */
  int row;                  /* row being filled */
  uint64_t free_squares[NQ_UNIT_MAX_DEPTH + 1];
  uint64_t cols[NQ_UNIT_MAX_DEPTH + 1], diag_left[NQ_UNIT_MAX_DEPTH + 1],
      diag_right[NQ_UNIT_MAX_DEPTH + 1];
  uint8_t prefix[NQ_UNIT_MAX_DEPTH];
};

int nq_units_depth(int n) {
  if (n < NQ_FRAME_MIN_N)
    return 0;
  /* Frames alone give a few hundred units (n = 16: 504); each extra row
   * multiplies that by about n/2 (n = 16: 4567 units at depth 2, n = 24:
   * 5.7 million at depth 4).  Enough units to balance thousands of ranks,
   * each long enough that messages cost nothing. */
  int depth = 1;
  if (n >= 14)
    depth = 2;
  if (n >= 19)
    depth = 3;
  if (n >= 23)
    depth = 4;
  if (n >= 26)
    depth = 5;
  return depth < n - 1 ? depth : n - 1;
}

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

int nq_frame_is_valid(int n, const nq_frame_t *frame) {
  if (n < NQ_FRAME_MIN_N || n > NQ_MAX_N)
    return 0;
  if (frame->kind == NQ_FRAME_BORDER)
    return border_is_valid(n, frame);
  if (frame->kind == NQ_FRAME_SIDES)
    return frame->bottom == 0 && nq_frame_sides_bottoms(n, frame) != 0;
  return 0;
}

/* Sorts the bottom columns that complete (top, left, right) into a valid
 * canonical frame: without symmetry (`asymmetric`) or with (`symmetric`). */
static void classify_bottoms(int n, const nq_frame_t *sides, uint64_t *asymmetric,
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
  if (n < NQ_FRAME_MIN_N || n > NQ_MAX_N)
    return 0;
  classify_bottoms(n, sides, &asymmetric, &symmetric);
  return asymmetric;
}

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
 * above the bottom.  n = 16: 166.6M nodes against 235.4M for the plain
 * (top, bottom, left, right) order; the best of all 384 orders of the four
 * fields, each taken rising or falling, measured on n = 14. */
static uint64_t frame_code(int n, const nq_frame_t *f) {
  uint64_t side = (uint64_t)n, last = side - 1;
  return (((last - f->left) * side + (last - f->top)) * side + f->bottom) * side + f->right;
}

int nq_frame_classify(int n, nq_frame_t *frame) {
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

/* Frames are listed by (top, left, right); each such triple yields its
 * SIDES frame first, then its symmetric BORDER frames by bottom column.
 * The cursor counts slots: triple * (n + 1) + (0 for SIDES, 1 + bottom). */
static nq_frame_t frame_at(int n, uint64_t cursor) {
  uint64_t side = (uint64_t)n, slot = cursor % (side + 1), triple = cursor / (side + 1);
  nq_frame_t f = {.kind = slot == 0 ? NQ_FRAME_SIDES : NQ_FRAME_BORDER};
  f.bottom = (uint8_t)(slot == 0 ? 0 : slot - 1);
  f.right = (uint8_t)(triple % side);
  f.left = (uint8_t)(triple / side % side);
  f.top = (uint8_t)(triple / side / side);
  return f;
}

/* Whether the frame at the cursor is searched, and its weight: the bottoms
 * of each (top, left, right) are classified once, when its first slot is
 * reached (each frame's canonical test costs 8 images). */
static int frame_is_listed(nq_unit_gen_t *gen, uint64_t cursor, nq_frame_t *f) {
  uint64_t triple = cursor / ((uint64_t)gen->n + 1);
  if (triple != gen->classified_triple) {
    classify_bottoms(gen->n, f, &gen->asymmetric_bottoms, &gen->symmetric_bottoms);
    gen->classified_triple = triple;
  }
  if (f->kind == NQ_FRAME_SIDES) {
    f->weight = NQ_SYM_COUNT;
    f->stabilizer = 1u << NQ_SYM_IDENTITY;
    return gen->asymmetric_bottoms != 0;
  }
  if (!(gen->symmetric_bottoms >> f->bottom & 1))
    return 0;
  nq_frame_classify(gen->n, f);
  return 1;
}

/* Moves to the next frame to search; 0 when there is none left. */
static int next_frame(nq_unit_gen_t *gen, nq_frame_t *out) {
  if (gen->n < NQ_FRAME_MIN_N) {
    if (gen->next_frame_code++ > 0)
      return 0;
    *out = (nq_frame_t){.kind = NQ_FRAME_OPEN, .weight = 1, .stabilizer = NQ_SYM_ALL};
    return 1;
  }
  uint64_t side = (uint64_t)gen->n, slots = side * side * side * (side + 1);
  while (gen->next_frame_code < slots) {
    uint64_t cursor = gen->next_frame_code++;
    nq_frame_t f = frame_at(gen->n, cursor);
    if (frame_is_listed(gen, cursor, &f)) {
      *out = f;
      return 1;
    }
  }
  return 0;
}

static void load_row(nq_unit_gen_t *gen, int row) {
  uint64_t attacked = gen->cols[row] | gen->diag_left[row] | gen->diag_right[row];
  gen->free_squares[row] = gen->search.row_mask[row] & ~attacked;
}

static void place_in_row(nq_unit_gen_t *gen, int row, uint64_t bit) {
  gen->prefix[row] = (uint8_t)bit_index(bit);
  gen->cols[row + 1] = gen->cols[row] | bit;
  gen->diag_left[row + 1] = (gen->diag_left[row] | bit) << 1;
  gen->diag_right[row + 1] = (gen->diag_right[row] | bit) >> 1;
}

/* 1 when a frame was started, 0 when none is left, or an NQ_E* code. */
static int start_frame(nq_unit_gen_t *gen) {
  nq_frame_t frame;
  if (!next_frame(gen, &frame))
    return 0;
  int rc = nq_kernel_prepare(&gen->search, gen->n, &frame);
  if (rc != NQ_OK)
    return rc;
  gen->cols[0] = gen->diag_left[0] = gen->diag_right[0] = 0;
  gen->first_row = 0;
  if (frame.kind != NQ_FRAME_OPEN) {
    place_in_row(gen, 0, column_bit(frame.top));
    gen->first_row = 1;
  }
  gen->row = gen->first_row;
  if (gen->row < gen->depth)
    load_row(gen, gen->row);
  gen->in_frame = 1;
  return 1;
}

static void emit(nq_unit_gen_t *gen, nq_unit_t *unit) {
  memset(unit, 0, sizeof *unit);
  unit->id = gen->next_id++;
  unit->frame = gen->search.frame;
  unit->depth = (uint8_t)gen->depth;
  memcpy(unit->prefix, gen->prefix, (size_t)gen->depth);
}

/* Depth-first over rows first_row..depth-1, resumable: yields each prefix. */
static int next_prefix(nq_unit_gen_t *gen, nq_unit_t *unit) {
  if (gen->first_row == gen->depth) {
    gen->in_frame = 0;
    emit(gen, unit);
    return 1;
  }
  while (gen->row >= gen->first_row) {
    int row = gen->row;
    if (!gen->free_squares[row]) {
      gen->row--;
      continue;
    }
    uint64_t bit = lowest_bit(gen->free_squares[row]);
    gen->free_squares[row] = drop_lowest_bit(gen->free_squares[row]);
    place_in_row(gen, row, bit);
    if (row + 1 == gen->depth) {
      emit(gen, unit);
      return 1;
    }
    gen->row = row + 1;
    load_row(gen, gen->row);
  }
  gen->in_frame = 0;
  return 0;
}

int nq_unit_gen_next(nq_unit_gen_t *gen, nq_unit_t *out_unit) {
  for (;;) {
    if (!gen->in_frame) {
      int started = start_frame(gen);
      if (started <= 0)
        return started;
    }
    if (next_prefix(gen, out_unit))
      return 1;
  }
}

int nq_units_check(int n, int depth) {
  if (n < 0 || n > NQ_MAX_N || depth < 0 || depth > NQ_UNIT_MAX_DEPTH)
    return NQ_EINVAL;
  if (depth == 0)
    depth = nq_units_depth(n);
  int last_searched_row = n < NQ_FRAME_MIN_N ? n - 1 : n - 2;
  if (depth > last_searched_row + 1 || (n >= NQ_FRAME_MIN_N && depth < 1))
    return NQ_EINVAL;
  return NQ_OK;
}

int nq_unit_gen_create(nq_unit_gen_t **out_gen, int n, int depth) {
  if (nq_units_check(n, depth) != NQ_OK)
    return NQ_EINVAL;
  if (depth == 0)
    depth = nq_units_depth(n);
  nq_unit_gen_t *gen = calloc(1, sizeof *gen);
  if (gen == NULL)
    return NQ_ENOMEM;
  gen->n = n;
  gen->depth = depth;
  gen->classified_triple = UINT64_MAX;
  *out_gen = gen;
  return NQ_OK;
}

void nq_unit_gen_destroy(nq_unit_gen_t *gen) { free(gen); }
