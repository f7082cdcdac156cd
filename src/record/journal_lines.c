#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "journal_lines.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "method.h"
#include "nqueens/error.h"
#include "nqueens/slice.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

/* GMP's _ui functions take unsigned long: the 64-bit sums of a record go
 * through them whole only where it holds 64 bits (LP64). */
_Static_assert(sizeof(unsigned long) >= sizeof(uint64_t), "unsigned long must hold 64 bits");

/* ---- messages ---- */

static int say(char *message, const char *path, const char *format, va_list args) {
  int used = snprintf(message, NQ__MESSAGE_SIZE, "%s: ", path);
  if (used >= 0 && used < NQ__MESSAGE_SIZE)
    vsnprintf(message + used, NQ__MESSAGE_SIZE - (size_t)used, format, args);
  return NQ_EJOURNAL;
}

/* Fills `message` with "<path>: <what>" and returns NQ_EJOURNAL. */
int nq__journal_refuse(char *message, const char *path, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int rc = say(message, path, format, args);
  va_end(args);
  return rc;
}

/* ---- lines: building ---- */

void nq__journal_put_char(nq__journal_text_t *line, char c) { line->text[line->length++] = c; }

void nq__journal_put_u64(nq__journal_text_t *line, uint64_t value) {
  char digits[20];
  int count = 0;
  do {
    digits[count++] = (char)('0' + (int)(value % 10));
    value /= 10;
  } while (value != 0);
  while (count > 0)
    nq__journal_put_char(line, digits[--count]);
}

/* NQ_EINVAL for a negative sum or one of more than SUM_DIGITS_MAX digits,
 * which no batch can reach. */
