/* --merge (src/record/merge.h, private): journals written here, merged: the total
 * only when every unit is there; units solved more than once compared
 * over the coarsest ranges where the records share their ends, however
 * the batches fall (a wrong unit in a whole run's records against three
 * slices' blocks is a conflict); overlaps no chain of records spans a
 * conflict too; checks compared the same way; one file under two names,
 * a FIFO and a journal of another count refused. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, mkfifo, link */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "merge.h"
#include "merge_cycles.h"
#include "nqueens/error.h"
#include "support.h"

enum { UNITS = 100 }; /* n = 10 at depth 1 has 100 units: the headers are real */

enum { JOURNALS = 5 };
static char directory[64];
static char paths[JOURNALS][128];

static void make_directory(void) {
  snprintf(directory, sizeof directory, "/tmp/check_merge.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(directory));
  for (int i = 0; i < JOURNALS; i++)
    snprintf(paths[i], sizeof paths[i], "%s/%d.journal", directory, i);
}

static void remove_directory(void) {
  for (int i = 0; i < JOURNALS; i++)
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

/* What write_journal writes: a slice (0 of 1 for the whole count), and a
 * unit whose count is one too many in every batch that holds it. */
typedef struct layout {
  int slice_index, slice_count;
  uint64_t wrong_unit; /* UINT64_MAX: none */
} layout_t;

static const layout_t whole_run = {0, 1, UINT64_MAX};

/* Journal `which` of board n holding the batches [first, end) of
 * `ranges`, each with `skew` solutions too many. */
static void write_laid_out(int which, int n, const uint64_t (*ranges)[2], size_t count,
                           uint64_t skew, layout_t layout) {
  nq__journal_header_t header;
  nq__journal_header_init(&header, n, 0, 1, UNITS);
  unlink(paths[which]); /* written anew */
  header.slice_index = layout.slice_index;
  header.slice_count = layout.slice_count;
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  nq__journal_t *journal = NULL;
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_open(&journal, &state, message, paths[which], &header), NQ_OK);
  nq__totals_t sums;
  nq__totals_init(&sums);
  for (size_t i = 0; i < count; i++) {
    batch_sums(&sums, ranges[i][0], ranges[i][1] - ranges[i][0], skew);
    if (layout.wrong_unit >= ranges[i][0] && layout.wrong_unit < ranges[i][1])
      mpz_add_ui(sums.solutions, sums.solutions, 1);
    /* Each journal its own run's time: the same line in two is a copy. */
    ck_assert_int_eq(nq__journal_append(journal, ranges[i][0], &sums, 1, 1700000000000 + which),
                     NQ_OK);
  }
  nq__totals_clear(&sums);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
}

static void write_journal(int which, int n, const uint64_t (*ranges)[2], size_t count,
                          uint64_t skew) {
  write_laid_out(which, n, ranges, count, skew, whole_run);
}

static int merge(nq__merge_result_t *result, int count) {
  char *list[JOURNALS] = {paths[0], paths[1], paths[2], paths[3], paths[4]};
  char message[NQ__MESSAGE_SIZE];
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

/* The same units in other batches: compared over the ranges where both
 * journals' records end together (here 0..29 and 30..99), and confirmed. */
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

/* The first `journals` merged: complete, the exact total, and that many
 * units confirmed, not compared, and lines taken as copies. */
static void assert_merged(int journals, uint64_t confirmed, uint64_t uncompared,
                          uint64_t copied) {
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, journals), NQ_OK);
  ck_assert(nq__merge_is_total(&r));
  ck_assert_uint_eq(mpz_get_ui(r.solutions), expected_solutions());
  ck_assert_uint_eq(r.units_confirmed, confirmed);
  ck_assert_uint_eq(r.units_uncompared, uncompared);
  ck_assert_uint_eq(r.lines_copied, copied);
  nq__merge_result_clear(&r);
}

