/* The kernel module: nq_kernel_solve must count each unit's completions
 * exactly, and their Burnside classification must add up to U(n). */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/kernel.h"
#include "nqueens/symmetry.h"
#include "nqueens/units.h"
#include "search.h"
#include "support.h"

typedef struct totals {
  uint64_t units;
  uint64_t solutions;      /* sum of weight x solutions */
  uint64_t unique_times_8; /* sum of weight x stabilizer_sum */
} totals_t;

static nq_search_t *new_search(int n) {
  nq_search_t *search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, n, NQ_WALK_AUTO), NQ_OK);
  return search;
}

/* Solves every unit of (n, depth) the way a worker does: one searcher for
 * the run, which follows the frame changes itself. */
static totals_t solve_all(int n, int depth, int classify) {
  nq_unit_gen_t *gen = NULL;
  nq_search_t *search = new_search(n);
  nq_unit_t unit;
  totals_t totals = {0, 0, 0};
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0) {
    nq_unit_result_t result;
    int rc = nq_kernel_solve(&result, search, &unit, classify);
    ck_assert_msg(rc == NQ_OK, "n %d depth %d unit %llu: %s", n, depth,
                  (unsigned long long)unit.id, nq_strerror(rc));
    ck_assert_uint_eq(result.id, unit.id);
    ck_assert_uint_eq(result.weight, unit.frame.weight);
    if (!classify)
      ck_assert_uint_eq(result.stabilizer_sum, 0);
    totals.units++;
    totals.solutions += result.weight * result.solutions;
    totals.unique_times_8 += result.weight * result.stabilizer_sum;
  }
  nq_unit_gen_destroy(gen);
  nq_kernel_destroy(search);
  return totals;
}

START_TEST(test_solve_totals_match_known_counts) {
  int n = _i;
  totals_t classified = solve_all(n, 0, 1);
  ck_assert_uint_gt(classified.units, 0);
  ck_assert_uint_eq(classified.solutions, known_all[n]);
  ck_assert_uint_eq(classified.unique_times_8, 8 * known_unique[n]);
  totals_t counted = solve_all(n, 0, 0);
  ck_assert_uint_eq(counted.units, classified.units);
  ck_assert_uint_eq(counted.solutions, known_all[n]);
}
END_TEST

/* The same totals whatever the depth, down to units that are whole
 * solutions but for the last rows. */
START_TEST(test_solve_totals_at_every_depth) {
  int n = _i;
  int shallowest = n < NQ_FRAME_MIN_N ? 0 : 1, deepest = n < NQ_FRAME_MIN_N ? n : n - 1;
  if (deepest > NQ_UNIT_MAX_DEPTH)
    deepest = NQ_UNIT_MAX_DEPTH;
  for (int depth = shallowest; depth <= deepest; depth++) {
    totals_t totals = solve_all(n, depth, 1);
    ck_assert_msg(totals.solutions == known_all[n] && totals.unique_times_8 == 8 * known_unique[n],
                  "n %d depth %d: Q %llu (expected %llu), 8U %llu (expected %llu)", n, depth,
                  (unsigned long long)totals.solutions, (unsigned long long)known_all[n],
                  (unsigned long long)totals.unique_times_8,
                  (unsigned long long)(8 * known_unique[n]));
  }
}
END_TEST

/* Unit by unit against the permutation brute force: the completions of a
 * unit are the solutions that lie in it; the stabilizer sum counts, for
 * each, the frame's symmetries that fix it. */