static int put_sum(nq__journal_text_t *line, const mpz_t value) {
  if (mpz_sgn(value) < 0)
    return NQ_EINVAL;
  if (mpz_fits_ulong_p(value)) {
    nq__journal_put_u64(line, mpz_get_ui(value));
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
void nq__journal_put_crc(nq__journal_text_t *line) {
  static const char hex[] = "0123456789abcdef";
  uint32_t crc = crc_of(line->text, line->length);
  nq__journal_put_char(line, ' ');
  for (int shift = 28; shift >= 0; shift -= 4)
    nq__journal_put_char(line, hex[crc >> shift & 0xf]);
  nq__journal_put_char(line, '\n');
}

void nq__journal_format_header(nq__journal_text_t *line, const nq__journal_header_t *header) {
  int length =
      snprintf(line->text, sizeof line->text,
               JOURNAL_MAGIC " %d n=%d unique=%d depth=%d scheme=%d version=%s units=%" PRIu64,
               JOURNAL_FORMAT, header->n, header->unique, header->depth, header->scheme,
               header->version, header->total_units);
  /* The backtracker's headers stay as they were before methods had names. */
  if (strcmp(header->method, NQ__JOURNAL_DEFAULT_METHOD) != 0)
    length += snprintf(line->text + length, sizeof line->text - (size_t)length, " method=%s",
                       header->method);
  if (header->slice_count > 1)
    length += snprintf(line->text + length, sizeof line->text - (size_t)length, " slice=%d/%d",
                       header->slice_index + 1, header->slice_count);
  line->length = (size_t)length;
  nq__journal_put_crc(line);
}

/* A batch's fields: its first id, count, sums, rank and time. */
static int put_batch(nq__journal_text_t *line, uint64_t first_id, const nq__totals_t *batch,
                     int rank, int64_t time_ms) {
  nq__journal_put_u64(line, first_id);
  nq__journal_put_char(line, ' ');
  nq__journal_put_u64(line, batch->units);
  const mpz_srcptr sums[] = {batch->solutions, batch->unique_times_8, batch->nodes};
  for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
    nq__journal_put_char(line, ' ');
    if (put_sum(line, sums[i]) != NQ_OK)
      return NQ_EINVAL;
  }
  nq__journal_put_char(line, ' ');
  nq__journal_put_u64(line, (uint64_t)rank);
  nq__journal_put_char(line, ' ');
  nq__journal_put_u64(line, (uint64_t)time_ms);
  return NQ_OK;
}

void nq__journal_put_word(nq__journal_text_t *line, const char *word) {
  while (*word)
    nq__journal_put_char(line, *word++);
}

int nq__journal_format_record(nq__journal_text_t *line, uint64_t first_id,
                              const nq__totals_t *batch, int rank, int64_t time_ms) {
  line->length = 0;
  if (put_batch(line, first_id, batch, rank, time_ms) != NQ_OK)
    return NQ_EINVAL;
  nq__journal_put_crc(line);
  return NQ_OK;
}

/* "check", a record's fields, then "agree" or "differ". */
int nq__journal_format_check(nq__journal_text_t *line, uint64_t first_id, const nq__totals_t *batch,
                             int rank, int64_t time_ms, int agrees) {
  line->length = 0;
  nq__journal_put_word(line, CHECK_WORD " ");
  if (put_batch(line, first_id, batch, rank, time_ms) != NQ_OK)
    return NQ_EINVAL;
  nq__journal_put_word(line, agrees ? " " AGREE_WORD : " " DIFFER_WORD);
  nq__journal_put_crc(line);
  return NQ_OK;
}

/* ---- lines: reading ---- */

/* 1 and the next field, 0 when there is none or it is empty. */
int nq__journal_take_field(nq__journal_fields_t *fields, const char **start, size_t *length) {
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

int nq__journal_take_u64(nq__journal_fields_t *fields, uint64_t max, uint64_t *out) {
  const char *start;
  size_t length;
  return nq__journal_take_field(fields, &start, &length) && parse_u64(start, length, max, out);
}

/* A sum field, added to `sum`; the value is left in `scratch`. */
int nq__journal_take_sum(nq__journal_fields_t *fields, mpz_t sum, mpz_t scratch) {
  const char *start;
  size_t length;
  if (!nq__journal_take_field(fields, &start, &length) || !is_decimal(start, length) ||
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

int nq__journal_sum_fits(const mpz_t value, uint64_t units, unsigned per_unit) {
  if (mpz_sizeinbase(value, 2) <= 64)
    return units > 0; /* the common case, with no bound to build */
  mpz_t bound;
  mpz_init_set_ui(bound, UINT64_MAX);
  mpz_mul_ui(bound, bound, units);
  mpz_mul_ui(bound, bound, per_unit);
  int fits = mpz_cmp(value, bound) <= 0;
  mpz_clear(bound);
  return fits;
}

/* The record's solutions, just read into sums->term, join the residues:
 * summed record by record, apart from the big integer. */
int nq__journal_take_residues(nq__totals_t *sums) {
  nq__totals_add_residues(sums, sums->term);
  return 1;
}

/* "key=value": the value. */
static int take_keyed(nq__journal_fields_t *fields, const char *key, const char **value,
                      size_t *length) {
  const char *start;
  size_t field_length, key_length = strlen(key);
  if (!nq__journal_take_field(fields, &start, &field_length) || field_length <= key_length + 1 ||
      memcmp(start, key, key_length) != 0 || start[key_length] != '=')
    return 0;
  *value = start + key_length + 1;
  *length = field_length - key_length - 1;
  return 1;
}

static int take_keyed_int(nq__journal_fields_t *fields, const char *key, uint64_t max, int *out) {
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
int nq__journal_crc_matches(const char *line, size_t length, size_t *body_length) {
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

int nq__journal_header_is_valid(const nq__journal_header_t *header) {
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
static int take_method(nq__journal_fields_t *fields, nq__journal_header_t *header) {
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
static int take_slice(nq__journal_fields_t *fields, nq__journal_header_t *header) {
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
static int parse_header_fields(nq__journal_fields_t *fields, nq__journal_header_t *header) {
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
int nq__journal_parse_header(nq__journal_header_t *header, char *message, const char *path,
                             const char *line, size_t length) {
  size_t magic_length = strlen(JOURNAL_MAGIC);
  if (length <= magic_length || memcmp(line, JOURNAL_MAGIC " ", magic_length + 1) != 0)
    return nq__journal_refuse(message, path,
                              "not a checkpoint journal (no \"" JOURNAL_MAGIC "\" header line)");
  /* The format first: another format may check its lines otherwise. */
  nq__journal_fields_t fields = {line + magic_length + 1, line + length - 1};
  uint64_t format;
  if (!nq__journal_take_u64(&fields, UINT64_MAX, &format))
    return nq__journal_refuse(message, path, "damaged journal header (format)");
  if (format != JOURNAL_FORMAT)
    return nq__journal_refuse(message, path,
                              "journal format %" PRIu64 ", this program reads format %d", format,
                              JOURNAL_FORMAT);
  size_t body;
  if (!nq__journal_crc_matches(line, length, &body))
    return nq__journal_refuse(message, path, "damaged journal header (checksum mismatch)");
  fields.end = line + body;
  memset(header, 0, sizeof *header);
  if (fields.at == NULL || fields.at >= fields.end || !parse_header_fields(&fields, header))
    return nq__journal_refuse(message, path, "damaged journal header (fields)");
  return NQ_OK;
}

/* How the method of a header calls its unit parameter in messages. */
static const char *unit_param_word(const char *method_name) {
  const nq__method_t *method = nq__method_named(method_name);
  return method != NULL ? method->unit_param_word : "depth";
}

/* One line naming the first field in which the journal and this run
 * differ. */
int nq__journal_compare_headers(char *message, const char *path, const nq__journal_header_t *found,
                                const nq__journal_header_t *expected) {
  /* The board and --unique first: a run of another board is told that,
   * not that the method auto took for it differs. */
  if (found->n != expected->n)
    return nq__journal_refuse(message, path, "journal is for n = %d, this run is n = %d", found->n,
                              expected->n);
  if (found->unique != expected->unique)
    return nq__journal_refuse(message, path, "journal was written %s --unique, this run is %s it",
                              found->unique ? "with" : "without",
                              expected->unique ? "with" : "without");
  if (strcmp(found->method, expected->method) != 0)
    return nq__journal_refuse(message, path, "journal is for --method %s, this run is --method %s",
                              found->method, expected->method);
  if (found->depth != expected->depth) {
    const char *word = unit_param_word(expected->method); /* found's: the same */
    return nq__journal_refuse(message, path, "journal has %s %d, this run %s %d", word,
                              found->depth, word, expected->depth);
  }
  if (found->scheme != expected->scheme)
    return nq__journal_refuse(message, path, "journal uses unit scheme %d, this program scheme %d",
                              found->scheme, expected->scheme);
  if (strcmp(found->version, expected->version) != 0)
    return nq__journal_refuse(message, path,
                              "journal was written by version %s, this is version %s",
                              found->version, expected->version);
  if (found->total_units != expected->total_units)
    return nq__journal_refuse(message, path,
                              "journal has %" PRIu64 " units in all, this run %" PRIu64,
                              found->total_units, expected->total_units);
  if (found->slice_count != expected->slice_count || found->slice_index != expected->slice_index)
    return nq__journal_refuse(message, path, "journal is for slice %d/%d, this run is slice %d/%d",
                              found->slice_index + 1, found->slice_count, expected->slice_index + 1,
                              expected->slice_count);
  return NQ_OK;
}
