#ifndef NQ_SRC_METHOD_H
#define NQ_SRC_METHOD_H

/* A counting method, as the run engine sees it (in the spirit of ior's
 * backend table): how a count's work is cut into units, listed in a fixed
 * order, and how one unit is counted.  The engine (master, workers,
 * threads, backup copies, journal, slices, merge, verification, progress,
 * --status, --json) calls a method through this table alone and knows
 * nothing of frames or column sets.  A new method is a new file with one
 * such table.
 *
 * Units travel as an id and two words that the method alone reads: the
 * wire and the journal carry ids and sums only, and a unit's id is its
 * place in the method's listing, stable for a given n, unit parameter and
 * unit scheme. */

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/options.h"
#include "nqueens/kernel.h"

/* A unit as the engine handles it. */
typedef struct nq__work {
  uint64_t id;
  uint64_t data[2];
} nq__work_t;

/* What a method counts with: the board, the unit parameter (the
 * backtracker's pre-placed rows, the join's top rows; resolved, never 0),
 * and the options only some methods take. */
typedef struct nq__method_params {
  int n;
  int unit_param;
  int unique;     /* the Burnside sums too (the backtracker) */
  nq_walk_t walk; /* the backtracker's walk */
  size_t solver_bytes; /* the join: what one solver's tables may hold; 0: no bound */
} nq__method_params_t;

/* Asked at coarse points inside a unit: non-zero abandons it. */
typedef int (*nq__method_cancel_fn)(void *context);

typedef struct nq__method {
  nq_count_method_t id;
  const char *name;    /* "backtrack", "join": the journal's and the output's */
  /* The version of its unit listing for n and a unit parameter (journal
   * headers). */
  int (*scheme)(int n, int unit_param);
  const char *unit_word; /* how a unit is called in messages: "work unit", "column set" */
  const char *unit_param_word; /* and its unit parameter: "depth", "top rows" */
  /* 1 where a unit's nodes are the same however it is solved (the
   * backtracker's search); 0 where they depend on the memory it was
   * solved in (the join walks the bottom again for each part of a bucket's
   * tops, and a part's size follows the thread's share): copies, checks
   * and merges then compare the counts alone. */
  int nodes_are_fixed;
  /* A unit that leads the listing (id 0) and is not one that unit_word
   * names, where the options give it one: the join's turn search with
   * --unique.  Its words ("the turn search"), or NULL where it has none. */
  const char *(*leading_unit_word)(int n, int unique);
  /* The unit parameter when the options say 0, and whether one is valid. */
  int (*default_unit_param)(int n);
  int (*check)(const nq__method_params_t *params);
  /* How many units the listing has; NQ_ESTOPPED soon after *stop. */
  int (*units_total)(uint64_t *total, const nq__method_params_t *params,
                     volatile sig_atomic_t *stop);
  /* The listing, in id order.  NQ_ESTOPPED soon after *stop (when not
   * NULL), the listing then empty: units_close still takes it. */
  int (*units_open)(void **listing, const nq__method_params_t *params,
                    volatile sig_atomic_t *stop);
  int (*units_next)(void *listing, nq__work_t *unit); /* 1, 0 at the end, or an error */
  void (*units_close)(void *listing);
  /* A solver for one thread. */
  int (*solver_open)(void **solver, const nq__method_params_t *params);
  void (*solver_close)(void *solver);
  void (*solver_set_cancel)(void *solver, nq__method_cancel_fn cancelled, void *context);
  /* Counts one unit: solutions (weighted by what the unit stands for in
   * `weight`), the Burnside sums where the method has them, and the
   * method's own work counter in `nodes`.  NQ_ESTOPPED when cancelled
   * (the result is then void), NQ_EUNIT for a unit that is not one of its
   * listing's. */
  int (*solve)(nq_unit_result_t *result, void *solver, const nq__work_t *unit,
               const nq__method_params_t *params);
} nq__method_t;

/* A method's file names its operations as the fields are named (static
 * check, units_total, ... solve) and fills its table's operations with
 * this, so that a new field is one line here and one function a method. */
#define NQ__METHOD_OPERATIONS                                                                      \
  .default_unit_param = default_unit_param, .check = check, .units_total = units_total,           \
  .units_open = units_open, .units_next = units_next, .units_close = units_close,                  \
  .solver_open = solver_open, .solver_close = solver_close,                                        \
  .solver_set_cancel = solver_set_cancel, .solve = solve

extern const nq__method_t nq__method_backtrack;
extern const nq__method_t nq__method_join;

/* The method of `id`, or NULL. */
const nq__method_t *nq__method_of(nq_count_method_t id);

/* The method named `name` ("backtrack", "join"), or NULL. */
const nq__method_t *nq__method_named(const char *name);

#endif