static void check_units_against_brute_force(int n, int depth) {
  const brute_solutions_t *solutions = brute_solutions(n);
  nq_unit_gen_t *gen = NULL;
  nq_unit_t unit;
  nq_search_t *search = new_search(n);
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0) {
    uint64_t bottoms =
        unit.frame.kind == NQ_FRAME_SIDES ? nq_frame_sides_bottoms(n, &unit.frame) : 0;
    uint64_t expected = 0, expected_stabilizer_sum = 0;
    for (size_t i = 0; i < solutions->count; i++) {
      const uint8_t *solution = brute_solution(solutions, i);
      if (!support_unit_holds(n, &unit, bottoms, solution))
        continue;
      expected++;
      expected_stabilizer_sum +=
          (uint64_t)__builtin_popcount(brute_fixing(solution, n) & unit.frame.stabilizer);
    }
    for (int classify = 0; classify <= 1; classify++) {
      nq_unit_result_t result;
      ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, classify), NQ_OK);
      ck_assert_msg(result.solutions == expected,
                    "n %d depth %d unit %llu (kind %d top %d bottom %d left %d right %d): "
                    "%llu completions, brute force %llu",
                    n, depth, (unsigned long long)unit.id, unit.frame.kind, unit.frame.top,
                    unit.frame.bottom, unit.frame.left, unit.frame.right,
                    (unsigned long long)result.solutions, (unsigned long long)expected);
      if (classify)
        ck_assert_msg(result.stabilizer_sum == expected_stabilizer_sum,
                      "n %d depth %d unit %llu: stabilizer sum %llu, brute force %llu", n,
                      depth, (unsigned long long)unit.id,
                      (unsigned long long)result.stabilizer_sum,
                      (unsigned long long)expected_stabilizer_sum);
    }
  }
  nq_unit_gen_destroy(gen);
  nq_kernel_destroy(search);
}

START_TEST(test_solve_each_unit_matches_brute_force) {
  int n = _i;
  check_units_against_brute_force(n, 0);
  for (int depth = 1; depth <= n - 1 && depth <= NQ_UNIT_MAX_DEPTH; depth++)
    check_units_against_brute_force(n, depth);
}
END_TEST

START_TEST(test_solve_open_board_units_match_brute_force) {
  int n = _i;
  for (int depth = 0; depth <= n; depth++)
    check_units_against_brute_force(n, depth);
}
END_TEST

/* A unit from the generator, for corrupting, and a searcher that has
 * solved it (so its frame is prepared). */
static nq_search_t *first_unit(nq_unit_t *unit, int n, int depth) {
  nq_unit_gen_t *gen = NULL;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  ck_assert_int_eq(nq_unit_gen_next(gen, unit), 1);
  nq_unit_gen_destroy(gen);
  nq_search_t *search = new_search(n);
  nq_unit_result_t result;
  ck_assert_int_eq(nq_kernel_solve(&result, search, unit, 1), NQ_OK);
  return search;
}

