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
#include "support.h"

typedef struct totals {
  uint64_t units;
  uint64_t solutions;      /* sum of weight x solutions */
  uint64_t unique_times_8; /* sum of weight x stabilizer_sum */
} totals_t;

/* Solves every unit of (n, depth) the way a worker does: one search per
 * frame, re-prepared when the frame changes. */
static totals_t solve_all(int n, int depth, int classify) {
  nq_unit_gen_t *gen = NULL;
  nq_search_t search;
  nq_unit_t unit;
  nq_frame_t current;
  int have_search = 0;
  totals_t totals = {0, 0, 0};
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0) {
    if (!have_search || memcmp(&current, &unit.frame, sizeof current) != 0) {
      ck_assert_int_eq(nq_kernel_prepare(&search, n, &unit.frame), NQ_OK);
      current = unit.frame;
      have_search = 1;
    }
    nq_unit_result_t result;
    int rc = nq_kernel_solve(&result, &search, &unit, classify);
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
  int first = n < NQ_FRAME_MIN_N ? 0 : 1, deepest = n < NQ_FRAME_MIN_N ? n : n - 1;
  if (deepest > NQ_UNIT_MAX_DEPTH)
    deepest = NQ_UNIT_MAX_DEPTH;
  for (int depth = first; depth <= deepest; depth++) {
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
  nq_search_t search;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0) {
    ck_assert_int_eq(nq_kernel_prepare(&search, n, &unit.frame), NQ_OK);
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
      ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, classify), NQ_OK);
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

/* A unit from the generator, for corrupting. */
static void first_unit(nq_unit_t *unit, nq_search_t *search, int n, int depth) {
  nq_unit_gen_t *gen = NULL;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  ck_assert_int_eq(nq_unit_gen_next(gen, unit), 1);
  nq_unit_gen_destroy(gen);
  ck_assert_int_eq(nq_kernel_prepare(search, n, &unit->frame), NQ_OK);
  nq_unit_result_t result;
  ck_assert_int_eq(nq_kernel_solve(&result, search, unit, 1), NQ_OK);
}

/* The row masks of wide boards, square by square against the rules: a row
 * that holds a frame queen allows just that square; any other row allows
 * the squares off the frame queens' columns and diagonals.  Catches masks
 * cut to 32 bits or shifted wrongly near bit 63. */
static int square_allowed(int n, const nq_frame_t *frame, int row, int col) {
  int queens[4][2] = {{0, frame->top}, {frame->left, 0}, {frame->right, n - 1}, {n - 1, frame->bottom}};
  int fixed = frame->kind == NQ_FRAME_BORDER ? 4 : 3;
  for (int q = 0; q < fixed; q++)
    if (queens[q][0] == row)
      return queens[q][1] == col;
  for (int q = 0; q < fixed; q++) {
    int drow = abs(queens[q][0] - row), dcol = abs(queens[q][1] - col);
    if (dcol == 0 || dcol == drow)
      return 0;
  }
  return 1;
}

START_TEST(test_prepare_wide_board_masks) {
  static const int sizes[] = {33, 40, 64};
  int n = sizes[_i];
  nq_unit_gen_t *gen;
  nq_unit_t unit;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, 1), NQ_OK);
  for (int taken = 0; taken < 40 && nq_unit_gen_next(gen, &unit) > 0; taken++) {
    nq_search_t search;
    ck_assert_int_eq(nq_kernel_prepare(&search, n, &unit.frame), NQ_OK);
    for (int row = 0; row < n - 1; row++)
      for (int col = 0; col < n; col++)
        ck_assert_msg(((search.row_mask[row] >> col) & 1) == (uint64_t)square_allowed(n, &unit.frame, row, col),
                      "n %d unit %llu: row %d column %d", n, (unsigned long long)unit.id, row, col);
    if (unit.frame.kind == NQ_FRAME_SIDES)
      for (int col = 0; col < n; col++)
        if ((search.row_mask[n - 1] >> col) & 1)
          ck_assert(square_allowed(n, &unit.frame, n - 1, col));
  }
  nq_unit_gen_destroy(gen);
}
END_TEST

START_TEST(test_solve_rejects_prefix_on_attacked_column) {
  nq_unit_t unit;
  nq_search_t search;
  nq_unit_result_t result;
  first_unit(&unit, &search, 8, 3);
  unit.prefix[1] = unit.prefix[0]; /* same column as row 0 */
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 0), NQ_EUNIT);
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 1), NQ_EUNIT);
}
END_TEST

START_TEST(test_solve_rejects_prefix_on_attacked_diagonal) {
  nq_unit_t unit;
  nq_search_t search;
  nq_unit_result_t result;
  first_unit(&unit, &search, 8, 3);
  /* Row 2 one column beside row 1: diagonal neighbours. */
  unit.prefix[2] = (uint8_t)(unit.prefix[1] + 1 < 8 ? unit.prefix[1] + 1 : unit.prefix[1] - 1);
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 0), NQ_EUNIT);
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 1), NQ_EUNIT);
}
END_TEST

START_TEST(test_solve_rejects_prefix_off_the_board) {
  nq_unit_t unit;
  nq_search_t search;
  nq_unit_result_t result;
  first_unit(&unit, &search, 8, 2);
  unit.prefix[1] = 8;
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 0), NQ_EUNIT);
}
END_TEST