/* The cycle finder alone (merge_cycles.h), on points 0..5: a triangle
 * 0-1-2-0, a bridge 2-3, two parallel edges 3-4 and a dangling 4-5.  On a
 * cycle: the triangle's three and the parallel pair; the stretches
 * confirmed are those no bridge covers (edges span [first, end) of the
 * sorted points: 0-1, 1-2 and the triangle's 0-2 cover stretches 0 and 1;
 * 2-3 is a bridge over stretch 2; 3-4 twice over 3; 4-5, a bridge, over 4). */
START_TEST(test_merge_finds_the_records_on_cycles) {
  const nq__merge_edge_t edges[] = {{0, 1}, {1, 2}, {0, 2}, {2, 3}, {3, 4}, {3, 4}, {4, 5}};
  const unsigned char cycle_expected[] = {1, 1, 1, 0, 1, 1, 0};
  const unsigned char confirmed_expected[] = {1, 1, 0, 1, 0, 0};
  unsigned char on_cycle[7], confirmed[6];
  ck_assert_int_eq(nq__merge_find_compared(on_cycle, confirmed, edges, 7, 6), NQ_OK);
  for (int i = 0; i < 7; i++)
    ck_assert_msg(on_cycle[i] == cycle_expected[i], "edge %d: on_cycle %d", i, on_cycle[i]);
  for (int i = 0; i < 6; i++)
    ck_assert_msg(confirmed[i] == confirmed_expected[i], "stretch %d: confirmed %d", i,
                  confirmed[i]);
  /* Two components, each a lone edge: nothing on a cycle. */
  const nq__merge_edge_t apart[] = {{0, 2}, {1, 3}};
  ck_assert_int_eq(nq__merge_find_compared(on_cycle, confirmed, apart, 2, 4), NQ_OK);
  ck_assert(!on_cycle[0] && !on_cycle[1]);
  ck_assert(!confirmed[0] && !confirmed[1] && !confirmed[2] && !confirmed[3]);
}
END_TEST

/* Units in two journals whose records end where no chain of the other's
 * does were summed once, not compared: never confirmed, whatever overlaps
 * them.  A record that ends alone (a rerun stopped at 60) is uncompared
 * however the other journal's records fall, and so is one that spans no
 * other chain's ends (the second merge: units 30..79 against the first
 * journal's 0..59 and 60..99), which then holds a wrong unit unseen. */
START_TEST(test_merge_confirms_only_what_was_compared) {
  make_directory();
  const uint64_t whole[][2] = {{0, 30}, {30, 100}}, rerun[][2] = {{0, 10}, {10, 30}, {30, 60}};
  write_journal(0, 10, whole, 2, 0);
  write_journal(1, 10, rerun, 3, 0);
  assert_merged(2, 30, 30, 0);
  const uint64_t halves[][2] = {{0, 60}, {60, 100}}, middle[][2] = {{30, 80}};
  write_journal(0, 10, halves, 2, 0);
  write_laid_out(1, 10, middle, 1, 0, (layout_t){0, 1, 42});
  assert_merged(2, 0, 50, 0);
  /* A rerun stopped at 50 against the halves: no end in common but 0, so
   * nothing compared; against `whole`, whose first batch it repeats, that
   * batch (parallel records, each the other's chain) is confirmed and the
   * rest of the rerun is not. */
  const uint64_t again[][2] = {{0, 30}, {30, 50}};
  write_journal(1, 10, again, 2, 0);
  assert_merged(2, 0, 50, 0);
  write_journal(0, 10, whole, 2, 0);
  assert_merged(2, 30, 20, 0);
  remove_directory();
}
END_TEST

/* Batches that never end together but at 0 and 100: compared as a whole,
 * confirmed when equal; one wrong unit anywhere is a conflict over the
 * whole range. */
