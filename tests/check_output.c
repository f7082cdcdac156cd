#define _GNU_SOURCE /* open_memstream, fopencookie */

/* The output module: boards as text and JSON byte for byte, counts and the
 * first solution as whole expected strings, the listing command against
 * the brute force, and write errors reported with the system's reason. */

#include <check.h>
#include <errno.h>
#include <gmp.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/slice.h"
#include "output.h"
#include "output_boards.h"
#include "output_count.h"
#include "output_estimate.h"
#include "output_merge.h"
#include "output_record.h"
#include "progress.h"
#include "record_total.h"
#include "support.h"

/* ---- Streams ------------------------------------------------------------ */

/* Output into memory; `text` holds all of it after memory_close. */
typedef struct memory {
  FILE *stream;
  nq__output_t output;
  char *text;
  size_t size;
} memory_t;

static void memory_open(memory_t *m, size_t capacity) {
  m->text = NULL;
  m->size = 0;
  m->stream = open_memstream(&m->text, &m->size);
  ck_assert_ptr_nonnull(m->stream);
  ck_assert_int_eq(nq__output_open(&m->output, m->stream, capacity), NQ_OK);
}

static void memory_close(memory_t *m) {
  ck_assert_int_eq(nq__output_flush(&m->output), NQ_OK);
  nq__output_close(&m->output);
  ck_assert_int_eq(fclose(m->stream), 0);
}

/* A disk with no space left: every write fails with ENOSPC, as on
 * /dev/full, but on any system. */
static ssize_t write_to_full_disk(void *cookie, const char *bytes, size_t size) {
  (void)cookie;
  (void)bytes;
  (void)size;
  errno = ENOSPC;
  return -1;
}

/* Unbuffered, as stdio's buffer would hide the failure of a write it
 * can hold until the next one. */
static FILE *full_disk(void) {
  cookie_io_functions_t io = {.write = write_to_full_disk};
  FILE *stream = fopencookie(NULL, "w", io);
  ck_assert_ptr_nonnull(stream);
  ck_assert_int_eq(setvbuf(stream, NULL, _IONBF, 0), 0);
  return stream;
}

/* ---- Expected listings, built from the brute force ---------------------- */

/* Per the format: each row n characters, '.' but for a 'Q' in the queen's
 * column; text boards separated by a blank line and the empty board named,
 * JSON an array of arrays of row strings on one line. */
static void expected_board(FILE *out, const uint8_t *board, int n, nq__format_t format) {
  if (format == NQ_FORMAT_TEXT && n == 0)
    fputs("(the empty board)\n", out);
  if (format == NQ_FORMAT_JSON)
    fputc('[', out);
  for (int row = 0; row < n; row++) {
    char line[BRUTE_MAX_N + 1];
    memset(line, '.', (size_t)n);
    line[n] = '\0';
    line[board[row]] = 'Q';
    if (format == NQ_FORMAT_JSON)
      fprintf(out, "%s\"%s\"", row > 0 ? "," : "", line);
    else
      fprintf(out, "%s\n", line);
  }
  if (format == NQ_FORMAT_JSON)
    fputc(']', out);
}

/* The first `limit` boards of n (0 = all) as the listing prints them. */
static char *expected_listing(int n, nq__format_t format, size_t limit) {
  const brute_solutions_t *solutions = brute_solutions(n);
  size_t boards = limit != 0 && limit < solutions->count ? limit : solutions->count, size = 0;
  char *text = NULL;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  if (format == NQ_FORMAT_JSON)
    fputc('[', out);
  for (size_t i = 0; i < boards; i++) {
    if (i > 0)
      fputs(format == NQ_FORMAT_JSON ? "," : "\n", out);
    expected_board(out, brute_solution(solutions, i), n, format);
  }
  if (format == NQ_FORMAT_JSON)
    fputs("]\n", out);
  ck_assert_int_eq(fclose(out), 0);
  return text;
}

/* Listings run to megabytes, more than check can print in a message:
 * on a difference, say where it starts and show a little of both. */
static void assert_same_text(const char *got, const char *expected, const char *what) {
  size_t at = 0;
  while (got[at] != '\0' && got[at] == expected[at])
    at++;
  ck_assert_msg(got[at] == expected[at],
                "%s: differs from byte %zu on (of %zu, expected %zu): '%.40s' instead of '%.40s'",
                what, at, strlen(got), strlen(expected), got + at, expected + at);
}

/* ---- The board writer ---------------------------------------------------- */

/* Lists the brute-force solutions of n through the board writer. */
static char *list_boards(int n, nq__format_t format, size_t capacity, uint64_t *boards) {
  const brute_solutions_t *solutions = brute_solutions(n);
  memory_t m;
  nq__board_writer_t writer;
  memory_open(&m, capacity);
  ck_assert_int_eq(nq__output_boards_begin(&writer, &m.output, format, n), NQ_OK);
  for (size_t i = 0; i < solutions->count; i++)
    ck_assert_int_eq(nq__output_board(&writer, brute_solution(solutions, i), n), NQ_OK);
  ck_assert_int_eq(nq__output_boards_end(&writer), NQ_OK);
  *boards = writer.boards;
  memory_close(&m);
  return m.text;
}

START_TEST(test_list_n4_text_is_exact) {
  uint64_t boards = 0;
  char *text = list_boards(4, NQ_FORMAT_TEXT, NQ_OUTPUT_CAPACITY, &boards);
  ck_assert_str_eq(text, ".Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n");
  ck_assert_uint_eq(boards, 2);
  free(text);
}
END_TEST

START_TEST(test_list_n4_json_is_exact) {
  uint64_t boards = 0;
  char *text = list_boards(4, NQ_FORMAT_JSON, NQ_OUTPUT_CAPACITY, &boards);
  ck_assert_str_eq(text, "[[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"],"
                         "[\"..Q.\",\"Q...\",\"...Q\",\".Q..\"]]\n");
  ck_assert_uint_eq(boards, 2);
  free(text);
}
END_TEST

START_TEST(test_list_empty_board_is_exact) {
  uint64_t boards = 0;
  char *text = list_boards(0, NQ_FORMAT_TEXT, NQ_OUTPUT_CAPACITY, &boards);
  ck_assert_str_eq(text, "(the empty board)\n");
  ck_assert_uint_eq(boards, 1);
  free(text);
  text = list_boards(0, NQ_FORMAT_JSON, NQ_OUTPUT_CAPACITY, &boards);
  ck_assert_str_eq(text, "[[]]\n");
  free(text);
}
END_TEST

START_TEST(test_list_text_matches_boards_built_here) {
  int n = _i;
  uint64_t boards = 0;
  char *text = list_boards(n, NQ_FORMAT_TEXT, NQ_OUTPUT_CAPACITY, &boards);
  char *expected = expected_listing(n, NQ_FORMAT_TEXT, 0);
  assert_same_text(text, expected, "text listing");
  ck_assert_uint_eq(boards, brute_solutions(n)->count);
  free(text);
  free(expected);
}
END_TEST

