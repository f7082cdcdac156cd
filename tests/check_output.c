#define _POSIX_C_SOURCE 200809L /* open_memstream */

/* The output module: boards as text and JSON byte for byte, counts as
 * JSON with exact decimal strings, and write errors reported. */

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/error.h"
#include "output.h"
#include "support.h"

/* A stream into memory; `text` is valid after memory_close. */
typedef struct memory {
  FILE *out;
  char *text;
  size_t size;
} memory_t;

static void memory_open(memory_t *m) {
  m->text = NULL;
  m->size = 0;
  m->out = open_memstream(&m->text, &m->size);
  ck_assert_ptr_nonnull(m->out);
}

static void memory_close(memory_t *m) { ck_assert_int_eq(fclose(m->out), 0); }

/* Lists the brute-force solutions of n through the board writer. */
static char *list_boards(int n, nq_format_t format, uint64_t *boards) {
  const brute_solutions_t *solutions = brute_solutions(n);
  memory_t m;
  nq_board_writer_t writer;
  memory_open(&m);
  ck_assert_int_eq(nq__output_boards_begin(&writer, m.out, format, n), NQ_OK);
  for (size_t i = 0; i < solutions->count; i++)
    ck_assert_int_eq(nq__output_board(&writer, brute_solution(solutions, i), n), NQ_OK);
  ck_assert_int_eq(nq__output_boards_end(&writer), NQ_OK);
  *boards = writer.boards;
  memory_close(&m);
  return m.text;
}

START_TEST(test_list_n4_text_is_exact) {
  uint64_t boards = 0;
  char *text = list_boards(4, NQ_FORMAT_TEXT, &boards);
  ck_assert_str_eq(text, ".Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n");
  ck_assert_uint_eq(boards, 2);
  free(text);
}
END_TEST

START_TEST(test_list_n4_json_is_exact) {
  uint64_t boards = 0;
  char *text = list_boards(4, NQ_FORMAT_JSON, &boards);
  ck_assert_str_eq(text, "[[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"],"
                         "[\"..Q.\",\"Q...\",\"...Q\",\".Q..\"]]\n");
  ck_assert_uint_eq(boards, 2);
  free(text);
}
END_TEST

/* The expected listing, built here: each row n characters, '.' but for a
 * 'Q' in the queen's column; text boards separated by a blank line, JSON
 * an array of arrays of row strings. */
static char *expected_listing(int n, nq_format_t format) {
  const brute_solutions_t *solutions = brute_solutions(n);
  memory_t m;
  memory_open(&m);
  if (format == NQ_FORMAT_JSON)
    fputc('[', m.out);
  for (size_t i = 0; i < solutions->count; i++) {
    const uint8_t *board = brute_solution(solutions, i);
    if (i > 0)
      fputs(format == NQ_FORMAT_JSON ? "," : "\n", m.out);
    if (format == NQ_FORMAT_JSON)
      fputc('[', m.out);
    for (int row = 0; row < n; row++) {
      char line[BRUTE_MAX_N + 1];
      memset(line, '.', (size_t)n);
      line[n] = '\0';
      line[board[row]] = 'Q';
      if (format == NQ_FORMAT_JSON)
        fprintf(m.out, "%s\"%s\"", row > 0 ? "," : "", line);
      else
        fprintf(m.out, "%s\n", line);
    }
    if (format == NQ_FORMAT_JSON)
      fputc(']', m.out);
  }
  if (format == NQ_FORMAT_JSON)
    fputs("]\n", m.out);
  else if (solutions->count == 0)
    fprintf(m.out, "No solution exists for n = %d.\n", n);
  memory_close(&m);
  return m.text;
}

START_TEST(test_list_text_matches_boards_built_here) {
  int n = _i;
  uint64_t boards = 0;
  char *text = list_boards(n, NQ_FORMAT_TEXT, &boards);
  char *expected = expected_listing(n, NQ_FORMAT_TEXT);
  ck_assert_str_eq(text, expected);
  ck_assert_uint_eq(boards, brute_solutions(n)->count);
  free(text);
  free(expected);
}
END_TEST

