/* The backtracker as a counting method: its units are frames with their
 * first rows pre-placed (units.c), counted by the bitmask search
 * (kernel.c, lanes.c).  A unit's two words are its frame and prefix
 * bytes, the layout of the wire since the first version (messages.h). */

#include <string.h>

#include "method.h"
#include "method_backtrack.h"
#include "nqueens/error.h"
#include "nqueens/units.h"
#include "search.h"

/* Frame bytes (kind, top, bottom, left, right, weight, stabilizer, depth),
 * byte i at bits 8i; the prefix columns, one byte each, the same way.
 * Unused prefix bytes are 0. */
void nq__backtrack_work_of(nq__work_t *work, const nq_unit_t *unit) {
  const nq_frame_t *f = &unit->frame;
  const uint8_t frame_bytes[8] = {f->kind,   f->top,    f->bottom,     f->left,
                                  f->right, f->weight, f->stabilizer, unit->depth};
  work->id = unit->id;
  work->data[0] = work->data[1] = 0;
  for (int i = 0; i < 8; i++) {
    work->data[0] |= (uint64_t)frame_bytes[i] << (8 * i);
    work->data[1] |= (uint64_t)unit->prefix[i] << (8 * i);
  }
}

static uint8_t byte_of(uint64_t word, int i) { return (uint8_t)(word >> (8 * i)); }

void nq__backtrack_unit_of(nq_unit_t *unit, const nq__work_t *work) {
  memset(unit, 0, sizeof *unit);
  unit->id = work->id;
  unit->frame.kind = byte_of(work->data[0], 0);
  unit->frame.top = byte_of(work->data[0], 1);
  unit->frame.bottom = byte_of(work->data[0], 2);
  unit->frame.left = byte_of(work->data[0], 3);
  unit->frame.right = byte_of(work->data[0], 4);
  unit->frame.weight = byte_of(work->data[0], 5);
  unit->frame.stabilizer = byte_of(work->data[0], 6);
  unit->depth = byte_of(work->data[0], 7);
  for (int i = 0; i < NQ_UNIT_MAX_DEPTH; i++)
    unit->prefix[i] = byte_of(work->data[1], i);
}

static int default_unit_param(int n) { return nq_units_depth(n); }

static int check(const nq__method_params_t *params) {
  return nq_units_check(params->n, params->unit_param);
}

static int units_total(uint64_t *total, const nq__method_params_t *params,
                       volatile sig_atomic_t *stop) {
  return nq_units_total_until(total, params->n, params->unit_param, stop);
}

/* The generator makes each unit as it is asked for: nothing long to stop. */
static int units_open(void **listing, const nq__method_params_t *params,
                      volatile sig_atomic_t *stop) {
  (void)stop;
  nq_unit_gen_t *gen = NULL;
  int rc = nq_unit_gen_create(&gen, params->n, params->unit_param);
  *listing = gen;
  return rc;
}

static int units_next(void *listing, nq__work_t *work) {
  nq_unit_t unit;
  int got = nq_unit_gen_next(listing, &unit);
  if (got > 0)
    nq__backtrack_work_of(work, &unit);
  return got;
}

static void units_close(void *listing) {
  if (listing != NULL)
    nq_unit_gen_destroy(listing);
}

static int solver_open(void **solver, const nq__method_params_t *params) {
  nq_search_t *search = NULL;
  int rc = nq_kernel_create(&search, params->n, params->walk);
  *solver = search;
  return rc;
}

static void solver_close(void *solver) { nq_kernel_destroy(solver); }

static void solver_set_cancel(void *solver, nq__method_cancel_fn cancelled, void *context) {
  nq__kernel_set_cancel(solver, cancelled, context);
}

static int solve(nq_unit_result_t *result, void *solver, const nq__work_t *work,
                 const nq__method_params_t *params) {
  nq_unit_t unit;
  nq__backtrack_unit_of(&unit, work);
  return nq_kernel_solve(result, solver, &unit, params->unique);
}

static int scheme(int n, int depth) {
  (void)n;
  (void)depth;
  return NQ_UNIT_SCHEME;
}

const nq__method_t nq__method_backtrack = {
    .id = NQ_COUNT_BACKTRACK,
    .name = "backtrack",
    .scheme = scheme,
    .nodes_are_fixed = 1,
    .unit_word = "work unit",
    .unit_param_word = "depth",
    NQ__METHOD_OPERATIONS,
};
