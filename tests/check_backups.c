/* The master's ledger of batches out (src/run/backups.c): copies go to the
 * oldest unanswered batch first, once each; the first answer counts, a
 * later one confirms it word for word or is a conflict, and a later one
 * that brings nothing changes nothing. */

#include <check.h>
#include <string.h>

#include "backups.h"
#include "messages.h"
#include "nqueens/error.h"
#include "support.h"

/* A batch message of `units` units (their words do not matter here). */
static void make_batch(uint64_t *packed, uint64_t units) {
  memset(packed, 0, (1 + units * NQ_UNIT_WORDS) * sizeof *packed);
  packed[0] = units;
}

/* A result part of `count` results whose words depend on `seed`. */
static void make_results(uint64_t *results, uint64_t count, uint64_t seed) {
  for (uint64_t i = 0; i < count * NQ_RESULT_WORDS; i++)
    results[i] = seed * 1000 + i;
}

START_TEST(test_backups_copy_the_oldest_first_and_once) {
  nq__backups_t backups;
  nq__backups_init(&backups, 1);
  uint64_t small[1 + 2 * NQ_UNIT_WORDS], large[1 + 9 * NQ_UNIT_WORDS];
  make_batch(small, 2);
  make_batch(large, 9);
  nq__batch_t *first = nq__backups_sent(&backups, large);
  nq__batch_t *second = nq__backups_sent(&backups, small);
  ck_assert_uint_eq(backups.unanswered, 2);
  /* A peer taking 4 units a batch cannot hold the 9-unit one. */
  ck_assert_ptr_eq(nq__backups_pick(&backups, 4), second);
  ck_assert_ptr_null(nq__backups_pick(&backups, 4));
  ck_assert_ptr_eq(nq__backups_pick(&backups, 16), first);
  ck_assert_ptr_null(nq__backups_pick(&backups, 16));
  ck_assert_ptr_eq(nq__batch_packed(first), large);
  ck_assert_uint_eq(backups.copies_sent, 2);
  nq__backups_clear(&backups);
}
END_TEST

/* Answers to a copied batch: first, then a confirmation; to another, first
 * then a conflict; to a third, first then a copy that was dropped. */
START_TEST(test_backups_judge_second_answers) {
  nq__backups_t backups;
  nq__backups_init(&backups, 1);
  uint64_t packed[1 + 3 * NQ_UNIT_WORDS];
  make_batch(packed, 3);
  uint64_t results[3 * NQ_RESULT_WORDS], other[3 * NQ_RESULT_WORDS];
  make_results(results, 3, 1);
  make_results(other, 3, 1);
  other[7]++; /* one word of the second unit's result */
  nq__batch_t *batches[3];
  for (int i = 0; i < 3; i++) {
    batches[i] = nq__backups_sent(&backups, packed);
    ck_assert_ptr_eq(nq__backups_pick(&backups, 16), batches[i]);
  }
  ck_assert_int_eq(nq__backups_answer(&backups, batches[0], 1, NQ_OK, results, 3, NULL),
                   NQ_ANSWER_FIRST);
  ck_assert_int_eq(nq__backups_answer(&backups, batches[0], 1, NQ_OK, results, 3, NULL),
                   NQ_ANSWER_CONFIRMED);
  ck_assert_int_eq(nq__backups_answer(&backups, batches[1], 3, NQ_OK, results, 3, NULL),
                   NQ_ANSWER_FIRST);
  int first_rank = -1;
  ck_assert_int_eq(nq__backups_answer(&backups, batches[1], 1, NQ_OK, other, 3, &first_rank),
                   NQ_ANSWER_CONFLICT);
  ck_assert_int_eq(first_rank, 3); /* the conflict names the first answer's rank too */
  ck_assert_int_eq(nq__backups_answer(&backups, batches[2], 1, NQ_OK, results, 3, NULL),
                   NQ_ANSWER_FIRST);
  ck_assert_uint_eq(backups.unanswered, 0);
  ck_assert_int_eq(nq__backups_answer(&backups, batches[2], 1, NQ_ESTOPPED, NULL, 0, NULL),
                   NQ_ANSWER_LATE);
  ck_assert_uint_eq(backups.copies_confirmed, 1);
  nq__backups_clear(&backups);
}
END_TEST

