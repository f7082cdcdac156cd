#define _POSIX_C_SOURCE 200809L /* fdatasync, pwrite, link, O_CLOEXEC */

#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "durable.h"
#include "grow.h"
#include "method.h"
#include "nqueens/error.h"
#include "nqueens/frame.h"
#include "nqueens/slice.h"
#include "nqueens/units.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

/* GMP's _ui functions take unsigned long: the 64-bit sums of a record go
 * through them whole only where it holds 64 bits (LP64). */
_Static_assert(sizeof(unsigned long) >= sizeof(uint64_t), "unsigned long must hold 64 bits");

#define MAGIC "nqueens-journal"
#define FORMAT 1
/* A check line's first word, and its verdicts (docs/design.md). */
#define CHECK_WORD "check"
#define RUN_WORD "run"
#define AGREE_WORD "agree"
#define DIFFER_WORD "differ"

enum {
  /* The longest line: a record with 100-digit sums is under 400 bytes,
   * while a batch of 65,536 units cannot pass 26 digits. */
  LINE_BYTES = 512,
  SUM_DIGITS_MAX = 100,
  CRC_FIELD = 9, /* " %08x" */
  READ_CHUNK = 1 << 20,
};

struct nq__journal {
  int fd;
  int read_only_errno; /* opened for reading alone (why it could not be written), or 0 */
  off_t size;             /* bytes of whole lines in the file */
  int unsynced;           /* something was written since the last fdatasync */
  struct timespec synced; /* when it last was (CLOCK_MONOTONIC) */
  int status;             /* NQ_OK, or NQ_EIO once a write or sync failed */
  int failed_errno;
  uint64_t total_units;
};

/* ---- messages ---- */

static int say(char *message, const char *path, const char *format, va_list args) {
  int used = snprintf(message, NQ__JOURNAL_MESSAGE_SIZE, "%s: ", path);
  if (used >= 0 && used < NQ__JOURNAL_MESSAGE_SIZE)
    vsnprintf(message + used, NQ__JOURNAL_MESSAGE_SIZE - (size_t)used, format, args);
  return NQ_EJOURNAL;
}

/* Fills `message` with "<path>: <what>" and returns NQ_EJOURNAL. */
__attribute__((format(printf, 3, 4))) static int refuse(char *message, const char *path,
                                                         const char *format, ...) {
  va_list args;
  va_start(args, format);
  int rc = say(message, path, format, args);
  va_end(args);
  return rc;
}

/* ---- lines: building ---- */

typedef struct line {
  char text[LINE_BYTES];
  size_t length;
} line_t;

static void put_char(line_t *line, char c) { line->text[line->length++] = c; }

static void put_u64(line_t *line, uint64_t value) {
  char digits[20];
  int count = 0;
  do {
    digits[count++] = (char)('0' + (int)(value % 10));
    value /= 10;
  } while (value != 0);
  while (count > 0)
    put_char(line, digits[--count]);
}

/* NQ_EINVAL for a negative sum or one of more than SUM_DIGITS_MAX digits,
 * which no batch can reach. */
static int put_sum(line_t *line, const mpz_t value) {
  if (mpz_sgn(value) < 0)
    return NQ_EINVAL;
  if (mpz_fits_ulong_p(value)) {
    put_u64(line, mpz_get_ui(value));
    return NQ_OK;
  }
  if (mpz_sizeinbase(value, 10) > SUM_DIGITS_MAX)
    return NQ_EINVAL;
  mpz_get_str(line->text + line->length, 10, value);
  line->length += strlen(line->text + line->length);
  return NQ_OK;
}

static uint32_t crc_of(const char *text, size_t length) {
  return (uint32_t)crc32(0L, (const Bytef *)text, (uInt)length);
}

/* Ends the line: a space, the CRC-32 of everything before that space as 8
 * lowercase hex digits, a newline. */
static void put_crc(line_t *line) {
  static const char hex[] = "0123456789abcdef";
  uint32_t crc = crc_of(line->text, line->length);
  put_char(line, ' ');
  for (int shift = 28; shift >= 0; shift -= 4)
    put_char(line, hex[crc >> shift & 0xf]);
  put_char(line, '\n');
}

static void format_header(line_t *line, const nq__journal_header_t *header) {
  int length = snprintf(line->text, sizeof line->text,
                        MAGIC " %d n=%d unique=%d depth=%d scheme=%d version=%s units=%" PRIu64,
                        FORMAT, header->n, header->unique, header->depth, header->scheme,
                        header->version, header->total_units);
  /* The backtracker's headers stay as they were before methods had names. */
  if (strcmp(header->method, NQ__JOURNAL_DEFAULT_METHOD) != 0)
    length += snprintf(line->text + length, sizeof line->text - (size_t)length, " method=%s",
                       header->method);
  if (header->slice_count > 1)
    length += snprintf(line->text + length, sizeof line->text - (size_t)length, " slice=%d/%d",
                       header->slice_index + 1, header->slice_count);
  line->length = (size_t)length;
  put_crc(line);
}

/* A batch's fields: its first id, count, sums, rank and time. */
static int put_batch(line_t *line, uint64_t first_id, const nq__totals_t *batch, int rank,
                     int64_t time_ms) {
  put_u64(line, first_id);
  put_char(line, ' ');
  put_u64(line, batch->units);
  const mpz_srcptr sums[] = {batch->solutions, batch->unique_times_8, batch->nodes};
  for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
    put_char(line, ' ');
    if (put_sum(line, sums[i]) != NQ_OK)
      return NQ_EINVAL;
  }
  put_char(line, ' ');
  put_u64(line, (uint64_t)rank);
  put_char(line, ' ');
  put_u64(line, (uint64_t)time_ms);
  return NQ_OK;
}

static void put_word(line_t *line, const char *word) {
  while (*word)
    put_char(line, *word++);
}

static int format_record(line_t *line, uint64_t first_id, const nq__totals_t *batch, int rank,
                         int64_t time_ms) {
  line->length = 0;
  if (put_batch(line, first_id, batch, rank, time_ms) != NQ_OK)
    return NQ_EINVAL;
  put_crc(line);
  return NQ_OK;
}

