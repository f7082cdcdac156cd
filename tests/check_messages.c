/* The master/worker message layouts (src/run/messages.h, private): every field
 * of a unit and of a result survives packing, at the edges of its range,
 * and lands where docs/design.md says. */
#include <check.h>
#include <string.h>

#include "messages.h"
#include "method_backtrack.h"
#include "support.h"

/* A backtracker's unit as the master packs it, and back as a worker
 * unpacks it: the method's two words (method_backtrack.c) behind the id. */
static void unit_pack(uint64_t *words, const nq_unit_t *unit) {
  nq__work_t work;
  nq__backtrack_work_of(&work, unit);
  nq__work_pack(words, &work);
}

static void unit_unpack(nq_unit_t *unit, const uint64_t *words) {
  nq__work_t work;
  nq__work_unpack(&work, words);
  nq__backtrack_unit_of(unit, &work);
}

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
  unit_pack(words, &unit);
  unit_unpack(&back, words);
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

/* The wire layout docs/design.md states, byte by byte: the words are
 * little-endian uint64 values as MPI_UINT64_T carries them between ranks
 * of one architecture; byte i of a word is bits 8i..8i+7. */
START_TEST(test_unit_layout_is_the_documented_one) {
  nq_unit_t unit;
  memset(&unit, 0, sizeof unit);
  unit.id = 0x0102030405060708ull;
  unit.frame = (nq_frame_t){.kind = NQ_FRAME_BORDER, .top = 11, .bottom = 12, .left = 13,
                            .right = 14, .weight = 2, .stabilizer = 0x21};
  unit.depth = 3;
  unit.prefix[0] = 11;
  unit.prefix[1] = 40;
  unit.prefix[2] = 63;
  uint64_t words[NQ_UNIT_WORDS];
  unit_pack(words, &unit);
  /* word 0: id; word 1: kind, top, bottom, left, right, weight,
   * stabilizer, depth; word 2: prefix[0..7], unused ones 0. */
  static const uint64_t expected[] = {0x0102030405060708ull, 0x0321020e0d0c0b01ull,
                                      0x00000000003f280bull};
  ck_assert_uint_eq(sizeof expected / sizeof expected[0], NQ_UNIT_WORDS); /* no word more */
  for (int i = 0; i < NQ_UNIT_WORDS; i++)
    ck_assert_msg(words[i] == expected[i], "word %d: %016llx, expected %016llx", i,
                  (unsigned long long)words[i], (unsigned long long)expected[i]);
}
END_TEST

START_TEST(test_result_layout_is_the_documented_one) {
  nq_unit_result_t result = {.id = 7, .solutions = 100, .stabilizer_sum = 200, .nodes = 300,
                             .weight = 4};
  uint64_t words[NQ_RESULT_WORDS];
  nq__result_pack(words, &result);
  /* id, solutions, stabilizer_sum, nodes, weight. */
  static const uint64_t expected[] = {7, 100, 200, 300, 4};
  ck_assert_uint_eq(sizeof expected / sizeof expected[0], NQ_RESULT_WORDS); /* no word more */
  ck_assert_mem_eq(words, expected, sizeof expected);
}
END_TEST

/* A message is told by its tag alone: every tag differs from the others,
 * and every one is a tag any MPI accepts (0 up to the 32767 the standard
 * guarantees for MPI_TAG_UB). */
START_TEST(test_tags_are_distinct_and_valid) {
  static const int tags[] = {NQ_TAG_WORK,          NQ_TAG_RESULT,        NQ_TAG_STOP,
                             NQ_TAG_CANCEL,        NQ_TAG_DISCARD,       NQ_TAG_VERIFY_ANSWER,
                             NQ_TAG_VERIFY_DONE,   NQ_TAG_VERIFY_CANCEL, NQ_TAG_VERIFY_VERDICT};
  const size_t count = sizeof tags / sizeof tags[0];
  for (size_t i = 0; i < count; i++) {
    ck_assert_int_ge(tags[i], 0);
    ck_assert_int_le(tags[i], 32767);
    for (size_t j = 0; j < i; j++)
      ck_assert_int_ne(tags[i], tags[j]);
  }
}
END_TEST

static Suite *messages_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("messages");
  TCase *pack = support_tcase("pack");
  tcase_add_loop_test(pack, test_unit_pack_round_trip, 0, 8);
  tcase_add_test(pack, test_result_pack_round_trip);
  tcase_add_test(pack, test_unit_layout_is_the_documented_one);
  tcase_add_test(pack, test_result_layout_is_the_documented_one);
  tcase_add_test(pack, test_tags_are_distinct_and_valid);
  suite_add_tcase(suite, pack);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, messages_suite); }
