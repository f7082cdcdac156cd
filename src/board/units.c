#include "nqueens/units.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "frame_rows.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"

struct nq_unit_gen {
  int n;
  int depth;
  uint64_t next_id;
  uint64_t next_slot;         /* see frame_at() */
  uint64_t classified_triple; /* the (top, left, right) the two sets below describe */
  uint64_t asymmetric_bottoms, symmetric_bottoms;
  int in_frame; /* a frame is chosen and its prefixes are being listed */
  nq_frame_t frame;
  uint64_t row_mask[NQ_UNIT_MAX_DEPTH]; /* what the frame leaves in the prefix rows */
  int prefix_start_row; /* the first row the prefix enumeration fills */
  int row;              /* row being filled */
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
   * 5.7 million at depth 4).  docs/design.md says how far that balances. */
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

/* ---- frames in id order ---- */

/* Frames are listed by (top, left, right); each such triple yields its
 * SIDES frame first, then its symmetric BORDER frames by bottom column.
 * The slot counts: triple * (n + 1) + (0 for SIDES, 1 + bottom). */
static nq_frame_t frame_at(int n, uint64_t slot) {
  uint64_t side = (uint64_t)n, place = slot % (side + 1), triple = slot / (side + 1);
  nq_frame_t f = {.kind = place == 0 ? NQ_FRAME_SIDES : NQ_FRAME_BORDER};
  f.bottom = (uint8_t)(place == 0 ? 0 : place - 1);
  f.right = (uint8_t)(triple % side);
  f.left = (uint8_t)(triple / side % side);
  f.top = (uint8_t)(triple / side / side);
  return f;
}

/* Whether the frame in `slot` is searched, with its weight: the bottoms
 * of each (top, left, right) are classified once, when its first slot is
 * reached (each frame's canonical test costs 8 images). */
static int frame_is_listed(nq_unit_gen_t *gen, uint64_t slot, nq_frame_t *f) {
  uint64_t triple = slot / ((uint64_t)gen->n + 1);
  if (triple != gen->classified_triple) {
    nq__frame_bottoms(gen->n, f, &gen->asymmetric_bottoms, &gen->symmetric_bottoms);
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
    if (gen->next_slot++ > 0)
      return 0;
    *out = (nq_frame_t){.kind = NQ_FRAME_OPEN, .weight = 1, .stabilizer = NQ_SYM_ALL};
    return 1;
  }
  uint64_t side = (uint64_t)gen->n, slots = side * side * side * (side + 1);
  while (gen->next_slot < slots) {
    uint64_t slot = gen->next_slot++;
    nq_frame_t f = frame_at(gen->n, slot);
    if (frame_is_listed(gen, slot, &f)) {
      *out = f;
      return 1;
    }
  }
  return 0;
}

/* ---- prefixes of a frame ---- */

static void load_row(nq_unit_gen_t *gen, int row) {
  uint64_t attacked = gen->cols[row] | gen->diag_left[row] | gen->diag_right[row];
  gen->free_squares[row] = gen->row_mask[row] & ~attacked;
}

static void place_in_row(nq_unit_gen_t *gen, int row, uint64_t bit) {
  gen->prefix[row] = (uint8_t)bit_index(bit);
  gen->cols[row + 1] = gen->cols[row] | bit;
  gen->diag_left[row + 1] = (gen->diag_left[row] | bit) << 1;
  gen->diag_right[row + 1] = (gen->diag_right[row] | bit) >> 1;
}

/* The prefix rows' masks: the SIDES set is the one just classified. */
static void load_frame_rows(nq_unit_gen_t *gen) {
  nq__frame_rows_t rows;
  nq__frame_rows(&rows, gen->n, &gen->frame, gen->asymmetric_bottoms);
  for (int row = 0; row < gen->depth; row++)
    gen->row_mask[row] = rows.mask[row];
}

/* 1 when a frame was started, 0 when none is left. */
static int start_frame(nq_unit_gen_t *gen) {
  if (!next_frame(gen, &gen->frame))
    return 0;
  load_frame_rows(gen);
  gen->cols[0] = gen->diag_left[0] = gen->diag_right[0] = 0;
  gen->prefix_start_row = 0;
  if (gen->frame.kind != NQ_FRAME_OPEN) {
    place_in_row(gen, 0, column_bit(gen->frame.top));
    gen->prefix_start_row = 1;
  }
  gen->row = gen->prefix_start_row;
  if (gen->row < gen->depth)
    load_row(gen, gen->row);
  gen->in_frame = 1;
  return 1;
}

static void emit(nq_unit_gen_t *gen, nq_unit_t *unit) {
  memset(unit, 0, sizeof *unit);
  unit->id = gen->next_id++;
  unit->frame = gen->frame;
  unit->depth = (uint8_t)gen->depth;
  memcpy(unit->prefix, gen->prefix, (size_t)gen->depth);
}

/* Depth-first over rows prefix_start_row..depth-1, resumable: yields each
 * prefix. */
static int next_prefix(nq_unit_gen_t *gen, nq_unit_t *unit) {
  if (gen->prefix_start_row == gen->depth) {
    gen->in_frame = 0;
    emit(gen, unit);
    return 1;
  }
  while (gen->row >= gen->prefix_start_row) {
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
    if (!gen->in_frame && !start_frame(gen))
      return 0;
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

/* The prefixes the current frame yields, counted without listing them:
 * the last prefix row's free squares are counted, not placed. */
static uint64_t count_prefixes(nq_unit_gen_t *gen) {
  if (gen->prefix_start_row == gen->depth)
    return 1;
  uint64_t count = 0;
  int row = gen->prefix_start_row;
  load_row(gen, row);
  while (row >= gen->prefix_start_row) {
    if (row + 1 == gen->depth) {
      count += (uint64_t)bit_count(gen->free_squares[row]);
      row--;
      continue;
    }
    if (!gen->free_squares[row]) {
      row--;
      continue;
    }
    uint64_t bit = lowest_bit(gen->free_squares[row]);
    gen->free_squares[row] = drop_lowest_bit(gen->free_squares[row]);
    place_in_row(gen, row, bit);
    load_row(gen, ++row);
  }
  return count;
}

int nq_units_total_until(uint64_t *total, int n, int depth, volatile sig_atomic_t *stop) {
  nq_unit_gen_t *gen = NULL;
  int rc = nq_unit_gen_create(&gen, n, depth);
  if (rc != NQ_OK)
    return rc;
  *total = 0;
  while (rc == NQ_OK && start_frame(gen)) {
    *total += count_prefixes(gen);
    if (stop != NULL && *stop)
      rc = NQ_ESTOPPED;
  }
  nq_unit_gen_destroy(gen);
  return rc;
}

int nq_units_total(uint64_t *total, int n, int depth) {
  return nq_units_total_until(total, n, depth, NULL);
}