/* "check", a record's fields, then "agree" or "differ". */
static int format_check(line_t *line, uint64_t first_id, const nq__totals_t *batch, int rank,
                        int64_t time_ms, int agrees) {
  line->length = 0;
  put_word(line, CHECK_WORD " ");
  if (put_batch(line, first_id, batch, rank, time_ms) != NQ_OK)
    return NQ_EINVAL;
  put_word(line, agrees ? " " AGREE_WORD : " " DIFFER_WORD);
  put_crc(line);
  return NQ_OK;
}

/* ---- lines: reading ---- */

/* Fields separated by single spaces; `at` is NULL once the last is taken. */
typedef struct fields {
  const char *at, *end;
} fields_t;

/* 1 and the next field, 0 when there is none or it is empty. */
static int take_field(fields_t *fields, const char **start, size_t *length) {
  if (fields->at == NULL)
    return 0;
  const char *space = memchr(fields->at, ' ', (size_t)(fields->end - fields->at));
  const char *stop = space != NULL ? space : fields->end;
  *start = fields->at;
  *length = (size_t)(stop - fields->at);
  fields->at = space != NULL ? space + 1 : NULL;
  return *length > 0;
}

/* Digits only, no leading zero: each number has one spelling, so a line
 * that reads the same was written the same. */
static int is_decimal(const char *text, size_t length) {
  if (length == 0 || (length > 1 && text[0] == '0'))
    return 0;
  for (size_t i = 0; i < length; i++)
    if (text[i] < '0' || text[i] > '9')
      return 0;
  return 1;
}

static int parse_u64(const char *text, size_t length, uint64_t max, uint64_t *out) {
  if (!is_decimal(text, length) || length > 20)
    return 0;
  uint64_t value = 0;
  for (size_t i = 0; i < length; i++) {
    uint64_t digit = (uint64_t)(text[i] - '0');
    if (value > (max - digit) / 10)
      return 0;
    value = value * 10 + digit;
  }
  *out = value;
  return 1;
}

static int take_u64(fields_t *fields, uint64_t max, uint64_t *out) {
  const char *start;
  size_t length;
  return take_field(fields, &start, &length) && parse_u64(start, length, max, out);
}

/* A sum field, added to `sum`; the value is left in `scratch`. */
static int take_sum(fields_t *fields, mpz_t sum, mpz_t scratch) {
  const char *start;
  size_t length;
  if (!take_field(fields, &start, &length) || !is_decimal(start, length) ||
      length > SUM_DIGITS_MAX)
    return 0;
  uint64_t value;
  if (length <= 19 && parse_u64(start, length, UINT64_MAX, &value)) {
    mpz_set_ui(scratch, value);
  } else {
    char digits[SUM_DIGITS_MAX + 1];
    memcpy(digits, start, length);
    digits[length] = '\0';
    mpz_set_str(scratch, digits, 10);
  }
  mpz_add(sum, sum, scratch);
  return 1;
}

/* The record's solutions, just read into sums->term, join the residues:
 * summed record by record, apart from the big integer. */
static int take_residues(nq__totals_t *sums) {
  nq__totals_add_residues(sums, sums->term);
  return 1;
}

/* "key=value": the value. */
static int take_keyed(fields_t *fields, const char *key, const char **value, size_t *length) {
  const char *start;
  size_t field_length, key_length = strlen(key);
  if (!take_field(fields, &start, &field_length) || field_length <= key_length + 1 ||
      memcmp(start, key, key_length) != 0 || start[key_length] != '=')
    return 0;
  *value = start + key_length + 1;
  *length = field_length - key_length - 1;
  return 1;
}

static int take_keyed_int(fields_t *fields, const char *key, uint64_t max, int *out) {
  const char *value;
  size_t length;
  uint64_t parsed;
  if (!take_keyed(fields, key, &value, &length) || !parse_u64(value, length, max, &parsed))
    return 0;
  *out = (int)parsed;
  return 1;
}

static int version_is_valid(const char *text, size_t length) {
  if (length == 0 || length > NQ__JOURNAL_VERSION_MAX)
    return 0;
  for (size_t i = 0; i < length; i++)
    if (text[i] <= ' ' || text[i] > '~')
      return 0;
  return 1;
}

/* The line (newline included) ends in a space and the CRC-32 of what
 * precedes that space, in lowercase hex; `body_length` is that part. */
static int crc_matches(const char *line, size_t length, size_t *body_length) {
  if (length < CRC_FIELD + 2 || line[length - 1] != '\n')
    return 0;
  size_t body = length - 1 - CRC_FIELD;
  if (line[body] != ' ')
    return 0;
  uint32_t stored = 0;
  for (size_t i = body + 1; i < length - 1; i++) {
    char c = line[i];
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0)
      return 0;
    stored = stored << 4 | (uint32_t)digit;
  }
  *body_length = body;
  return stored == crc_of(line, body);
}

/* ---- headers ---- */

static int method_is_valid(const char *text, size_t length);

static int header_is_valid(const nq__journal_header_t *header) {
  return header->n >= 0 && header->n <= NQ_MAX_N && (header->unique == 0 || header->unique == 1) &&
         header->depth >= 0 && header->depth <= NQ_MAX_N && header->scheme >= 0 &&
         version_is_valid(header->version, strnlen(header->version, sizeof header->version)) &&
         method_is_valid(header->method, strnlen(header->method, sizeof header->method));
}

void nq__journal_header_init(nq__journal_header_t *header, int n, int unique, int depth,
                             uint64_t total_units) {
  memset(header, 0, sizeof *header);
  header->n = n;
  header->unique = unique;
  header->depth = depth;
  header->scheme = NQ_UNIT_SCHEME;
  snprintf(header->method, sizeof header->method, "%s", NQ__JOURNAL_DEFAULT_METHOD);
  snprintf(header->version, sizeof header->version, "%s", NQ_VERSION);
  header->total_units = total_units;
  header->slice_index = 0;
  header->slice_count = 1;
}

void nq__journal_header_set_method(nq__journal_header_t *header, const char *method, int scheme) {
  snprintf(header->method, sizeof header->method, "%s", method);
  header->scheme = scheme;
}

