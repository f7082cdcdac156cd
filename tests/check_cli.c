#define _POSIX_C_SOURCE 200809L /* open_memstream */

/* The cli module: nq__cli_parse accepts the documented command lines and
 * rejects bad ones with a one-line message that names the problem. */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nqueens/error.h"
#include "support.h"

enum { MAX_WORDS = 14 };

/* argv from a NULL-terminated word list, in writable storage as main's. */
typedef struct command_line {
  int argc;
  char *argv[MAX_WORDS + 2];
  char storage[MAX_WORDS + 1][64];
} command_line_t;

static void make_command_line(command_line_t *line, const char *const *words) {
  memset(line, 0, sizeof *line);
  strcpy(line->storage[0], "nqueens-mpi");
  line->argv[0] = line->storage[0];
  line->argc = 1;
  for (int i = 0; words[i] != NULL; i++) {
    ck_assert_int_lt(i, MAX_WORDS);
    ck_assert_uint_lt(strlen(words[i]), sizeof line->storage[0]);
    strcpy(line->storage[line->argc], words[i]);
    line->argv[line->argc] = line->storage[line->argc];
    line->argc++;
  }
  line->argv[line->argc] = NULL;
}

static int parse(nq__cli_t *cli, char *message, const char *const *words) {
  command_line_t line;
  make_command_line(&line, words);
  return nq__cli_parse(cli, message, line.argc, line.argv);
}

typedef struct good_case {
  const char *words[MAX_WORDS + 1];
  nq__cli_t expected;
} good_case_t;

static const good_case_t good_cases[] = {
    {{"-n", "8", NULL}, {.n = 8, .mode = NQ_MODE_COUNT, .format = NQ_FORMAT_TEXT}},
    {{"--size=8", NULL}, {.n = 8, .mode = NQ_MODE_COUNT}},
    {{"--size", "12", NULL}, {.n = 12, .mode = NQ_MODE_COUNT}},
    {{"-n", "8", "--list", "--limit", "3", NULL}, {.n = 8, .mode = NQ_MODE_LIST, .limit = 3}},
    {{"--list", "--limit=3", "-n", "8", NULL}, {.n = 8, .mode = NQ_MODE_LIST, .limit = 3}},
    {{"-n", "8", "-l", NULL}, {.n = 8, .mode = NQ_MODE_LIST}},
    {{"-n", "8", "--format", "json", NULL}, {.n = 8, .format = NQ_FORMAT_JSON}},
    {{"-n", "8", "--format=text", NULL}, {.n = 8, .format = NQ_FORMAT_TEXT}},
    {{"-n", "8", "-u", NULL}, {.n = 8, .unique = 1}},
    {{"-n", "16", "--unique", "--format", "json", NULL},
     {.n = 16, .unique = 1, .format = NQ_FORMAT_JSON}},
    {{"-n", "8", "--unique", "--list", "--limit", "5", NULL},
     {.n = 8, .mode = NQ_MODE_LIST, .unique = 1, .limit = 5}},
    {{"-n", "8", "--first", NULL}, {.n = 8, .mode = NQ_MODE_FIRST}},
    {{"-f", "-n", "40", NULL}, {.n = 40, .mode = NQ_MODE_FIRST}},
    {{"-n", "0", NULL}, {.n = 0}},
    {{"-n", "64", NULL}, {.n = 64}},
    {{"-n8", NULL}, {.n = 8}},
    {{"-h", NULL}, {.mode = NQ_MODE_HELP}},
    {{"--help", NULL}, {.mode = NQ_MODE_HELP}},
    {{"-V", NULL}, {.mode = NQ_MODE_VERSION}},
    {{"--version", NULL}, {.mode = NQ_MODE_VERSION}},
    {{"-n", "16", "--walk", "scalar", NULL}, {.n = 16, .walk = NQ_WALK_SCALAR}},
    {{"-n", "40", "--walk=scalar", NULL}, {.n = 40, .walk = NQ_WALK_SCALAR}},
    {{"-n", "40", "--walk", "auto", NULL}, {.n = 40, .walk = NQ_WALK_AUTO}},
    /* Accepted on any CPU: whether every rank can run it is nq_count_run's
     * collective decision, since ranks may sit on different CPUs. */
    {{"-n", "32", "--walk", "avx512", NULL}, {.n = 32, .walk = NQ_WALK_AVX512}},
};

