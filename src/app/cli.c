#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/options.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "nqueens/slice.h"
#include "nqueens/units.h"

enum {
  OPT_LIMIT = 256,
  OPT_FORMAT,
  OPT_WALK,
  OPT_METHOD,
  OPT_GPU,
  OPT_PROGRESS,
  OPT_CHECKPOINT,
  OPT_ESTIMATE,
  OPT_ESTIMATE_SAMPLES,
  OPT_ESTIMATE_RANKS,
  OPT_ESTIMATE_STRATA,
  OPT_SEED,
  OPT_SLICE,
  OPT_VERIFY,
  OPT_MERGE,
  OPT_JSON,
  OPT_MEMORY,
  OPT_STATUS /* the last: it sizes parser_t's seen[] */
};

static const struct option long_options[] = {
    {"size", required_argument, NULL, 'n'},
    {"list", no_argument, NULL, 'l'},
    {"first", no_argument, NULL, 'f'},
    {"unique", no_argument, NULL, 'u'},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"walk", required_argument, NULL, OPT_WALK},
    {"method", required_argument, NULL, OPT_METHOD},
    {"gpu", no_argument, NULL, OPT_GPU},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"checkpoint", required_argument, NULL, OPT_CHECKPOINT},
    {"status", required_argument, NULL, OPT_STATUS},
    {"estimate", optional_argument, NULL, OPT_ESTIMATE},
    {"estimate-samples", required_argument, NULL, OPT_ESTIMATE_SAMPLES},
    {"estimate-ranks", required_argument, NULL, OPT_ESTIMATE_RANKS},
    {"estimate-strata", required_argument, NULL, OPT_ESTIMATE_STRATA},
    {"seed", required_argument, NULL, OPT_SEED},
    {"slice", required_argument, NULL, OPT_SLICE},
    {"verify", required_argument, NULL, OPT_VERIFY},
    {"merge", no_argument, NULL, OPT_MERGE},
    {"json", required_argument, NULL, OPT_JSON},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"threads", required_argument, NULL, 't'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};

/* '+': stop at the first operand instead of reordering argv (the parser
 * moves operands itself: take_operands); ':': report a missing value apart
 * from an unknown option. */
static const char short_options[] = "+:n:t:lfuqhV";

typedef struct parser {
  nq__cli_t *cli;
  int argc;
  char **argv;
  char *message; /* NQ__MESSAGE_SIZE bytes */
  int seen[OPT_STATUS + 1];
  int have_n;
  int estimate_seconds_given; /* --estimate SECS, not --estimate alone */
  int operands; /* argv[operands..argc-1]: the words that are not options */
} parser_t;

static int fail(parser_t *p, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(p->message, NQ__MESSAGE_SIZE, format, args);
  va_end(args);
  return NQ_EINVAL;
}

static const char *option_name(int option) {
  for (const struct option *o = long_options; o->name != NULL; o++)
    if (o->val == option)
      return o->name;
  return "?";
}

/* Digits only, optional leading '-', no leading zero (012 is refused, not
 * read as 12: one spelling for each number, as the journal's); ERANGE and
 * junk are told apart. */
static int parse_integer(long long *value, const char *text) {
  const char *digits = text[0] == '-' ? text + 1 : text;
  if (digits[0] == '\0' || strspn(digits, "0123456789") != strlen(digits) ||
      (digits[0] == '0' && digits[1] != '\0'))
    return NQ_EINVAL;
  errno = 0;
  *value = strtoll(text, NULL, 10);
  return errno == ERANGE ? NQ_EOVERFLOW : NQ_OK;
}

/* A plain decimal: digits with at most one point and an optional exponent.
 * strtod alone would also take hex ("0x1p-1"), "inf", "nan", leading
 * spaces and a '+'; refusing those gives each number one spelling, as
 * parse_integer does for whole numbers. */
static int parse_decimal(double *value, const char *text) {
  size_t whole = strspn(text, "0123456789");
  size_t point = text[whole] == '.';
  size_t fraction = strspn(text + whole + point, "0123456789");
  const char *rest = text + whole + point + fraction;
  if (whole + fraction == 0)
    return NQ_EINVAL;
  if (*rest == 'e' || *rest == 'E') {
    rest += 1 + (rest[1] == '-' || rest[1] == '+');
    size_t exponent = strspn(rest, "0123456789");
    if (exponent == 0)
      return NQ_EINVAL;
    rest += exponent;
  }
  if (*rest != '\0')
    return NQ_EINVAL;
  errno = 0;
  *value = strtod(text, NULL);
  return errno == ERANGE || !isfinite(*value) ? NQ_EOVERFLOW : NQ_OK;
}

