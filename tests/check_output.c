#define _POSIX_C_SOURCE 200809L /* open_memstream */

/* The output module: boards as text and JSON byte for byte, counts and
 * the first solution as whole expected strings, and write errors
 * reported. */

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

/* 2^70 and 2^67: beyond 64 bits and beyond a double's exact integers.  The
 * nodes, 2^80 in half a second, make a speed a double holds exactly. */
static const char big_solutions[] = "1180591620717411303424";
static const char big_unique[] = "147573952589676412928";
static const char big_nodes[] = "1208925819614629174706176";

static char *count_output(nq_format_t format, int unique) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  ck_assert_int_eq(mpz_set_str(result.solutions, big_solutions, 10), 0);
  ck_assert_int_eq(mpz_set_str(result.unique, big_unique, 10), 0);
  ck_assert_int_eq(mpz_set_str(result.nodes, big_nodes, 10), 0);
  result.units = 17;
  result.ranks = 3;
  result.depth = 2;
  result.seconds = 0.5;
  result.walk = NQ_WALK_AVX512;
  memory_t m;
  memory_open(&m);
  ck_assert_int_eq(nq__output_count(m.out, format, 27, unique, &result), NQ_OK);
  memory_close(&m);
  nq_count_result_clear(&result);
  return m.text;
}

/* The version comes from CMake's project() and reaches the test only
 * through the output: its form is checked, then it completes the expected
 * text, so that everything else is compared whole. */
static const char *version_in(const char *text) {
  static char version[32];
  const char *start = strstr(text, "\"version\":\"");
  ck_assert_ptr_nonnull(start);
  start += strlen("\"version\":\"");
  size_t length = strspn(start, "0123456789.");
  ck_assert_uint_gt(length, 0);
  ck_assert_uint_lt(length, sizeof version);
  ck_assert_int_eq(start[length], '"');
  memcpy(version, start, length);
  version[length] = '\0';
  unsigned major, minor, patch;
  char end;
  ck_assert_int_eq(sscanf(version, "%u.%u.%u%c", &major, &minor, &patch, &end), 3);
  return version;
}

