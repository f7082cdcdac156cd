/* --merge (src/merge.h, private): journals written here, merged: the total
 * only when every unit is there, duplicates confirmed when they line up
 * and agree, a conflict when they differ or do not line up, checks
 * and a journal of another count refused (check lines: e2e_record.sh). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "merge.h"
#include "nqueens/error.h"
#include "support.h"

enum { UNITS = 100 };

static char directory[64];
static char paths[4][128];

static void make_directory(void) {
  snprintf(directory, sizeof directory, "/tmp/check_merge.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(directory));
  for (int i = 0; i < 4; i++)
    snprintf(paths[i], sizeof paths[i], "%s/%d.journal", directory, i);
}

static void remove_directory(void) {
  for (int i = 0; i < 4; i++)
    unlink(paths[i]);
  rmdir(directory);
}

/* A batch of units first..first+count-1 whose sums are made from its ids,
 * plus `skew` solutions: the same batch always sums the same. */
static void batch_sums(nq__totals_t *sums, uint64_t first, uint64_t count, uint64_t skew) {
  nq__totals_reset(sums);
  for (uint64_t id = first; id < first + count; id++) {
    nq_unit_result_t unit = {.id = id, .solutions = id * 3 + 1, .stabilizer_sum = 8 * id,
                             .nodes = id * 7 + 5, .weight = 1};
    nq__totals_add(sums, &unit);
  }
  mpz_add_ui(sums->solutions, sums->solutions, skew);
}

/* Journal `which` of board n holding the batches [first, end) of
 * `ranges`, each with `skew` solutions too many. */
static void write_journal(int which, int n, const uint64_t (*ranges)[2], size_t count,
                          uint64_t skew) {
  nq__journal_header_t header;
  nq__journal_header_init(&header, n, 0, 2, UNITS);
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  nq__journal_t *journal = NULL;
  char message[NQ__JOURNAL_MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_open(&journal, &state, message, paths[which], &header), NQ_OK);
  nq__totals_t sums;
  nq__totals_init(&sums);
  for (size_t i = 0; i < count; i++) {
    batch_sums(&sums, ranges[i][0], ranges[i][1] - ranges[i][0], skew);
    ck_assert_int_eq(nq__journal_append(journal, ranges[i][0], &sums, 1, 1700000000000), NQ_OK);
  }
  nq__totals_clear(&sums);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
}

static int merge(nq__merge_result_t *result, int count) {
  char *list[4] = {paths[0], paths[1], paths[2], paths[3]};
  char message[NQ__JOURNAL_MESSAGE_SIZE];
  nq__merge_result_init(result);
  return nq__merge_journals(result, message, list, count);
}

/* The sum of solutions over units 0..99 as batch_sums makes them. */
static unsigned long expected_solutions(void) { return 3 * (UNITS * (UNITS - 1) / 2) + UNITS; }

START_TEST(test_merge_of_halves_is_the_total) {
  make_directory();
  const uint64_t low[][2] = {{0, 10}, {10, 50}}, high[][2] = {{50, 51}, {51, 100}};
  write_journal(0, 10, low, 2, 0);
  write_journal(1, 10, high, 2, 0);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(nq__merge_is_total(&r));
  ck_assert_uint_eq(r.units_present, UNITS);
  ck_assert_uint_eq(mpz_get_ui(r.solutions), expected_solutions());
  nq__merge_result_clear(&r);
  ck_assert_int_eq(merge(&r, 1), NQ_OK); /* the low half alone */
  ck_assert(!nq__merge_is_total(&r));
  ck_assert_uint_eq(r.missing_count, 1);
  ck_assert_uint_eq(r.missing[0].first, 50);
  ck_assert_uint_eq(r.missing[0].end, 100);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* The same units in other batches: confirmed where the groups line up. */
START_TEST(test_merge_confirms_duplicates_that_line_up) {
  make_directory();
  const uint64_t a[][2] = {{0, 30}, {30, 100}}, b[][2] = {{0, 10}, {10, 30}, {30, 60}, {60, 100}};
  write_journal(0, 10, a, 2, 0);
  write_journal(1, 10, b, 4, 0);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(nq__merge_is_total(&r));
  ck_assert_uint_eq(r.units_confirmed, UNITS);
  ck_assert_uint_eq(mpz_get_ui(r.solutions), expected_solutions());
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

START_TEST(test_merge_names_conflicts) {
  make_directory();
  const uint64_t whole[][2] = {{0, 40}, {40, 100}};
  write_journal(0, 10, whole, 2, 0);
  write_journal(1, 10, whole, 2, 1); /* one solution too many a batch */
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(!nq__merge_is_total(&r));
  ck_assert_uint_eq(r.conflict_count, 2);
  ck_assert_uint_eq(r.conflicts[0].first, 0);
  ck_assert_uint_eq(r.conflicts[0].end, 40);
  ck_assert_int_eq(r.conflicts[0].journal_a, 0);
  ck_assert_int_eq(r.conflicts[0].journal_b, 1);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* Overlaps that no journal covers whole cannot be compared: a conflict. */
START_TEST(test_merge_refuses_overlaps_that_do_not_line_up) {
  make_directory();
  const uint64_t a[][2] = {{0, 60}}, b[][2] = {{40, 100}};
  write_journal(0, 10, a, 1, 0);
  write_journal(1, 10, b, 1, 0);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(!nq__merge_is_total(&r));
  ck_assert_uint_eq(r.conflict_count, 1);
  ck_assert_int_eq(r.conflicts[0].journal_b, -1);
  ck_assert_uint_eq(r.units_unresolved, UNITS);
  ck_assert_uint_eq(r.units_present + r.units_unresolved, UNITS);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* A journal named twice would confirm itself. */
START_TEST(test_merge_refuses_a_journal_twice) {
  make_directory();
  const uint64_t whole[][2] = {{0, 100}};
  write_journal(0, 10, whole, 1, 0);
  char *list[2] = {paths[0], paths[0]};
  char message[NQ__JOURNAL_MESSAGE_SIZE];
  nq__merge_result_t r;
  nq__merge_result_init(&r);
  ck_assert_int_eq(nq__merge_journals(&r, message, list, 2), NQ_EJOURNAL);
  ck_assert_ptr_nonnull(strstr(message, "twice"));
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

START_TEST(test_merge_refuses_another_count) {
  make_directory();
  const uint64_t whole[][2] = {{0, 100}};
  write_journal(0, 10, whole, 1, 0);
  write_journal(1, 11, whole, 1, 0);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_EJOURNAL);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

static Suite *merge_suite(int argc, char **argv) {
  (void)argc, (void)argv;
  Suite *suite = suite_create("merge");
  TCase *tc = tcase_create("merge");
  tcase_add_test(tc, test_merge_of_halves_is_the_total);
  tcase_add_test(tc, test_merge_confirms_duplicates_that_line_up);
  tcase_add_test(tc, test_merge_names_conflicts);
  tcase_add_test(tc, test_merge_refuses_overlaps_that_do_not_line_up);
  tcase_add_test(tc, test_merge_refuses_another_count);
  tcase_add_test(tc, test_merge_refuses_a_journal_twice);
  suite_add_tcase(suite, tc);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, merge_suite); }