static int parse_size(parser_t *p, const char *text) {
  long long value;
  int rc = parse_integer(&value, text);
  if (rc == NQ_EINVAL && text[0] == '0' && strspn(text, "0123456789") == strlen(text))
    return fail(p, "board size '%s' has a leading zero (a typo? it is not read as octal or as "
                   "%lld)", text, strtoll(text, NULL, 10));
  if (rc == NQ_EINVAL)
    return fail(p, "board size '%s' is not a whole number", text);
  if (rc == NQ_EOVERFLOW || value < 0 || value > NQ_MAX_N)
    return fail(p, "board size %s is out of range (0 to %d)", text, NQ_MAX_N);
  p->cli->n = (int)value;
  p->have_n = 1;
  return NQ_OK;
}

static int parse_limit(parser_t *p, const char *text) {
  long long value;
  int rc = parse_integer(&value, text);
  if (rc == NQ_EINVAL || (rc == NQ_OK && value <= 0))
    return fail(p, "--limit '%s' is not a positive whole number", text);
  if (rc == NQ_EOVERFLOW)
    return fail(p, "--limit %s is too large", text);
  p->cli->limit = (uint64_t)value;
  return NQ_OK;
}

static int parse_threads(parser_t *p, const char *text) {
  long long value;
  int rc = parse_integer(&value, text);
  if (rc != NQ_OK || value < 1 || value > NQ_COUNT_MAX_THREADS)
    return fail(p, "--threads '%s' is not a whole number from 1 to %d", text, NQ_COUNT_MAX_THREADS);
  p->cli->threads = (int)value;
  return NQ_OK;
}

static int parse_checkpoint(parser_t *p, const char *text) {
  if (text[0] == '\0')
    return fail(p, "--checkpoint needs a file name");
  p->cli->checkpoint = text;
  return NQ_OK;
}

/* Whole seconds, up to a day: a longer silence would look like a hang. */
static int parse_progress(parser_t *p, const char *text) {
  long long value;
  int rc = parse_integer(&value, text);
  if (rc != NQ_OK || value < 0 || value > 86400)
    return fail(p, "--progress '%s' is not a number of seconds from 0 to 86400", text);
  p->cli->progress = (double)value;
  return NQ_OK;
}

/* --estimate's optional SECONDS may be the next word (--estimate 20), as
 * well as --estimate=20: a next word that is a number, or no option,
 * is taken as the value, so that "--estimate -1" is refused as a time. */
static const char *optional_value(parser_t *p, const char *value) {
  if (value != NULL || optind >= p->operands)
    return value;
  const char *next = p->argv[optind];
  double ignored;
  if (next[0] != '-' || parse_decimal(&ignored, next + 1) != NQ_EINVAL) {
    optind++;
    return next;
  }
  return NULL;
}

/* Seconds, more than 0 and up to a week (probing longer gains little:
 * the error only falls as the square root of the time). */
static int parse_estimate(parser_t *p, const char *text) {
  text = optional_value(p, text);
  if (text == NULL)
    return NQ_OK;
  double value;
  if (parse_decimal(&value, text) != NQ_OK || value <= 0 || value > 604800)
    return fail(p, "--estimate '%s' is not a number of seconds above 0 (at most 604800)", text);
  p->cli->estimate_seconds = value;
  p->estimate_seconds_given = 1;
  return NQ_OK;
}

/* A whole number from `least` up; `what` names it in the message. */
static int parse_count(parser_t *p, uint64_t *out, const char *text, long long least,
                       const char *what) {
  long long value;
  int rc = parse_integer(&value, text);
  if (rc == NQ_EINVAL || (rc == NQ_OK && value < least))
    return fail(p, "--%s '%s' is not a whole number from %lld up", what, text, least);
  if (rc == NQ_EOVERFLOW)
    return fail(p, "--%s %s is too large (at most %lld)", what, text, LLONG_MAX);
  *out = (uint64_t)value;
  return NQ_OK;
}

/* Bytes, or a whole number of KiB, MiB, GiB or TiB with K, M, G or T
 * after it; from NQ_CLI_LEAST_MEMORY to NQ_CLI_MOST_MEMORY. */