START_TEST(test_solve_rejects_prefix_on_attacked_column) {
  nq_unit_t unit;
  nq_unit_result_t result;
  nq_search_t *search = first_unit(&unit, 8, 3);
  unit.prefix[1] = unit.prefix[0]; /* same column as row 0 */
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 1), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_solve_rejects_prefix_on_attacked_diagonal) {
  nq_unit_t unit;
  nq_unit_result_t result;
  nq_search_t *search = first_unit(&unit, 8, 3);
  /* Row 2 one column beside row 1: diagonal neighbours. */
  unit.prefix[2] = (uint8_t)(unit.prefix[1] + 1 < 8 ? unit.prefix[1] + 1 : unit.prefix[1] - 1);
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 1), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_solve_rejects_prefix_off_the_board) {
  nq_unit_t unit;
  nq_unit_result_t result;
  nq_search_t *search = first_unit(&unit, 8, 2);
  unit.prefix[1] = 8;
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_solve_rejects_prefix_off_the_frame) {
  nq_unit_t unit;
  nq_unit_result_t result;
  nq_search_t *search = first_unit(&unit, 9, 2);
  /* Row 0 is the frame's top queen; elsewhere is not this frame. */
  unit.prefix[0] = (uint8_t)((unit.frame.top + 4) % 9);
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_solve_rejects_open_board_attacked_prefix) {
  nq_unit_t unit;
  nq_unit_result_t result;
  nq_search_t *search = first_unit(&unit, 4, 2);
  ck_assert_int_eq(unit.frame.kind, NQ_FRAME_OPEN);
  unit.prefix[0] = 0;
  unit.prefix[1] = 1; /* diagonal neighbours */
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 1), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_solve_rejects_impossible_depth) {
  nq_unit_t unit;
  nq_unit_result_t result;
  nq_search_t *search = first_unit(&unit, 12, 1);
  unit.depth = NQ_UNIT_MAX_DEPTH + 1;
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  unit.depth = 0; /* a framed unit always carries its top queen */
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

/* The weight multiplies every count: a unit whose frame claims another
 * weight or stabilizer than its orbit has, or that is not its orbit's
 * canonical member, is refused rather than trusted. */
START_TEST(test_solve_rejects_frame_with_false_weight) {
  nq_unit_t unit;
  nq_unit_result_t result;
  nq_search_t *search = first_unit(&unit, 10, 1);
  nq_unit_t tampered = unit;
  tampered.frame.weight = (uint8_t)(unit.frame.weight == 8 ? 4 : 8);
  ck_assert_int_eq(nq_kernel_solve(&result, search, &tampered, 0), NQ_EUNIT);
  tampered = unit;
  tampered.frame.stabilizer ^= 1u << NQ_SYM_ROT180;
  ck_assert_int_eq(nq_kernel_solve(&result, search, &tampered, 0), NQ_EUNIT);
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_OK);
  nq_kernel_destroy(search);
}
END_TEST

/* A valid frame that is not the smallest of its orbit, with the weight
 * and stabilizer its orbit has: searching it would count its orbit twice. */
static nq_frame_t non_canonical_frame(int n) {
  for (int top = 1; top < n - 1; top++)
    for (int left = 1; left < n - 1; left++)
      for (int right = 1; right < n - 1; right++)
        for (int bottom = 1; bottom < n - 1; bottom++) {
          nq_frame_t frame = {.kind = NQ_FRAME_BORDER, .top = (uint8_t)top,
                              .bottom = (uint8_t)bottom, .left = (uint8_t)left,
                              .right = (uint8_t)right};
          if (nq_frame_is_valid(n, &frame) && !nq_frame_classify(n, &frame))
            return frame;
        }
  ck_abort_msg("no non-canonical frame for n = %d", n);
  return (nq_frame_t){0};
}

START_TEST(test_solve_rejects_non_canonical_frame) {
  nq_search_t *search = new_search(10);
  nq_unit_result_t result;
  nq_unit_t unit = {.depth = 1, .frame = non_canonical_frame(10)};
  unit.prefix[0] = unit.frame.top;
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_solve_rejects_invalid_frames) {
  nq_search_t *search = new_search(8);
  nq_unit_result_t result;
  nq_unit_t unit = {.depth = 1};
  /* A top-left corner queen must also be the left queen. */
  unit.frame = (nq_frame_t){.kind = NQ_FRAME_BORDER, .top = 0, .bottom = 3, .left = 2,
                            .right = 4, .weight = 8, .stabilizer = 1};
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  /* Top and bottom in one column. */
  unit.frame = (nq_frame_t){.kind = NQ_FRAME_BORDER, .top = 3, .bottom = 3, .left = 2,
                            .right = 5, .weight = 8, .stabilizer = 1};
  unit.prefix[0] = 3;
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  /* The whole board open, but n = 8 is searched by frames. */
  unit.frame = (nq_frame_t){.kind = NQ_FRAME_OPEN, .weight = 1, .stabilizer = NQ_SYM_ALL};
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  unit.frame = (nq_frame_t){.kind = 77, .top = 1, .bottom = 3, .left = 2, .right = 4};
  ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 0), NQ_EUNIT);
  nq_kernel_destroy(search);
}
END_TEST