/* A method name: lowercase letters. */
static int method_is_valid(const char *text, size_t length) {
  if (length == 0 || length > NQ__JOURNAL_METHOD_MAX)
    return 0;
  for (size_t i = 0; i < length; i++)
    if (text[i] < 'a' || text[i] > 'z')
      return 0;
  return 1;
}

/* The optional field "method=<name>"; absent: the backtracker's (the only
 * method before methods had names, whose journals stay readable). */
static int take_method(fields_t *fields, nq__journal_header_t *header) {
  snprintf(header->method, sizeof header->method, "%s", NQ__JOURNAL_DEFAULT_METHOD);
  const char *value;
  size_t length;
  if (fields->at == NULL || strncmp(fields->at, "method=", 7) != 0)
    return 1;
  if (!take_keyed(fields, "method", &value, &length) || !method_is_valid(value, length))
    return 0;
  memcpy(header->method, value, length);
  header->method[length] = '\0';
  return 1;
}

/* The optional last field "slice=<i>/<k>", 1 <= i <= k, k >= 2; absent:
 * the whole count (slice 1 of 1). */
static int take_slice(fields_t *fields, nq__journal_header_t *header) {
  header->slice_index = 0;
  header->slice_count = 1;
  if (fields->at == NULL)
    return 1;
  const char *value, *slash;
  size_t length;
  uint64_t index, count;
  if (!take_keyed(fields, "slice", &value, &length) || fields->at != NULL ||
      (slash = memchr(value, '/', length)) == NULL ||
      !parse_u64(value, (size_t)(slash - value), NQ_SLICE_MAX, &index) ||
      !parse_u64(slash + 1, length - (size_t)(slash - value) - 1, NQ_SLICE_MAX, &count) ||
      count < 2 || index < 1 || index > count)
    return 0;
  header->slice_index = (int)index - 1;
  header->slice_count = (int)count;
  return 1;
}

/* The fields after the format number, in their fixed order. */
static int parse_header_fields(fields_t *fields, nq__journal_header_t *header) {
  const char *version, *units;
  size_t version_length, units_length;
  if (!take_keyed_int(fields, "n", NQ_MAX_N, &header->n) ||
      !take_keyed_int(fields, "unique", 1, &header->unique) ||
      !take_keyed_int(fields, "depth", NQ_MAX_N, &header->depth) ||
      !take_keyed_int(fields, "scheme", INT_MAX, &header->scheme) ||
      !take_keyed(fields, "version", &version, &version_length) ||
      !version_is_valid(version, version_length) ||
      !take_keyed(fields, "units", &units, &units_length) ||
      !parse_u64(units, units_length, UINT64_MAX, &header->total_units) ||
      !take_method(fields, header) || !take_slice(fields, header))
    return 0;
  memcpy(header->version, version, version_length);
  header->version[version_length] = '\0';
  return 1;
}

/* The first line: the journal's magic and format, then its header. */
static int parse_header(nq__journal_header_t *header, char *message, const char *path,
                        const char *line, size_t length) {
  size_t magic_length = strlen(MAGIC);
  if (length <= magic_length || memcmp(line, MAGIC " ", magic_length + 1) != 0)
    return refuse(message, path, "not a checkpoint journal (no \"" MAGIC "\" header line)");
  /* The format first: another format may check its lines otherwise. */
  fields_t fields = {line + magic_length + 1, line + length - 1};
  uint64_t format;
  if (!take_u64(&fields, UINT64_MAX, &format))
    return refuse(message, path, "damaged journal header (format)");
  if (format != FORMAT)
    return refuse(message, path, "journal format %" PRIu64 ", this program reads format %d",
                  format, FORMAT);
  size_t body;
  if (!crc_matches(line, length, &body))
    return refuse(message, path, "damaged journal header (checksum mismatch)");
  fields.end = line + body;
  memset(header, 0, sizeof *header);
  if (fields.at == NULL || fields.at >= fields.end || !parse_header_fields(&fields, header))
    return refuse(message, path, "damaged journal header (fields)");
  return NQ_OK;
}

/* How the method of a header calls its unit parameter in messages. */
static const char *unit_param_word(const char *method_name) {
  const nq__method_t *method = nq__method_named(method_name);
  return method != NULL ? method->unit_param_word : "depth";
}

/* One line naming the first field in which the journal and this run
 * differ. */
static int compare_headers(char *message, const char *path, const nq__journal_header_t *found,
                           const nq__journal_header_t *expected) {
  if (strcmp(found->method, expected->method) != 0)
    return refuse(message, path, "journal is for --method %s, this run is --method %s",
                  found->method, expected->method);
  if (found->n != expected->n)
    return refuse(message, path, "journal is for n = %d, this run is n = %d", found->n,
                  expected->n);
  if (found->unique != expected->unique)
    return refuse(message, path, "journal was written %s --unique, this run is %s it",
                  found->unique ? "with" : "without", expected->unique ? "with" : "without");
  if (found->depth != expected->depth) {
    const char *word = unit_param_word(expected->method); /* found's: the same */
    return refuse(message, path, "journal has %s %d, this run %s %d", word, found->depth, word,
                  expected->depth);
  }
  if (found->scheme != expected->scheme)
    return refuse(message, path, "journal uses unit scheme %d, this program scheme %d",
                  found->scheme, expected->scheme);
  if (strcmp(found->version, expected->version) != 0)
    return refuse(message, path, "journal was written by version %s, this is version %s",
                  found->version, expected->version);
  if (found->total_units != expected->total_units)
    return refuse(message, path, "journal has %" PRIu64 " units in all, this run %" PRIu64,
                  found->total_units, expected->total_units);
  if (found->slice_count != expected->slice_count || found->slice_index != expected->slice_index)
    return refuse(message, path, "journal is for slice %d/%d, this run is slice %d/%d",
                  found->slice_index + 1, found->slice_count, expected->slice_index + 1,
                  expected->slice_count);
  return NQ_OK;
}

/* ---- loading ---- */