static int parse_memory(parser_t *p, const char *text) {
  static const char units[] = "KMGT";
  char digits[24];
  size_t length = strlen(text);
  const char *unit = length > 0 ? strchr(units, toupper((unsigned char)text[length - 1])) : NULL;
  int shift = unit != NULL && *unit != '\0' ? 10 * (int)(unit - units + 1) : 0;
  size_t digit_count = length - (shift > 0);
  long long value = 0;
  int rc = NQ_EINVAL;
  if (digit_count > 0 && digit_count < sizeof digits) {
    memcpy(digits, text, digit_count);
    digits[digit_count] = '\0';
    rc = parse_integer(&value, digits);
  }
  if (rc == NQ_OK && value > 0 && (unsigned long long)value > (NQ_CLI_MOST_MEMORY >> shift))
    rc = NQ_EOVERFLOW;
  if (rc == NQ_EOVERFLOW)
    return fail(p, "--memory %s is too large (at most 1024T)", text);
  if (rc != NQ_OK || value <= 0 || ((size_t)value << shift) < NQ_CLI_LEAST_MEMORY)
    return fail(p, "--memory '%s' is not a size of at least 1M (bytes, or with K, M, G or T)",
                text);
  p->cli->memory = (size_t)value << shift;
  return NQ_OK;
}

/* "I/K": slice I of K, 1 <= I <= K <= NQ_SLICE_MAX. */
static int parse_slice(parser_t *p, const char *text) {
  const char *slash = strchr(text, '/');
  long long index = 0, count = 0;
  char index_text[24];
  size_t index_length = slash ? (size_t)(slash - text) : 0;
  int ok = slash != NULL && index_length > 0 && index_length < sizeof index_text;
  if (ok) {
    memcpy(index_text, text, index_length);
    index_text[index_length] = '\0';
    ok = parse_integer(&index, index_text) == NQ_OK && parse_integer(&count, slash + 1) == NQ_OK;
  }
  if (!ok || count < 1 || count > NQ_SLICE_MAX || index < 1 || index > count)
    return fail(p, "--slice '%s' is not I/K with 1 <= I <= K <= %d", text, NQ_SLICE_MAX);
  p->cli->slice_index = (int)index - 1;
  p->cli->slice_count = (int)count;
  return NQ_OK;
}

/* A share of the journal's batches: above 0, at most 1. */
static int parse_verify(parser_t *p, const char *text) {
  double value;
  if (parse_decimal(&value, text) != NQ_OK || value <= 0 || value > 1)
    return fail(p, "--verify '%s' is not a fraction above 0 and at most 1", text);
  p->cli->verify = value;
  return NQ_OK;
}

static int parse_format(parser_t *p, const char *text) {
  if (strcmp(text, "text") == 0)
    p->cli->format = NQ_FORMAT_TEXT;
  else if (strcmp(text, "json") == 0)
    p->cli->format = NQ_FORMAT_JSON;
  else
    return fail(p, "unknown --format '%s' (use text or json)", text);
  return NQ_OK;
}

static int parse_method(parser_t *p, const char *text) {
  if (strcmp(text, "auto") == 0)
    p->cli->method = NQ_METHOD_AUTO;
  else if (strcmp(text, "backtrack") == 0)
    p->cli->method = NQ_METHOD_BACKTRACK;
  else if (strcmp(text, "join") == 0)
    p->cli->method = NQ_METHOD_JOIN;
  else
    return fail(p, "unknown --method '%s' (use auto, backtrack or join)", text);
  return NQ_OK;
}

static int parse_walk(parser_t *p, const char *text) {
  for (nq_walk_t walk = NQ_WALK_AUTO; walk <= NQ_WALK_AVX512; walk++)
    if (strcmp(text, nq_walk_name(walk)) == 0) {
      p->cli->walk = walk;
      return NQ_OK;
    }
  return fail(p, "unknown --walk '%s' (use auto, scalar or avx512)", text);
}

static int set_mode(parser_t *p, nq__mode_t mode, const char *name) {
  if (p->cli->mode != NQ_MODE_COUNT && p->cli->mode != mode) {
    static const char *const names[] = {"", "--list", "--first", "--help", "--version",
                                        "--status", "--estimate", "--merge"};
    return fail(p, "%s cannot be combined with %s", names[p->cli->mode], name);
  }
  p->cli->mode = mode;
  return NQ_OK;
}

