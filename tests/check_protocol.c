/* The master/worker message layouts (src/protocol.h, private): every field
 * of a unit and of a result survives packing, at the edges of its range. */
#include <check.h>
#include <string.h>

#include "protocol.h"
#include "support.h"

START_TEST(test_unit_pack_round_trip) {
  nq_unit_t unit, back;
  memset(&unit, 0, sizeof unit);
  unit.id = _i == 0 ? 0 : UINT64_MAX - (uint64_t)_i;
  unit.frame = (nq_frame_t){.kind = NQ_FRAME_SIDES, .top = 63, .bottom = 0, .left = 62,
                            .right = (uint8_t)_i, .weight = 8, .stabilizer = 0xFF};
  unit.depth = NQ_UNIT_MAX_DEPTH;
  for (int row = 0; row < NQ_UNIT_MAX_DEPTH; row++)
    unit.prefix[row] = (uint8_t)(63 - row * _i % 64);
  uint64_t words[NQ_UNIT_WORDS];
  nq__unit_pack(words, &unit);
  nq__unit_unpack(&back, words);
  ck_assert_uint_eq(back.id, unit.id);
  ck_assert_mem_eq(&back.frame, &unit.frame, sizeof unit.frame);
  ck_assert_uint_eq(back.depth, unit.depth);
  ck_assert_mem_eq(back.prefix, unit.prefix, NQ_UNIT_MAX_DEPTH);
}
END_TEST

START_TEST(test_result_pack_round_trip) {
  nq_unit_result_t result = {.id = UINT64_MAX, .solutions = UINT64_MAX - 1,
                             .stabilizer_sum = (uint64_t)1 << 63, .nodes = 12345678901234567ull,
                             .weight = 4};
  nq_unit_result_t back;
  uint64_t words[NQ_RESULT_WORDS];
  nq__result_pack(words, &result);
  nq__result_unpack(&back, words);
  ck_assert_uint_eq(back.id, result.id);
  ck_assert_uint_eq(back.solutions, result.solutions);
  ck_assert_uint_eq(back.stabilizer_sum, result.stabilizer_sum);
  ck_assert_uint_eq(back.nodes, result.nodes);
  ck_assert_uint_eq(back.weight, result.weight);
}
END_TEST

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

static Suite *protocol_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("protocol");
  TCase *pack = tcase_create("pack");
  tcase_add_loop_test(pack, test_unit_pack_round_trip, 0, 8);
  tcase_add_test(pack, test_result_pack_round_trip);
  tcase_add_test(pack, test_totals_add_past_64_bits);
  suite_add_tcase(suite, pack);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, protocol_suite); }
