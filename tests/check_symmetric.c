/* The search of the solutions a turn fixes (src/search/symmetric.c), which
 * gives the join its U(n): against the brute force's symmetries for small
 * boards, and against OEIS through Burnside's lemma, 8 U(n) = Q(n) +
 * half_turn + 2 quarter_turn, up to n = 20. */

#include <check.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"
#include "support.h"
#include "symmetric.h"

/* The boards counted here: n = 20 takes a tenth of a second, 22 a second. */
#define SYMMETRIC_TEST_MAX_N 20

START_TEST(test_symmetric_matches_brute_force) {
  const int n = _i;
  const brute_solutions_t *all = brute_solutions(n);
  uint64_t half_turn = 0, quarter_turn = 0;
  for (size_t i = 0; i < all->count; i++) {
    const uint32_t fixing = brute_fixing(brute_solution(all, i), n);
    half_turn += (fixing >> NQ_SYM_ROT180) & 1;
    quarter_turn += (fixing >> NQ_SYM_ROT90) & 1;
  }
  nq__symmetric_counts_t counts;
  ck_assert_int_eq(nq__count_symmetric(&counts, n, NULL, NULL), NQ_OK);
  ck_assert_msg(counts.half_turn == half_turn && counts.quarter_turn == quarter_turn,
                "n %d: half turn %llu, quarter turn %llu; the brute force's %llu, %llu", n,
                (unsigned long long)counts.half_turn, (unsigned long long)counts.quarter_turn,
                (unsigned long long)half_turn, (unsigned long long)quarter_turn);
}
END_TEST

START_TEST(test_symmetric_gives_oeis_unique) {
  const int n = _i;
  nq__symmetric_counts_t counts;
  ck_assert_int_eq(nq__count_symmetric(&counts, n, NULL, NULL), NQ_OK);
  ck_assert_uint_eq(counts.quarter_turn, known_quarter_turn[n]);
  /* n = 0, 1: the mirrors fix the board too, four more fixed boards. */
  const uint64_t mirrors = n < 2 ? 4 : 0;
  const uint64_t burnside =
      known_all_large[n] + counts.half_turn + 2 * counts.quarter_turn + mirrors;
  ck_assert_msg(burnside == 8 * known_unique_large[n],
                "n %d: Q + half turn %llu + 2 x quarter turn %llu is %llu, 8 U(n) is %llu", n,
                (unsigned long long)counts.half_turn, (unsigned long long)counts.quarter_turn,
                (unsigned long long)burnside, (unsigned long long)(8 * known_unique_large[n]));
  ck_assert(counts.half_turn >= counts.quarter_turn);
}
END_TEST

static int calls;
static int stop_at_once(void *context) {
  calls++;
  return context != NULL;
}

START_TEST(test_symmetric_is_cancelled_and_refuses_bad_sizes) {
  nq__symmetric_counts_t counts;
  int stop = 1;
  calls = 0;
  /* n = 20 places 4.7 million queens: four looks at the hook. */
  ck_assert_int_eq(nq__count_symmetric(&counts, 20, stop_at_once, &stop), NQ_ESTOPPED);
  ck_assert_int_eq(calls, 1);
  calls = 0;
  ck_assert_int_eq(nq__count_symmetric(&counts, 20, stop_at_once, NULL), NQ_OK);
  ck_assert_int_ge(calls, 4);
  ck_assert_uint_eq(counts.quarter_turn, known_quarter_turn[20]);
  ck_assert_int_eq(nq__count_symmetric(&counts, -1, NULL, NULL), NQ_EINVAL);
  ck_assert_int_eq(nq__count_symmetric(&counts, NQ_SYMMETRIC_MAX_N + 1, NULL, NULL), NQ_EINVAL);
}
END_TEST

static Suite *symmetric_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *s = suite_create("symmetric");
  TCase *tc = support_tcase("symmetric");
  suite_add_tcase(s, tc);
  tcase_add_loop_test(tc, test_symmetric_matches_brute_force, 0, BRUTE_MAX_N + 1);
  tcase_add_loop_test(tc, test_symmetric_gives_oeis_unique, 0, SYMMETRIC_TEST_MAX_N + 1);
  tcase_add_test(tc, test_symmetric_is_cancelled_and_refuses_bad_sizes);
  return s;
}

int main(int argc, char **argv) { return support_main(argc, argv, symmetric_suite); }