static int take_option(parser_t *p, int option, const char *value) {
  switch (option) {
  case 'n': return parse_size(p, value);
  case 'l': return set_mode(p, NQ_MODE_LIST, "--list");
  case 'f': return set_mode(p, NQ_MODE_FIRST, "--first");
  case 'h': return set_mode(p, NQ_MODE_HELP, "--help");
  case 'V': return set_mode(p, NQ_MODE_VERSION, "--version");
  case 'u': p->cli->unique = 1; return NQ_OK;
  case OPT_LIMIT: return parse_limit(p, value);
  case OPT_FORMAT: return parse_format(p, value);
  case OPT_WALK: return parse_walk(p, value);
  case OPT_METHOD: return parse_method(p, value);
  case OPT_GPU: p->cli->gpu = 1; return NQ_OK;
  case OPT_PROGRESS: return parse_progress(p, value);
  case OPT_CHECKPOINT: return parse_checkpoint(p, value);
  case OPT_STATUS:
    if (value[0] == '\0')
      return fail(p, "--status needs a file name");
    p->cli->status = value;
    return set_mode(p, NQ_MODE_STATUS, "--status");
  case OPT_ESTIMATE: {
    int rc = parse_estimate(p, value);
    return rc == NQ_OK ? set_mode(p, NQ_MODE_ESTIMATE, "--estimate") : rc;
  }
  case OPT_ESTIMATE_SAMPLES: {
    int rc = parse_count(p, &p->cli->estimate_samples, value, 2, "estimate-samples");
    if (rc == NQ_OK && p->cli->estimate_samples > NQ_CLI_MOST_ESTIMATE_SAMPLES)
      return fail(p, "--estimate-samples %s is too large (at most %" PRIu64 " a frame)", value,
                  NQ_CLI_MOST_ESTIMATE_SAMPLES);
    return rc;
  }
  case OPT_ESTIMATE_RANKS:
    return parse_count(p, &p->cli->estimate_ranks, value, 1, "estimate-ranks");
  case OPT_ESTIMATE_STRATA:
    return parse_count(p, &p->cli->estimate_strata, value, 1, "estimate-strata");
  case OPT_SEED:
    p->cli->seed_given = 1;
    return parse_count(p, &p->cli->seed, value, 0, "seed");
  case OPT_SLICE: return parse_slice(p, value);
  case OPT_VERIFY: return parse_verify(p, value);
  case OPT_MERGE: return set_mode(p, NQ_MODE_MERGE, "--merge");
  case OPT_MEMORY:
    return parse_memory(p, value);
  case OPT_JSON:
    if (value[0] == '\0')
      return fail(p, "--json needs a file name");
    p->cli->json_file = value;
    return NQ_OK;
  case 't': return parse_threads(p, value);
  case 'q': p->cli->quiet = 1; return NQ_OK;
  default: return NQ_EINVAL;
  }
}

/* --estimate probes as a count would search: the count's own options that
 * change the search or its output have no meaning there. */
static int check_estimate(parser_t *p) {
  static const int count_only[] = {'u', OPT_GPU, OPT_CHECKPOINT, OPT_PROGRESS};
  for (size_t i = 0; i < sizeof count_only / sizeof count_only[0]; i++)
    if (p->seen[count_only[i]])
      return fail(p, "--%s cannot be combined with --estimate", option_name(count_only[i]));
  /* Probes by number or for a time: taking one would silently drop the
   * other. */
  if (p->estimate_seconds_given && p->seen[OPT_ESTIMATE_SAMPLES])
    return fail(p, "--estimate SECS and --estimate-samples K are two ways to end the probes: "
                   "give one");
  /* The backtracker's strata are its frames: their number is the board's. */
  if (p->seen[OPT_ESTIMATE_STRATA] && nq__cli_method(p->cli) != NQ_METHOD_JOIN)
    return fail(p, "--estimate-strata applies to the join's estimate (n %d-%d or --method join), "
                   "not the backtracker's",
                NQ_CLI_JOIN_FROM_N, NQ_CLI_JOIN_TO_N);
  return NQ_OK;
}

/* --merge reads journals: they name the board and options, and only the
 * output's form can be chosen. */
