/* A rank's search threads (src/run/pool.c): batches come back whole, in the
 * order they went in, with each unit's result exactly what one searcher
 * gives; failed and cancelled batches come back too, in their turn. */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/error.h"
#include "nqueens/kernel.h"
#include "nqueens/units.h"
#include "method_backtrack.h"
#include "pool.h"
#include "run.h"
#include "support.h"

/* Units of 12 take microseconds, of 16 about a millisecond: long enough
 * for a cancel to find work left. */
enum { BOARD = 12, LONG_BOARD = 16 };

typedef struct fixture {
  nq_count_options_t options;
  nq__run_t run;
  nq__run_solver_t *search; /* the "MPI thread"'s */
  nq__pool_t *pool;
  support_units_t units;
  nq__work_t *works; /* the units as the engine carries them */
} fixture_t;

static void set_up_board(fixture_t *f, int n, int helpers, nq__faults_t faults) {
  memset(f, 0, sizeof *f);
  f->options = (nq_count_options_t){.n = n, .unique = 1};
  f->run = (nq__run_t){.options = &f->options, .faults = faults};
  ck_assert_int_eq(nq__run_choose_method(&f->run), NQ_OK);
  f->units = support_all_units(n, 0);
  ck_assert_uint_gt(f->units.count, 100);
  f->works = malloc(f->units.count * sizeof *f->works);
  ck_assert_ptr_nonnull(f->works);
  for (size_t i = 0; i < f->units.count; i++)
    nq__backtrack_work_of(&f->works[i], &f->units.units[i]);
  ck_assert_int_eq(nq__run_solver_open(&f->search, &f->run), NQ_OK);
  ck_assert_int_eq(nq__pool_create(&f->pool, &f->run, helpers), NQ_OK);
}

static void set_up(fixture_t *f, int helpers, nq__faults_t faults) {
  set_up_board(f, BOARD, helpers, faults);
}

static void tear_down(fixture_t *f) {
  nq__pool_destroy(f->pool);
  nq__run_solver_close(&f->run, f->search);
  free(f->units.units);
  free(f->works);
}

/* Collects the next batch, solving units on this thread while waiting. */
static void next_batch(fixture_t *f, nq__pool_batch_t *batch) {
  while (!nq__pool_collect(f->pool, batch))
    if (!nq__pool_solve_one(f->pool, f->search))
      nq__pool_wait(f->pool, 0.001);
}

/* The batch's results against a searcher of its own, unit by unit. */
static void assert_batch_solved(const fixture_t *f, const nq__pool_batch_t *batch,
                                const nq_unit_t *units) {
  nq_search_t *reference = NULL;
  ck_assert_int_eq(nq_kernel_create(&reference, f->options.n, NQ_WALK_SCALAR), NQ_OK);
  ck_assert_int_eq(batch->status, NQ_OK);
  for (size_t i = 0; i < batch->count; i++) {
    nq_unit_result_t want;
    ck_assert_int_eq(nq_kernel_solve(&want, reference, &units[i], 1), NQ_OK);
    ck_assert_uint_eq(batch->results[i].id, units[i].id);
    ck_assert_uint_eq(batch->results[i].solutions, want.solutions);
    ck_assert_uint_eq(batch->results[i].stabilizer_sum, want.stabilizer_sum);
    ck_assert_uint_eq(batch->results[i].nodes, want.nodes);
    ck_assert_uint_eq(batch->results[i].weight, want.weight);
  }
  nq_kernel_destroy(reference);
}

/* Every unit of the board in batches of 1 to 9 units, with 0 to 3 helper
 * threads: every batch back whole, in order, each result exact. */
START_TEST(test_pool_solves_batches_in_order) {
  fixture_t f;
  set_up(&f, _i, NQ_NO_FAULTS);
  size_t first = 0, tag = 0, collected = 0;
  for (size_t size = 1; first < f.units.count; size = size % 9 + 1) {
    size_t count = first + size <= f.units.count ? size : f.units.count - first;
    ck_assert_int_eq(nq__pool_submit(f.pool, tag++, f.works + first, count, NQ_OK), NQ_OK);
    first += count;
  }
  ck_assert_uint_eq(nq__pool_batches(f.pool), tag);
  for (first = 0; collected < tag; collected++) {
    nq__pool_batch_t batch;
    next_batch(&f, &batch);
    ck_assert_uint_eq(batch.tag, collected);
    assert_batch_solved(&f, &batch, f.units.units + first);
    first += batch.count;
    nq__pool_release(f.pool);
  }
  ck_assert_uint_eq(first, f.units.count);
  ck_assert_uint_eq(nq__pool_batches(f.pool), 0);
  ck_assert_uint_eq(nq__pool_untaken(f.pool), 0);
  tear_down(&f);
}
END_TEST

