/* The run's totals (src/record/totals.h, private): exact past 2^64, and U(n)
 * from Burnside's sum only when 8 divides it. */
#include <check.h>

#include "nqueens/error.h"
#include "support.h"
#include "totals.h"

/* Totals stay exact past 2^64: weight x count goes into GMP. */
START_TEST(test_totals_add_past_64_bits) {
  nq__totals_t totals;
  nq__totals_init(&totals);
  nq_unit_result_t result = {.solutions = UINT64_MAX, .stabilizer_sum = UINT64_MAX,
                             .nodes = UINT64_MAX, .weight = 8};
  nq__totals_add(&totals, &result);
  nq__totals_add(&totals, &result);
  mpz_t expected;
  mpz_init_set_ui(expected, UINT64_MAX);
  mpz_mul_ui(expected, expected, 16);
  ck_assert_int_eq(mpz_cmp(totals.solutions, expected), 0);
  ck_assert_int_eq(mpz_cmp(totals.unique_times_8, expected), 0);
  mpz_set_ui(expected, UINT64_MAX);
  mpz_mul_ui(expected, expected, 2);
  ck_assert_int_eq(mpz_cmp(totals.nodes, expected), 0);
  ck_assert_uint_eq(totals.units, 2);
  nq__totals_clear(&totals);
  mpz_clear(expected);
}
END_TEST

/* The residues follow the big integer through units, merges and records
 * read back, past 2^64; a big integer changed behind their back fails. */
START_TEST(test_totals_residues_check_the_sum) {
  nq__totals_t totals, more;
  nq__totals_init(&totals);
  nq__totals_init(&more);
  nq_unit_result_t result = {.solutions = UINT64_MAX - 12345, .weight = 8};
  for (int i = 0; i < 5; i++)
    nq__totals_add(&totals, &result);
  result.weight = 4;
  nq__totals_add(&more, &result);
  nq__totals_merge(&totals, &more);
  ck_assert_int_eq(nq__totals_check_residues(&totals), NQ_OK);
  mpz_t record;
  mpz_init_set_str(record, "123456789012345678901234567890", 10);
  mpz_add(totals.solutions, totals.solutions, record);
  nq__totals_add_residues(&totals, record);
  ck_assert_int_eq(nq__totals_check_residues(&totals), NQ_OK);
  uint32_t residues[NQ_COUNT_RESIDUES];
  nq__totals_residues(residues, &totals);
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    ck_assert_uint_eq(residues[i], mpz_fdiv_ui(totals.solutions, nq__residue_primes[i]));
  /* Pending sums near 2^126, merged twice: reduced on the way, exact. */
  nq__totals_t big;
  nq__totals_init(&big);
  big.unreduced = ((unsigned __int128)1 << 126) - 3;
  nq__totals_from_u128(big.solutions, big.unreduced);
  nq__totals_merge(&totals, &big);
  nq__totals_merge(&totals, &big);
  ck_assert_uint_lt((uint64_t)(totals.unreduced >> 64), (uint64_t)1 << 62);
  ck_assert_int_eq(nq__totals_check_residues(&totals), NQ_OK);
  nq__totals_clear(&big);
  mpz_add_ui(totals.solutions, totals.solutions, 1); /* a corrupted sum */
  ck_assert_int_eq(nq__totals_check_residues(&totals), NQ_ECHECK);
  mpz_clear(record);
  nq__totals_clear(&totals);
  nq__totals_clear(&more);
}
END_TEST

START_TEST(test_totals_unique_divides_by_eight) {
  nq__totals_t totals;
  nq__totals_init(&totals);
  mpz_t unique;
  mpz_init(unique);
  /* Two frames: weight 8, one completion fixed by the identity alone, and
   * weight 2, one completion fixed by all 4 of its frame's symmetries. */
  nq_unit_result_t asymmetric = {.solutions = 1, .stabilizer_sum = 1, .weight = 8};
  nq_unit_result_t symmetric = {.solutions = 1, .stabilizer_sum = 4, .weight = 2};
  nq__totals_add(&totals, &asymmetric);
  nq__totals_add(&totals, &symmetric);
  ck_assert_int_eq(nq__totals_unique(unique, &totals), NQ_OK);
  ck_assert_int_eq(mpz_cmp_ui(unique, 2), 0);
  /* A stabilizer sum no correct search gives. */
  nq_unit_result_t broken = {.solutions = 1, .stabilizer_sum = 3, .weight = 2};
  nq__totals_add(&totals, &broken);
  ck_assert_int_eq(nq__totals_unique(unique, &totals), NQ_ECHECK);
  mpz_clear(unique);
  nq__totals_clear(&totals);
}
END_TEST

static Suite *totals_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("totals");
  TCase *sums = support_tcase("sums");
  tcase_add_test(sums, test_totals_add_past_64_bits);
  tcase_add_test(sums, test_totals_unique_divides_by_eight);
  tcase_add_test(sums, test_totals_residues_check_the_sum);
  suite_add_tcase(suite, sums);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, totals_suite); }