static int check_merge(parser_t *p) {
  if (p->have_n)
    return fail(p, "--merge takes no -n: the journals name their board");
  for (int option = 0; option <= OPT_STATUS; option++)
    if (p->seen[option] && option != OPT_MERGE && option != OPT_FORMAT && option != OPT_JSON)
      return fail(p, "--%s cannot be combined with --merge", option_name(option));
  if (p->cli->merge_count == 0)
    return fail(p, "--merge needs the journals to merge: --merge FILE...");
  return NQ_OK;
}

/* --status reads a journal and prints where its run stands: only the
 * format applies. */
static int check_status(parser_t *p) {
  if (p->have_n)
    return fail(p, "--status takes no -n: the journal names its board");
  for (int option = 0; option <= OPT_STATUS; option++)
    if (p->seen[option] && option != OPT_STATUS && option != OPT_FORMAT)
      return fail(p, "--%s cannot be combined with --status", option_name(option));
  return NQ_OK;
}

/* The join counts Q(n) and U(n) through the same run engine as the
 * backtracker (journal, slices, verification, --json): what only the
 * backtracker's units give (a chosen walk, GPUs) it cannot.  Returns the
 * option that asks for one of them, or 0. */
static int backtrack_only_option(const nq__cli_t *cli) {
  if (cli->walk != NQ_WALK_AUTO)
    return OPT_WALK;
  return cli->gpu ? OPT_GPU : 0;
}

static int check_join(parser_t *p) {
  if (p->cli->mode != NQ_MODE_COUNT && p->cli->mode != NQ_MODE_ESTIMATE)
    return fail(p, "--method only applies to counting and --estimate");
  if (p->cli->method != NQ_METHOD_JOIN)
    return NQ_OK;
  int option = backtrack_only_option(p->cli);
  if (option != 0)
    return fail(p, "--%s cannot be combined with --method join", option_name(option));
  if (p->cli->n > NQ_JOIN_MAX_N)
    return fail(p, "--method join counts boards up to %d, not %d", NQ_JOIN_MAX_N, p->cli->n);
  return NQ_OK;
}

int nq__cli_join_possible(const nq__cli_t *cli) {
  return cli->n <= NQ_JOIN_MAX_N && backtrack_only_option(cli) == 0;
}

nq__method_choice_t nq__cli_method(const nq__cli_t *cli) {
  if (cli->method != NQ_METHOD_AUTO)
    return cli->method;
  const int join_faster = cli->n >= NQ_CLI_JOIN_FROM_N && cli->n <= NQ_CLI_JOIN_TO_N;
  const int counting = cli->mode == NQ_MODE_COUNT || cli->mode == NQ_MODE_ESTIMATE;
  return counting && join_faster && backtrack_only_option(cli) == 0
             ? NQ_METHOD_JOIN
             : NQ_METHOD_BACKTRACK;
}

/* --help and --version answer alone: beside a count's options (a job
 * script's arguments) their text would go where a result is awaited, and
 * the run would pass for done. */
static int check_alone(parser_t *p) {
  const int asked = p->cli->mode == NQ_MODE_HELP ? 'h' : 'V';
  for (int option = 0; option <= OPT_STATUS; option++)
    if (p->seen[option] && option != asked)
      return fail(p, "--%s takes no other option (--%s given)", option_name(asked),
                  option_name(option));
  return NQ_OK;
}