START_TEST(test_merge_compares_batches_that_never_line_up) {
  make_directory();
  const uint64_t a[][2] = {{0, 7}, {7, 33}, {33, 71}, {71, 100}},
                 b[][2] = {{0, 20}, {20, 50}, {50, 90}, {90, 100}};
  write_journal(0, 10, a, 4, 0);
  write_journal(1, 10, b, 4, 0);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(nq__merge_is_total(&r));
  ck_assert_uint_eq(r.units_confirmed, UNITS);
  ck_assert_uint_eq(mpz_get_ui(r.solutions), expected_solutions());
  nq__merge_result_clear(&r);
  write_laid_out(1, 10, b, 4, 0, (layout_t){0, 1, 61});
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(!nq__merge_is_total(&r));
  ck_assert_uint_eq(r.conflict_count, 1);
  ck_assert_int_eq(r.conflicts[0].kind, NQ__MERGE_DIFFER);
  ck_assert_uint_eq(r.conflicts[0].first, 0);
  ck_assert_uint_eq(r.conflicts[0].end, 100);
  ck_assert_uint_eq(r.units_confirmed, 0);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* Three journals whose blocks of 10 are dealt in turn, as the slices of 3
 * of a larger count would be (merge reads the records, not the dealing;
 * journals labelled slices of these 100 units would hold single units,
 * their blocks, so these are labelled whole runs), and a whole run in
 * batches of 12 holding one wrong unit: no record of the run lines up
 * with a slice's block, yet the run is compared with the three slices
 * together over the ranges where they share ends (multiples of 60), and
 * the one holding the wrong unit is the conflict. */
START_TEST(test_merge_compares_a_whole_run_with_slices) {
  make_directory();
  uint64_t blocks[3][4][2], run[9][2];
  int dealt[3] = {0, 0, 0};
  for (uint64_t block = 0; block < 10; block++) {
    int slice = (int)(block % 3);
    blocks[slice][dealt[slice]][0] = block * 10;
    blocks[slice][dealt[slice]++][1] = block * 10 + 10;
  }
  for (int i = 0; i < 9; i++) {
    run[i][0] = (uint64_t)i * 12;
    run[i][1] = i == 8 ? UNITS : (uint64_t)i * 12 + 12;
  }
  for (int s = 0; s < 3; s++)
    write_laid_out(s, 10, (const uint64_t(*)[2])blocks[s], (size_t)dealt[s], 0, whole_run);
  write_laid_out(3, 10, (const uint64_t(*)[2])run, 9, 0, (layout_t){0, 1, 64});
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 3), NQ_OK); /* the slices alone: the total */
  ck_assert(nq__merge_is_total(&r));
  ck_assert_uint_eq(mpz_get_ui(r.solutions), expected_solutions());
  nq__merge_result_clear(&r);
  ck_assert_int_eq(merge(&r, 4), NQ_OK);
  ck_assert(!nq__merge_is_total(&r));
  ck_assert_uint_eq(r.conflict_count, 1);
  ck_assert_int_eq(r.conflicts[0].kind, NQ__MERGE_DIFFER);
  ck_assert_uint_le(r.conflicts[0].first, 64);
  ck_assert_uint_gt(r.conflicts[0].end, 64);
  ck_assert_uint_eq(r.conflicts[0].first % 60, 0);
  ck_assert(r.conflicts[0].end % 60 == 0 || r.conflicts[0].end == UNITS);
  ck_assert_int_ge(r.conflicts[0].other_count, 1);
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
  ck_assert_int_eq(r.conflicts[0].journal, 1);
  ck_assert_int_eq(r.conflicts[0].other_count, 1);
  ck_assert_int_eq(r.conflicts[0].others[0], 0);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* Overlaps that no chain of records spans cannot be summed: a conflict. */