/* A batch submitted failed is not solved but keeps its place; a failing
 * unit fails its own batch alone. */
START_TEST(test_pool_returns_failed_batches_in_their_turn) {
  nq__faults_t faults = NQ_NO_FAULTS;
  fixture_t f;
  set_up(&f, _i, faults);
  f.run.faults.failing_unit = f.units.units[13].id;
  const nq_unit_t *units = f.units.units;
  ck_assert_int_eq(nq__pool_submit(f.pool, 0, f.works, 10, NQ_OK), NQ_OK);
  ck_assert_int_eq(nq__pool_submit(f.pool, 1, f.works + 10, 10, NQ_OK), NQ_OK);
  ck_assert_int_eq(nq__pool_submit(f.pool, 2, f.works + 20, 10, NQ_EPROTO), NQ_OK);
  ck_assert_int_eq(nq__pool_submit(f.pool, 3, f.works + 30, 10, NQ_OK), NQ_OK);
  static const int expected[] = {NQ_OK, NQ_EUNIT, NQ_EPROTO, NQ_OK};
  for (int i = 0; i < 4; i++) {
    nq__pool_batch_t batch;
    next_batch(&f, &batch);
    ck_assert_uint_eq(batch.tag, (uint64_t)i);
    ck_assert_int_eq(batch.status, expected[i]);
    if (expected[i] == NQ_OK)
      assert_batch_solved(&f, &batch, units + 10 * i);
    nq__pool_release(f.pool);
  }
  tear_down(&f);
}
END_TEST

/* A cancel: every batch still comes back, finished ones whole and exact,
 * the others stopped; batches submitted after it come back stopped. */
START_TEST(test_pool_cancel_returns_every_batch) {
  fixture_t f;
  set_up_board(&f, LONG_BOARD, _i, NQ_NO_FAULTS);
  size_t batches = f.units.count / 20;
  for (size_t b = 0; b < batches; b++)
    ck_assert_int_eq(nq__pool_submit(f.pool, b, f.works + 20 * b, 20, NQ_OK), NQ_OK);
  nq__pool_batch_t batch;
  next_batch(&f, &batch); /* the first batch is done, or being done */
  ck_assert_int_eq(batch.status, NQ_OK);
  nq__pool_release(f.pool);
  nq__pool_cancel(f.pool);
  ck_assert_int_eq(nq__pool_submit(f.pool, batches, f.works, 5, NQ_OK), NQ_OK);
  int stopped = 0;
  for (size_t b = 1; b <= batches; b++) {
    next_batch(&f, &batch);
    ck_assert_uint_eq(batch.tag, b);
    if (b < batches && batch.status == NQ_OK)
      assert_batch_solved(&f, &batch, f.units.units + 20 * b);
    else
      ck_assert_int_eq(batch.status, NQ_ESTOPPED);
    stopped += batch.status == NQ_ESTOPPED;
    nq__pool_release(f.pool);
  }
  ck_assert_int_gt(stopped, 0);
  ck_assert_int_eq(batch.status, NQ_ESTOPPED); /* the one submitted after */
  tear_down(&f);
}
END_TEST

/* Destroying a pool with work left stops its helpers and frees it all. */
START_TEST(test_pool_destroy_with_work_left) {
  fixture_t f;
  set_up(&f, 3, NQ_NO_FAULTS);
  ck_assert_int_eq(nq__pool_submit(f.pool, 0, f.works, f.units.count, NQ_OK), NQ_OK);
  tear_down(&f);
}
END_TEST

static Suite *pool_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("pool");
  TCase *batches = support_tcase("batches");
  tcase_add_loop_test(batches, test_pool_solves_batches_in_order, 0, 4);
  tcase_add_loop_test(batches, test_pool_returns_failed_batches_in_their_turn, 0, 3);
  tcase_add_loop_test(batches, test_pool_cancel_returns_every_batch, 0, 3);
  tcase_add_test(batches, test_pool_destroy_with_work_left);
  suite_add_tcase(suite, batches);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, pool_suite); }
