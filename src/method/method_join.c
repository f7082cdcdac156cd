/* The join as a counting method: a unit is a canonical column set of the
 * top half (join_units.h), its id the set's place in a fixed random order
 * of the canonical sets, its first word the set.  A unit's result is the
 * solutions the set stands for, its orbit's weight included (weight 1),
 * and in `nodes` the queens the bottom walk placed, the join's work
 * counter.  Boards without a row to cut (n = 0, 1) are one unit: the empty
 * board, the lone queen.
 *
 * With --unique, U(n) comes from Burnside's lemma as the backtracker's
 * does, but the sets have no frames to classify: each solution of a set
 * adds 1 to 8 U(n) (the identity fixes it), and one more unit, the turn
 * unit (id 0, the sets after it), adds the solutions that the half turn
 * fixes and twice those the quarter turn fixes (symmetric.h), counted by a
 * search of their own.  It comes first so that its search, minutes at
 * n = 27, overlaps the sets. */
#include <stdlib.h>

#include "grow.h"
#include "join_units.h"
#include "method.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "random.h"
#include "symmetric.h"

/* The turn unit's second word (a set's is 0): the unit of id 0 with
 * --unique, no set. */
enum { TURN_UNIT = 1 };

/* Whether the listing starts with the turn unit: --unique on a board with
 * a row to cut (on n = 0, 1 the one unit's symmetries are all eight). */
static int has_turn_unit(const nq__method_params_t *params) {
  return params->unique && params->n >= 2;
}

static const char *leading_unit_word(int n, int unique) {
  const nq__method_params_t params = {.n = n, .unique = unique};
  return has_turn_unit(&params) ? "the turn search" : NULL;
}

static int default_unit_param(int n) { return n < 2 ? 1 : nq_join_default_top_rows(n); }

