/* The join as a counting method: a unit is a canonical column set of the
 * top half (join_units.h), its id the set's place in a fixed random order
 * of the canonical sets, its first word the set.  A unit's result is the
 * solutions the set stands for, its orbit's weight included (weight 1),
 * and in `nodes` the queens the bottom walk placed, the join's work
 * counter.  Boards without a row to cut (n = 0, 1) are one unit: the empty
 * board, the lone queen. */

#include <stdlib.h>

#include "grow.h"
#include "join_units.h"
#include "method.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "random.h"

static int default_unit_param(int n) { return n < 2 ? 1 : nq_join_default_top_rows(n); }

static int check(const nq__method_params_t *params) {
  const int n = params->n;
  if (n < 0 || n > NQ_JOIN_MAX_N || params->unique)
    return NQ_EINVAL;
  return n < 2 || (params->unit_param >= 1 && params->unit_param < n) ? NQ_OK : NQ_EINVAL;
}

/* The canonical sets in increasing order: the next one, 0 after the last. */
typedef struct walk_of_sets {
  int n, top_rows;
  uint64_t set; /* the next set to look at; 0 once done */
} walk_of_sets_t;

static void walk_start(walk_of_sets_t *w, const nq__method_params_t *params) {
  w->n = params->n;
  w->top_rows = params->unit_param;
  w->set = params->n < 2 ? 1 : nq__join_first_set(params->unit_param);
}

/* 1 and the next canonical set, 0 at the end. */
static int walk_next(walk_of_sets_t *w, uint64_t *columns) {
  if (w->n < 2) { /* the one unit: no set */
    int more = w->set != 0;
    w->set = 0;
    *columns = 0;
    return more;
  }
  for (; w->set != 0; w->set = nq__join_next_set(w->set, w->n))
    if (nq__join_is_canonical(w->set, w->n, w->top_rows)) {
      *columns = w->set;
      w->set = nq__join_next_set(w->set, w->n);
      return 1;
    }
  return 0;
}

/* Sets looked at between two looks at the stop flag. */
enum { SETS_BETWEEN_LOOKS = 1 << 16 };

static int units_total(uint64_t *total, const nq__method_params_t *params,
                       volatile sig_atomic_t *stop) {
  walk_of_sets_t w;
  walk_start(&w, params);
  uint64_t columns;
  *total = 0;
  while (walk_next(&w, &columns))
    if (++*total % SETS_BETWEEN_LOOKS == 0 && stop != NULL && *stop)
      return NQ_ESTOPPED;
  return NQ_OK;
}

/* The listing: every canonical set, in an order drawn at random once and
 * for all (a seed of n and the cut, so every run and every rank lists the
 * same): the first sets in increasing order are cheaper than the rest, and
 * progress counted in units would run ahead of the work.  In a random
 * order the share of units done estimates the share of the work.  Unit id
 * k is the k-th set of that order (8 bytes a set: 80 MB at n = 28). */
typedef struct listing {
  uint64_t *sets;
  uint64_t count, next_id;
} listing_t;

static void shuffle(uint64_t *sets, uint64_t count, int n, int top_rows) {
  uint64_t state = nq__random_scramble(0x6a6f696e00000000u ^ ((uint64_t)n << 8) ^
                                       (uint64_t)top_rows);
  for (uint64_t i = count; i > 1; i--) {
    uint64_t j = nq__random_next(&state) % i, swapped = sets[i - 1];
    sets[i - 1] = sets[j];
    sets[j] = swapped;
  }
}

int nq__join_list_sets(uint64_t **out_sets, uint64_t *out_count, int n, int top_rows) {
  const nq__method_params_t params = {.n = n, .unit_param = top_rows};
  walk_of_sets_t w;
  walk_start(&w, &params);
  uint64_t *sets = NULL, columns;
  size_t capacity = 0, count = 0;
  while (walk_next(&w, &columns)) {
    if (nq__grow((void **)&sets, &capacity, count + 1, sizeof *sets) != NQ_OK) {
      free(sets);
      return NQ_ENOMEM;
    }
    sets[count++] = columns;
  }
  *out_sets = sets;
  *out_count = count;
  return NQ_OK;
}

static int units_open(void **listing, const nq__method_params_t *params) {
  listing_t *l = calloc(1, sizeof *l);
  *listing = l;
  if (l == NULL)
    return NQ_ENOMEM;
  int rc = nq__join_list_sets(&l->sets, &l->count, params->n, params->unit_param);
  if (rc == NQ_OK && params->n >= 2)
    shuffle(l->sets, l->count, params->n, params->unit_param);
  return rc;
}

static int units_next(void *listing, nq__work_t *unit) {
  listing_t *l = listing;
  if (l->next_id >= l->count)
    return 0;
  *unit = (nq__work_t){.id = l->next_id, .data = {l->sets[l->next_id], 0}};
  l->next_id++;
  return 1;
}

static void units_close(void *listing) {
  listing_t *l = listing;
  if (l != NULL)
    free(l->sets);
  free(l);
}

static int solver_open(void **solver, const nq__method_params_t *params) {
  nq_join_scratch_t *scratch = NULL;
  int rc = nq_join_scratch_create(&scratch);
  if (rc == NQ_OK)
    nq_join_scratch_limit(scratch, params->solver_bytes);
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
    .unit_param_word = "top rows",
    NQ__METHOD_OPERATIONS,
};