START_TEST(test_parse_accepts_good_command_lines) {
  const good_case_t *good = &good_cases[_i];
  nq__cli_t cli;
  char message[NQ__MESSAGE_SIZE] = "unchanged";
  int rc = parse(&cli, message, good->words);
  ck_assert_msg(rc == NQ_OK, "case %d (%s ...) rejected: %s", _i, good->words[0], message);
  ck_assert_int_eq(cli.mode, good->expected.mode);
  if (cli.mode != NQ_MODE_HELP && cli.mode != NQ_MODE_VERSION)
    ck_assert_int_eq(cli.n, good->expected.n);
  ck_assert_int_eq(cli.format, good->expected.format);
  ck_assert_uint_eq(cli.limit, good->expected.limit);
  ck_assert_int_eq(cli.unique, good->expected.unique);
  ck_assert_int_eq(cli.walk, good->expected.walk);
}
END_TEST

typedef struct bad_case {
  const char *words[MAX_WORDS + 1];
  const char *named; /* what the message must mention */
} bad_case_t;

static const bad_case_t bad_cases[] = {
    {{NULL}, "-n"},           /* missing -n */
    {{"--list", NULL}, "-n"}, /* still missing */
    {{"-n", "abc", NULL}, "abc"},
    {{"-n", "012", NULL}, "leading zero"}, /* not 12, not octal 10 */
    {{"-n", "10", "-t", "02", NULL}, "02"},
    {{"-n", "-1", NULL}, "-1"},
    {{"-n", "65", NULL}, "65"},
    {{"-n", "99999999999999999999999", NULL}, "99999999999999999999999"},
    {{"-n", "", NULL}, "size"},
    {{"-n", "8x", NULL}, "8x"},
    {{"-x", "-n", "8", NULL}, "-x"},
    {{"-n", "8", "--bogus", NULL}, "--bogus"},
    {{"-n", NULL}, "-n"}, /* -n without value */
    {{"--size", NULL}, "--size"},
    {{"-n", "8", "-n", "9", NULL}, "more than once"},
    {{"-n", "8", "--list", "--list", NULL}, "--list"},
    {{"-n", "8", "--list", "--first", NULL}, "--first"},
    {{"-n", "8", "--first", "--list", NULL}, "--list"},
    {{"-n", "8", "--limit", "3", NULL}, "--limit"}, /* without --list */
    {{"-n", "8", "--list", "--limit", "0", NULL}, "--limit"},
    {{"-n", "8", "--list", "--limit", "-3", NULL}, "-3"},
    {{"-n", "8", "--list", "--limit", "abc", NULL}, "abc"},
    {{"-n", "8", "--list", "--limit", NULL}, "--limit"},
    {{"-n", "8", "--format", "xml", NULL}, "xml"},
    {{"-n", "8", "--unique", "--first", NULL}, "--unique"},
    {{"-n", "8", "foo", NULL}, "foo"}, /* stray operand */
    /* A job script's count with --help or --version added: no text where
     * a result is awaited. */
    {{"-n", "20", "--format", "json", "--help", NULL}, "--help takes no other option (--size"},
    {{"--version", "--checkpoint", "j", NULL}, "--version takes no other option (--checkpoint"},
    {{"-V", "-q", NULL}, "--version takes no other option (--quiet"},
    {{"-n", "12", "--estimate", "--seed", "9223372036854775808", NULL},
     "--seed 9223372036854775808 is too large (at most 9223372036854775807)"},
    {{"foo", "-n", "8", NULL}, "foo"},
    {{"-n", "8", "--list=3", NULL}, "--list"},
    {{"-n", "8", "--list", "--limit", "99999999999999999999999", NULL}, "too large"},
    {{"-n", "8", "--format", NULL}, "--format"},
    {{"-n", "8", "--format", "json", "--format", "text", NULL}, "--format"},
    {{"-n", "8", "--li", NULL}, "ambiguous"},
    {{"-n", "8", "--walk", "simd", NULL}, "simd"},
    {{"-n", "8", "--walk", NULL}, "--walk"},
    {{"-n", "8", "--walk", "scalar", "--walk", "auto", NULL}, "--walk"},
    {{"-n", "8", "--list", "--walk", "scalar", NULL}, "--walk"},
    {{"-n", "8", "--first", "--walk", "scalar", NULL}, "--walk"},
    {{"-n", "33", "--walk", "avx512", NULL}, "33"},
    {{"-n", "8", "--list", "--gpu", NULL}, "--gpu"},
    {{"-n", "8", "--gpu", "--gpu", NULL}, "--gpu"},
    {{"-n", "8", "--progress", "x", NULL}, "'x'"},
    {{"-n", "8", "--progress", "-1", NULL}, "'-1'"},
    {{"-n", "8", "--progress", "86401", NULL}, "86401"},
    {{"-n", "8", "--list", "--progress", "5", NULL}, "--progress"},
    {{"-n", "8", "--first", "-q", NULL}, "--quiet"},
    {{"-n", "8", "--list", "--checkpoint", "j", NULL}, "--checkpoint"},
    {{"-n", "8", "--checkpoint", "", NULL}, "--checkpoint"},
    {{"--status", "j", "-n", "8", NULL}, "-n"},
    {{"--status", "j", "--list", NULL}, "--status"},
    {{"--status", "j", "-t", "2", NULL}, "--threads"},
    {{"--status", "j", "--method", "join", NULL}, "--method"},
    {{"-q", "--status", "j", NULL}, "--quiet"},
    {{"--status", "j", "--progress", "5", NULL}, "--progress"},
    {{"-n", "8", "--estimate", "0", NULL}, "'0'"},
    {{"-n", "8", "--estimate", "-1", NULL}, "'-1'"},
    {{"-n", "8", "--estimate", "junk", NULL}, "'junk'"},
    {{"-n", "8", "--estimate=", NULL}, "--estimate"},
    {{"-n", "8", "--estimate", "inf", NULL}, "'inf'"},
    {{"-n", "8", "--estimate", "--list", NULL}, "--list"},
    {{"-n", "8", "--list", "--estimate", NULL}, "--estimate"},
    {{"-n", "8", "--estimate", "--estimate-ranks", "0", NULL}, "--estimate-ranks"},
    {{"-n", "8", "--estimate", "--estimate-samples", "1", NULL}, "--estimate-samples"},
    {{"-n", "8", "--estimate", "5", "--estimate-samples", "4", NULL}, "--estimate-samples K"},
    {{"-n", "8", "--estimate-samples", "4", "--estimate", "5", NULL}, "--estimate SECS"},
    {{"-n", "8", "--estimate", "--unique", NULL}, "--unique"},
    {{"-n", "8", "--estimate", "--checkpoint", "j", NULL}, "--checkpoint"},
    {{"-n", "8", "--estimate-samples", "4", NULL}, "--estimate"},
    {{"-n", "8", "--estimate", "--estimate-strata", "4", NULL}, "--estimate-strata"},
    {{"-n", "18", "--estimate", "--method", "backtrack", "--estimate-strata", "4", NULL},
     "--estimate-strata"},
    {{"-n", "18", "--estimate", "--estimate-strata", "0", NULL}, "--estimate-strata"},
    {{"-n", "18", "--estimate-strata", "4", NULL}, "--estimate"},
    {{"-n", "8", "--seed", "1", NULL}, "--estimate"},
    {{"-n", "18", "--memory", "1K", NULL}, "'1K'"},
    {{"-n", "18", "--memory", "1048575", NULL}, "'1048575'"},
    {{"-n", "18", "--memory", "12Q", NULL}, "'12Q'"},
    {{"-n", "18", "--memory", "-5G", NULL}, "'-5G'"},
    {{"-n", "18", "--memory", "G", NULL}, "'G'"},
    {{"-n", "18", "--memory", "", NULL}, "--memory"},
    {{"-n", "18", "--memory", "99999999999T", NULL}, "too large"},
    {{"-n", "18", "--memory", "1025T", NULL}, "at most 1024T"},
    {{"-n", "8", "--list", "--memory", "2G", NULL}, "--memory"},
    {{"-n", "8", "--estimate", "--seed", "x", NULL}, "--seed"},
    {{"-n", "8", "--slice", "0/3", NULL}, "0/3"},
    {{"-n", "8", "--slice", "4/3", NULL}, "4/3"},
    {{"-n", "8", "--slice", "3", NULL}, "'3'"},
    {{"-n", "8", "--slice", "/3", NULL}, "/3"},
    {{"-n", "8", "--slice", "1/x", NULL}, "1/x"},
    {{"-n", "8", "--slice", "1/1000001", NULL}, "1/1000001"},
    {{"-n", "8", "--list", "--slice", "1/2", NULL}, "--slice"},
    {{"-n", "8", "--verify", "0.5", NULL}, "--checkpoint"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "0", NULL}, "'0'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "1.5", NULL}, "'1.5'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "x", NULL}, "'x'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "0x1p-1", NULL}, "'0x1p-1'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", " 0.5", NULL}, "' 0.5'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "+0.5", NULL}, "'+0.5'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "nan", NULL}, "'nan'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "1e-400", NULL}, "'1e-400'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", ".", NULL}, "'.'"},
    {{"-n", "8", "--checkpoint", "j", "--verify", "5e", NULL}, "'5e'"},
    {{"-n", "8", "--estimate", "0x10", NULL}, "'0x10'"},
    {{"-n", "8", "--estimate", "1e999", NULL}, "'1e999'"},
    {{"-n", "8", "--estimate", "-0.5", NULL}, "'-0.5'"},
    {{"-n", "8", "--estimate-samples", "4294967297", "--estimate", NULL}, "4294967297"},
    {{"-n", "8", "--method", "magic", NULL}, "'magic'"},
    {{"-n", "8", "--method", "join", "--gpu", NULL}, "--gpu"},
    {{"-n", "8", "--method", "join", "--walk", "scalar", NULL}, "--walk"},
    {{"-n", "33", "--method", "join", NULL}, "33"},
    {{"-n", "8", "--first", "--method", "join", NULL}, "--method"},
    {{"-n", "8", "--list", "--method", "backtrack", NULL}, "--method"},
    {{"--merge", NULL}, "--merge"},
    {{"--merge", "-n", "8", "a", NULL}, "-n"},
    {{"--merge", "a", "--unique", "b", NULL}, "--unique"}, /* after the files too */
    {{"--unique", "--merge", "a", NULL}, "--unique"},
    {{"-n", "8", "--json", "", NULL}, "--json"},
    {{"-n", "8", "--list", "--json", "r.json", NULL}, "--json"},
    {{"-n", "8", "--estimate", "--json", "r.json", NULL}, "--json"},
};

