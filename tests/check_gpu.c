/* The GPU search (src/gpu/gpu_batch.c, src/gpu/gpu_walk.h): units cut into
 * sub-problems and walked one step at a time must give, unit by unit, the
 * CPU kernel's solutions, stabilizer sums and nodes, and the brute force's
 * completions.  The walk runs on the host here (the same code the device
 * compiles); with --device it runs on the first CUDA device and is
 * compared with the host, and where there is no device the run exits with
 * ctest's skip code. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/kernel.h"
#include "nqueens/units.h"
#include "support.h"

enum { SKIP = 77 };

static nq__gpu_device_t *device; /* --device: the device under test */

typedef support_units_t unit_batch_t;

static unit_batch_t all_units(int n, int depth) { return support_all_units(n, depth); }

/* Solves every unit of (n, depth) through the GPU solver, in batches of
 * `batch_size` units (so batches start and end inside frames). */
static nq_unit_result_t *solve_on_gpu_path(const unit_batch_t *batch, int n, int classify,
                                           size_t batch_size, nq__gpu_device_t *on) {
  nq__gpu_solver_t *solver = NULL;
  nq_unit_result_t *results = calloc(batch->count + 1, sizeof *results);
  ck_assert_ptr_nonnull(results);
  ck_assert_int_eq(nq__gpu_solver_create(&solver, n, NQ_WALK_SCALAR, on), NQ_OK);
  for (size_t first = 0; first < batch->count; first += batch_size) {
    size_t count = batch->count - first < batch_size ? batch->count - first : batch_size;
    int rc = nq__gpu_solver_solve(solver, results + first, batch->units + first, count, classify);
    ck_assert_msg(rc == NQ_OK, "n %d: %s", n, nq_strerror(rc));
  }
  nq__gpu_solver_destroy(solver);
  return results;
}

static void assert_same_result(const nq_unit_result_t *got, const nq_unit_result_t *expected,
                               int n, int depth, const char *what) {
  ck_assert_msg(got->id == expected->id && got->solutions == expected->solutions &&
                    got->stabilizer_sum == expected->stabilizer_sum &&
                    got->nodes == expected->nodes && got->weight == expected->weight,
                "n %d depth %d unit %llu (%s): solutions %llu / %llu, stabilizer sum %llu / %llu, "
                "nodes %llu / %llu",
                n, depth, (unsigned long long)expected->id, what,
                (unsigned long long)got->solutions, (unsigned long long)expected->solutions,
                (unsigned long long)got->stabilizer_sum,
                (unsigned long long)expected->stabilizer_sum, (unsigned long long)got->nodes,
                (unsigned long long)expected->nodes);
}

/* The host walk against the CPU kernel, unit by unit, with and without
 * classification. */
static void check_against_kernel(int n, int depth) {
  unit_batch_t batch = all_units(n, depth);
  nq_search_t *search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, n, NQ_WALK_SCALAR), NQ_OK);
  for (int classify = 0; classify <= 1; classify++) {
    nq_unit_result_t *results = solve_on_gpu_path(&batch, n, classify, 37, NULL);
    for (size_t u = 0; u < batch.count; u++) {
      nq_unit_result_t expected;
      ck_assert_int_eq(nq_kernel_solve(&expected, search, &batch.units[u], classify), NQ_OK);
      assert_same_result(&results[u], &expected, n, depth, classify ? "classified" : "counted");
    }
    free(results);
  }
  nq_kernel_destroy(search);
  free(batch.units);
}

START_TEST(test_host_walk_matches_kernel) {
  int n = _i;
  for (int depth = n < NQ_FRAME_MIN_N ? 0 : 1; depth <= 3 && depth < n - 1; depth++)
    check_against_kernel(n, depth);
  check_against_kernel(n, 0);
}
END_TEST

/* Unit by unit against the permutation brute force: a unit's completions
 * are the solutions that lie in it. */