START_TEST(test_list_json_matches_boards_built_here) {
  int n = _i;
  uint64_t boards = 0;
  char *text = list_boards(n, NQ_FORMAT_JSON, NQ_OUTPUT_CAPACITY, &boards);
  char *expected = expected_listing(n, NQ_FORMAT_JSON, 0);
  assert_same_text(text, expected, "JSON listing");
  free(text);
  free(expected);
}
END_TEST

/* n = 10 lists 80 kB of text and 93 kB of JSON: the smallest buffer fills
 * and is written out many times, with boards that end at every offset. */
START_TEST(test_list_through_the_smallest_buffer) {
  nq__format_t format = (nq__format_t)_i;
  uint64_t boards = 0;
  char *text = list_boards(10, format, NQ_OUTPUT_MIN_CAPACITY, &boards);
  char *expected = expected_listing(10, format, 0);
  ck_assert_uint_gt(strlen(expected), 8 * NQ_OUTPUT_MIN_CAPACITY);
  assert_same_text(text, expected, "listing through the smallest buffer");
  free(text);
  free(expected);
}
END_TEST

START_TEST(test_list_without_boards) {
  uint64_t boards = 1;
  char *text = list_boards(3, NQ_FORMAT_TEXT, NQ_OUTPUT_CAPACITY, &boards);
  ck_assert_str_eq(text, "");
  ck_assert_uint_eq(boards, 0);
  free(text);
  text = list_boards(3, NQ_FORMAT_JSON, NQ_OUTPUT_CAPACITY, &boards);
  ck_assert_str_eq(text, "[]\n");
  free(text);
}
END_TEST

START_TEST(test_list_rejects_boards_that_do_not_fit) {
  static const uint8_t off_board[4] = {1, 3, 0, 4};
  static const uint8_t board[4] = {1, 3, 0, 2};
  memory_t m;
  nq__board_writer_t writer;
  memory_open(&m, NQ_OUTPUT_CAPACITY);
  ck_assert_int_eq(nq__output_boards_begin(&writer, &m.output, NQ_FORMAT_TEXT, 4), NQ_OK);
  ck_assert_int_eq(nq__output_board(&writer, off_board, 4), NQ_EINVAL);
  ck_assert_int_eq(nq__output_board(&writer, board, 5), NQ_EINVAL);
  ck_assert_int_eq(nq__output_boards_begin(&writer, &m.output, NQ_FORMAT_TEXT, 65), NQ_EINVAL);
  memory_close(&m);
  ck_assert_str_eq(m.text, "");
  free(m.text);
}
END_TEST

START_TEST(test_open_rejects_a_buffer_too_small_for_a_board) {
  nq__output_t output;
  ck_assert_int_eq(nq__output_open(&output, stdout, NQ_OUTPUT_MIN_CAPACITY - 1), NQ_EINVAL);
}
END_TEST

/* ---- Counts and the first solution --------------------------------------- */

/* 2^70 and 2^67: beyond 64 bits and beyond a double's exact integers.  The
 * nodes, 2^80 in half a second, make a speed a double holds exactly. */
static const char big_solutions[] = "1180591620717411303424";
static const char big_unique[] = "147573952589676412928";
static const char big_nodes[] = "1208925819614629174706176";

/* What nq__output_count writes of `result` (a count with a journal or
 * without), which it then clears. */
static char *count_text_journaled(nq_count_result_t *result, nq__format_t format, int n,
                                  int unique, int journaled) {
  memory_t m;
  memory_open(&m, NQ_OUTPUT_CAPACITY);
  ck_assert_int_eq(nq__output_count(&m.output, format, n, unique, journaled, result), NQ_OK);
  memory_close(&m);
  nq_count_result_clear(result);
  return m.text;
}

static char *count_text(nq_count_result_t *result, nq__format_t format, int n, int unique) {
  return count_text_journaled(result, format, n, unique, 0);
}

/* A made-up count of 3 ranks with 12 threads; `copies` adds 5 backup
 * copies, 4 of them confirmed. */
static char *count_output(nq__format_t format, int unique, int copies) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  ck_assert_int_eq(mpz_set_str(result.solutions, big_solutions, 10), 0);
  ck_assert_int_eq(mpz_set_str(result.unique, big_unique, 10), 0);
  ck_assert_int_eq(mpz_set_str(result.nodes, big_nodes, 10), 0);
  result.units = 17;
  result.ranks = 3;
  result.threads = 12;
  result.copies_sent = copies ? 5 : 0;
  result.copies_confirmed = copies ? 4 : 0;
  result.depth = 2;
  result.seconds = 0.5;
  result.walk = NQ_WALK_AVX512;
  return count_text(&result, format, 27, unique);
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
  char *text = count_output(NQ_FORMAT_JSON, 0, 0);
  char expected[640];
  snprintf(expected, sizeof expected,
           "{\"n\":27,\"solutions\":\"1180591620717411303424\",\"seconds\":0.500000,"
           "\"ranks\":3,\"threads\":12,\"units\":17,\"depth\":2,\"nodes\":\"1208925819614629174706176\","
           "\"nodes_per_second\":2417851639229258349412352,\"method\":\"backtrack\",\"walk\":\"avx512\","
           "\"solutions_mod\":{\"4294967291\":0,\"4294967279\":0,\"4294967231\":0},"
           "\"version\":\"%s\"}\n",
           version_in(text));
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