typedef struct loader {
  nq__journal_state_t *state;
  char *message;
  const char *path;
  const nq__journal_header_t *expected; /* NULL: any header */
  nq__journal_visitor_fn visit;         /* NULL: none */
  void *visit_context;
  nq__totals_t line_sums; /* one line's sums, for `visit` */
  /* The ids of the records in file order, a run of records that continue
   * each other as one range: sorted and checked once all are read. */
  nq__journal_range_t *ranges;
  size_t range_count, range_capacity;
  uint64_t line_number; /* lines taken so far */
  off_t line_start;     /* where the next line starts */
  uint64_t bad_line;    /* a whole line that failed its checksum (it must be the last), or 0 */
  off_t bad_start;
  /* Set at the end of the file: what a resume keeps, and what it drops. */
  off_t good_end, file_end;
  uint64_t torn_line;
  int torn_kind; /* what the torn line began as (line_kind) */
  int bad_kind;  /* the same, for the line that failed its checksum */
  /* The run being read (its run line, then its records): when it started
   * and its last record's time; -1 before any. */
  int64_t run_started_ms, run_last_ms;
} loader_t;

/* What a line is, from its first bytes (a torn line's rest may be
 * garbage), what it is called, and what dropping it torn means. */
enum { LINE_RECORD, LINE_CHECK, LINE_RUN };
static const char *const line_names[] = {"record", "check line", "run line"};
static const char *const torn_drop_means[] = {"its units are counted again",
                                              "that batch is checked again by --verify",
                                              "nothing is lost"};
static const char *const torn_leave_means[] = {"a run may be writing it",
                                               "a --verify may be writing it",
                                               "a run may be writing it"};

static int line_kind(const char *text, size_t length) {
  size_t check = strlen(CHECK_WORD " "), run = strlen(RUN_WORD " ");
  if (length >= check && memcmp(text, CHECK_WORD " ", check) == 0)
    return LINE_CHECK;
  if (length >= run && memcmp(text, RUN_WORD " ", run) == 0)
    return LINE_RUN;
  return LINE_RECORD;
}

static int add_range(loader_t *l, uint64_t first, uint64_t end) {
  if (l->range_count > 0 && l->ranges[l->range_count - 1].end == first) {
    l->ranges[l->range_count - 1].end = end;
    return NQ_OK;
  }
  if (nq__grow((void **)&l->ranges, &l->range_capacity, l->range_count + 1,
               sizeof *l->ranges) != NQ_OK)
    return NQ_ENOMEM;
  l->ranges[l->range_count++] = (nq__journal_range_t){first, end};
  return NQ_OK;
}

/* A batch's fields, common to records and checks: the sums go into
 * `sums` (added to what it holds). */
static int take_batch(loader_t *l, fields_t *fields, nq__journal_line_t *out, nq__totals_t *sums) {
  uint64_t rank, time_ms;
  if (!take_u64(fields, UINT64_MAX, &out->first) || !take_u64(fields, UINT64_MAX, &out->count) ||
      !take_sum(fields, sums->solutions, sums->term) ||
      !take_residues(sums) || !take_sum(fields, sums->unique_times_8, sums->term) ||
      !take_sum(fields, sums->nodes, sums->term) || !take_u64(fields, INT_MAX, &rank) ||
      !take_u64(fields, INT64_MAX, &time_ms))
    return refuse(l->message, l->path, "damaged record at line %" PRIu64 " (fields)",
                  l->line_number);
  out->rank = (int)rank;
  out->time_ms = (int64_t)time_ms;
  uint64_t total = l->state->header.total_units;
  if (out->count == 0)
    return refuse(l->message, l->path, "record at line %" PRIu64 " holds no unit",
                  l->line_number);
  if (out->first >= total || out->count > total - out->first)
    return refuse(l->message, l->path,
                  "record at line %" PRIu64 " holds %" PRIu64 " units from id %" PRIu64
                  ", past the journal's %" PRIu64 " units",
                  l->line_number, out->count, out->first, total);
  return NQ_OK;
}

/* Where a line's sums are read to: straight into the journal's sums, or,
 * for a visitor, into the line's own first. */
static nq__totals_t *line_sums(loader_t *l) {
  if (l->visit == NULL)
    return &l->state->sums;
  nq__totals_reset(&l->line_sums);
  return &l->line_sums;
}

static int visit_line(loader_t *l, nq__journal_line_t *line) {
  if (l->visit == NULL)
    return NQ_OK;
  line->sums = &l->line_sums;
  return l->visit(line, l->visit_context);
}

static int take_record(loader_t *l, const char *text, size_t body) {
  nq__journal_state_t *state = l->state;
  fields_t fields = {text, text + body};
  nq__journal_line_t line = {.is_check = 0};
  nq__totals_t *sums = line_sums(l);
  int rc = take_batch(l, &fields, &line, sums);
  if (rc != NQ_OK)
    return rc;
  if (fields.at != NULL)
    return refuse(l->message, l->path, "damaged record at line %" PRIu64 " (fields)",
                  l->line_number);
  if (add_range(l, line.first, line.first + line.count) != NQ_OK)
    return NQ_ENOMEM;
  if (sums != &state->sums)
    nq__totals_merge(&state->sums, sums);
  if (state->records == 0 || line.time_ms < state->first_time_ms)
    state->first_time_ms = line.time_ms;
  if (line.time_ms > state->last_time_ms)
    state->last_time_ms = line.time_ms;
  state->sums.units += line.count;
  state->records++;
  if (l->run_started_ms < 0) /* records before any run line (an older writer) */
    l->run_started_ms = line.time_ms;
  if (line.time_ms > l->run_last_ms)
    l->run_last_ms = line.time_ms;
  return visit_line(l, &line);
}

/* "check <batch fields> agree|differ": counted, and handed to a visitor;
 * the sums are not the journal's. */