static int check(const nq__method_params_t *params) {
  const int n = params->n;
  if (n < 0 || n > NQ_JOIN_MAX_N)
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
  *total = (uint64_t)has_turn_unit(params);
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
 * k is the k-th set of that order (8 bytes a set: 80 MB at n = 28), or
 * with the turn unit the (k - 1)-th. */
typedef struct listing {
  uint64_t *sets;
  uint64_t count, next_id;
  uint64_t first_set_id; /* 1 after the turn unit, else 0 */
} listing_t;

/* Seconds from n = 30, whose sets come from all over a GB: a stop is
 * heard within. */
int nq__join_shuffle_sets(uint64_t *sets, uint64_t count, int n, int top_rows,
                          volatile sig_atomic_t *stop) {
  uint64_t state = nq__random_scramble(0x6a6f696e00000000u ^ ((uint64_t)n << 8) ^
                                       (uint64_t)top_rows);
  for (uint64_t i = count; i > 1; i--) {
    if (i % SETS_BETWEEN_LOOKS == 0 && stop != NULL && *stop)
      return NQ_ESTOPPED;
    uint64_t j = nq__random_next(&state) % i, swapped = sets[i - 1];
    sets[i - 1] = sets[j];
    sets[j] = swapped;
  }
  return NQ_OK;
}

int nq__join_list_sets(uint64_t **out_sets, uint64_t *out_count, int n, int top_rows,
                       volatile sig_atomic_t *stop) {
  const nq__method_params_t params = {.n = n, .unit_param = top_rows};
  walk_of_sets_t w;
  walk_start(&w, &params);
  uint64_t *sets = NULL, columns;
  size_t capacity = 0, count = 0;
  while (walk_next(&w, &columns)) {
    int rc = nq__grow((void **)&sets, &capacity, count + 1, sizeof *sets);
    if (rc == NQ_OK && ++count % SETS_BETWEEN_LOOKS == 0 && stop != NULL && *stop)
      rc = NQ_ESTOPPED;
    if (rc != NQ_OK) {
      free(sets);
      return rc;
    }
    sets[count - 1] = columns;
  }
  /* The doubling's room given back: it held up to 1.7 times the sets (2.1
   * GB for n = 32's 1.2 GB), kept by rank 0 for the whole run. */
  uint64_t *fitted = count > 0 ? realloc(sets, count * sizeof *sets) : NULL;
  *out_sets = fitted != NULL ? fitted : sets;
  *out_count = count;
  return NQ_OK;
}

static int units_open(void **listing, const nq__method_params_t *params,
                      volatile sig_atomic_t *stop) {
  listing_t *l = calloc(1, sizeof *l);
  *listing = l;
  if (l == NULL)
    return NQ_ENOMEM;
  l->first_set_id = (uint64_t)has_turn_unit(params);
  int rc = nq__join_list_sets(&l->sets, &l->count, params->n, params->unit_param, stop);
  if (rc == NQ_OK && params->n >= 2)
    rc = nq__join_shuffle_sets(l->sets, l->count, params->n, params->unit_param, stop);
  if (rc == NQ_ESTOPPED) { /* a set half shuffled must never pass for its unit id */
    free(l->sets);
    l->sets = NULL;
    l->count = 0;
  }
  return rc;
}

static int units_next(void *listing, nq__work_t *unit) {
  listing_t *l = listing;
  const uint64_t id = l->next_id;
  if (id < l->first_set_id)
    *unit = (nq__work_t){.id = id, .data = {0, TURN_UNIT}};
  else if (id - l->first_set_id < l->count)
    *unit = (nq__work_t){.id = id, .data = {l->sets[id - l->first_set_id], 0}};
  else
    return 0;
  l->next_id++;
  return 1;
}

static void units_close(void *listing) {
  listing_t *l = listing;
  if (l != NULL)
    free(l->sets);
  free(l);
}

/* A thread's solver: the join's tables, and the cancel hook, which the
 * turn unit's search asks as the bottom walk does. */
typedef struct join_solver {
  nq_join_scratch_t *scratch;
  nq__method_cancel_fn cancelled;
  void *context;
} join_solver_t;

static int solver_open(void **solver, const nq__method_params_t *params) {
  join_solver_t *s = calloc(1, sizeof *s);
  *solver = NULL;
  if (s == NULL)
    return NQ_ENOMEM;
  int rc = nq_join_scratch_create(&s->scratch);
  if (rc != NQ_OK) {
    free(s);
    return rc;
  }
  nq_join_scratch_limit(s->scratch, params->solver_bytes);
  *solver = s;
  return NQ_OK;
}

static void solver_close(void *solver) {
  join_solver_t *s = solver;
  if (s != NULL)
    nq_join_scratch_destroy(s->scratch);
  free(s);
}

static void solver_set_cancel(void *solver, nq__method_cancel_fn cancelled, void *context) {
  join_solver_t *s = solver;
  s->cancelled = cancelled;
  s->context = context;
  nq__join_set_cancel(s->scratch, cancelled, context);
}

/* The turn unit: no solution of its own, 8 U(n)'s terms beyond Q(n). */
static int solve_turns(nq_unit_result_t *result, const join_solver_t *s,
                       const nq__method_params_t *params) {
  nq__symmetric_counts_t turns;
  int rc = nq__count_symmetric(&turns, params->n, s->cancelled, s->context);
  result->stabilizer_sum = turns.half_turn + 2 * turns.quarter_turn;
  result->nodes = turns.nodes;
  return rc;
}

static int solve(nq_unit_result_t *result, void *solver, const nq__work_t *unit,
                 const nq__method_params_t *params) {
  *result = (nq_unit_result_t){.id = unit->id, .weight = 1};
  const join_solver_t *s = solver;
  if (params->n < 2) {
    result->solutions = unit->data[0] == 0 && unit->data[1] == 0 ? 1 : 0;
    result->stabilizer_sum = params->unique ? 8 * result->solutions : 0;
    return result->solutions == 1 ? NQ_OK : NQ_EUNIT;
  }
  if (unit->data[1] == TURN_UNIT)
    return has_turn_unit(params) && unit->data[0] == 0 ? solve_turns(result, s, params) : NQ_EUNIT;
  if (unit->data[1] != 0)
    return NQ_EUNIT;
  nq_join_stats_t stats = {0};
  int rc = nq__join_unit(&result->solutions, &stats, s->scratch, params->n, params->unit_param,
                         unit->data[0]);
  result->nodes = stats.bottom_nodes;
  if (params->unique)
    result->stabilizer_sum = result->solutions;
  return rc;
}

const nq__method_t nq__method_join = {
    .id = NQ_COUNT_JOIN,
    .name = "join",
    .scheme = nq_join_unit_scheme,
    .nodes_are_fixed = 0,
    .unit_word = "column set",
    .unit_param_word = "top rows",
    .leading_unit_word = leading_unit_word,
    NQ__METHOD_OPERATIONS,
};