/* Rules that concern the options together, checked once all are read. */
static int check_combination(parser_t *p) {
  nq__cli_t *cli = p->cli;
  if (cli->mode == NQ_MODE_HELP || cli->mode == NQ_MODE_VERSION)
    return check_alone(p);
  if (cli->mode == NQ_MODE_STATUS)
    return check_status(p);
  if (cli->mode == NQ_MODE_MERGE) {
    cli->merge_files = p->argv + p->operands;
    cli->merge_count = p->argc - p->operands;
    return check_merge(p);
  }
  if (!p->have_n)
    return fail(p, "missing board size: give -n N");
  static const int estimate_only[] = {OPT_ESTIMATE_SAMPLES, OPT_ESTIMATE_RANKS,
                                      OPT_ESTIMATE_STRATA};
  for (size_t i = 0; i < sizeof estimate_only / sizeof estimate_only[0]; i++)
    if (p->seen[estimate_only[i]] && cli->mode != NQ_MODE_ESTIMATE)
      return fail(p, "--%s only applies to --estimate", option_name(estimate_only[i]));
  if (p->seen[OPT_SEED] && cli->mode != NQ_MODE_ESTIMATE && !p->seen[OPT_VERIFY])
    return fail(p, "--seed only applies to --estimate and --verify");
  if (p->seen[OPT_JSON] && cli->mode != NQ_MODE_COUNT)
    return fail(p, "--json only applies to counting and --merge");
  if (p->seen[OPT_SLICE] && cli->mode != NQ_MODE_COUNT)
    return fail(p, "--slice only applies to counting");
  if (p->seen[OPT_VERIFY] && (cli->mode != NQ_MODE_COUNT || !cli->checkpoint))
    return fail(p, "--verify needs a count with --checkpoint: it re-solves journaled batches");
  if (cli->mode == NQ_MODE_ESTIMATE && check_estimate(p) != NQ_OK)
    return NQ_EINVAL;
  if (p->seen[OPT_METHOD] && check_join(p) != NQ_OK)
    return NQ_EINVAL;
  const int searching = cli->mode == NQ_MODE_COUNT || cli->mode == NQ_MODE_ESTIMATE;
  if (p->seen[OPT_LIMIT] && cli->mode != NQ_MODE_LIST)
    return fail(p, "--limit only applies to --list");
  if (cli->unique && cli->mode == NQ_MODE_FIRST)
    return fail(p, "--unique applies to counting and --list, not to --first");
  if (p->seen[OPT_WALK] && !searching)
    return fail(p, "--walk only applies to counting and --estimate");
  if (cli->threads && !searching)
    return fail(p, "--threads only applies to counting and --estimate");
  if (cli->memory && !searching)
    return fail(p, "--memory only applies to counting and --estimate");
  if (cli->gpu && cli->mode != NQ_MODE_COUNT)
    return fail(p, "--gpu only applies to counting");
  if (cli->checkpoint && cli->mode != NQ_MODE_COUNT)
    return fail(p, "--checkpoint only applies to counting");
  if ((p->seen[OPT_PROGRESS] || cli->quiet) && !searching)
    return fail(p, "%s only applies to counting", cli->quiet ? "--quiet" : "--progress");
  /* Whether the CPUs have AVX-512 is settled later, by all ranks together:
   * checked here, ranks on different CPUs would disagree. */
  if (cli->walk == NQ_WALK_AVX512 && cli->n > NQ_WALK_AVX512_MAX_N)
    return fail(p, "--walk avx512 counts boards up to %d, not %d", NQ_WALK_AVX512_MAX_N, cli->n);
  return NQ_OK;
}

static int reject_bad_option(parser_t *p, int option, char **argv) {
  const char *word = argv[optind - 1];
  if (option == ':')
    return fail(p, "option %s needs a value", word);
  if (strncmp(word, "--", 2) == 0 && strchr(word, '=') != NULL && optopt != 0)
    return fail(p, "option %.*s takes no value", (int)(strchr(word, '=') - word), word);
  if (strncmp(word, "--", 2) == 0)
    return fail(p, "unknown or ambiguous option '%s'", word);
  return fail(p, "unknown option '-%c'", optopt);
}

/* Moves argv[first..end-1] after argv[end..last-1], keeping the order of
 * each. */
static void move_back(char **argv, int first, int end, int last) {
  for (int moved = 0; moved < end - first; moved++) {
    char *word = argv[first];
    memmove(&argv[first], &argv[first + 1], (size_t)(last - first - 1) * sizeof *argv);
    argv[last - 1] = word;
  }
}

/* getopt stopped at an operand (or after "--"): the operands up to the next
 * option go to the back of argv, behind those taken before, so that options
 * may come after them too (GNU style: --merge a.j b.j --format json).
 * *scanned is where the moved operands begin.  Returns 1 when options
 * follow, 0 when the words are all read. */
static int take_operands(char **argv, int argc, int *scanned) {
  int last = *scanned, end = optind;
  if (optind >= last)
    return 0;
  const int after_dashes = optind > 1 && strcmp(argv[optind - 1], "--") == 0;
  while (end < last && (after_dashes || argv[end][0] != '-' || argv[end][1] == '\0'))
    end++;
  move_back(argv, optind, end, argc);
  *scanned -= end - optind;
  return optind < *scanned;
}