/* A shorter second answer is a conflict too; a batch never copied is done
 * with its one answer, and an answered batch is never copied. */
START_TEST(test_backups_single_answers_and_counts) {
  nq__backups_t backups;
  nq__backups_init(&backups, 1);
  uint64_t packed[1 + 3 * NQ_UNIT_WORDS], results[3 * NQ_RESULT_WORDS];
  make_batch(packed, 3);
  make_results(results, 3, 2);
  nq__batch_t *alone = nq__backups_sent(&backups, packed);
  ck_assert_int_eq(nq__backups_answer(&backups, alone, 1, NQ_OK, results, 3, NULL),
                   NQ_ANSWER_FIRST);
  ck_assert_ptr_null(nq__backups_pick(&backups, 16));
  nq__batch_t *copied = nq__backups_sent(&backups, packed);
  ck_assert_ptr_eq(nq__backups_pick(&backups, 16), copied);
  ck_assert_int_eq(nq__backups_answer(&backups, copied, 1, NQ_OK, results, 3, NULL),
                   NQ_ANSWER_FIRST);
  ck_assert_int_eq(nq__backups_answer(&backups, copied, 1, NQ_OK, results, 2, NULL),
                   NQ_ANSWER_CONFLICT);
  ck_assert_uint_eq(backups.unanswered, 0);
  nq__backups_clear(&backups);
}
END_TEST

/* A copy whose nodes alone differ: a conflict where a method's nodes are
 * fixed (the backtracker), confirmed where they follow the memory a unit
 * was solved in (the join); a count that differs is a conflict either way. */
START_TEST(test_backups_compare_nodes_where_fixed) {
  uint64_t packed[1 + 2 * NQ_UNIT_WORDS], results[2 * NQ_RESULT_WORDS];
  uint64_t other_nodes[2 * NQ_RESULT_WORDS], other_count[2 * NQ_RESULT_WORDS];
  make_batch(packed, 2);
  make_results(results, 2, 3);
  make_results(other_nodes, 2, 3);
  make_results(other_count, 2, 3);
  other_nodes[NQ_RESULT_WORDS + NQ_RESULT_NODES_WORD] += 5;
  other_count[NQ_RESULT_WORDS + 1]++; /* the second unit's solutions */
  for (int compared = 0; compared <= 1; compared++) {
    nq__backups_t backups;
    nq__backups_init(&backups, compared);
    const uint64_t *copies[] = {other_nodes, other_count};
    const nq__answer_t expected[] = {compared ? NQ_ANSWER_CONFLICT : NQ_ANSWER_CONFIRMED,
                                     NQ_ANSWER_CONFLICT};
    for (int i = 0; i < 2; i++) {
      nq__batch_t *batch = nq__backups_sent(&backups, packed);
      ck_assert_ptr_eq(nq__backups_pick(&backups, 16), batch);
      ck_assert_int_eq(nq__backups_answer(&backups, batch, 1, NQ_OK, results, 2, NULL),
                       NQ_ANSWER_FIRST);
      ck_assert_int_eq(nq__backups_answer(&backups, batch, 1, NQ_OK, copies[i], 2, NULL),
                       expected[i]);
    }
    nq__backups_clear(&backups);
  }
}
END_TEST

static Suite *backups_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("backups");
  TCase *ledger = support_tcase("ledger");
  tcase_add_test(ledger, test_backups_copy_the_oldest_first_and_once);
  tcase_add_test(ledger, test_backups_judge_second_answers);
  tcase_add_test(ledger, test_backups_single_answers_and_counts);
  tcase_add_test(ledger, test_backups_compare_nodes_where_fixed);
  suite_add_tcase(suite, ledger);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, backups_suite); }