/* Slices, verification, merge and --json as parsed.  The command lines
 * stay alive: the parsed options point into them. */
START_TEST(test_parse_record_options) {
  nq__cli_t cli;
  char message[NQ__MESSAGE_SIZE];
  const char *slice[] = {"-n", "20", "--slice", "2/7", "--checkpoint", "j", "--verify",
                         "0.25", "--seed", "9", "--json", "r.json", NULL};
  command_line_t line;
  make_command_line(&line, slice);
  ck_assert_int_eq(nq__cli_parse(&cli, message, line.argc, line.argv), NQ_OK);
  ck_assert_int_eq(cli.slice_index, 1);
  ck_assert_int_eq(cli.slice_count, 7);
  ck_assert(cli.verify == 0.25);
  ck_assert_uint_eq(cli.seed, 9);
  ck_assert_str_eq(cli.json_file, "r.json");
  const char *merge[] = {"--format", "json", "--json", "m.json", "--merge", "a", "b", NULL};
  make_command_line(&line, merge);
  ck_assert_int_eq(nq__cli_parse(&cli, message, line.argc, line.argv), NQ_OK);
  ck_assert_int_eq(cli.mode, NQ_MODE_MERGE);
  ck_assert_int_eq(cli.merge_count, 2);
  ck_assert_str_eq(cli.merge_files[0], "a");
  ck_assert_str_eq(cli.merge_files[1], "b");
  ck_assert_str_eq(cli.json_file, "m.json");
  /* Options after the files, and between them, as GNU tools take them;
   * after "--", words that look like options are files. */
  const char *after[] = {"--merge", "a", "--format", "json", "b", "--json", "m.json", "--",
                         "-c", NULL};
  make_command_line(&line, after);
  ck_assert_int_eq(nq__cli_parse(&cli, message, line.argc, line.argv), NQ_OK);
  ck_assert_int_eq(cli.format, NQ_FORMAT_JSON);
  ck_assert_str_eq(cli.json_file, "m.json");
  ck_assert_int_eq(cli.merge_count, 3);
  ck_assert_str_eq(cli.merge_files[0], "a");
  ck_assert_str_eq(cli.merge_files[1], "b");
  ck_assert_str_eq(cli.merge_files[2], "-c");
}
END_TEST