int nq__cli_parse(nq__cli_t *cli, char message[static NQ__MESSAGE_SIZE], int argc, char **argv) {
  parser_t p = {.cli = cli, .argc = argc, .argv = argv, .message = message};
  memset(cli, 0, sizeof *cli);
  cli->progress = 60;
  cli->estimate_seconds = NQ_CLI_ESTIMATE_SECONDS;
  cli->seed = NQ_CLI_ESTIMATE_SEED;
  message[0] = '\0';
  optind = 0; /* glibc: start afresh, so the parser can run more than once */
  opterr = 0;
  p.operands = argc; /* argv[operands..argc-1]: the operands, moved there */
  for (;;) {
    int option = getopt_long(p.operands, argv, short_options, long_options, NULL);
    if (option == -1 && take_operands(argv, argc, &p.operands))
      continue;
    if (option == -1)
      break;
    if (option == '?' || option == ':')
      return reject_bad_option(&p, option, argv);
    if (p.seen[option]++)
      return option == 'n' ? fail(&p, "board size given more than once")
                           : fail(&p, "option --%s given more than once", option_name(option));
    int rc = take_option(&p, option, optarg);
    if (rc != NQ_OK)
      return rc;
  }
  if (cli->mode != NQ_MODE_MERGE && p.operands < argc)
    return fail(&p, "unexpected argument '%s'", argv[p.operands]);
  return check_combination(&p);
}

/* A macro's value as a string literal, so that the help states auto's
 * range from the numbers the choice uses. */
#define NQ_CLI_TEXT_OF(x) #x
#define NQ_CLI_TEXT(x) NQ_CLI_TEXT_OF(x)