START_TEST(test_count_json_with_unique_is_exact) {
  char *text = count_output(NQ_FORMAT_JSON, 1, 1);
  char expected[640];
  snprintf(expected, sizeof expected,
           "{\"n\":27,\"solutions\":\"1180591620717411303424\","
           "\"unique\":\"147573952589676412928\",\"seconds\":0.500000,"
           "\"ranks\":3,\"threads\":12,\"units\":17,\"depth\":2,"
           "\"nodes\":\"1208925819614629174706176\","
           "\"nodes_per_second\":2417851639229258349412352,\"method\":\"backtrack\",\"walk\":\"avx512\","
           "\"copies\":5,\"copies_confirmed\":4,"
           "\"solutions_mod\":{\"4294967291\":0,\"4294967279\":0,\"4294967231\":0},"
           "\"version\":\"%s\"}\n",
           version_in(text));
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

START_TEST(test_count_text_is_exact) {
  char *text = count_output(NQ_FORMAT_TEXT, 1, 1);
  ck_assert_str_eq(text, "Q(27) = 1180591620717411303424 solutions on the 27x27 board\n"
                         "U(27) = 147573952589676412928 up to rotation and reflection\n"
                         "0.500 s on 3 ranks, 12 threads, 17 work units, 2.42e+24 nodes/s, "
                         "avx512 walk, 5 backup copies (4 confirmed)\n");
  free(text);
}
END_TEST

/* ---- Estimates ---------------------------------------------------------- */

/* An estimate of Q(27) as the output writes it (free the text). */
static char *estimate_text(const nq_estimate_result_t *result, nq__format_t format, uint64_t cores,
                           uint64_t seed) {
  memory_t m;
  memory_open(&m, NQ_OUTPUT_CAPACITY);
  ck_assert_int_eq(nq__output_estimate(&m.output, format, 27, cores, seed, result), NQ_OK);
  memory_close(&m);
  return m.text;
}

/* Made-up figures whose derived times are easy to check by hand: 1.6e10
 * core-seconds are 507 years (of 365.25 days), 127 on 4 threads, and 185
 * days on 1000 cores. */
static char *estimate_output(nq__format_t format, uint64_t cores) {
  const nq_estimate_result_t result = {.solutions = {2e17, 1e15},
                                 .nodes = {4e18, 2e16},
                                 .nodes_per_second = 2.5e8,
                                 .core_seconds = {1.6e10, 8e7},
                                 .frames = 2744,
                                 .probes = 5490,
                                 .min_probes = 2,
                                 .exact_rows = 14,
                                 .depth = 5,
                                 .ranks = 2,
                                 .threads = 4,
                                 .walk = NQ_WALK_AVX512,
                                 .seconds = 1.5};
  return estimate_text(&result, format, cores, 3);
}

START_TEST(test_estimate_text_is_exact) {
  char *text = estimate_output(NQ_FORMAT_TEXT, 1000);
  ck_assert_str_eq(
      text,
      "Q(27) ~ 2e+17, 95% interval 1.98e+17 to 2.02e+17 (standard error 0.5%)\n"
      "nodes ~ 4e+18, 95% interval 3.961e+18 to 4.039e+18 (standard error 0.5%)\n"
      "one core: 507 years (95%: 502 to 512), at 2.5e+08 nodes/s (the exact counts' rate)\n"
      "on 2 ranks, 4 threads: 127 years (95%: 126 to 128)\n"
      "on 1000 cores (--estimate-ranks): 185 days (95%: 183 to 187)\n"
      "5490 probes on 2744 frames (at least 2 each), exact below 14 rows, seed 3: 1.500 s on "
      "2 ranks, 4 threads, avx512 walk\n");
  free(text);
}
END_TEST

START_TEST(test_estimate_json_is_exact) {
  char *text = estimate_output(NQ_FORMAT_JSON, 0);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "{\"n\":27,\"estimate\":true,\"counted\":false,\"solutions\":2e+17,"
           "\"solutions_error\":1e+15,"
           "\"solutions_low\":1.98040036e+17,\"solutions_high\":2.01959964e+17,"
           "\"solutions_degrees\":null,\"nodes\":4e+18,"
           "\"nodes_error\":2e+16,\"nodes_low\":3.96080072e+18,\"nodes_high\":4.03919928e+18,"
           "\"nodes_degrees\":null,"
           "\"nodes_per_second\":2.5e+08,\"core_seconds\":1.6e+10,\"core_seconds_error\":80000000,"
           "\"core_seconds_low\":1.584320288e+10,\"core_seconds_high\":1.615679712e+10,"
           "\"core_seconds_degrees\":null,"
           "\"wall_seconds\":4000000000,\"wall_seconds_error\":20000000,"
           "\"wall_seconds_low\":3960800720,\"wall_seconds_high\":4039199280,"
           "\"wall_seconds_degrees\":null,\"probes\":5490,"
           "\"frames\":2744,\"min_probes\":2,\"exact_rows\":14,\"seed\":3,\"depth\":5,"
           "\"seconds\":1.500000,\"ranks\":2,\"threads\":4,\"method\":\"backtrack\",\"walk\":\"avx512\","
           "\"version\":\"%s\"}\n",
           version_in(text));
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

/* Few degrees of freedom: the interval spans Student's t's 95% point, 2.776
 * errors at 4 degrees, the text says why, JSON gives the degrees; the
 * durations on a core, on the run's threads and on --estimate-ranks keep
 * theirs. */
START_TEST(test_estimate_interval_follows_degrees) {
  const nq_estimate_result_t result = {.solutions = {2e17, 1e15, 4},
                                       .nodes = {4e18, 2e16, INFINITY},
                                       .nodes_per_second = 2.5e8,
                                       .core_seconds = {1.6e10, 8e7, 4},
                                       .frames = 4,
                                       .probes = 8,
                                       .min_probes = 2,
                                       .ranks = 1,
                                       .threads = 1,
                                       .seconds = 1};
  char *text = estimate_text(&result, NQ_FORMAT_TEXT, 1000, 3);
  ck_assert_ptr_nonnull(strstr(text, "Q(27) ~ 2e+17, 95% interval 1.972e+17 to 2.028e+17 "
                                     "(standard error 0.5%, 4 degrees of freedom)\n"));
  ck_assert_ptr_nonnull(strstr(text, "nodes ~ 4e+18, 95% interval 3.961e+18 to 4.039e+18 "
                                     "(standard error 0.5%)\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "one core: 507 years (95%: 500 to 514, 4 degrees of freedom)"));
  ck_assert_ptr_nonnull(
      strstr(text, "on 1 rank, 1 thread: 507 years (95%: 500 to 514, 4 degrees of freedom)"));
  ck_assert_ptr_nonnull(strstr(text, "on 1000 cores (--estimate-ranks): 185 days (95%: 183 to "
                                     "188, 4 degrees of freedom)"));
  free(text);
  text = estimate_text(&result, NQ_FORMAT_JSON, 1000, 3);
  ck_assert_ptr_nonnull(strstr(text, "\"solutions_low\":1.972235549e+17,"
                                     "\"solutions_high\":2.027764451e+17,\"solutions_degrees\":4,"));
  ck_assert_ptr_nonnull(strstr(text, ",\"nodes_degrees\":null,"));
  ck_assert_ptr_nonnull(strstr(text, ",\"core_seconds_degrees\":4,"));
  ck_assert_ptr_nonnull(strstr(text, ",\"wall_seconds_degrees\":4,"));
  ck_assert_ptr_nonnull(strstr(text, ",\"estimate_ranks_wall_seconds_degrees\":4,"));
  free(text);
}
END_TEST

/* The estimate's output in `format`, with --estimate-ranks `cores` (0:
 * none), holds `expected` (or, with `holds` 0, does not). */
static void assert_estimate_on_cores(const nq_estimate_result_t *result, nq__format_t format,
                                     uint64_t cores, int holds, const char *expected) {
  char *text = estimate_text(result, format, cores, 1);
  ck_assert_msg((strstr(text, expected) != NULL) == holds, "\"%s\" %s in:\n%s", expected,
                holds ? "missing" : "found", text);
  free(text);
}

static void assert_estimate_says(const nq_estimate_result_t *result, nq__format_t format,
                                 const char *expected) {
  assert_estimate_on_cores(result, format, 0, 1, expected);
}

/* Samples that did not vary, where they are not the count (two sets of a
 * small board each drawn, neither with a solution): no interval, in text
 * or JSON, where one of no width would claim what they cannot know; a
 * spread's 1.004 degrees read "1 degree". */
START_TEST(test_estimate_without_spread_gives_no_interval) {
  nq_estimate_result_t result = {.solutions = {0, 0, INFINITY},
                                 .nodes = {121, 42, 1.004},
                                 .core_seconds = {4e-4, 2.8e-4, 1.004},
                                 .method = NQ_COUNT_JOIN,
                                 .units = 15,
                                 .frames = 2,
                                 .probes = 4,
                                 .min_probes = 2,
                                 .ranks = 1,
                                 .threads = 1,
                                 .seconds = 1};
  assert_estimate_says(&result, NQ_FORMAT_TEXT,
                       "Q(27) ~ 0 (no interval: the samples did not vary; more samples or "
                       "strata give one)\n");
  assert_estimate_says(&result, NQ_FORMAT_TEXT, "(standard error 35%, 1 degree of freedom)\n");
  assert_estimate_says(&result, NQ_FORMAT_TEXT,
                       "one core: 0.0004 s (95%: 0 to 0.00392, 1 degree of freedom)");
  assert_estimate_says(&result, NQ_FORMAT_JSON,
                       "\"solutions\":0,\"solutions_error\":0,\"solutions_low\":null,"
                       "\"solutions_high\":null,\"solutions_degrees\":null,");
  assert_estimate_says(&result, NQ_FORMAT_JSON, ",\"nodes_degrees\":1.004,");
  /* The same values counted (every set solved): exact, and said so. */
  result.counted = 1;
  result.probes = 15;
  assert_estimate_says(&result, NQ_FORMAT_JSON,
                       "\"solutions\":0,\"solutions_error\":0,\"solutions_low\":0,"
                       "\"solutions_high\":0,");
}
END_TEST

/* A join estimate names the sets it solved (or sampled) and the time
 * they took, and no walk or rate. */
START_TEST(test_join_estimate_is_exact) {
  nq_estimate_result_t result = {.solutions = {2.3e17, 2.3e15},
                                 .nodes = {6e16, 1.2e15},
                                 .core_seconds = {1.2e9, 2.4e7},
                                 .method = NQ_COUNT_JOIN,
                                 .units = 5448978,
                                 .frames = 64,
                                 .probes = 128,
                                 .min_probes = 2,
                                 .depth = 13,
                                 .ranks = 1,
                                 .threads = 2,
                                 .memory = (size_t)3 << 29,
                                 .seconds = 3600};
  char *text = estimate_text(&result, NQ_FORMAT_TEXT, 0, 1);
  ck_assert_str_eq(
      text,
      "Q(27) ~ 2.3e+17, 95% interval 2.255e+17 to 2.345e+17 (standard error 1%)\n"
      "nodes ~ 6e+16, 95% interval 5.765e+16 to 6.235e+16 (standard error 2%)\n"
      "one core: 38 years (95%: 36.5 to 39.5), the sampled sets' own CPU time\n"
      "on 1 rank, 2 threads: 19 years (95%: 18.3 to 19.8)\n"
      "join method: 128 column sets of the 5448978 drawn without replacement and solved "
      "exactly, in 64 strata (at least 2 each), seed 1: 3600.000 s on 1 rank, 2 threads, "
      "tables within 1.5 GiB a rank\n");
  free(text);
  text = estimate_text(&result, NQ_FORMAT_JSON, 0, 1);
  ck_assert_ptr_nonnull(
      strstr(text, ",\"method\":\"join\",\"units\":5448978,\"descents\":0,"
                   "\"memory_per_rank\":1610612736,\"version\":"));
  ck_assert_ptr_null(strstr(text, "\"walk\""));
  free(text);
  /* More cores than sets: no set is split, so the sets' count of them
   * share the time (38 years over 5448978: 220 s), and the line says so. */
  assert_estimate_on_cores(&result, NQ_FORMAT_TEXT, 10000000, 1,
                           "on 10000000 cores (--estimate-ranks): 3.67 minutes (95%: 3.53 to "
                           "3.81), only 5448978 of them busy (a column set is never split)\n");
  assert_estimate_on_cores(&result, NQ_FORMAT_JSON, 10000000, 1,
                           ",\"estimate_ranks\":10000000,\"estimate_ranks_busy\":5448978,"
                           "\"estimate_ranks_wall_seconds\":220.2247");
  assert_estimate_on_cores(&result, NQ_FORMAT_TEXT, 5448978, 0, "busy");
  /* Sets sampled by paths (n = 27 on) say how. */
  result.descents = 8;
  result.exact_rows = 11;
  assert_estimate_says(&result, NQ_FORMAT_TEXT,
                       "join method: 128 column sets drawn from the 5448978 and sampled (8 paths "
                       "each, exact below 11 rows), in 64 strata");
  assert_estimate_says(&result, NQ_FORMAT_JSON, "\"exact_rows\":11,");
  assert_estimate_says(&result, NQ_FORMAT_JSON, ",\"descents\":8,");
  /* Every set solved (a census of a small board): the count itself, its
   * values whole. */
  result.descents = 0;
  result.units = 128;
  result.counted = 1;
  result.solutions = (nq_estimate_value_t){95815104, 0, INFINITY};
  result.nodes = (nq_estimate_value_t){490000000, 0, INFINITY};
  assert_estimate_says(&result, NQ_FORMAT_TEXT,
                       "Q(27) = 95815104 (counted, every column set solved)\n"
                       "nodes = 490000000 (counted, every column set solved)\n");
  /* Its time was measured, not sampled: no interval, whatever the spread
   * the sample's sets had. */
  assert_estimate_says(&result, NQ_FORMAT_TEXT,
                       "one core: 38 years, the solved sets' own CPU time\n"
                       "on 1 rank, 2 threads: 19 years\n");
  assert_estimate_says(&result, NQ_FORMAT_TEXT,
                       "join method: all 128 column sets solved exactly (the count), in 64 "
                       "strata");
  assert_estimate_says(&result, NQ_FORMAT_JSON,
                       "{\"n\":27,\"estimate\":true,\"counted\":true,\"solutions\":95815104,"
                       "\"solutions_error\":0,");
  result.method = NQ_COUNT_BACKTRACK;
  assert_estimate_says(&result, NQ_FORMAT_TEXT, "Q(27) = 95815104 (counted, every frame solved)\n");
  result.nodes_per_second = 4e8;
  assert_estimate_says(&result, NQ_FORMAT_TEXT, "one core: 38 years, at 4e+08 nodes/s");
  /* One stratum or frame: the draws named before say how many it had. */
  result.frames = 1;
  assert_estimate_says(&result, NQ_FORMAT_TEXT, "128 probes on 1 frame, exact below 11 rows");
  result.method = NQ_COUNT_JOIN;
  assert_estimate_says(&result, NQ_FORMAT_TEXT, "(the count), in 1 stratum, seed 1: ");
  /* Below a GiB the bound is in MiB. */
  result.memory = (size_t)96 << 20;
  text = estimate_text(&result, NQ_FORMAT_TEXT, 0, 1);
  ck_assert_ptr_nonnull(strstr(text, ", tables within 96 MiB a rank\n"));
  free(text);
}
END_TEST

/* One of each: "solution", "rank", "thread", "work unit", "batch",
 * "unit", "backup copy" stay singular. */
START_TEST(test_count_text_singular_is_exact) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  mpz_set_ui(result.solutions, 1);
  mpz_set_ui(result.nodes, 1);
  result.units = 1;
  result.ranks = 1;
  result.threads = 1;
  result.copies_sent = 1;
  result.verified_batches = 1;
  result.verified_units = 1;
  result.seconds = 0.25;
  result.walk = NQ_WALK_SCALAR;
  char *text = count_text(&result, NQ_FORMAT_TEXT, 1, 0);
  ck_assert_str_eq(text, "Q(1) = 1 solution on the 1x1 board\n"
                         "0.250 s on 1 rank, 1 thread, 1 work unit, 4 nodes/s, scalar walk, "
                         "1 batch (1 unit) verified on the same rank, "
                         "1 backup copy (0 confirmed)\n");
  free(text);
}
END_TEST

/* Where the checks ran follows the journal's check lines, whatever this
 * run's ranks: all, none or some of the batches on another rank than the
 * one that solved them. */
START_TEST(test_count_text_says_where_checks_ran) {
  static const struct {
    uint64_t batches, others;
    int ranks;
    const char *says;
  } cases[] = {{890, 890, 1, ", 890 batches (890 units) verified on other ranks\n"},
               {1, 1, 1, ", 1 batch (1 unit) verified on another rank\n"},
               {890, 0, 2, ", 890 batches (890 units) verified on the same rank\n"},
               {890, 478, 1, ", 890 batches (890 units) verified, 478 on other ranks\n"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nq_count_result_t result;
    nq_count_result_init(&result);
    mpz_set_ui(result.solutions, 1);
    result.units = result.verified_units = result.verified_batches = cases[i].batches;
    result.verified_by_other_ranks = cases[i].others;
    result.ranks = cases[i].ranks;
    result.threads = 1;
    result.seconds = 1;
    char *text = count_text(&result, NQ_FORMAT_TEXT, 1, 0);
    ck_assert_msg(strstr(text, cases[i].says) != NULL, "case %zu: %s", i, text);
    free(text);
  }
}
END_TEST

/* The join's text line of a count of n = 12 whose `units` finished, in
 * slice `slice` (0-based) of `slices`. */
static char *join_units_line(int unique, uint64_t units, int slice, int slices) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  result.method = NQ_COUNT_JOIN;
  result.units = units;
  result.ranks = 1;
  result.threads = 1;
  result.seconds = 1;
  result.slice_index = slice;
  result.slice_count = slices;
  return count_text(&result, NQ_FORMAT_TEXT, 12, unique);
}

/* With --unique the join's first unit (id 0, in slice 1 of any slicing)
 * is the turn search, not a column set: the line names it apart. */
START_TEST(test_count_text_names_the_turn_search) {
  const struct {
    int unique, slice, slices;
    uint64_t units;
    const char *says;
  } cases[] = {
      {1, 0, 1, 253, "252 column sets and the turn search, "}, {0, 0, 1, 252, "252 column sets, "},
      {1, 0, 2, 127, "126 column sets and the turn search, "}, {1, 1, 2, 126, "126 column sets, "},
      {1, 0, 1, 2, "1 column set and the turn search, "},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *text = join_units_line(cases[k].unique, cases[k].units, cases[k].slice, cases[k].slices);
    ck_assert_msg(strstr(text, cases[k].says) != NULL, "case %zu: %s", k, text);
    ck_assert_msg(strstr(text, "its tables within 0 MiB a rank") != NULL, "case %zu: %s", k, text);
    free(text);
  }
}
END_TEST

/* A slice says how the slices make Q(n): by merging their journals, or,
 * where none was kept, by adding their counts (there is no journal to
 * merge). */
START_TEST(test_slice_text_says_how_to_add_the_slices) {
  for (int journaled = 0; journaled <= 1; journaled++) {
    nq_count_result_t result;
    nq_count_result_init(&result);
    mpz_set_ui(result.solutions, 1);
    result.slice_index = 2;
    result.slice_count = 5;
    char *text = count_text_journaled(&result, NQ_FORMAT_TEXT, 12, 0, journaled);
    const char *says = journaled ? "slice 3/5 of Q(12): 1 solution (merge every slice's journal "
                                   "with --merge for Q(12))\n"
                                 : "slice 3/5 of Q(12): 1 solution (no journal kept: Q(12) is "
                                   "the sum of all 5 slices' counts;";
    ck_assert_msg(strncmp(text, says, strlen(says)) == 0, "journaled %d: %s", journaled, text);
    free(text);
  }
}
END_TEST

/* The slices a merge wants again, as runs of consecutive ones: the first
 * ten runs, then "..." (and 1) where more follow; slice numbers 1-based. */
/* Whether `text`, as a file, reads as a record holding a total; its
 * board and total are checked where it does. */
static int total_of_file(const char *text, int *n, char solutions[NQ__RECORD_TOTAL_SIZE]) {
  char path[] = "/tmp/nq-record-XXXXXX";
  const int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *file = fdopen(fd, "w");
  ck_assert_ptr_nonnull(file);
  ck_assert_int_ge(fputs(text, file), 0);
  ck_assert_int_eq(fclose(file), 0);
  const int found = nq__record_total_read(path, n, solutions);
  unlink(path);
  return found;
}

START_TEST(test_record_total_read) {
  int n = -1;
  char total[NQ__RECORD_TOTAL_SIZE] = "";
  ck_assert_int_eq(total_of_file("{\"solutions\":\"14200\",\"n\":12,\"record\":\"count\"}", &n,
                                 total),
                   1);
  ck_assert_int_eq(n, 12);
  ck_assert_str_eq(total, "14200");
  ck_assert_int_eq(total_of_file("{\"record\":\"merge\",\"n\":27,\"complete\":true,"
                                 "\"solutions\":\"234907967154122528\"}\n",
                                 &n, total),
                   1);
  ck_assert_int_eq(n, 27);
  ck_assert_str_eq(total, "234907967154122528");
  static const char *const without_total[] = {
      "{\"record\":\"merge\",\"n\":12,\"complete\":false}",
      "{\"record\":\"merge\",\"n\":12,\"solutions\":\"14200\"}",
      "{\"record\":\"count\",\"n\":12,\"solutions\":\"6808\",\"slice\":\"1/2\"}",
      "{\"record\":\"count\",\"n\":12,\"solutions\":14200}",
      "{\"record\":\"count\",\"n\":12,\"solutions\":\"142a0\"}",
      "{\"record\":\"count\",\"n\":12,\"solutions\":\"\"}",
      "{\"record\":\"count\",\"n\":65,\"solutions\":\"1\"}",
      "{\"record\":\"count\",\"n\":12,\"n\":13,\"solutions\":\"14200\"}",
      "{\"record\":\"estimate\",\"n\":12,\"solutions\":\"14200\"}",
      "{}",
      "[\"count\"]",
      "Q(12) = 14200",
      "",
  };
  for (size_t i = 0; i < sizeof without_total / sizeof without_total[0]; i++)
    ck_assert_msg(total_of_file(without_total[i], &n, total) == 0, "read a total from %s",
                  without_total[i]);
  ck_assert_int_eq(nq__record_total_read("/nonexistent/record.json", &n, total), 0);
}
END_TEST

START_TEST(test_merge_slice_runs) {
  static int one[] = {4}, runs[] = {1, 4, 5, 6, 8, 9}, spaced[11];
  for (int i = 0; i < 11; i++)
    spaced[i] = 2 * i + 1; /* slices 2, 4, ..., 22: eleven runs */
  const struct {
    int *slices, count, cut;
    const char *says;
  } cases[] = {
      {one, 1, 0, "5"},
      {runs, 6, 0, "2, 5..7, 9..10"},
      {spaced, 11, 1, "2, 4, 6, 8, 10, 12, 14, 16, 18, 20, ..."},
      {spaced, 10, 0, "2, 4, 6, 8, 10, 12, 14, 16, 18, 20"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    nq__merge_result_t result = {.slice_count = 22,
                                 .slices_missing = cases[k].slices,
                                 .slices_missing_count = cases[k].count};
    char text[NQ__MERGE_SLICE_RUNS_SIZE];
    ck_assert_int_eq(nq__merge_slice_runs(text, &result), cases[k].cut);
    ck_assert_msg(strcmp(text, cases[k].says) == 0, "case %zu: \"%s\"", k, text);
  }
  /* The longest text: eleven runs of two of the largest slice numbers. */
  static int largest[22];
  for (int i = 0; i < 22; i++)
    largest[i] = NQ_SLICE_MAX - 34 + i / 2 * 3 + i % 2;
  nq__merge_result_t result = {.slice_count = NQ_SLICE_MAX,
                               .slices_missing = largest,
                               .slices_missing_count = 22};
  char text[NQ__MERGE_SLICE_RUNS_SIZE];
  ck_assert_int_eq(nq__merge_slice_runs(text, &result), 1);
  ck_assert_msg(strncmp(text, "999967..999968, 999970..999971, ", 32) == 0 &&
                    strcmp(text + strlen(text) - 19, "999994..999995, ...") == 0,
                "%s", text);
}
END_TEST

static char *first_output(nq__format_t format, int n, const uint8_t *columns,
                          nq_first_kind_t kind) {
  memory_t m;
  memory_open(&m, NQ_OUTPUT_CAPACITY);
  ck_assert_int_eq(nq__output_first(&m.output, format, n, columns, kind, 0.5), NQ_OK);
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
  /* n = 0 named as --list names it, not a bare "columns:". */
  text = first_output(NQ_FORMAT_TEXT, 0, columns, NQ_FIRST_LEXICOGRAPHIC);
  ck_assert_str_eq(text, "Lexicographically first solution for n = 0:\n(the empty board)\n");
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

/* Where the buffer fills must not show in the bytes: rows and single
 * characters through the smallest buffer, enough of them that pieces end
 * right at its end, give what the default buffer gives (which the tests
 * above pin). */
START_TEST(test_pieces_through_the_smallest_buffer) {
  static const uint8_t columns[5] = {1, 3, 0, 2, 4};
  memory_t small, large;
  memory_open(&small, NQ_OUTPUT_MIN_CAPACITY);
  memory_open(&large, NQ_OUTPUT_CAPACITY);
  for (int i = 0; i < 1000; i++) {
    nq__format_t format = i % 2 ? NQ_FORMAT_JSON : NQ_FORMAT_TEXT;
    ck_assert_int_eq(
        nq__output_first(&small.output, format, 5, columns, NQ_FIRST_CONSTRUCTED, 0.5), NQ_OK);
    ck_assert_int_eq(
        nq__output_first(&large.output, format, 5, columns, NQ_FIRST_CONSTRUCTED, 0.5), NQ_OK);
  }
  memory_close(&small);
  memory_close(&large);
  ck_assert_uint_gt(large.size, 10 * NQ_OUTPUT_MIN_CAPACITY);
  ck_assert_uint_eq(small.size, large.size);
  assert_same_text(small.text, large.text, "--first, 1000 times");
  free(small.text);
  free(large.text);
}
END_TEST

/* ---- The listing command, end to end in this process -------------------- */

/* The command line as the program runs it, on MPI_COMM_SELF, with its
 * words separated by single spaces. */
static int run_app(FILE *out, FILE *err, const char *line) {
  char words[256], *argv[16] = {"nqueens-mpi"};
  int argc = 1;
  ck_assert_uint_lt(strlen(line), sizeof words);
  strcpy(words, line);
  for (char *word = strtok(words, " "); word != NULL; word = strtok(NULL, " ")) {
    ck_assert_int_lt(argc, 15);
    argv[argc++] = word;
  }
  return nq__app_main(argc, argv, MPI_COMM_SELF, out, err);
}

typedef struct command {
  int status;
  char *out, *err;
  size_t out_size, err_size;
} command_t;

static command_t run_command(const char *line) {
  command_t c = {0};
  FILE *out = open_memstream(&c.out, &c.out_size);
  FILE *err = open_memstream(&c.err, &c.err_size);
  ck_assert_ptr_nonnull(out);
  ck_assert_ptr_nonnull(err);
  c.status = run_app(out, err, line);
  ck_assert_int_eq(fclose(out), 0);
  ck_assert_int_eq(fclose(err), 0);
  return c;
}

static void command_free(command_t *c) {
  free(c->out);
  free(c->err);
}

/* stdout carries boards only: a size without any says so on stderr in
 * text, while JSON's empty array says it by itself. */
static void assert_listing(int n, nq__format_t format, size_t limit) {
  char line[64];
  snprintf(line, sizeof line, "-n %d --list%s%s", n,
           format == NQ_FORMAT_JSON ? " --format json" : "", limit ? " --limit" : "");
  if (limit)
    snprintf(line + strlen(line), sizeof line - strlen(line), " %zu", limit);
  command_t c = run_command(line);
  char *expected = expected_listing(n, format, limit);
  char expected_err[64] = "";
  if (brute_solutions(n)->count == 0 && format == NQ_FORMAT_TEXT)
    snprintf(expected_err, sizeof expected_err, "nqueens-mpi: no solution exists for n = %d\n",
             n);
  ck_assert_msg(c.status == 0, "'%s': status %d", line, c.status);
  assert_same_text(c.out, expected, line);
  ck_assert_str_eq(c.err, expected_err);
  free(expected);
  command_free(&c);
}

START_TEST(test_list_command_text_matches_brute_force) {
  assert_listing(_i, NQ_FORMAT_TEXT, 0);
}
END_TEST

START_TEST(test_list_command_json_matches_brute_force) {
  assert_listing(_i, NQ_FORMAT_JSON, 0);
}
END_TEST

/* Limits below, at and above Q(8) = 92, and on boards with 0 and 1
 * solutions. */
START_TEST(test_list_command_limit_gives_the_first_boards) {
  static const struct {
    int n;
    size_t limit;
  } cases[] = {{8, 1}, {8, 2}, {8, 5}, {8, 91}, {8, 92}, {8, 93}, {10, 700}, {0, 1}, {3, 2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_listing(cases[i].n, NQ_FORMAT_TEXT, cases[i].limit);
    assert_listing(cases[i].n, NQ_FORMAT_JSON, cases[i].limit);
  }
}
END_TEST

/* Reads one text board of n rows at `text`: its columns, or NULL when the
 * rows are not n squares of '.' with one 'Q' each.  Returns the end. */
static const char *read_board(const char *text, int n, uint8_t *columns) {
  for (int row = 0; row < n; row++) {
    int queen = -1;
    for (int col = 0; col < n; col++, text++) {
      if (*text == 'Q' && queen < 0)
        queen = col;
      else if (*text != '.')
        return NULL;
    }
    if (*text++ != '\n' || queen < 0)
      return NULL;
    columns[row] = (uint8_t)queen;
  }
  return text;
}

/* Beyond the brute force (n = 11..13, up to 13 MB, several times the
 * program's buffer): Q(n) boards as OEIS counts them, each a solution by
 * the brute force's check, in strictly increasing lexicographic order. */
START_TEST(test_list_command_gives_oeis_counts) {
  int n = _i;
  char line[32];
  snprintf(line, sizeof line, "-n %d --list", n);
  command_t c = run_command(line);
  ck_assert_int_eq(c.status, 0);
  ck_assert_str_eq(c.err, "");
  uint8_t columns[2][64];
  uint64_t boards = 0;
  for (const char *at = c.out; *at != '\0'; boards++) {
    uint8_t *board = columns[boards % 2], *previous = columns[(boards + 1) % 2];
    if (boards > 0)
      ck_assert_msg(*at++ == '\n', "n %d: no blank line before board %llu", n,
                    (unsigned long long)boards);
    at = read_board(at, n, board);
    ck_assert_msg(at != NULL, "n %d: board %llu is not n rows of one Q", n,
                  (unsigned long long)boards);
    ck_assert_msg(brute_is_solution(board, n), "n %d: board %llu is no solution", n,
                  (unsigned long long)boards);
    ck_assert_msg(boards == 0 || memcmp(previous, board, (size_t)n) < 0,
                  "n %d: board %llu is out of order", n, (unsigned long long)boards);
  }
  ck_assert_uint_eq(boards, known_all[n]);
  command_free(&c);
}
END_TEST

/* ---- Write errors ---------------------------------------------------------- */

/* Every writer through the output: the error shows once the buffer is
 * written out, and keeps the errno of the failed write. */
static void assert_writers_fail(FILE *stream, nq__format_t format, int expected_errno) {
  static const uint8_t columns[4] = {1, 3, 0, 2};
  nq__output_t output;
  nq_count_result_t result;
  nq_count_result_init(&result);
  mpz_set_ui(result.solutions, 2);
  ck_assert_int_eq(nq__output_open(&output, stream, NQ_OUTPUT_CAPACITY), NQ_OK);
  ck_assert_int_eq(nq__output_count(&output, format, 4, 1, 0, &result), NQ_OK);
  ck_assert_int_eq(nq__output_flush(&output), NQ_EIO);
  ck_assert_int_eq(output.write_errno, expected_errno);
  nq__output_close(&output);
  nq_count_result_clear(&result);

  clearerr(stream);
  nq__board_writer_t writer;
  ck_assert_int_eq(nq__output_open(&output, stream, NQ_OUTPUT_CAPACITY), NQ_OK);
  ck_assert_int_eq(nq__output_boards_begin(&writer, &output, format, 4), NQ_OK);
  ck_assert_int_eq(nq__output_board(&writer, columns, 4), NQ_OK);
  ck_assert_int_eq(nq__output_boards_end(&writer), NQ_OK);
  ck_assert_int_eq(nq__output_flush(&output), NQ_EIO);
  ck_assert_int_eq(output.write_errno, expected_errno);
  nq__output_close(&output);

  clearerr(stream);
  ck_assert_int_eq(nq__output_open(&output, stream, NQ_OUTPUT_CAPACITY), NQ_OK);
  ck_assert_int_eq(nq__output_first(&output, format, 4, columns, NQ_FIRST_LEXICOGRAPHIC, 0),
                   NQ_OK);
  ck_assert_int_eq(nq__output_flush(&output), NQ_EIO);
  ck_assert_int_eq(output.write_errno, expected_errno);
  nq__output_close(&output);
}

START_TEST(test_writers_report_a_read_only_stream) {
  FILE *read_only = fopen("/dev/null", "r");
  ck_assert_ptr_nonnull(read_only);
  assert_writers_fail(read_only, (nq__format_t)_i, EBADF);
  fclose(read_only);
}
END_TEST

START_TEST(test_writers_report_a_full_disk) {
  FILE *disk = full_disk();
  assert_writers_fail(disk, (nq__format_t)_i, ENOSPC);
  fclose(disk);
}
END_TEST

/* A listing larger than the buffer fails while boards are still coming:
 * the board that filled it says so, and the search can stop there. */
START_TEST(test_list_stops_at_the_first_failed_write) {
  static const uint8_t board[4] = {1, 3, 0, 2};
  FILE *disk = full_disk();
  nq__output_t output;
  nq__board_writer_t writer;
  ck_assert_int_eq(nq__output_open(&output, disk, NQ_OUTPUT_MIN_CAPACITY), NQ_OK);
  ck_assert_int_eq(nq__output_boards_begin(&writer, &output, NQ_FORMAT_TEXT, 4), NQ_OK);
  int rc = NQ_OK;
  uint64_t boards = 0;
  while (rc == NQ_OK && boards < 10000) {
    rc = nq__output_board(&writer, board, 4);
    boards++;
  }
  ck_assert_int_eq(rc, NQ_EIO);
  ck_assert_int_eq(output.write_errno, ENOSPC);
  /* A board of 4 rows and its separator, 21 bytes: the buffer holds 390. */
  ck_assert_uint_eq(boards, NQ_OUTPUT_MIN_CAPACITY / 21 + 1);
  ck_assert_int_eq(nq__output_boards_end(&writer), NQ_EIO);
  ck_assert_int_eq(nq__output_flush(&output), NQ_EIO);
  nq__output_close(&output);
  fclose(disk);
}
END_TEST

/* What the user reads: one line, the system's reason last, status 1. */
START_TEST(test_commands_name_the_full_disk) {
  static const struct {
    const char *line, *message;
  } cases[] = {
      {"-n 8 --list", "nqueens-mpi: listing failed: write to output failed: "
                      "No space left on device\n"},
      {"-n 8 --list --format json", "nqueens-mpi: listing failed: write to output failed: "
                                    "No space left on device\n"},
      {"-n 8", "nqueens-mpi: writing the count failed: write to output failed: "
               "No space left on device\n"},
      {"-n 8 --format json", "nqueens-mpi: writing the count failed: write to output failed: "
                             "No space left on device\n"},
      {"-n 8 --first", "nqueens-mpi: --first failed: write to output failed: "
                       "No space left on device\n"},
      {"--help", "nqueens-mpi: writing failed: write to output failed: "
                 "No space left on device\n"},
      {"--version", "nqueens-mpi: writing failed: write to output failed: "
                    "No space left on device\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *message = NULL;
    size_t size = 0;
    FILE *disk = full_disk(), *err = open_memstream(&message, &size);
    ck_assert_ptr_nonnull(err);
    int status = run_app(disk, err, cases[i].line);
    fclose(disk);
    ck_assert_int_eq(fclose(err), 0);
    ck_assert_msg(status == 1, "'%s' on a full disk: status %d", cases[i].line, status);
    ck_assert_str_eq(message, cases[i].message);
    free(message);
  }
}
END_TEST

/* A progress line of a resumed run: its rate and ETA from the units it
 * solved itself (400 in 2 s: 200 units/s, 500 left: 2.5 s), not from the
 * 600 it took from the journal. */
/* JSON text is UTF-8: a name's characters kept whole, quotes, backslashes
 * and control characters escaped, and each byte that starts no UTF-8
 * character (a file name in Latin-1, a lone continuation, an overlong
 * form, a surrogate, past U+10FFFF, a sequence cut short) as U+FFFD. */
START_TEST(test_json_strings_are_utf8) {
  static const struct {
    const char *text, *json;
  } cases[] = {
      {"r\xc3\xa9sum\xc3\xa9 \xe2\x82\xac \xf0\x9f\x91\x91",
       "\"r\xc3\xa9sum\xc3\xa9 \xe2\x82\xac \xf0\x9f\x91\x91\""},
      {"a\"b\\c\n", "\"a\\\"b\\\\c\\u000a\""},
      {"\xff\xfe", "\"\\ufffd\\ufffd\""},
      {"caf\xe9.journal", "\"caf\\ufffd.journal\""},
      {"\x80", "\"\\ufffd\""},
      {"\xc0\xaf", "\"\\ufffd\\ufffd\""},
      {"\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\""},
      {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},
      {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},
      {"\xe2\x82", "\"\\ufffd\\ufffd\""},
      {"\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    memory_t m;
    memory_open(&m, NQ_OUTPUT_CAPACITY);
    nq__output_json_string(&m.output, cases[i].text);
    memory_close(&m);
    ck_assert_msg(strcmp(m.text, cases[i].json) == 0, "case %zu: %s", i, m.text);
    free(m.text);
  }
}
END_TEST

START_TEST(test_progress_leaves_resumed_units_out) {
  char *text = NULL;
  size_t size = 0;
  FILE *err = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(err);
  nq_count_options_t options = {.n = 8};
  nq__progress_printer_t printer;
  nq__progress_attach(&options, &printer, err, 60);
  mpz_t solutions;
  mpz_init_set_ui(solutions, 1234);
  const nq_count_progress_t progress = {.units_done = 1000, .units_total = 1500,
                                        .units_resumed = 600,
                                        .solutions = (const mpz_t *)&solutions,
                                        .seconds = 2.0};
  options.progress(&progress, options.progress_context);
  ck_assert_int_eq(fclose(err), 0);
  ck_assert_str_eq(text, "nqueens-mpi: 1000/1500 units (66.7%), 1234 solutions so far, 200 "
                         "units/s, 2 s elapsed, ETA 2 s\n");
  mpz_clear(solutions);
  free(text);
}
END_TEST

static Suite *output_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("output");
  TCase *list = support_tcase("list");
  tcase_add_test(list, test_list_n4_text_is_exact);
  tcase_add_test(list, test_list_n4_json_is_exact);
  tcase_add_test(list, test_list_empty_board_is_exact);
  tcase_add_loop_test(list, test_list_text_matches_boards_built_here, 0, BRUTE_MAX_N + 1);
  tcase_add_loop_test(list, test_list_json_matches_boards_built_here, 0, BRUTE_MAX_N + 1);
  tcase_add_loop_test(list, test_list_through_the_smallest_buffer, NQ_FORMAT_TEXT,
                      NQ_FORMAT_JSON + 1);
  tcase_add_test(list, test_list_without_boards);
  tcase_add_test(list, test_list_rejects_boards_that_do_not_fit);
  tcase_add_test(list, test_open_rejects_a_buffer_too_small_for_a_board);
  suite_add_tcase(suite, list);
  TCase *count = support_tcase("count");
  tcase_add_test(count, test_count_json_is_exact);
  tcase_add_test(count, test_count_json_with_unique_is_exact);
  tcase_add_test(count, test_count_text_is_exact);
  tcase_add_test(count, test_count_text_singular_is_exact);
  tcase_add_test(count, test_count_text_says_where_checks_ran);
  tcase_add_test(count, test_count_text_names_the_turn_search);
  tcase_add_test(count, test_slice_text_says_how_to_add_the_slices);
  tcase_add_test(count, test_merge_slice_runs);
  tcase_add_test(count, test_record_total_read);
  tcase_add_test(count, test_estimate_text_is_exact);
  tcase_add_test(count, test_estimate_json_is_exact);
  tcase_add_test(count, test_estimate_interval_follows_degrees);
  tcase_add_test(count, test_estimate_without_spread_gives_no_interval);
  tcase_add_test(count, test_join_estimate_is_exact);
  tcase_add_test(count, test_progress_leaves_resumed_units_out);
  tcase_add_test(count, test_json_strings_are_utf8);
  suite_add_tcase(suite, count);
  TCase *first = support_tcase("first");
  tcase_add_test(first, test_first_json_is_exact);
  tcase_add_test(first, test_first_text_is_exact);
  tcase_add_test(first, test_first_constructed_text_is_exact);
  tcase_add_test(first, test_first_without_solution_is_exact);
  tcase_add_test(first, test_pieces_through_the_smallest_buffer);
  suite_add_tcase(suite, first);
  TCase *command = support_tcase("command");
  tcase_add_loop_test(command, test_list_command_text_matches_brute_force, 0, BRUTE_MAX_N + 1);
  tcase_add_loop_test(command, test_list_command_json_matches_brute_force, 0, BRUTE_MAX_N + 1);
  tcase_add_test(command, test_list_command_limit_gives_the_first_boards);
  tcase_add_loop_test(command, test_list_command_gives_oeis_counts, BRUTE_MAX_N + 1, 14);
  suite_add_tcase(suite, command);
  TCase *errors = support_tcase("errors");
  tcase_add_loop_test(errors, test_writers_report_a_read_only_stream, NQ_FORMAT_TEXT,
                      NQ_FORMAT_JSON + 1);
  tcase_add_loop_test(errors, test_writers_report_a_full_disk, NQ_FORMAT_TEXT,
                      NQ_FORMAT_JSON + 1);
  tcase_add_test(errors, test_list_stops_at_the_first_failed_write);
  tcase_add_test(errors, test_commands_name_the_full_disk);
  suite_add_tcase(suite, errors);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, output_suite); }