/* The counting switches with their defaults: progress every 60 s, not
 * quiet, no GPU. */
START_TEST(test_parse_counting_switches) {
  static const struct {
    const char *words[MAX_WORDS + 1];
    double progress;
    int quiet, gpu;
    nq__method_choice_t method;
  } cases[] = {
      {{"-n", "8", NULL}, 60, 0, 0, NQ_METHOD_AUTO},
      {{"-n", "8", "--progress", "5", NULL}, 5, 0, 0, NQ_METHOD_AUTO},
      {{"-n", "8", "--progress=0", NULL}, 0, 0, 0, NQ_METHOD_AUTO},
      {{"-n", "8", "-q", NULL}, 60, 1, 0, NQ_METHOD_AUTO},
      {{"-n", "8", "--quiet", "--gpu", NULL}, 60, 1, 1, NQ_METHOD_AUTO},
      {{"-n", "8", "--method", "backtrack", "--gpu", NULL}, 60, 0, 1, NQ_METHOD_BACKTRACK},
      {{"-n", "32", "--method=join", "-q", "-t", "2", NULL}, 60, 1, 0, NQ_METHOD_JOIN},
      {{"-n", "9", "--method", "join", "--progress", "2", NULL}, 2, 0, 0, NQ_METHOD_JOIN},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nq__cli_t cli;
    char message[NQ__MESSAGE_SIZE];
    ck_assert_int_eq(parse(&cli, message, cases[i].words), NQ_OK);
    ck_assert_msg(cli.progress == cases[i].progress, "case %zu: progress %g", i, cli.progress);
    ck_assert_int_eq(cli.quiet, cases[i].quiet);
    ck_assert_int_eq(cli.gpu, cases[i].gpu);
    ck_assert_int_eq(cli.method, cases[i].method);
  }
}
END_TEST