START_TEST(test_list_json_matches_boards_built_here) {
  int n = _i;
  uint64_t boards = 0;
  char *text = list_boards(n, NQ_FORMAT_JSON, &boards);
  char *expected = expected_listing(n, NQ_FORMAT_JSON);
  ck_assert_str_eq(text, expected);
  free(text);
  free(expected);
}
END_TEST

START_TEST(test_list_without_boards) {
  uint64_t boards = 1;
  char *text = list_boards(3, NQ_FORMAT_TEXT, &boards);
  ck_assert_str_eq(text, "No solution exists for n = 3.\n");
  ck_assert_uint_eq(boards, 0);
  free(text);
  text = list_boards(3, NQ_FORMAT_JSON, &boards);
  ck_assert_str_eq(text, "[]\n");
  free(text);
}
END_TEST

/* 2^70 and 2^67: beyond 64 bits and beyond a double's exact integers. */
static const char big_solutions[] = "1180591620717411303424";
static const char big_unique[] = "147573952589676412928";

static char *count_output(nq_format_t format, int unique) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  ck_assert_int_eq(mpz_set_str(result.solutions, big_solutions, 10), 0);
  ck_assert_int_eq(mpz_set_str(result.unique, big_unique, 10), 0);
  ck_assert_int_eq(mpz_set_str(result.nodes, "123456789012345678901234567", 10), 0);
  result.units = 17;
  result.ranks = 3;
  result.seconds = 1.25;
  result.walk = NQ_WALK_AVX512;
  memory_t m;
  memory_open(&m);
  ck_assert_int_eq(nq__output_count(m.out, format, 27, unique, &result), NQ_OK);
  memory_close(&m);
  nq_count_result_clear(&result);
  return m.text;
}

static void assert_contains(const char *text, const char *part) {
  ck_assert_msg(strstr(text, part) != NULL, "'%s' not found in: %s", part, text);
}

START_TEST(test_count_json_has_exact_strings_and_keys) {
  char *text = count_output(NQ_FORMAT_JSON, 0);
  char solutions[64];
  snprintf(solutions, sizeof solutions, "\"solutions\":\"%s\"", big_solutions);
  assert_contains(text, solutions);
  assert_contains(text, "\"n\":27");
  assert_contains(text, "\"seconds\":");
  assert_contains(text, "\"ranks\":3");
  assert_contains(text, "\"units\":17");
  assert_contains(text, "\"walk\":\"avx512\"");
  assert_contains(text, "\"version\":\"");
  ck_assert_ptr_null(strstr(text, "\"unique\""));
  /* One JSON object on one line. */
  ck_assert_int_eq(text[0], '{');
  ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1);
  ck_assert_int_eq(text[strlen(text) - 2], '}');
  free(text);
}
END_TEST

START_TEST(test_count_json_with_unique) {
  char *text = count_output(NQ_FORMAT_JSON, 1);
  char unique[64];
  snprintf(unique, sizeof unique, "\"unique\":\"%s\"", big_unique);
  assert_contains(text, unique);
  assert_contains(text, big_solutions);
  free(text);
}
END_TEST

START_TEST(test_count_text_shows_the_counts) {
  char *text = count_output(NQ_FORMAT_TEXT, 1);
  assert_contains(text, big_solutions);
  assert_contains(text, big_unique);
  assert_contains(text, "27");
  assert_contains(text, "avx512 walk");
  ck_assert_int_eq(text[strlen(text) - 1], '\n');
  free(text);
}
END_TEST