static int take_check(loader_t *l, const char *text, size_t body) {
  nq__journal_state_t *state = l->state;
  size_t word = strlen(CHECK_WORD " ");
  fields_t fields = {text + word, text + body};
  nq__journal_line_t line = {.is_check = 1};
  nq__totals_t *sums = l->visit != NULL ? line_sums(l) : &l->line_sums;
  if (l->visit == NULL)
    nq__totals_reset(sums);
  const char *verdict;
  size_t length;
  int rc = take_batch(l, &fields, &line, sums);
  if (rc != NQ_OK)
    return rc;
  if (!take_field(&fields, &verdict, &length) || fields.at != NULL ||
      !((length == strlen(AGREE_WORD) && memcmp(verdict, AGREE_WORD, length) == 0) ||
        (length == strlen(DIFFER_WORD) && memcmp(verdict, DIFFER_WORD, length) == 0)))
    return refuse(l->message, l->path, "damaged check at line %" PRIu64 " (fields)",
                  l->line_number);
  line.agrees = verdict[0] == AGREE_WORD[0];
  state->checks++;
  if (!line.agrees && state->checks_differing++ == 0) {
    state->differing_first = line.first;
    state->differing_end = line.first + line.count;
  }
  return visit_line(l, &line);
}

/* The run being read is over: the time from its start to its last record
 * is counting time (a run that recorded nothing adds none). */
static void end_run(loader_t *l) {
  if (l->run_started_ms >= 0 && l->run_last_ms > l->run_started_ms) {
    l->state->counting_ms += l->run_last_ms - l->run_started_ms;
    l->state->counting_runs++;
  }
  l->run_started_ms = l->run_last_ms = -1;
}

/* "run <time_ms> <ranks>": one more count opened the journal. */
static int take_run(loader_t *l, const char *text, size_t body) {
  fields_t fields = {text + strlen(RUN_WORD " "), text + body};
  uint64_t time_ms, ranks;
  if (!take_u64(&fields, INT64_MAX, &time_ms) || !take_u64(&fields, INT_MAX, &ranks) ||
      fields.at != NULL)
    return refuse(l->message, l->path, "damaged run line at line %" PRIu64 " (fields)",
                  l->line_number);
  l->state->runs++;
  end_run(l);
  l->run_started_ms = (int64_t)time_ms;
  return NQ_OK;
}

static int take_header(loader_t *l, const char *line, size_t length) {
  int rc = parse_header(&l->state->header, l->message, l->path, line, length);
  if (rc == NQ_OK && l->expected != NULL)
    rc = compare_headers(l->message, l->path, &l->state->header, l->expected);
  return rc;
}

/* A whole line, newline included; `line` is NULL for one longer than any
 * journal line, whose bytes were not kept. */
static int take_line(loader_t *l, const char *line, size_t length) {
  l->line_number++;
  /* Only the last line may fail its checksum: this one follows it. */
  if (l->bad_line != 0)
    return refuse(l->message, l->path, "damaged record at line %" PRIu64 " (checksum mismatch)",
                  l->bad_line);
  off_t start = l->line_start;
  l->line_start += (off_t)length;
  if (l->line_number == 1)
    return line != NULL ? take_header(l, line, length)
                        : refuse(l->message, l->path, "not a checkpoint journal (no header line)");
  size_t body;
  if (line == NULL || !crc_matches(line, length, &body)) {
    l->bad_line = l->line_number;
    l->bad_start = start;
    l->bad_kind = line != NULL ? line_kind(line, length) : LINE_RECORD;
    return NQ_OK;
  }
  switch (line_kind(line, body)) {
  case LINE_CHECK: return take_check(l, line, body);
  case LINE_RUN: return take_run(l, line, body);
  default: return take_record(l, line, body);
  }
}

/* `fragment` bytes follow the last newline.  What was torn by a crash, if
 * anything, is that fragment or else a last line that failed its checksum;
 * both at once mean a damaged line before the last. */
static int take_end(loader_t *l, off_t fragment, int fragment_kind) {
  if (l->line_number == 0)
    return refuse(l->message, l->path,
                  fragment == 0 ? "empty file, not a checkpoint journal"
                                : "not a checkpoint journal (no complete header line)");
  if (l->bad_line != 0 && fragment > 0)
    return refuse(l->message, l->path, "damaged record at line %" PRIu64 " (checksum mismatch)",
                  l->bad_line);
  l->file_end = l->line_start + fragment;
  l->good_end = fragment > 0 ? l->line_start : l->bad_line != 0 ? l->bad_start : l->line_start;
  l->torn_line = fragment > 0 ? l->line_number + 1 : l->bad_line;
  l->torn_kind = fragment > 0 ? fragment_kind : l->bad_kind;
  return NQ_OK;
}

/* Reads the file in large chunks and hands each line to take_line. */
static int read_lines(loader_t *l, int fd) {
  char *buffer = malloc(READ_CHUNK + LINE_BYTES);
  if (buffer == NULL)
    return NQ_ENOMEM;
  size_t kept = 0;   /* bytes of a line whose newline is not read yet */
  off_t dropped = 0; /* bytes of that line not kept: it is longer than any journal line */
  int rc = NQ_OK;
  for (;;) {
    ssize_t got = read(fd, buffer + kept, READ_CHUNK);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      rc = refuse(l->message, l->path, "cannot read: %s", strerror(errno));
    if (got <= 0)
      break;
    size_t end = kept + (size_t)got, at = 0;
    char *newline;
    while (rc == NQ_OK && (newline = memchr(buffer + at, '\n', end - at)) != NULL) {
      size_t length = (size_t)(newline - (buffer + at)) + 1;
      rc = dropped > 0 ? take_line(l, NULL, (size_t)dropped + length)
                       : take_line(l, buffer + at, length);
      dropped = 0;
      at += length;
    }
    if (rc != NQ_OK)
      break;
    size_t rest = end - at;
    if (dropped > 0 || rest > LINE_BYTES) {
      dropped += (off_t)rest;
      kept = 0;
    } else {
      memmove(buffer, buffer + at, rest);
      kept = rest;
    }
  }
  int fragment_kind = dropped > 0 ? LINE_RECORD : line_kind(buffer, kept);
  free(buffer);
  return rc == NQ_OK ? take_end(l, (off_t)kept + dropped, fragment_kind) : rc;
}

static int compare_firsts(const void *a, const void *b) {
  uint64_t x = ((const nq__journal_range_t *)a)->first, y = ((const nq__journal_range_t *)b)->first;
  return (x > y) - (x < y);
}

/* Sorts the ranges (records arrive out of order when ranks finish out of
 * order), refuses any unit recorded twice, merges touching ranges. */