/* A cancel hook (src/search/search.h) that counts its calls and says yes from
 * call `cancel_at` on (never when 0). */
typedef struct cancel_probe {
  unsigned calls, cancel_at;
} cancel_probe_t;

static int probe_cancelled(void *context) {
  cancel_probe_t *probe = context;
  probe->calls++;
  return probe->cancel_at != 0 && probe->calls >= probe->cancel_at;
}

static void assert_same_result(const nq_unit_result_t *got, const nq_unit_result_t *expected,
                               const char *what, int n, const nq_unit_t *unit) {
  ck_assert_msg(got->solutions == expected->solutions && got->nodes == expected->nodes &&
                    got->stabilizer_sum == expected->stabilizer_sum,
                "n %d unit %llu, %s: %llu solutions / %llu nodes, without a hook %llu / %llu", n,
                (unsigned long long)unit->id, what, (unsigned long long)got->solutions,
                (unsigned long long)got->nodes, (unsigned long long)expected->solutions,
                (unsigned long long)expected->nodes);
}

/* Solves `unit` with a hook that says yes at call `cancel_at` (never when
 * 0): the unit ends as without the hook, or, only once the hook said yes
 * and without asking again, with NQ_ESTOPPED.  Returns the code and adds
 * the hook's calls to `calls`. */
static int solve_with_hook(nq_unit_result_t *result, nq_search_t *search, const nq_unit_t *unit,
                           int classify, unsigned cancel_at, unsigned *calls) {
  cancel_probe_t probe = {0, cancel_at};
  nq__kernel_set_cancel(search, probe_cancelled, &probe);
  int rc = nq_kernel_solve(result, search, unit, classify);
  nq__kernel_set_cancel(search, NULL, NULL);
  *calls += probe.calls;
  if (rc == NQ_ESTOPPED)
    ck_assert_msg(cancel_at != 0 && probe.calls == cancel_at,
                  "unit %llu: abandoned after %u calls, the hook said yes at %u",
                  (unsigned long long)unit->id, probe.calls, cancel_at);
  else
    ck_assert_msg(rc == NQ_OK && (cancel_at == 0 || probe.calls < cancel_at),
                  "unit %llu: %s after %u calls, the hook said yes at %u",
                  (unsigned long long)unit->id, nq_strerror(rc), probe.calls, cancel_at);
  return rc;
}

/* Every unit of n with `walk`: a hook that never says yes changes no
 * result; one that says yes at the first or the third call abandons the
 * units that ask that often, and the searcher then still counts an
 * abandoned unit exactly.  Returns how many units the first call
 * abandoned. */
static unsigned check_cancel_hook(int n, nq_walk_t walk, int classify) {
  nq_search_t *plain = NULL, *hooked = NULL;
  ck_assert_int_eq(nq_kernel_create(&plain, n, walk), NQ_OK);
  ck_assert_int_eq(nq_kernel_create(&hooked, n, walk), NQ_OK);
  nq_unit_gen_t *gen = NULL;
  nq_unit_t unit;
  unsigned abandoned = 0, calls = 0;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, 0), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0) {
    nq_unit_result_t expected, got;
    ck_assert_int_eq(nq_kernel_solve(&expected, plain, &unit, classify), NQ_OK);
    solve_with_hook(&got, hooked, &unit, classify, 0, &calls);
    assert_same_result(&got, &expected, "a hook that never says yes", n, &unit);
    solve_with_hook(&got, hooked, &unit, classify, 3, &calls);
    if (solve_with_hook(&got, hooked, &unit, classify, 1, &calls) == NQ_ESTOPPED) {
      abandoned++;
      ck_assert_int_eq(nq_kernel_solve(&got, hooked, &unit, classify), NQ_OK);
      assert_same_result(&got, &expected, "again after abandoning it", n, &unit);
    }
  }
  ck_assert_uint_gt(calls, 0);
  nq_unit_gen_destroy(gen);
  nq_kernel_destroy(plain);
  nq_kernel_destroy(hooked);
  return abandoned;
}

