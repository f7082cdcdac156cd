#ifndef NQ_SRC_JOURNAL_LOAD_H
#define NQ_SRC_JOURNAL_LOAD_H

/* Loading a journal (journal_load.c): every line read and checked into a
 * state, records merged into ranges of done units, a torn last line
 * found; for the writer (journal.c), which locks and cuts the file, and
 * for readers (nq__journal_read, nq__journal_visit). */

#include <sys/types.h>

#include "journal.h"
#include "totals.h"

typedef struct nq__journal_loader {
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
} nq__journal_loader_t;

/* What a line is, from its first bytes (a torn line's rest may be
 * garbage), what it is called, and what dropping it torn means. */
enum { LINE_RECORD, LINE_CHECK, LINE_RUN };
extern const char *const nq__journal_line_names[];
extern const char *const nq__journal_torn_drop_means[];
extern const char *const nq__journal_torn_leave_means[];

/* Reads and validates the whole file into l->state, changing nothing. */
int nq__journal_load(nq__journal_loader_t *l, int fd);
/* A journal is a regular file; its identity goes into `state`. */
int nq__journal_check_regular(nq__journal_state_t *state, int fd, char *message, const char *path);
void nq__journal_state_reset(nq__journal_state_t *state);

#endif