static int merge_ranges(loader_t *l) {
  nq__journal_range_t *ranges = l->ranges;
  size_t count = l->range_count, merged = 0;
  for (size_t i = 1; i < count; i++)
    if (ranges[i].first < ranges[i - 1].first) {
      qsort(ranges, count, sizeof *ranges, compare_firsts);
      break;
    }
  for (size_t i = 0; i < count; i++) {
    if (merged > 0 && ranges[i].first < ranges[merged - 1].end)
      return refuse(l->message, l->path, "two records hold unit %" PRIu64, ranges[i].first);
    if (merged > 0 && ranges[i].first == ranges[merged - 1].end)
      ranges[merged - 1].end = ranges[i].end;
    else
      ranges[merged++] = ranges[i];
  }
  nq__journal_range_t *shrunk = realloc(ranges, (merged > 0 ? merged : 1) * sizeof *ranges);
  l->state->done = shrunk != NULL ? shrunk : ranges;
  l->state->done_count = merged;
  l->ranges = NULL;
  return NQ_OK;
}

static void state_reset(nq__journal_state_t *state) {
  nq__journal_state_clear(state);
  nq__journal_state_init(state);
}

/* Reads and validates the whole file into `state`, changing nothing. */
static int load(loader_t *l, int fd) {
  nq__totals_init(&l->line_sums);
  l->run_started_ms = l->run_last_ms = -1;
  int rc = read_lines(l, fd);
  end_run(l);
  nq__totals_clear(&l->line_sums);
  if (rc == NQ_OK)
    rc = merge_ranges(l);
  if (rc == NQ_ENOMEM)
    refuse(l->message, l->path, "out of memory while reading the journal");
  free(l->ranges);
  l->ranges = NULL;
  if (rc != NQ_OK)
    state_reset(l->state);
  return rc;
}

/* A journal is a regular file; its identity goes into `state`. */
static int check_regular(nq__journal_state_t *state, int fd, char *message, const char *path) {
  struct stat info;
  if (fstat(fd, &info) != 0)
    return refuse(message, path, "cannot stat: %s", strerror(errno));
  if (!S_ISREG(info.st_mode))
    return refuse(message, path, "not a regular file, not a checkpoint journal");
  state->device = (uint64_t)info.st_dev;
  state->inode = (uint64_t)info.st_ino;
  return NQ_OK;
}

/* ---- state ---- */

void nq__journal_state_init(nq__journal_state_t *state) {
  memset(&state->header, 0, sizeof state->header);
  nq__totals_init(&state->sums);
  state->done = NULL;
  state->done_count = 0;
  state->records = 0;
  state->first_time_ms = 0;
  state->last_time_ms = 0;
  state->checks = state->checks_differing = 0;
  state->runs = 0;
  state->differing_first = state->differing_end = 0;
  state->device = state->inode = 0;
  state->counting_ms = 0;
  state->counting_runs = 0;
}

void nq__journal_state_clear(nq__journal_state_t *state) {
  nq__totals_clear(&state->sums);
  free(state->done);
  state->done = NULL;
  state->done_count = 0;
}

int nq__journal_check_units(const nq__journal_header_t *header,
                            char message[static NQ__JOURNAL_MESSAGE_SIZE], const char *path) {
  const nq__method_t *method = nq__method_named(header->method);
  if (method == NULL)
    return refuse(message, path, "journal of an unknown method '%s'", header->method);
  if (header->scheme != method->scheme)
    return NQ_OK; /* another program's listing: nothing to count it by */
  const nq__method_params_t params = {.n = header->n, .unit_param = header->depth,
                                      .unique = header->unique, .walk = NQ_WALK_AUTO};
  if (method->check(&params) != NQ_OK)
    return refuse(message, path, "journal header names n = %d with %s %d, which %s cannot count",
                  header->n, method->unit_param_word, header->depth, header->method);
  uint64_t units = 0;
  int rc = method->units_total(&units, &params, NULL);
  if (rc != NQ_OK)
    return rc;
  if (units != header->total_units)
    return refuse(message, path,
                  "journal header says %" PRIu64 " units, but n = %d at %s %d has %" PRIu64
                  ": a damaged or altered header",
                  header->total_units, header->n,
                  method->unit_param_word, header->depth, units);
  return NQ_OK;
}

uint64_t nq__journal_units(const nq__journal_state_t *state) {
  const nq__journal_header_t *h = &state->header;
  nq_slice_t slice;
  if (h->slice_count < 2 ||
      nq_slice_init(&slice, h->slice_index, h->slice_count, h->total_units) != NQ_OK)
    return h->total_units;
  return nq_slice_units(&slice);
}

int nq__journal_complete(const nq__journal_state_t *state) {
  return state->sums.units == nq__journal_units(state);
}

int nq__journal_read(nq__journal_state_t *state, char message[static NQ__JOURNAL_MESSAGE_SIZE],
                     const char *path) {
  return nq__journal_visit(state, message, path, NULL, NULL);
}

int nq__journal_visit(nq__journal_state_t *state, char message[static NQ__JOURNAL_MESSAGE_SIZE],
                      const char *path, nq__journal_visitor_fn visit, void *context) {
  message[0] = '\0';
  /* O_NONBLOCK: a FIFO in the journal's place must be refused, not waited
   * on for a writer; it changes nothing for a regular file. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return refuse(message, path, "cannot open: %s", strerror(errno));
  loader_t l = {.state = state, .message = message, .path = path, .visit = visit,
                .visit_context = context};
  int rc = check_regular(state, fd, message, path);
  if (rc == NQ_OK)
    rc = load(&l, fd);
  close(fd);
  if (rc == NQ_OK && l.good_end < l.file_end)
    refuse(message, path, "torn last %s at line %" PRIu64 " (%lld bytes) left out: %s",
           line_names[l.torn_kind], l.torn_line, (long long)(l.file_end - l.good_end),
           torn_leave_means[l.torn_kind]);
  return rc;
}

/* ---- opening: lock, create, resume ---- */

/* A write lock, or for a journal that can only be read a read lock, which
 * a live run's write lock refuses all the same. */
static int lock_whole_file(int fd, short type, char *message, const char *path) {
  struct flock lock = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  if (fcntl(fd, F_SETLK, &lock) == 0)
    return NQ_OK;
  if (errno != EACCES && errno != EAGAIN)
    return refuse(message, path, "cannot lock: %s", strerror(errno));
  struct flock holder = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  if (fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK && holder.l_pid > 0)
    refuse(message, path, "in use by another run (process %ld holds its lock)",
           (long)holder.l_pid);
  else
    refuse(message, path, "in use by another run (its lock is held)");
  return NQ_EBUSY;
}

/* pwrite until everything is written: 0, or -1 with errno set. */
static int write_all(int fd, const char *text, size_t length, off_t offset) {
  while (length > 0) {
    ssize_t written = pwrite(fd, text, length, offset);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      if (written == 0)
        errno = EIO;
      return -1;
    }
    text += written;
    length -= (size_t)written;
    offset += written;
  }
  return 0;
}

