/* The solutions module: enumeration in lexicographic order, the first
 * solution, the explicit construction and the validity check. */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/solutions.h"
#include "nqueens/units.h"
#include "support.h"

typedef struct recorder {
  size_t count, capacity;
  int n;
  uint8_t *columns;
  int stop_at;     /* return stop_value from this visit (1-based); 0 = never */
  int stop_value;
} recorder_t;

static int record(const uint8_t *columns, int n, void *context) {
  recorder_t *r = context;
  ck_assert_int_eq(n, r->n);
  if (r->count == r->capacity) {
    r->capacity = r->capacity ? 2 * r->capacity : 16;
    r->columns = realloc(r->columns, r->capacity * (size_t)(n > 0 ? n : 1));
    ck_assert_ptr_nonnull(r->columns);
  }
  memcpy(r->columns + r->count * (size_t)n, columns, (size_t)n);
  r->count++;
  return r->stop_at != 0 && (int)r->count == r->stop_at ? r->stop_value : 0;
}

START_TEST(test_each_yields_brute_force_solutions_in_order) {
  int n = _i;
  const brute_solutions_t *expected = brute_solutions(n);
  recorder_t r = {.n = n};
  ck_assert_int_eq(nq_solutions_each(n, 0, record, &r), NQ_OK);
  ck_assert_uint_eq(r.count, expected->count);
  ck_assert_uint_eq(r.count, known_all[n]);
  for (size_t i = 0; i < r.count; i++)
    ck_assert_msg(memcmp(r.columns + i * (size_t)n, brute_solution(expected, i), (size_t)n) == 0,
                  "n %d: solution %zu differs from the brute force's", n, i);
  free(r.columns);
}
END_TEST

START_TEST(test_each_limit_gives_the_first_solutions) {
  int limit = _i;
  const brute_solutions_t *expected = brute_solutions(8);
  recorder_t r = {.n = 8};
  ck_assert_int_eq(nq_solutions_each(8, (uint64_t)limit, record, &r), NQ_OK);
  ck_assert_uint_eq(r.count, (size_t)limit);
  ck_assert_mem_eq(r.columns, expected->columns, (size_t)limit * 8);
  free(r.columns);
}
END_TEST

START_TEST(test_each_limit_beyond_the_count_gives_all) {
  recorder_t r = {.n = 6};
  ck_assert_int_eq(nq_solutions_each(6, 1000, record, &r), NQ_OK);
  ck_assert_uint_eq(r.count, known_all[6]);
  free(r.columns);
}
END_TEST

START_TEST(test_each_visitor_stops_and_its_value_comes_back) {
  recorder_t r = {.n = 8, .stop_at = 5, .stop_value = 42};
  ck_assert_int_eq(nq_solutions_each(8, 0, record, &r), 42);
  ck_assert_uint_eq(r.count, 5);
  free(r.columns);
}
END_TEST

START_TEST(test_each_boards_without_solutions_visit_nothing) {
  for (int n = 2; n <= 3; n++) {
    recorder_t r = {.n = n};
    ck_assert_int_eq(nq_solutions_each(n, 0, record, &r), NQ_OK);
    ck_assert_uint_eq(r.count, 0);
    free(r.columns);
  }
}
END_TEST

static int never_called(const uint8_t *columns, int n, void *context) {
  (void)columns;
  (void)n;
  (void)context;
  ck_abort_msg("visited a solution of an invalid board");
  return 0;
}

/* One board a class, each the least of its images, in lexicographic order:
 * U(n) of them, and their classes' sizes add up to Q(n). */
START_TEST(test_each_least_lists_one_board_a_class) {
  int n = _i;
  recorder_t r = {.n = n};
  ck_assert_int_eq(nq_solutions_each_least(n, 0, record, &r), NQ_OK);
  ck_assert_uint_eq(r.count, known_unique[n]);
  uint64_t boards = 0;
  for (size_t i = 0; i < r.count; i++) {
    const uint8_t *board = r.columns + i * (size_t)n;
    ck_assert(brute_is_solution(board, n));
    ck_assert_msg(brute_is_least(board, n), "n %d: board %zu is not its class's least", n, i);
    if (i > 0)
      ck_assert_msg(memcmp(board - n, board, (size_t)n) < 0, "n %d: board %zu out of order", n, i);
    boards += 8 / (uint64_t)__builtin_popcount(brute_fixing(board, n));
  }
  ck_assert_uint_eq(boards, known_all[n]);
  free(r.columns);
}
END_TEST

/* The walk skips half of row 0: it must skip no least board. */
START_TEST(test_each_least_is_every_least_solution) {
  int n = _i;
  const brute_solutions_t *all = brute_solutions(n);
  recorder_t r = {.n = n};
  ck_assert_int_eq(nq_solutions_each_least(n, 0, record, &r), NQ_OK);
  size_t listed = 0;
  for (size_t i = 0; i < all->count; i++) {
    const uint8_t *board = brute_solution(all, i);
    if (!brute_is_least(board, n))
      continue;
    ck_assert_msg(listed < r.count && memcmp(r.columns + listed * (size_t)n, board, (size_t)n) == 0,
                  "n %d: least solution %zu of the brute force is not board %zu", n, i, listed);
    listed++;
  }
  ck_assert_uint_eq(listed, r.count);
  free(r.columns);
}
END_TEST