START_TEST(test_solve_rejects_prefix_off_the_frame) {
  nq_unit_t unit;
  nq_search_t search;
  nq_unit_result_t result;
  first_unit(&unit, &search, 9, 2);
  /* Row 0 is the frame's top queen; elsewhere is not this frame. */
  unit.prefix[0] = (uint8_t)((unit.frame.top + 4) % 9);
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 0), NQ_EUNIT);
}
END_TEST

START_TEST(test_solve_rejects_open_board_attacked_prefix) {
  nq_unit_t unit;
  nq_search_t search;
  nq_unit_result_t result;
  first_unit(&unit, &search, 4, 2);
  ck_assert_int_eq(unit.frame.kind, NQ_FRAME_OPEN);
  unit.prefix[0] = 0;
  unit.prefix[1] = 1; /* diagonal neighbours */
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 1), NQ_EUNIT);
}
END_TEST

START_TEST(test_solve_rejects_impossible_depth) {
  nq_unit_t unit;
  nq_search_t search;
  nq_unit_result_t result;
  first_unit(&unit, &search, 12, 1);
  unit.depth = NQ_UNIT_MAX_DEPTH + 1;
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 0), NQ_EUNIT);
  unit.depth = 0; /* a framed unit always carries its top queen */
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &unit, 0), NQ_EUNIT);
}
END_TEST

START_TEST(test_solve_rejects_unit_of_another_frame) {
  nq_unit_t unit;
  nq_search_t search;
  nq_unit_result_t result;
  first_unit(&unit, &search, 10, 1);
  nq_unit_gen_t *gen = NULL;
  nq_unit_t other;
  ck_assert_int_eq(nq_unit_gen_create(&gen, 10, 1), NQ_OK);
  do
    ck_assert_int_eq(nq_unit_gen_next(gen, &other), 1);
  while (memcmp(&other.frame, &unit.frame, sizeof other.frame) == 0);
  nq_unit_gen_destroy(gen);
  ck_assert_int_eq(nq_kernel_solve(&result, &search, &other, 0), NQ_EINVAL);
}
END_TEST

START_TEST(test_search_init_rejects_invalid_frames) {
  nq_search_t search;
  /* A top-left corner queen must also be the left queen. */
  nq_frame_t inconsistent = {.kind = NQ_FRAME_BORDER, .top = 0, .bottom = 3, .left = 2,
                             .right = 4, .weight = 8, .stabilizer = 1};
  ck_assert_int_eq(nq_kernel_prepare(&search, 8, &inconsistent), NQ_EINVAL);
  /* Top and bottom in one column. */
  nq_frame_t same_column = {.kind = NQ_FRAME_BORDER, .top = 3, .bottom = 3, .left = 2,
                            .right = 5, .weight = 8, .stabilizer = 1};
  ck_assert_int_eq(nq_kernel_prepare(&search, 8, &same_column), NQ_EINVAL);
  nq_frame_t open = {.kind = NQ_FRAME_OPEN, .weight = 1, .stabilizer = NQ_SYM_ALL};
  ck_assert_int_eq(nq_kernel_prepare(&search, NQ_MAX_N + 1, &open), NQ_EINVAL);
  ck_assert_int_eq(nq_kernel_prepare(&search, -1, &open), NQ_EINVAL);
  nq_frame_t unknown_kind = {.kind = 77, .top = 1, .bottom = 3, .left = 2, .right = 4};
  ck_assert_int_eq(nq_kernel_prepare(&search, 8, &unknown_kind), NQ_EINVAL);
}
END_TEST

static Suite *kernel_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("kernel");
  TCase *totals = tcase_create("totals");
  tcase_add_loop_test(totals, test_solve_totals_match_known_counts, 0, 13);
  tcase_add_loop_test(totals, test_solve_totals_at_every_depth, 0, 12);
  suite_add_tcase(suite, totals);
  TCase *units = tcase_create("units");
  tcase_add_loop_test(units, test_solve_each_unit_matches_brute_force, NQ_FRAME_MIN_N, 10);
  tcase_add_loop_test(units, test_solve_open_board_units_match_brute_force, 0, NQ_FRAME_MIN_N);
  suite_add_tcase(suite, units);
  TCase *wide = tcase_create("wide");
  tcase_add_loop_test(wide, test_prepare_wide_board_masks, 0, 3);
  suite_add_tcase(suite, wide);

  TCase *corrupt = tcase_create("corrupt");
  tcase_add_test(corrupt, test_solve_rejects_prefix_on_attacked_column);
  tcase_add_test(corrupt, test_solve_rejects_prefix_on_attacked_diagonal);
  tcase_add_test(corrupt, test_solve_rejects_prefix_off_the_board);
  tcase_add_test(corrupt, test_solve_rejects_prefix_off_the_frame);
  tcase_add_test(corrupt, test_solve_rejects_open_board_attacked_prefix);
  tcase_add_test(corrupt, test_solve_rejects_impossible_depth);
  tcase_add_test(corrupt, test_solve_rejects_unit_of_another_frame);
  tcase_add_test(corrupt, test_search_init_rejects_invalid_frames);
  suite_add_tcase(suite, corrupt);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, kernel_suite); }