/* --method auto takes the join for a count where it measured faster
 * (NQ_CLI_JOIN_FROM_N..TO_N), U(n), journals, slices, verification and
 * --json included, and the backtracker whenever an option asks for what
 * only it gives (a walk, GPUs); a method given is kept. */
START_TEST(test_method_auto_chooses) {
  static const struct {
    const char *words[MAX_WORDS + 1];
    nq__method_choice_t method;
  } cases[] = {
      {{"-n", "18", NULL}, NQ_METHOD_JOIN},
      {{"-n", "20", "-t", "2", "--progress", "5", "--format", "json", NULL}, NQ_METHOD_JOIN},
      {{"-n", "19", "--method", "auto", NULL}, NQ_METHOD_JOIN},
      {{"-n", "13", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "14", NULL}, NQ_METHOD_JOIN},
      {{"-n", "15", NULL}, NQ_METHOD_JOIN},
      {{"-n", "16", NULL}, NQ_METHOD_JOIN},
      {{"-n", "17", NULL}, NQ_METHOD_JOIN},
      {{"-n", "21", NULL}, NQ_METHOD_JOIN},
      {{"-n", "24", NULL}, NQ_METHOD_JOIN},
      {{"-n", "25", NULL}, NQ_METHOD_JOIN},
      {{"-n", "28", NULL}, NQ_METHOD_JOIN},
      {{"-n", "29", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "18", "--unique", NULL}, NQ_METHOD_JOIN},
      {{"-n", "13", "--unique", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "18", "--walk", "scalar", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "18", "--gpu", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "18", "--checkpoint", "j", NULL}, NQ_METHOD_JOIN},
      {{"-n", "18", "--slice", "1/2", NULL}, NQ_METHOD_JOIN},
      {{"-n", "18", "--json", "r.json", NULL}, NQ_METHOD_JOIN},
      {{"-n", "18", "--checkpoint", "j", "--verify", "0.1", NULL}, NQ_METHOD_JOIN},
      {{"-n", "18", "--estimate", NULL}, NQ_METHOD_JOIN},
      {{"-n", "12", "--estimate", "--method", "join", "--estimate-strata", "4", NULL},
       NQ_METHOD_JOIN},
      {{"-n", "22", "--estimate", NULL}, NQ_METHOD_JOIN},
      {{"-n", "27", "--estimate", NULL}, NQ_METHOD_JOIN},
      {{"-n", "29", "--estimate", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "18", "--estimate", "--method", "backtrack", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "18", "--method", "backtrack", NULL}, NQ_METHOD_BACKTRACK},
      {{"-n", "12", "--method", "join", NULL}, NQ_METHOD_JOIN},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nq__cli_t cli;
    char message[NQ__MESSAGE_SIZE];
    ck_assert_msg(parse(&cli, message, cases[i].words) == NQ_OK, "case %zu: %s", i, message);
    ck_assert_msg(nq__cli_method(&cli) == cases[i].method, "case %zu: method %d", i,
                  (int)nq__cli_method(&cli));
  }
}
END_TEST