START_TEST(test_host_walk_matches_brute_force) {
  int n = _i;
  const brute_solutions_t *solutions = brute_solutions(n);
  unit_batch_t batch = all_units(n, 1);
  nq_unit_result_t *results = solve_on_gpu_path(&batch, n, 0, 1000, NULL);
  uint64_t total = 0;
  for (size_t u = 0; u < batch.count; u++) {
    const nq_unit_t *unit = &batch.units[u];
    uint64_t bottoms =
        unit->frame.kind == NQ_FRAME_SIDES ? nq_frame_sides_bottoms(n, &unit->frame) : 0;
    uint64_t expected = 0;
    for (size_t i = 0; i < solutions->count; i++)
      expected += (uint64_t)support_unit_holds(n, unit, bottoms, brute_solution(solutions, i));
    ck_assert_msg(results[u].solutions == expected, "n %d unit %zu: %llu completions, brute %llu",
                  n, u, (unsigned long long)results[u].solutions,
                  (unsigned long long)expected);
    total += results[u].weight * results[u].solutions;
  }
  ck_assert_uint_eq(total, known_all[n]);
  free(results);
  free(batch.units);
}
END_TEST

/* A corrupt unit is refused, as the CPU kernel refuses it. */
START_TEST(test_corrupt_unit_is_refused) {
  unit_batch_t batch = all_units(10, 2);
  batch.units[3].prefix[1] = batch.units[3].prefix[0]; /* same column as row 0 */
  nq__gpu_solver_t *solver = NULL;
  nq_unit_result_t *results = calloc(batch.count, sizeof *results);
  ck_assert_int_eq(nq__gpu_solver_create(&solver, 10, NQ_WALK_SCALAR, NULL), NQ_OK);
  ck_assert_int_eq(nq__gpu_solver_solve(solver, results, batch.units, batch.count, 0), NQ_EUNIT);
  nq__gpu_solver_destroy(solver);
  free(results);
  free(batch.units);
}
END_TEST

/* The device against the host walk, every unit of boards 12 to 17. */
START_TEST(test_device_matches_host_walk) {
  int n = _i;
  unit_batch_t batch = all_units(n, 0);
  nq_unit_result_t *on_host = solve_on_gpu_path(&batch, n, 1, batch.count, NULL);
  nq_unit_result_t *on_device = solve_on_gpu_path(&batch, n, 1, 4096, device);
  uint64_t total = 0;
  for (size_t u = 0; u < batch.count; u++) {
    assert_same_result(&on_device[u], &on_host[u], n, nq_units_depth(n), "device");
    total += on_device[u].weight * on_device[u].solutions;
  }
  ck_assert_uint_eq(total, known_all[n]);
  free(on_host);
  free(on_device);
  free(batch.units);
}
END_TEST

static Suite *gpu_suite(int argc, char **argv) {
  (void)argc, (void)argv;
  Suite *suite = suite_create("gpu");
  if (device != NULL) {
    TCase *on_device = support_tcase("device");
    tcase_set_timeout(on_device, 0);
    tcase_add_loop_test(on_device, test_device_matches_host_walk, 12, 18);
    suite_add_tcase(suite, on_device);
    return suite;
  }
  TCase *host = support_tcase("host");
  tcase_add_loop_test(host, test_host_walk_matches_kernel, 1, 15);
  tcase_add_loop_test(host, test_host_walk_matches_brute_force, NQ_FRAME_MIN_N, BRUTE_MAX_N + 1);
  tcase_add_test(host, test_corrupt_unit_is_refused);
  suite_add_tcase(suite, host);
  return suite;
}

int main(int argc, char **argv) {
  int on_device = argc > 1 && strcmp(argv[1], "--device") == 0;
  if (on_device) {
    if (nq__gpu_device_count() == 0) {
      printf("check_gpu --device: skipped: no CUDA device here%s\n",
             nq__gpu_device_count() == 0 ? " (or a build without CUDA)" : "");
      return SKIP;
    }
    int rc = nq__gpu_device_open(&device, 0);
    if (rc != NQ_OK) {
      fprintf(stderr, "check_gpu --device: cannot open device 0: %s\n", nq_strerror(rc));
      return 1;
    }
    printf("check_gpu --device: %s\n", nq__gpu_device_name(device));
  }
  int status = support_main(argc, argv, gpu_suite);
  nq__gpu_device_close(device);
  return status;
}