START_TEST(test_first_json_has_the_columns) {
  static const uint8_t columns[8] = {0, 4, 7, 5, 2, 6, 1, 3};
  memory_t m;
  memory_open(&m);
  ck_assert_int_eq(
      nq__output_first(m.out, NQ_FORMAT_JSON, 8, columns, NQ_FIRST_LEXICOGRAPHIC, 0.5), NQ_OK);
  memory_close(&m);
  assert_contains(m.text, "\"columns\":[0,4,7,5,2,6,1,3]");
  assert_contains(m.text, "\"n\":8");
  assert_contains(m.text, "[\"Q.......\",\"....Q...\",\".......Q\"");
  ck_assert_ptr_eq(strchr(m.text, '\n'), m.text + strlen(m.text) - 1);
  free(m.text);
}
END_TEST

START_TEST(test_first_text_draws_the_board) {
  static const uint8_t columns[4] = {1, 3, 0, 2};
  memory_t m;
  memory_open(&m);
  ck_assert_int_eq(nq__output_first(m.out, NQ_FORMAT_TEXT, 4, columns, NQ_FIRST_LEXICOGRAPHIC, 0),
                   NQ_OK);
  memory_close(&m);
  assert_contains(m.text, ".Q..\n...Q\nQ...\n..Q.\n");
  free(m.text);
}
END_TEST

START_TEST(test_first_without_solution) {
  uint8_t columns[3] = {0};
  memory_t m;
  memory_open(&m);
  ck_assert_int_eq(nq__output_first(m.out, NQ_FORMAT_JSON, 3, columns, NQ_FIRST_NONE, 0), NQ_OK);
  memory_close(&m);
  assert_contains(m.text, "\"n\":3");
  assert_contains(m.text, "\"columns\":null");
  ck_assert_ptr_null(strchr(m.text, 'Q'));
  free(m.text);
}
END_TEST

/* A stream that refuses writes: every writer says NQ_EIO. */
START_TEST(test_writers_report_write_errors) {
  static const uint8_t columns[4] = {1, 3, 0, 2};
  int format = _i;
  FILE *read_only = fopen("/dev/null", "r");
  ck_assert_ptr_nonnull(read_only);
  nq_count_result_t result;
  nq_count_result_init(&result);
  mpz_set_ui(result.solutions, 2);
  ck_assert_int_eq(nq__output_count(read_only, (nq_format_t)format, 4, 1, &result), NQ_EIO);
  nq_count_result_clear(&result);
  clearerr(read_only);
  nq_board_writer_t writer;
  int rc = nq__output_boards_begin(&writer, read_only, (nq_format_t)format, 4);
  if (rc == NQ_OK)
    rc = nq__output_board(&writer, columns, 4);
  ck_assert_int_eq(rc, NQ_EIO);
  clearerr(read_only);
  ck_assert_int_eq(
      nq__output_first(read_only, (nq_format_t)format, 4, columns, NQ_FIRST_LEXICOGRAPHIC, 0),
      NQ_EIO);
  fclose(read_only);
}
END_TEST

static Suite *output_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("output");
  TCase *list = tcase_create("list");
  tcase_add_test(list, test_list_n4_text_is_exact);
  tcase_add_test(list, test_list_n4_json_is_exact);
  tcase_add_loop_test(list, test_list_text_matches_boards_built_here, 1, 9);
  tcase_add_loop_test(list, test_list_json_matches_boards_built_here, 1, 9);
  tcase_add_test(list, test_list_without_boards);
  suite_add_tcase(suite, list);
  TCase *count = tcase_create("count");
  tcase_add_test(count, test_count_json_has_exact_strings_and_keys);
  tcase_add_test(count, test_count_json_with_unique);
  tcase_add_test(count, test_count_text_shows_the_counts);
  suite_add_tcase(suite, count);
  TCase *first = tcase_create("first");
  tcase_add_test(first, test_first_json_has_the_columns);
  tcase_add_test(first, test_first_text_draws_the_board);
  tcase_add_test(first, test_first_without_solution);
  suite_add_tcase(suite, first);
  TCase *errors = tcase_create("errors");
  tcase_add_loop_test(errors, test_writers_report_write_errors, NQ_FORMAT_TEXT,
                      NQ_FORMAT_JSON + 1);
  suite_add_tcase(suite, errors);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, output_suite); }