/* Whether the join could count (auto resuming a join's journal asks):
 * not past 32, not with what only the backtracker gives. */
START_TEST(test_join_possible) {
  static const struct {
    const char *words[MAX_WORDS + 1];
    int possible;
  } cases[] = {
      {{"-n", "12", NULL}, 1},
      {{"-n", "32", "--unique", "--method", "backtrack", NULL}, 1},
      {{"-n", "33", NULL}, 0},
      {{"-n", "18", "--walk", "scalar", NULL}, 0},
      {{"-n", "18", "--gpu", NULL}, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nq__cli_t cli;
    char message[NQ__MESSAGE_SIZE];
    ck_assert_msg(parse(&cli, message, cases[i].words) == NQ_OK, "case %zu: %s", i, message);
    ck_assert_msg(nq__cli_join_possible(&cli) == cases[i].possible, "case %zu", i);
  }
}
END_TEST

/* --memory's sizes: bytes, or KiB to TiB by their letter in either case. */
START_TEST(test_parse_memory) {
  static const struct {
    const char *words[MAX_WORDS + 1];
    size_t bytes;
  } cases[] = {
      {{"-n", "18", NULL}, 0},
      {{"-n", "18", "--memory", "1048576", NULL}, (size_t)1 << 20},
      {{"-n", "18", "--memory", "4G", NULL}, (size_t)4 << 30},
      {{"-n", "18", "--memory", "512m", NULL}, (size_t)512 << 20},
      {{"-n", "18", "--memory", "2048k", NULL}, (size_t)2 << 20},
      {{"-n", "28", "--estimate", "--memory", "1T", NULL}, (size_t)1 << 40},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nq__cli_t cli;
    char message[NQ__MESSAGE_SIZE];
    ck_assert_msg(parse(&cli, message, cases[i].words) == NQ_OK, "case %zu: %s", i, message);
    ck_assert_msg(cli.memory == cases[i].bytes, "case %zu: %zu bytes", i, cli.memory);
  }
}
END_TEST

/* --estimate's value may follow as the next word or after '='; without
 * one, the default time and seed. */
START_TEST(test_parse_estimate_options) {
  static const struct {
    const char *words[MAX_WORDS + 1];
    double seconds;
    uint64_t samples, ranks, seed;
  } cases[] = {
      {{"-n", "8", "--estimate", NULL}, NQ_CLI_ESTIMATE_SECONDS, 0, 0, NQ_CLI_ESTIMATE_SEED},
      {{"-n", "8", "--estimate", "5", NULL}, 5, 0, 0, NQ_CLI_ESTIMATE_SEED},
      {{"-n", "8", "--estimate=2.5", "--seed", "0", NULL}, 2.5, 0, 0, 0},
      {{"-n", "8", "--estimate", ".5", NULL}, 0.5, 0, 0, NQ_CLI_ESTIMATE_SEED},
      {{"-n", "8", "--estimate", "6.", NULL}, 6, 0, 0, NQ_CLI_ESTIMATE_SEED},
      {{"-n", "8", "--estimate", "1.5E+2", NULL}, 150, 0, 0, NQ_CLI_ESTIMATE_SEED},
      {{"-n", "8", "--estimate", "--estimate-samples", "4294967296", NULL},
       NQ_CLI_ESTIMATE_SECONDS, (uint64_t)1 << 32, 0, NQ_CLI_ESTIMATE_SEED},
      {{"--estimate", "-n", "8", "--estimate-ranks", "64", NULL}, NQ_CLI_ESTIMATE_SECONDS, 0, 64,
       NQ_CLI_ESTIMATE_SEED},
      {{"-n", "8", "--estimate", "--estimate-samples", "4", "--seed", "9", NULL},
       NQ_CLI_ESTIMATE_SECONDS, 4, 0, 9},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nq__cli_t cli;
    char message[NQ__MESSAGE_SIZE];
    ck_assert_msg(parse(&cli, message, cases[i].words) == NQ_OK, "case %zu: %s", i, message);
    ck_assert_int_eq(cli.mode, NQ_MODE_ESTIMATE);
    ck_assert_int_eq(cli.n, 8);
    ck_assert_msg(cli.estimate_seconds == cases[i].seconds, "case %zu: %g s", i,
                  cli.estimate_seconds);
    ck_assert_uint_eq(cli.estimate_samples, cases[i].samples);
    ck_assert_uint_eq(cli.estimate_ranks, cases[i].ranks);
    ck_assert_uint_eq(cli.seed, cases[i].seed);
  }
}
END_TEST

START_TEST(test_parse_rejects_bad_command_lines) {
  const bad_case_t *bad = &bad_cases[_i];
  nq__cli_t cli;
  char message[NQ__MESSAGE_SIZE];
  memset(message, 'Z', sizeof message);
  int rc = parse(&cli, message, bad->words);
  ck_assert_msg(rc == NQ_EINVAL, "case %d (%s ...) returned %d", _i,
                bad->words[0] ? bad->words[0] : "no arguments", rc);
  ck_assert_msg(memchr(message, '\0', sizeof message) != NULL, "case %d: unterminated", _i);
  ck_assert_msg(message[0] != '\0', "case %d: empty message", _i);
  ck_assert_msg(strchr(message, '\n') == NULL, "case %d: message spans lines: %s", _i, message);
  ck_assert_msg(strstr(message, bad->named) != NULL, "case %d: '%s' does not mention '%s'", _i,
                message, bad->named);
}
END_TEST

/* The parser keeps no state between calls: a rejection then the same good
 * line, twice over. */
START_TEST(test_parse_runs_repeatedly) {
  static const char *const good[] = {"-n", "8", "--list", NULL};
  static const char *const bad[] = {"-n", "8", "--bogus", NULL};
  for (int round = 0; round < 2; round++) {
    nq__cli_t cli;
    char message[NQ__MESSAGE_SIZE];
    ck_assert_int_eq(parse(&cli, message, bad), NQ_EINVAL);
    ck_assert_int_eq(parse(&cli, message, good), NQ_OK);
    ck_assert_int_eq(cli.n, 8);
    ck_assert_int_eq(cli.mode, NQ_MODE_LIST);
  }
}
END_TEST

START_TEST(test_parse_truncates_message_to_buffer) {
  /* A value longer than the message's room: the line is cut, still ended. */
  static char program[] = "nqueens-mpi", size_option[] = "-n", long_value[2 * NQ__MESSAGE_SIZE];
  memset(long_value, '9', sizeof long_value - 1);
  char *argv[] = {program, size_option, long_value, NULL};
  nq__cli_t cli;
  char message[NQ__MESSAGE_SIZE];
  memset(message, 'Z', sizeof message);
  ck_assert_int_eq(nq__cli_parse(&cli, message, 3, argv), NQ_EINVAL);
  ck_assert_uint_eq(strlen(message), sizeof message - 1);
}
END_TEST

START_TEST(test_print_help_mentions_every_option) {
  static const char *const options[] = {"-n", "--size", "-u", "--unique", "-l", "--list",
                                        "--limit", "-f", "--first", "--format", "-h",
                                        "--help", "-V", "--version", "json", "text",
                                        "--walk", "scalar", "avx512", "auto", "--gpu",
                                        "--progress", "-q", "--quiet", "--checkpoint",
                                        "--status", "--estimate", "--estimate-samples",
                                        "--estimate-ranks", "--seed", "--method", "join",
                                        "backtrack", "auto"};
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  nq__cli_print_help(out);
  ck_assert_int_eq(fclose(out), 0);
  for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
    ck_assert_msg(strstr(text, options[i]) != NULL, "help does not mention %s", options[i]);
  free(text);
}
END_TEST

/* Every error code the program can report has a message of its own (the
 * table in nqueens/error.h), and a code outside it says so. */
START_TEST(test_every_error_has_its_own_message) {
#define CODE_OF(name, value, message) name,
  static const int codes[] = {NQ_ERROR_TABLE(CODE_OF)};
#undef CODE_OF
  const size_t count = sizeof codes / sizeof codes[0];
  ck_assert_uint_ge(count, 15);
  for (size_t i = 0; i < count; i++) {
    ck_assert_int_le(codes[i], 0);
    ck_assert_str_ne(nq_strerror(codes[i]), "unknown error");
    for (size_t j = 0; j < i; j++) {
      ck_assert_int_ne(codes[i], codes[j]);
      ck_assert_str_ne(nq_strerror(codes[i]), nq_strerror(codes[j]));
    }
  }
  ck_assert_str_eq(nq_strerror(-1000), "unknown error");
  ck_assert_str_eq(nq_strerror(1), "unknown error");
}
END_TEST

static Suite *cli_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("cli");
  TCase *parse_case = support_tcase("parse");
  tcase_add_loop_test(parse_case, test_parse_accepts_good_command_lines, 0,
                      (int)(sizeof good_cases / sizeof good_cases[0]));
  tcase_add_loop_test(parse_case, test_parse_rejects_bad_command_lines, 0,
                      (int)(sizeof bad_cases / sizeof bad_cases[0]));
  tcase_add_test(parse_case, test_parse_runs_repeatedly);
  tcase_add_test(parse_case, test_parse_counting_switches);
  tcase_add_test(parse_case, test_method_auto_chooses);
  tcase_add_test(parse_case, test_join_possible);
  tcase_add_test(parse_case, test_parse_memory);
  tcase_add_test(parse_case, test_parse_estimate_options);
  tcase_add_test(parse_case, test_parse_record_options);
  tcase_add_test(parse_case, test_parse_truncates_message_to_buffer);
  tcase_add_test(parse_case, test_every_error_has_its_own_message);
  suite_add_tcase(suite, parse_case);
  TCase *help = support_tcase("help");
  tcase_add_test(help, test_print_help_mentions_every_option);
  suite_add_tcase(suite, help);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, cli_suite); }