START_TEST(test_each_least_limit_and_stop) {
  recorder_t all = {.n = 10}, first = {.n = 10}, stopped = {.n = 10, .stop_at = 3, .stop_value = 7};
  ck_assert_int_eq(nq_solutions_each_least(10, 0, record, &all), NQ_OK);
  ck_assert_int_eq(nq_solutions_each_least(10, 5, record, &first), NQ_OK);
  ck_assert_uint_eq(first.count, 5);
  ck_assert_mem_eq(first.columns, all.columns, 5 * 10);
  ck_assert_int_eq(nq_solutions_each_least(10, 0, record, &stopped), 7);
  ck_assert_uint_eq(stopped.count, 3);
  ck_assert_int_eq(nq_solutions_each_least(-1, 0, never_called, NULL), NQ_EINVAL);
  ck_assert_int_eq(nq_solutions_each_least(NQ_MAX_N + 1, 0, never_called, NULL), NQ_EINVAL);
  ck_assert_int_eq(nq_solutions_each_least(8, 0, NULL, NULL), NQ_EINVAL);
  free(all.columns);
  free(first.columns);
  free(stopped.columns);
}
END_TEST

START_TEST(test_each_rejects_invalid_arguments) {
  ck_assert_int_eq(nq_solutions_each(-1, 0, never_called, NULL), NQ_EINVAL);
  ck_assert_int_eq(nq_solutions_each(NQ_MAX_N + 1, 0, never_called, NULL), NQ_EINVAL);
  ck_assert_int_eq(nq_solutions_each(8, 0, NULL, NULL), NQ_EINVAL);
}
END_TEST

START_TEST(test_first_n8_is_the_textbook_solution) {
  static const uint8_t expected[8] = {0, 4, 7, 5, 2, 6, 1, 3};
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind = NQ_FIRST_NONE;
  ck_assert_int_eq(nq_solutions_first(columns, &kind, 8), NQ_OK);
  ck_assert_int_eq(kind, NQ_FIRST_LEXICOGRAPHIC);
  ck_assert_mem_eq(columns, expected, 8);
}
END_TEST

START_TEST(test_first_equals_first_brute_force_solution) {
  int n = _i;
  const brute_solutions_t *solutions = brute_solutions(n);
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind = NQ_FIRST_NONE;
  ck_assert_uint_gt(solutions->count, 0);
  ck_assert_int_eq(nq_solutions_first(columns, &kind, n), NQ_OK);
  ck_assert_int_eq(kind, NQ_FIRST_LEXICOGRAPHIC);
  ck_assert_mem_eq(columns, brute_solution(solutions, 0), (size_t)n);
}
END_TEST

START_TEST(test_first_n1_is_the_single_queen) {
  uint8_t columns[NQ_MAX_N] = {9};
  nq_first_kind_t kind = NQ_FIRST_NONE;
  ck_assert_int_eq(nq_solutions_first(columns, &kind, 1), NQ_OK);
  ck_assert_int_eq(kind, NQ_FIRST_LEXICOGRAPHIC);
  ck_assert_int_eq(columns[0], 0);
}
END_TEST

START_TEST(test_first_none_when_no_solution) {
  int n = _i;
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind = NQ_FIRST_LEXICOGRAPHIC;
  ck_assert_int_eq(nq_solutions_first(columns, &kind, n), NQ_OK);
  ck_assert_int_eq(kind, NQ_FIRST_NONE);
}
END_TEST

/* Lexicographic search up to n = 32 (NQ_FIRST_SEARCH_MAX_N, also promised
 * by --help; the largest takes under a second): a valid board of kind
 * LEXICOGRAPHIC.  From 33 on, the construction. */
enum { SEARCH_LIMIT = 32 };
START_TEST(test_first_is_lexicographic_up_to_search_limit) {
  int n = _i;
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind = NQ_FIRST_NONE;
  ck_assert_int_eq(nq_solutions_first(columns, &kind, n), NQ_OK);
  ck_assert_int_eq(kind, NQ_FIRST_LEXICOGRAPHIC);
  ck_assert_msg(brute_is_solution(columns, n), "n %d: the first solution is not one", n);
  ck_assert(nq_solutions_is_valid(columns, n));
}
END_TEST

/* Lexicographically first by an independent search: depth-first, lowest
 * column first, checking attacks pair by pair. */
