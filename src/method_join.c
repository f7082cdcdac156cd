/* The join as a counting method: a unit is a canonical column set of the
 * top half (join_units.h), its id the set's place among the canonical sets
 * in increasing order, its first word the set.  A unit's result is the
 * solutions the set stands for, its orbit's weight included (weight 1),
 * and in `nodes` the queens the bottom walk placed, the join's work
 * counter.  Boards without a row to cut (n = 0, 1) are one unit: the empty
 * board, the lone queen. */

#include <stdlib.h>

#include "join_units.h"
#include "method.h"
#include "nqueens/error.h"
#include "nqueens/join.h"

static int default_top_rows(int n) { return n < 2 ? 1 : nq_join_default_top_rows(n); }

static int check(const nq__method_params_t *params) {
  const int n = params->n;
  if (n < 0 || n > NQ_JOIN_MAX_N || params->unique)
    return NQ_EINVAL;
  return n < 2 || (params->unit_param >= 1 && params->unit_param < n) ? NQ_OK : NQ_EINVAL;
}

/* The listing: the next canonical set, 0 after the last. */
typedef struct listing {
  int n, top_rows;
  uint64_t next_id, set; /* the next set to look at; 0 once done */
} listing_t;

static void listing_start(listing_t *l, const nq__method_params_t *params) {
  l->n = params->n;
  l->top_rows = params->unit_param;
  l->next_id = 0;
  l->set = params->n < 2 ? 1 : nq__join_first_set(params->unit_param);
}

/* 1 and the next canonical set, 0 at the end. */
static int listing_next(listing_t *l, uint64_t *columns) {
  if (l->n < 2) { /* the one unit: no set */
    int more = l->set != 0;
    l->set = 0;
    *columns = 0;
    return more;
  }
  for (; l->set != 0; l->set = nq__join_next_set(l->set, l->n))
    if (nq__join_is_canonical(l->set, l->n, l->top_rows)) {
      *columns = l->set;
      l->set = nq__join_next_set(l->set, l->n);
      return 1;
    }
  return 0;
}

/* Sets looked at between two looks at the stop flag. */
enum { SETS_BETWEEN_LOOKS = 1 << 16 };

static int units_total(uint64_t *total, const nq__method_params_t *params,
                       volatile sig_atomic_t *stop) {
  listing_t l;
  listing_start(&l, params);
  uint64_t columns;
  *total = 0;
  while (listing_next(&l, &columns))
    if (++*total % SETS_BETWEEN_LOOKS == 0 && stop != NULL && *stop)
      return NQ_ESTOPPED;
  return NQ_OK;
}

static int units_open(void **listing, const nq__method_params_t *params) {
  listing_t *l = malloc(sizeof *l);
  *listing = l;
  if (l == NULL)
    return NQ_ENOMEM;
  listing_start(l, params);
  return NQ_OK;
}

static int units_next(void *listing, nq__work_t *unit) {
  listing_t *l = listing;
  uint64_t columns;
  if (!listing_next(l, &columns))
    return 0;
  *unit = (nq__work_t){.id = l->next_id++, .data = {columns, 0}};
  return 1;
}

static void units_close(void *listing) { free(listing); }

static int solver_open(void **solver, const nq__method_params_t *params) {
  (void)params;
  nq_join_scratch_t *scratch = NULL;
  int rc = nq_join_scratch_create(&scratch);
  *solver = scratch;
  return rc;
}

static void solver_close(void *solver) { nq_join_scratch_destroy(solver); }

static void solver_set_cancel(void *solver, nq__method_cancel_fn cancelled, void *context) {
  nq__join_set_cancel(solver, cancelled, context);
}

static int solve(nq_unit_result_t *result, void *solver, const nq__work_t *unit,
                 const nq__method_params_t *params) {
  *result = (nq_unit_result_t){.id = unit->id, .weight = 1};
  if (params->n < 2) {
    result->solutions = unit->data[0] == 0 && unit->data[1] == 0 ? 1 : 0;
    return result->solutions == 1 ? NQ_OK : NQ_EUNIT;
  }
  nq_join_stats_t stats = {0};
  int rc = nq__join_unit(&result->solutions, &stats, solver, params->n, params->unit_param,
                         unit->data[0]);
  result->nodes = stats.bottom_nodes;
  return unit->data[1] != 0 && rc == NQ_OK ? NQ_EUNIT : rc;
}

const nq__method_t nq__method_join = {
    .id = NQ_COUNT_JOIN,
    .name = "join",
    .scheme = NQ_JOIN_UNIT_SCHEME,
    .unit_word = "column set",
    .default_unit_param = default_top_rows,
    .check = check,
    .units_total = units_total,
    .units_open = units_open,
    .units_next = units_next,
    .units_close = units_close,
    .solver_open = solver_open,
    .solver_close = solver_close,
    .solver_set_cancel = solver_set_cancel,
    .solve = solve,
};