void nq__cli_print_help(FILE *out) {
  fputs("Usage: nqueens-mpi -n N [--list [--unique] [--limit K] | --first | --unique]\n"
        "                        [--format text|json]\n"
        "                        [--walk auto|scalar|avx512] [--gpu] [--progress SECS] [-q]\n"
        "                        [-t T] [--checkpoint FILE [--verify F [--seed S]]]\n"
        "                        [--slice I/K] [--json FILE]\n"
        "       nqueens-mpi -n N --method join [-t T] [--format text|json] [--progress S] [-q]\n"
        "                        [--checkpoint FILE [--verify F [--seed S]]] [--slice I/K]\n"
        "                        [--unique] [--json FILE] [--memory SIZE]\n"
        "       nqueens-mpi -n N --estimate [SECS] [--estimate-samples K] [--estimate-ranks P]\n"
        "                        [--estimate-strata K] [--seed S] [--format text|json]\n"
        "                        [--walk W] [--method M] [--memory SIZE] [-t T]\n"
        "       nqueens-mpi --status FILE [--format text|json]\n"
        "       nqueens-mpi --merge FILE... [--format text|json] [--json FILE]\n"
        "       mpirun -np P nqueens-mpi -n N ...\n"
        "\n"
        "Counts the solutions of the N-Queens problem exactly, spread over MPI ranks:\n"
        "rank 0 hands out work units and computes between messages, the others solve.\n"
        "\n"
        "Options:\n"
        "  -n, --size N       board size, 0 to 64 (required)\n"
        "  -u, --unique       also count solutions up to rotation and reflection; with\n"
        "                     --list, list one board of each class: the\n"
        "                     lexicographically least of its 8 images\n"
        "  -l, --list         print every solution as a board of Q and . (rank 0 alone),\n"
        "                     in lexicographic order; above N = 32 even the first\n"
        "                     board can take a long time to find\n"
        "      --limit K      with --list: stop after K boards\n"
        "  -f, --first        print one solution: the lexicographically first for N <= 32,\n"
        "                     a constructed one for larger N\n"
        "      --format F     text (default) or json: one JSON value on one line\n"
        "      --walk W       how to count: avx512 (eight searches at once in AVX-512\n"
        "                     registers, N <= 32), scalar, or auto (default: avx512\n"
        "                     where the CPU has it); --version lists those it has\n"
        "      --method M     counting and --estimate: backtrack (the work units above),\n"
        "                     join (top and bottom halves of the board joined column\n"
        "                     set by column set, N <= 32, docs/research.md; U(N) from\n"
        "                     a search of the solutions a turn fixes), or auto\n"
        "                     (default): join for a count of N = "
        NQ_CLI_TEXT(NQ_CLI_JOIN_FROM_N) " to " NQ_CLI_TEXT(NQ_CLI_JOIN_TO_N) ",\n"
        "                     where it measured faster, unless --walk or --gpu asks\n"
        "                     for the backtracker; both keep journals, slices and\n"
        "                     verification alike\n"
        "      --memory SIZE  the join's tables of tops on each rank, its threads\n"
        "                     together, stay within SIZE (bytes, or K, M, G, T;\n"
        "                     default: 7/8 of the Slurm task's memory under a job\n"
        "                     that states one, else 4G): a larger bucket is walked\n"
        "                     in parts\n"
        "  -t, --threads T    search threads per rank (default: every core this process\n"
        "                     may use when started alone, SLURM_CPUS_PER_TASK under\n"
        "                     Slurm, 1 under mpirun)\n"
        "      --gpu          count on CUDA GPUs too: on each node the ranks other than\n"
        "                     rank 0 take one GPU each (rank 0 too when alone); boards\n"
        "                     over 32 and --unique's symmetric frames stay on the CPU\n"
        "      --checkpoint F counting: record finished work in the journal F as it\n"
        "                     comes; rerun the same command to resume from it\n"
        "      --slice I/K    counting: only the I-th of K parts of the units, dealt so\n"
        "                     that the parts' work is alike (give each its own journal)\n"
        "      --verify F     with --checkpoint: once the count is complete, solve again\n"
        "                     a random share F (0 < F <= 1) of the journal's batches,\n"
        "                     each on another rank than the first time; a difference\n"
        "                     fails the run (status 1) and is marked in the journal\n"
        "      --merge F...   combine the journals F... (slices, reruns) into one\n"
        "                     result: missing ranges, units solved twice and whether\n"
        "                     they agree; the total only when every unit is there\n"
        "      --json F       counting or --merge: once done, also write the result with\n"
        "                     its provenance (times, hosts, build, libraries, journal\n"
        "                     SHA-256, ...) to F as one JSON object, durably\n"
        "      --status F     where the run of journal F stands (also while it runs):\n"
        "                     units done of the total, solutions so far, rate, ETA\n"
        "      --progress S   counting: where the run stands on stderr every S seconds\n"
        "                     (default 60; 0: never); on a terminal, one line kept\n"
        "                     up to date instead\n"
        "      --estimate [S] predict Q(N), the count's nodes and its time (one core, the\n"
        "                     ranks x threads of this run) from random probes of the\n"
        "                     search, with 95% intervals, for S seconds (default 20),\n"
        "                     but 2 probes a frame or 2 sets a stratum at least (the\n"
        "                     join's 128 sets from N = 25: longer than a short S); where\n"
        "                     they can take every frame or set, the count itself\n"
        "      --estimate-samples K  instead of a time: K probes on each frame (2 to 2^32),\n"
        "                     the same result for the same seed on any ranks x threads\n"
        "      --estimate-ranks P    also the time on P cores\n"
        "      --estimate-strata K   the join's estimate: its sets cut into K strata\n"
        "                     (default 64; fewer for a quick look at a large n)\n"
        "      --seed S       the random seed of --estimate's probes or --verify's\n"
        "                     sample, 0 to 2^63 - 1 (default 1)\n"
        "  -q, --quiet        no progress on stderr\n"
        "  -h, --help         show this help\n"
        "  -V, --version      show the version\n"
        "\n"
        "Examples:\n"
        "  mpirun -np 64 nqueens-mpi -n 24          count Q(24) on 64 ranks\n"
        "  nqueens-mpi -n 16 --unique               count Q(16) and U(16) on one process\n"
        "  nqueens-mpi -n 8 --list --limit 3        the first three 8-queens boards\n"
        "  nqueens-mpi -n 8 --list --unique         the 12 boards that are distinct up to\n"
        "                                           rotation and reflection\n"
        "  nqueens-mpi -n 8 --first --format json   one solution as JSON\n"
        "  nqueens-mpi -n 27 --estimate 60          Q(27) and its cost, from 60 s of probes\n"
        "\n"
        "SIGINT, SIGTERM, SIGUSR1 or SIGUSR2 stops a count cleanly, even in the middle of\n"
        "a work unit.  Under mpirun, send SIGUSR1 to mpirun, which passes it on to every\n"
        "rank (SIGTERM or SIGINT to mpirun ends the job its own way, status 1).\n"
        "\n"
        "Exit status: 0 success, 1 runtime failure (MPI, output, a failed unit),\n"
        "2 bad command line or unusable journal (nothing changed), 3 stopped cleanly by\n"
        "a signal: with --checkpoint, rerun the same command to resume; without, nothing\n"
        "was saved.\n",
        out);
}