static int sync_directory(char *message, const char *path) {
  return nq__sync_directory_of(path) == 0
             ? NQ_OK
             : refuse(message, path, "cannot sync its directory: %s", strerror(errno));
}

/* Puts the temporary file in place under `path`.  link(2) does so only
 * while the name is free: of two runs started together, one creates the
 * journal and the other finds it, locked.  On a filesystem without hard
 * links, rename(2) has no such guard. */
static int publish(int *created, char *message, const char *temporary, const char *path) {
  *created = 0;
  if (link(temporary, path) == 0) {
    *created = 1;
    return NQ_OK;
  }
  if (errno == EEXIST)
    return NQ_OK;
  if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS)
    return refuse(message, path, "cannot create: %s", strerror(errno));
  if (rename(temporary, path) != 0)
    return refuse(message, path, "cannot create: %s", strerror(errno));
  *created = 1;
  return NQ_OK;
}

/* A new journal holding the header alone, never seen half written: the
 * header goes to a temporary file in the same directory, is synced, then
 * takes the journal's name, and the directory is synced.  The file is
 * locked before it has the name.  *created is 0, with NQ_OK, when another
 * run created the journal first. */
static int create(nq__journal_t *journal, int *created, nq__journal_state_t *state, char *message,
                  const char *path, const nq__journal_header_t *header) {
  size_t size = strlen(path) + 32;
  char *temporary = malloc(size);
  if (temporary == NULL)
    return NQ_ENOMEM;
  snprintf(temporary, size, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) {
    int rc = refuse(message, path, "cannot create %s: %s", temporary, strerror(errno));
    free(temporary);
    return rc;
  }
  line_t line;
  format_header(&line, header);
  int rc = lock_whole_file(fd, F_WRLCK, message, temporary);
  if (rc == NQ_OK && (write_all(fd, line.text, line.length, 0) != 0 || fsync(fd) != 0))
    rc = refuse(message, path, "cannot write %s: %s", temporary, strerror(errno));
  if (rc == NQ_OK)
    rc = publish(created, message, temporary, path);
  unlink(temporary);
  free(temporary);
  if (rc == NQ_OK && *created)
    rc = sync_directory(message, path);
  if (rc != NQ_OK || !*created) {
    close(fd);
    return rc;
  }
  journal->fd = fd;
  journal->size = (off_t)line.length;
  state->header = *header;
  return NQ_OK;
}

/* An existing journal: locked first, so that nothing changes it while it
 * is read; cut back to its last whole record only once all of it is
 * known good. */
static int resume(nq__journal_t *journal, nq__journal_state_t *state, char *message,
                  const char *path, const nq__journal_header_t *expected, int fd) {
  journal->fd = fd;
  int rc = check_regular(state, fd, message, path);
  if (rc == NQ_OK)
    rc = lock_whole_file(fd, F_WRLCK, message, path);
  loader_t l = {.state = state, .message = message, .path = path, .expected = expected};
  if (rc == NQ_OK)
    rc = load(&l, fd);
  if (rc != NQ_OK)
    return rc;
  if (l.good_end < l.file_end) {
    if (ftruncate(fd, l.good_end) != 0 || fsync(fd) != 0)
      return refuse(message, path, "cannot cut its torn last record: %s", strerror(errno));
    refuse(message, path, "torn last %s at line %" PRIu64 " (%lld bytes) dropped: %s",
           line_names[l.torn_kind], l.torn_line, (long long)(l.file_end - l.good_end),
           torn_drop_means[l.torn_kind]);
  }
  journal->size = l.good_end;
  return NQ_OK;
}

/* A journal that cannot be written (a read-only filesystem, a file
 * without write permission) serves a run only when it is complete: the
 * result comes from it and nothing is written. */
static int resume_read_only(nq__journal_t *journal, nq__journal_state_t *state, char *message,
                            const char *path, const nq__journal_header_t *expected,
                            int write_errno) {
  journal->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (journal->fd < 0)
    return refuse(message, path, "cannot open: %s", strerror(write_errno));
  journal->read_only_errno = write_errno;
  int rc = check_regular(state, journal->fd, message, path);
  if (rc == NQ_OK)
    rc = lock_whole_file(journal->fd, F_RDLCK, message, path);
  loader_t l = {.state = state, .message = message, .path = path, .expected = expected};
  if (rc == NQ_OK)
    rc = load(&l, journal->fd);
  if (rc != NQ_OK)
    return rc;
  if (!nq__journal_complete(state)) {
    rc = refuse(message, path,
                "cannot be written (%s), and it holds %" PRIu64 " of its %" PRIu64
                " units: a run could not record the rest",
                strerror(write_errno), state->sums.units, nq__journal_units(state));
    state_reset(state);
    return rc;
  }
  if (l.good_end < l.file_end)
    refuse(message, path, "torn last %s at line %" PRIu64 " (%lld bytes) left in place: %s",
           line_names[l.torn_kind], l.torn_line, (long long)(l.file_end - l.good_end),
           "the journal cannot be written");
  journal->size = l.good_end;
  return NQ_OK;
}