static int first_by_backtracking(uint8_t *columns, int row, int n) {
  if (row == n)
    return 1;
  for (int col = 0; col < n; col++) {
    int free_square = 1;
    for (int above = 0; above < row && free_square; above++) {
      int gap = abs((int)columns[above] - col);
      free_square = gap != 0 && gap != row - above;
    }
    if (!free_square)
      continue;
    columns[row] = (uint8_t)col;
    if (first_by_backtracking(columns, row + 1, n))
      return 1;
  }
  return 0;
}

START_TEST(test_first_matches_independent_backtracking) {
  int n = _i;
  uint8_t columns[NQ_MAX_N], expected[NQ_MAX_N];
  nq_first_kind_t kind = NQ_FIRST_NONE;
  ck_assert(first_by_backtracking(expected, 0, n));
  ck_assert_int_eq(nq_solutions_first(columns, &kind, n), NQ_OK);
  ck_assert_int_eq(kind, NQ_FIRST_LEXICOGRAPHIC);
  ck_assert_mem_eq(columns, expected, (size_t)n);
}
END_TEST

START_TEST(test_first_is_constructed_beyond_search_limit) {
  int n = _i;
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind = NQ_FIRST_NONE;
  ck_assert_int_eq(nq_solutions_first(columns, &kind, n), NQ_OK);
  ck_assert_int_eq(kind, NQ_FIRST_CONSTRUCTED);
  ck_assert_msg(nq_solutions_is_valid(columns, n), "n %d: construction rejected", n);
  ck_assert_msg(brute_is_solution(columns, n), "n %d: construction is not a solution", n);
}
END_TEST

START_TEST(test_first_rejects_invalid_size) {
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind;
  ck_assert_int_eq(nq_solutions_first(columns, &kind, -1), NQ_EINVAL);
  ck_assert_int_eq(nq_solutions_first(columns, &kind, NQ_MAX_N + 1), NQ_EINVAL);
}
END_TEST

/* Every array of n values in 0..n-1 (n^n of them) for n <= 6. */
START_TEST(test_is_valid_matches_brute_force) {
  int n = _i;
  uint8_t columns[6] = {0};
  long total = 1, valid = 0;
  for (int i = 0; i < n; i++)
    total *= n;
  for (long code = 0; code < total; code++) {
    long rest = code;
    for (int i = 0; i < n; i++, rest /= n)
      columns[i] = (uint8_t)(rest % n);
    int expected = brute_is_solution(columns, n);
    ck_assert_int_eq(!nq_solutions_is_valid(columns, n), !expected);
    valid += expected;
  }
  ck_assert_int_eq(valid, (long)known_all[n]);
}
END_TEST

START_TEST(test_is_valid_rejects_off_board_column) {
  const uint8_t columns[5] = {1, 3, 0, 2, 5};
  ck_assert(!nq_solutions_is_valid(columns, 5));
  const uint8_t good[5] = {1, 3, 0, 2, 4};
  ck_assert(nq_solutions_is_valid(good, 5));
}
END_TEST

static Suite *solutions_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("solutions");
  TCase *each = support_tcase("each");
  tcase_add_loop_test(each, test_each_yields_brute_force_solutions_in_order, 0, 9);
  tcase_add_loop_test(each, test_each_limit_gives_the_first_solutions, 1, 4);
  tcase_add_test(each, test_each_limit_beyond_the_count_gives_all);
  tcase_add_test(each, test_each_visitor_stops_and_its_value_comes_back);
  tcase_add_test(each, test_each_boards_without_solutions_visit_nothing);
  tcase_add_test(each, test_each_rejects_invalid_arguments);
  tcase_add_loop_test(each, test_each_least_lists_one_board_a_class, 0, 13);
  tcase_add_loop_test(each, test_each_least_is_every_least_solution, 0, BRUTE_MAX_N + 1);
  tcase_add_test(each, test_each_least_limit_and_stop);
  suite_add_tcase(suite, each);
  TCase *first = support_tcase("first");
  tcase_add_test(first, test_first_n8_is_the_textbook_solution);
  tcase_add_loop_test(first, test_first_equals_first_brute_force_solution, 4, BRUTE_MAX_N + 1);
  tcase_add_test(first, test_first_n1_is_the_single_queen);
  tcase_add_loop_test(first, test_first_none_when_no_solution, 2, 4);
  tcase_add_loop_test(first, test_first_is_lexicographic_up_to_search_limit, 4,
                      SEARCH_LIMIT + 1);
  tcase_add_loop_test(first, test_first_matches_independent_backtracking, 4, 21);
  tcase_add_loop_test(first, test_first_is_constructed_beyond_search_limit, SEARCH_LIMIT + 1,
                      NQ_MAX_N + 1);
  tcase_add_test(first, test_first_rejects_invalid_size);
  suite_add_tcase(suite, first);
  TCase *valid = support_tcase("valid");
  tcase_add_loop_test(valid, test_is_valid_matches_brute_force, 0, 7);
  tcase_add_test(valid, test_is_valid_rejects_off_board_column);
  suite_add_tcase(suite, valid);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, solutions_suite); }