START_TEST(test_count_json_is_exact) {
  char *text = count_output(NQ_FORMAT_JSON, 0);
  char expected[512];
  snprintf(expected, sizeof expected,
           "{\"n\":27,\"solutions\":\"1180591620717411303424\",\"seconds\":0.500000,"
           "\"ranks\":3,\"units\":17,\"depth\":2,\"nodes\":\"1208925819614629174706176\","
           "\"nodes_per_second\":2417851639229258349412352,\"walk\":\"avx512\","
           "\"version\":\"%s\"}\n",
           version_in(text));
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

START_TEST(test_count_json_with_unique_is_exact) {
  char *text = count_output(NQ_FORMAT_JSON, 1);
  char expected[512];
  snprintf(expected, sizeof expected,
           "{\"n\":27,\"solutions\":\"1180591620717411303424\","
           "\"unique\":\"147573952589676412928\",\"seconds\":0.500000,"
           "\"ranks\":3,\"units\":17,\"depth\":2,\"nodes\":\"1208925819614629174706176\","
           "\"nodes_per_second\":2417851639229258349412352,\"walk\":\"avx512\","
           "\"version\":\"%s\"}\n",
           version_in(text));
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

START_TEST(test_count_text_is_exact) {
  char *text = count_output(NQ_FORMAT_TEXT, 1);
  ck_assert_str_eq(text, "Q(27) = 1180591620717411303424 solutions on the 27x27 board\n"
                         "U(27) = 147573952589676412928 up to rotation and reflection\n"
                         "0.500 s on 3 ranks, 17 work units, 2.42e+24 nodes/s, avx512 walk\n");
  free(text);
}
END_TEST

/* One of each: "solution", "rank", "work unit" stay singular. */
START_TEST(test_count_text_singular_is_exact) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  mpz_set_ui(result.solutions, 1);
  mpz_set_ui(result.nodes, 1);
  result.units = 1;
  result.ranks = 1;
  result.seconds = 0.25;
  result.walk = NQ_WALK_SCALAR;
  memory_t m;
  memory_open(&m);
  ck_assert_int_eq(nq__output_count(m.out, NQ_FORMAT_TEXT, 1, 0, &result), NQ_OK);
  memory_close(&m);
  nq_count_result_clear(&result);
  ck_assert_str_eq(m.text, "Q(1) = 1 solution on the 1x1 board\n"
                           "0.250 s on 1 rank, 1 work unit, 4 nodes/s, scalar walk\n");
  free(m.text);
}
END_TEST

static char *first_output(nq_format_t format, int n, const uint8_t *columns,
                          nq_first_kind_t kind) {
  memory_t m;
  memory_open(&m);
  ck_assert_int_eq(nq__output_first(m.out, format, n, columns, kind, 0.5), NQ_OK);
  memory_close(&m);
  return m.text;
}

START_TEST(test_first_json_is_exact) {
  static const uint8_t columns[8] = {0, 4, 7, 5, 2, 6, 1, 3};
  char *text = first_output(NQ_FORMAT_JSON, 8, columns, NQ_FIRST_LEXICOGRAPHIC);
  char expected[512];
  snprintf(expected, sizeof expected,
           "{\"n\":8,\"board\":[\"Q.......\",\"....Q...\",\".......Q\",\".....Q..\","
           "\"..Q.....\",\"......Q.\",\".Q......\",\"...Q....\"],"
           "\"columns\":[0,4,7,5,2,6,1,3],\"kind\":\"lexicographically-first\","
           "\"seconds\":0.500000,\"version\":\"%s\"}\n",
           version_in(text));
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

START_TEST(test_first_text_is_exact) {
  static const uint8_t columns[4] = {1, 3, 0, 2};
  char *text = first_output(NQ_FORMAT_TEXT, 4, columns, NQ_FIRST_LEXICOGRAPHIC);
  ck_assert_str_eq(text, "Lexicographically first solution for n = 4:\n"
                         ".Q..\n...Q\nQ...\n..Q.\n"
                         "columns: 1 3 0 2\n");
  free(text);
}
END_TEST

START_TEST(test_first_constructed_text_is_exact) {
  static const uint8_t columns[5] = {1, 3, 0, 2, 4};
  char *text = first_output(NQ_FORMAT_TEXT, 5, columns, NQ_FIRST_CONSTRUCTED);
  ck_assert_str_eq(text, "Constructed (not the lexicographically first) solution for n = 5:\n"
                         ".Q...\n...Q.\nQ....\n..Q..\n....Q\n"
                         "columns: 1 3 0 2 4\n");
  free(text);
}
END_TEST

START_TEST(test_first_without_solution_is_exact) {
  uint8_t columns[3] = {0};
  char *text = first_output(NQ_FORMAT_JSON, 3, columns, NQ_FIRST_NONE);
  char expected[256];
  snprintf(expected, sizeof expected,
           "{\"n\":3,\"board\":null,\"columns\":null,\"kind\":\"none\","
           "\"seconds\":0.500000,\"version\":\"%s\"}\n",
           version_in(text));
  ck_assert_str_eq(text, expected);
  free(text);
  text = first_output(NQ_FORMAT_TEXT, 3, columns, NQ_FIRST_NONE);
  ck_assert_str_eq(text, "No solution exists for n = 3.\n");
  free(text);
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
  tcase_add_test(count, test_count_json_is_exact);
  tcase_add_test(count, test_count_json_with_unique_is_exact);
  tcase_add_test(count, test_count_text_is_exact);
  tcase_add_test(count, test_count_text_singular_is_exact);
  suite_add_tcase(suite, count);
  TCase *first = tcase_create("first");
  tcase_add_test(first, test_first_json_is_exact);
  tcase_add_test(first, test_first_text_is_exact);
  tcase_add_test(first, test_first_constructed_text_is_exact);
  tcase_add_test(first, test_first_without_solution_is_exact);
  suite_add_tcase(suite, first);
  TCase *errors = tcase_create("errors");
  tcase_add_loop_test(errors, test_writers_report_write_errors, NQ_FORMAT_TEXT,
                      NQ_FORMAT_JSON + 1);
  suite_add_tcase(suite, errors);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, output_suite); }