/* n = 15: many units are long enough to be asked.  The scalar walk and
 * the one AUTO picks here (the lanes where the CPU has them, for the
 * longest units), counting and classifying. */
START_TEST(test_cancel_hook_abandons_units_and_nothing_else) {
  nq_walk_t walk = _i / 2 ? NQ_WALK_AUTO : NQ_WALK_SCALAR;
  ck_assert_uint_gt(check_cancel_hook(15, walk, _i % 2), 0);
}
END_TEST

/* Where no branch reaches the step that asks before each subtree, the walk
 * asks every so many nodes as well, so that a stop is heard within
 * milliseconds: said yes at the second call, it abandons the unit (before,
 * it asked never and ran the unit out). */
START_TEST(test_cancel_hook_is_asked_far_above_the_bottom) {
  enum { N = 64, FREE_COLUMNS = 14 }; /* 2.7e7 nodes, where the walk asks at 2^20 */
  nq_search_t *search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, N, NQ_WALK_SCALAR), NQ_OK);
  /* It asks CANCEL_STEPS (8) above step walk_rows - 3, the last it walks. */
  support_assert_asked_short_of_the_bottom(search, N, FREE_COLUMNS, 3 + 8);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_create_rejects_invalid_arguments) {
  nq_search_t *search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, NQ_MAX_N + 1, NQ_WALK_AUTO), NQ_EINVAL);
  ck_assert_int_eq(nq_kernel_create(&search, -1, NQ_WALK_AUTO), NQ_EINVAL);
  ck_assert_int_eq(nq_kernel_create(&search, 8, (nq_walk_t)9), NQ_EINVAL);
  ck_assert_int_eq(nq_kernel_create(&search, NQ_WALK_AVX512_MAX_N + 1, NQ_WALK_AVX512),
                   NQ_ENOTSUP);
  ck_assert_ptr_null(search);
}
END_TEST

static Suite *kernel_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("kernel");
  TCase *totals = support_tcase("totals");
  tcase_add_loop_test(totals, test_solve_totals_match_known_counts, 0, 13);
  tcase_add_loop_test(totals, test_solve_totals_at_every_depth, 0, 12);
  suite_add_tcase(suite, totals);
  TCase *units = support_tcase("units");
  tcase_add_loop_test(units, test_solve_each_unit_matches_brute_force, NQ_FRAME_MIN_N, 10);
  tcase_add_loop_test(units, test_solve_open_board_units_match_brute_force, 0, NQ_FRAME_MIN_N);
  suite_add_tcase(suite, units);
  TCase *cancel = support_tcase("cancel");
  tcase_add_loop_test(cancel, test_cancel_hook_abandons_units_and_nothing_else, 0, 4);
  tcase_add_test(cancel, test_cancel_hook_is_asked_far_above_the_bottom);
  suite_add_tcase(suite, cancel);

  TCase *corrupt = support_tcase("corrupt");
  tcase_add_test(corrupt, test_solve_rejects_prefix_on_attacked_column);
  tcase_add_test(corrupt, test_solve_rejects_prefix_on_attacked_diagonal);
  tcase_add_test(corrupt, test_solve_rejects_prefix_off_the_board);
  tcase_add_test(corrupt, test_solve_rejects_prefix_off_the_frame);
  tcase_add_test(corrupt, test_solve_rejects_open_board_attacked_prefix);
  tcase_add_test(corrupt, test_solve_rejects_impossible_depth);
  tcase_add_test(corrupt, test_solve_rejects_frame_with_false_weight);
  tcase_add_test(corrupt, test_solve_rejects_non_canonical_frame);
  tcase_add_test(corrupt, test_solve_rejects_invalid_frames);
  tcase_add_test(corrupt, test_create_rejects_invalid_arguments);
  suite_add_tcase(suite, corrupt);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, kernel_suite); }