static int open_or_create(nq__journal_t *journal, nq__journal_state_t *state, char *message,
                          const char *path, const nq__journal_header_t *expected) {
  /* A second try finds a journal that another run created between this
   * one's open and its link. */
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK); /* as in visit */
    if (fd >= 0)
      return resume(journal, state, message, path, expected, fd);
    if (errno == EROFS || errno == EACCES || errno == EPERM)
      return resume_read_only(journal, state, message, path, expected, errno);
    if (errno != ENOENT)
      return refuse(message, path, "cannot open: %s", strerror(errno));
    int created = 0;
    int rc = create(journal, &created, state, message, path, expected);
    if (rc != NQ_OK || created)
      return rc;
  }
  return refuse(message, path, "cannot open: it vanished after another run created it");
}

int nq__journal_open(nq__journal_t **out_journal, nq__journal_state_t *state,
                     char message[static NQ__JOURNAL_MESSAGE_SIZE], const char *path,
                     const nq__journal_header_t *expected) {
  *out_journal = NULL;
  message[0] = '\0';
  if (!header_is_valid(expected))
    return NQ_EINVAL;
  nq__journal_t *journal = calloc(1, sizeof *journal);
  if (journal == NULL)
    return NQ_ENOMEM;
  journal->fd = -1;
  journal->total_units = expected->total_units;
  int rc = open_or_create(journal, state, message, path, expected);
  if (rc != NQ_OK) {
    if (journal->fd >= 0)
      close(journal->fd);
    free(journal);
    return rc;
  }
  clock_gettime(CLOCK_MONOTONIC, &journal->synced);
  *out_journal = journal;
  return NQ_OK;
}

/* ---- appending ---- */

static int fail(nq__journal_t *journal, int failed_errno) {
  journal->status = NQ_EIO;
  journal->failed_errno = failed_errno;
  return NQ_EIO;
}

int nq__journal_sync(nq__journal_t *journal) {
  if (journal->status != NQ_OK || !journal->unsynced)
    return journal->status;
  int rc;
  do
    rc = fdatasync(journal->fd);
  while (rc != 0 && errno == EINTR);
  /* After a failed fdatasync the kernel may have dropped the pages it
   * could not write: nothing appended after that could be trusted. */
  if (rc != 0)
    return fail(journal, errno);
  journal->unsynced = 0;
  clock_gettime(CLOCK_MONOTONIC, &journal->synced);
  return NQ_OK;
}

int nq__journal_sync_if_due(nq__journal_t *journal) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t elapsed_ms = (int64_t)(now.tv_sec - journal->synced.tv_sec) * 1000 +
                       (now.tv_nsec - journal->synced.tv_nsec) / 1000000;
  if (elapsed_ms < NQ__JOURNAL_SYNC_SECONDS * 1000)
    return journal->status;
  return nq__journal_sync(journal);
}

/* Whether a batch of ids first_id.. can be recorded. */
static int batch_is_valid(const nq__journal_t *journal, uint64_t first_id,
                          const nq__totals_t *batch, int rank, int64_t time_ms) {
  uint64_t total = journal->total_units;
  return batch->units > 0 && first_id < total && batch->units <= total - first_id && rank >= 0 &&
         time_ms >= 0;
}

/* A failed write may leave part of the line: a torn last line, which the
 * next open drops.  Nothing is appended after it. */
static int append_line(nq__journal_t *journal, const line_t *line) {
  if (journal->read_only_errno != 0)
    return fail(journal, journal->read_only_errno);
  if (write_all(journal->fd, line->text, line->length, journal->size) != 0)
    return fail(journal, errno);
  journal->size += (off_t)line->length;
  journal->unsynced = 1;
  return nq__journal_sync_if_due(journal);
}

int nq__journal_append(nq__journal_t *journal, uint64_t first_id, const nq__totals_t *batch,
                       int rank, int64_t time_ms) {
  if (journal->status != NQ_OK)
    return journal->status;
  line_t line;
  if (!batch_is_valid(journal, first_id, batch, rank, time_ms) ||
      format_record(&line, first_id, batch, rank, time_ms) != NQ_OK)
    return NQ_EINVAL;
  return append_line(journal, &line);
}

int nq__journal_append_run(nq__journal_t *journal, int64_t time_ms, int ranks) {
  if (journal->status != NQ_OK)
    return journal->status;
  if (time_ms < 0 || ranks < 1)
    return NQ_EINVAL;
  line_t line = {.length = 0};
  put_word(&line, RUN_WORD " ");
  put_u64(&line, (uint64_t)time_ms);
  put_char(&line, ' ');
  put_u64(&line, (uint64_t)ranks);
  put_crc(&line);
  return append_line(journal, &line);
}

int nq__journal_append_check(nq__journal_t *journal, uint64_t first_id, const nq__totals_t *batch,
                             int rank, int64_t time_ms, int agrees) {
  if (journal->status != NQ_OK)
    return journal->status;
  line_t line;
  if (!batch_is_valid(journal, first_id, batch, rank, time_ms) ||
      format_check(&line, first_id, batch, rank, time_ms, agrees) != NQ_OK)
    return NQ_EINVAL;
  return append_line(journal, &line);
}

int nq__journal_errno(const nq__journal_t *journal) { return journal->failed_errno; }

int nq__journal_read_only(const nq__journal_t *journal) { return journal->read_only_errno != 0; }

int nq__journal_close(nq__journal_t *journal) {
  if (journal == NULL)
    return NQ_OK;
  int rc = nq__journal_sync(journal);
  /* close() reports what a network filesystem could not write back. */
  if (close(journal->fd) != 0 && rc == NQ_OK)
    rc = fail(journal, errno);
  free(journal);
  return rc;
}

int64_t nq__journal_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* ---- the done cursor ---- */

void nq__journal_done_cursor_init(nq__journal_done_cursor_t *cursor,
                                  const nq__journal_state_t *state) {
  cursor->done = state->done;
  cursor->done_count = state->done_count;
  cursor->next = 0;
}

int nq__journal_done_cursor_next(nq__journal_done_cursor_t *cursor, uint64_t id) {
  while (cursor->next < cursor->done_count && cursor->done[cursor->next].end <= id)
    cursor->next++;
  return cursor->next < cursor->done_count && cursor->done[cursor->next].first <= id;
}