START_TEST(test_merge_refuses_overlaps_that_do_not_line_up) {
  make_directory();
  const uint64_t a[][2] = {{0, 60}}, b[][2] = {{40, 100}};
  write_journal(0, 10, a, 1, 0);
  write_journal(1, 10, b, 1, 0);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(!nq__merge_is_total(&r));
  ck_assert_uint_eq(r.conflict_count, 1);
  ck_assert_int_eq(r.conflicts[0].kind, NQ__MERGE_UNRESOLVED);
  ck_assert_uint_eq(r.units_unresolved, UNITS);
  ck_assert_uint_eq(r.units_present + r.units_unresolved, UNITS);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* A check is compared with the records' sum of its units, even when no
 * single record holds exactly those units. */
START_TEST(test_merge_compares_checks_over_records) {
  make_directory();
  const uint64_t a[][2] = {{0, 30}, {30, 60}, {60, 100}};
  write_journal(0, 10, a, 3, 0);
  nq__journal_header_t header;
  nq__journal_header_init(&header, 10, 0, 1, UNITS);
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  nq__journal_t *journal = NULL;
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_open(&journal, &state, message, paths[0], &header), NQ_OK);
  nq__totals_t sums;
  nq__totals_init(&sums);
  batch_sums(&sums, 0, 60, 0);
  ck_assert_int_eq(nq__journal_append_check(journal, 0, &sums, 1, 1700000000000, 1), NQ_OK);
  batch_sums(&sums, 30, 70, 1); /* says "agree", sums one too many */
  ck_assert_int_eq(nq__journal_append_check(journal, 30, &sums, 1, 1700000000000, 1), NQ_OK);
  nq__totals_clear(&sums);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 1), NQ_OK);
  ck_assert_uint_eq(r.checks, 2);
  ck_assert_uint_eq(r.checks_confirmed, 1);
  ck_assert_uint_eq(r.conflict_count, 1);
  ck_assert_uint_eq(r.conflicts[0].first, 30);
  ck_assert_uint_eq(r.conflicts[0].end, 100);
  ck_assert(!nq__merge_is_total(&r));
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* A slice whose journal is there but incomplete is named to run again,
 * as is a slice without a journal.  (100 units in 3 slices: blocks of one
 * unit, unit u in slice u mod 3.) */
