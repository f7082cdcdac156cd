#ifndef NQ_SRC_JOURNAL_LINES_H
#define NQ_SRC_JOURNAL_LINES_H

/* The checkpoint journal's lines (journal_lines.c): built, read field by
 * field and checked, the header's fields, and the messages that refuse a
 * journal; shared by the loader (journal_load.c) and the file's writer
 * (journal.c).  The format: docs/design.md, "The format, byte by byte". */

#include <gmp.h>
#include <stddef.h>
#include <stdint.h>

#include "journal.h"
#include "totals.h"

#define JOURNAL_MAGIC "nqueens-journal"
#define JOURNAL_FORMAT 1
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

/* A line being built, whole (LINE_BYTES holds the longest). */
typedef struct nq__journal_text {
  char text[LINE_BYTES];
  size_t length;
} nq__journal_text_t;

/* Fields separated by single spaces; `at` is NULL once the last is taken. */
typedef struct nq__journal_fields {
  const char *at, *end;
} nq__journal_fields_t;

/* Fills `message` with "<path>: <what>" and returns NQ_EJOURNAL. */
__attribute__((format(printf, 3, 4))) int nq__journal_refuse(char *message, const char *path,
                                                             const char *format, ...);

/* ---- building ---- */
void nq__journal_put_char(nq__journal_text_t *line, char c);
void nq__journal_put_u64(nq__journal_text_t *line, uint64_t value);
void nq__journal_put_word(nq__journal_text_t *line, const char *word);
/* Ends the line with its CRC-32 and a newline. */
void nq__journal_put_crc(nq__journal_text_t *line);
void nq__journal_format_header(nq__journal_text_t *line, const nq__journal_header_t *header);
/* A record's or a check line's whole text; NQ_EINVAL for sums no batch
 * can reach. */
int nq__journal_format_record(nq__journal_text_t *line, uint64_t first_id,
                              const nq__totals_t *batch, int rank, int64_t time_ms);
int nq__journal_format_check(nq__journal_text_t *line, uint64_t first_id, const nq__totals_t *batch,
                             int rank, int64_t time_ms, int agrees);

/* ---- reading ---- */
int nq__journal_take_field(nq__journal_fields_t *fields, const char **start, size_t *length);
int nq__journal_take_u64(nq__journal_fields_t *fields, uint64_t max, uint64_t *out);
int nq__journal_take_sum(nq__journal_fields_t *fields, mpz_t sum, mpz_t scratch);
/* Whether `value` is a sum that `units` units can give, each at most
 * `per_unit` times 2^64 - 1 (a unit's count is 64 bits). */
int nq__journal_sum_fits(const mpz_t value, uint64_t units, unsigned per_unit);
int nq__journal_take_residues(nq__totals_t *sums);
/* Whether a line (without its newline) ends in the CRC of the rest;
 * *body_length is then the length before the CRC field. */
int nq__journal_crc_matches(const char *line, size_t length, size_t *body_length);

/* ---- the header ---- */
int nq__journal_header_is_valid(const nq__journal_header_t *header);
int nq__journal_parse_header(nq__journal_header_t *header, char *message, const char *path,
                             const char *line, size_t length);
/* NQ_OK when the journal's header is the run's; else a refusal naming
 * what differs. */
int nq__journal_compare_headers(char *message, const char *path, const nq__journal_header_t *found,
                                const nq__journal_header_t *expected);

#endif