START_TEST(test_merge_names_the_slices_to_run_again) {
  make_directory();
  uint64_t held[2][34][2];
  size_t count[2] = {0, 0};
  for (uint64_t id = 0; id < UNITS; id++)
    if (id % 3 == 0 || (id % 3 == 1 && id < 50)) {
      size_t s = id % 3;
      held[s][count[s]][0] = id;
      held[s][count[s]++][1] = id + 1;
    }
  write_laid_out(0, 10, (const uint64_t(*)[2])held[0], count[0], 0, (layout_t){0, 3, UINT64_MAX});
  write_laid_out(1, 10, (const uint64_t(*)[2])held[1], count[1], 0, (layout_t){1, 3, UINT64_MAX});
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert(!nq__merge_is_total(&r));
  ck_assert_int_eq(r.slice_count, 3);
  ck_assert_int_eq(r.slices_missing_count, 2);
  ck_assert_int_eq(r.slices_missing[0], 1);
  ck_assert_int_eq(r.slices_missing[1], 2);
  nq__merge_result_clear(&r);
  held[1][count[1]][0] = 52; /* slice 2 of 3 whole: slice 3 alone is named */
  for (uint64_t id = 52; id < UNITS; id += 3) {
    held[1][count[1]][0] = id;
    held[1][count[1]++][1] = id + 1;
  }
  write_laid_out(1, 10, (const uint64_t(*)[2])held[1], count[1], 0, (layout_t){1, 3, UINT64_MAX});
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert_int_eq(r.slices_missing_count, 1);
  ck_assert_int_eq(r.slices_missing[0], 2);
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* A journal named twice would confirm itself: by the same path, by
 * another path to it, or by a hard link. */
START_TEST(test_merge_refuses_a_journal_twice) {
  make_directory();
  const uint64_t whole[][2] = {{0, 100}};
  write_journal(0, 10, whole, 1, 0);
  char dotted[160], *list[2] = {paths[0], paths[0]};
  snprintf(dotted, sizeof dotted, "%s/./0.journal", directory);
  ck_assert_int_eq(link(paths[0], paths[1]), 0);
  const char *second[] = {paths[0], dotted, paths[1]};
  for (int i = 0; i < 3; i++) {
    char message[NQ__MESSAGE_SIZE];
    nq__merge_result_t r;
    nq__merge_result_init(&r);
    list[1] = (char *)second[i];
    ck_assert_int_eq(nq__merge_journals(&r, message, list, 2), NQ_EJOURNAL);
    ck_assert_ptr_nonnull(strstr(message, "the same file"));
    nq__merge_result_clear(&r);
  }
  remove_directory();
}
END_TEST

/* A byte copy is another file but the same run's work: its lines are
 * taken once and confirm nothing, and a copy resumed on its own (a line
 * more, at another time) adds only that line. */
START_TEST(test_merge_takes_a_copy_once) {
  make_directory();
  const uint64_t half[][2] = {{0, 20}, {20, 50}}, more[][2] = {{50, 100}};
  write_journal(0, 10, half, 2, 0);
  char command[512];
  snprintf(command, sizeof command, "cp '%s' '%s'", paths[0], paths[1]);
  ck_assert_int_eq(system(command), 0);
  nq__merge_result_t r;
  ck_assert_int_eq(merge(&r, 2), NQ_OK);
  ck_assert_uint_eq(r.lines_copied, 2);
  ck_assert_uint_eq(r.units_confirmed, 0);
  ck_assert_uint_eq(r.units_uncompared, 0);
  ck_assert_uint_eq(r.units_present, 50);
  nq__merge_result_clear(&r);
  write_journal(2, 10, more, 1, 0);
  snprintf(command, sizeof command, "sed 1d '%s' >> '%s'", paths[2], paths[1]);
  ck_assert_int_eq(system(command), 0);
  assert_merged(2, 0, 0, 2);
  remove_directory();
}
END_TEST

/* A header whose unit total is not its n's (an n changed under a valid
 * checksum) is refused: its sums would be summed as another board's. */
START_TEST(test_merge_refuses_an_altered_header) {
  make_directory();
  const uint64_t whole[][2] = {{0, 100}};
  write_journal(0, 11, whole, 1, 0); /* n = 11 at depth 1 has 136 units, not 100 */
  nq__merge_result_t r;
  char message[NQ__MESSAGE_SIZE], *list[1] = {paths[0]};
  nq__merge_result_init(&r);
  ck_assert_int_eq(nq__merge_journals(&r, message, list, 1), NQ_EJOURNAL);
  ck_assert_ptr_nonnull(strstr(message, "n = 11 at depth 1 has 136"));
  nq__merge_result_clear(&r);
  remove_directory();
}
END_TEST

/* A FIFO is refused at once, not waited on for a writer. */
START_TEST(test_merge_refuses_a_fifo) {
  make_directory();
  ck_assert_int_eq(mkfifo(paths[0], 0600), 0);
  char message[NQ__MESSAGE_SIZE], *list[1] = {paths[0]};
  nq__merge_result_t r;
  nq__merge_result_init(&r);
  ck_assert_int_eq(nq__merge_journals(&r, message, list, 1), NQ_EJOURNAL);
  ck_assert_ptr_nonnull(strstr(message, "not a regular file"));
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
  TCase *tc = support_tcase("merge");
  tcase_add_test(tc, test_merge_of_halves_is_the_total);
  tcase_add_test(tc, test_merge_confirms_duplicates_that_line_up);
  tcase_add_test(tc, test_merge_finds_the_records_on_cycles);
  tcase_add_test(tc, test_merge_confirms_only_what_was_compared);
  tcase_add_test(tc, test_merge_compares_batches_that_never_line_up);
  tcase_add_test(tc, test_merge_compares_a_whole_run_with_slices);
  tcase_add_test(tc, test_merge_names_conflicts);
  tcase_add_test(tc, test_merge_refuses_overlaps_that_do_not_line_up);
  tcase_add_test(tc, test_merge_compares_checks_over_records);
  tcase_add_test(tc, test_merge_names_the_slices_to_run_again);
  tcase_add_test(tc, test_merge_refuses_another_count);
  tcase_add_test(tc, test_merge_refuses_a_journal_twice);
  tcase_add_test(tc, test_merge_takes_a_copy_once);
  tcase_add_test(tc, test_merge_refuses_a_fifo);
  tcase_add_test(tc, test_merge_refuses_an_altered_header);
  suite_add_tcase(suite, tc);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, merge_suite); }
