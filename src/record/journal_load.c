#define _POSIX_C_SOURCE 200809L /* pread */

#include "journal_load.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "journal_lines.h"
#include "method.h"
#include "nqueens/error.h"
#include "nqueens/frame.h"
#include "nqueens/slice.h"
#include "nqueens/symmetry.h"
#include "nqueens/units.h"

/* ---- loading ---- */

/* What each kind of line is called, and what dropping it torn means. */
const char *const nq__journal_line_names[] = {"record", "check line", "run line"};
const char *const nq__journal_torn_drop_means[] = {
    "its units are counted again", "that batch is checked again by --verify", "nothing is lost"};
const char *const nq__journal_torn_leave_means[] = {
    "a run may be writing it", "a --verify may be writing it", "a run may be writing it"};

static int line_kind(const char *text, size_t length) {
  size_t check = strlen(CHECK_WORD " "), run = strlen(RUN_WORD " ");
  if (length >= check && memcmp(text, CHECK_WORD " ", check) == 0)
    return LINE_CHECK;
  if (length >= run && memcmp(text, RUN_WORD " ", run) == 0)
    return LINE_RUN;
  return LINE_RECORD;
}

static int add_range(nq__journal_loader_t *l, uint64_t first, uint64_t end) {
  if (l->range_count > 0 && l->ranges[l->range_count - 1].end == first) {
    l->ranges[l->range_count - 1].end = end;
    return NQ_OK;
  }
  if (nq__grow((void **)&l->ranges, &l->range_capacity, l->range_count + 1, sizeof *l->ranges) !=
      NQ_OK)
    return NQ_ENOMEM;
  l->ranges[l->range_count++] = (nq__journal_range_t){first, end};
  return NQ_OK;
}

static int damaged_fields(nq__journal_loader_t *l) {
  return nq__journal_refuse(l->message, l->path, "damaged record at line %" PRIu64 " (fields)",
                            l->line_number);
}

/* The slice a header names; the whole count where it names none (or one
 * that cannot be, which its loading has refused). */
static nq_slice_t header_slice(const nq__journal_header_t *header) {
  nq_slice_t slice;
  if (header->slice_count < 2 ||
      nq_slice_init(&slice, header->slice_index, header->slice_count, header->total_units) != NQ_OK)
    nq_slice_init(&slice, 0, 1, header->total_units);
  return slice;
}

/* A batch's fields, common to records and checks: the sums go into
 * `sums` (added to what it holds). */
static int take_batch(nq__journal_loader_t *l, nq__journal_fields_t *fields,
                      nq__journal_line_t *out, nq__totals_t *sums) {
  uint64_t rank, time_ms;
  if (!nq__journal_take_u64(fields, UINT64_MAX, &out->first) ||
      !nq__journal_take_u64(fields, UINT64_MAX, &out->count))
    return damaged_fields(l);
  if (out->count == 0)
    return nq__journal_refuse(l->message, l->path, "record at line %" PRIu64 " holds no unit",
                              l->line_number);
  /* Each sum within what its units can give: a unit's count is 64 bits,
   * taken its frame's weight times (at most 8) for the solutions and the
   * Burnside sum, so a larger one was never written by a run, whatever its
   * CRC says. */
  mpz_ptr sum_of[] = {sums->solutions, sums->unique_times_8, sums->nodes};
  static const unsigned per_unit[] = {NQ_SYM_COUNT, NQ_SYM_COUNT, 1};
  static const char *const names[] = {"solutions", "unique", "nodes"};
  for (size_t i = 0; i < sizeof sum_of / sizeof sum_of[0]; i++) {
    if (!nq__journal_take_sum(fields, sum_of[i], sums->term))
      return damaged_fields(l);
    if (!nq__journal_sum_fits(sums->term, out->count, per_unit[i]))
      return nq__journal_refuse(l->message, l->path,
                                "record at line %" PRIu64 ": its %s sum is more than its %" PRIu64
                                " units can hold: a damaged or altered journal",
                                l->line_number, names[i], out->count);
    if (i == 0)
      nq__journal_take_residues(sums);
  }
  if (!nq__journal_take_u64(fields, INT_MAX, &rank) ||
      !nq__journal_take_u64(fields, INT64_MAX, &time_ms))
    return damaged_fields(l);
  out->rank = (int)rank;
  out->time_ms = (int64_t)time_ms;
  uint64_t total = l->state->header.total_units;
  if (out->first >= total || out->count > total - out->first)
    return nq__journal_refuse(l->message, l->path,
                              "record at line %" PRIu64 " holds %" PRIu64 " units from id %" PRIu64
                              ", past the journal's %" PRIu64 " units",
                              l->line_number, out->count, out->first, total);
  const nq_slice_t slice = header_slice(&l->state->header);
  if (!nq_slice_holds_range(&slice, out->first, out->count))
    return nq__journal_refuse(l->message, l->path,
                              "record at line %" PRIu64 " holds units %" PRIu64 "..%" PRIu64
                              ", not all of slice %d/%d: a damaged or altered journal",
                              l->line_number, out->first, out->first + out->count - 1,
                              l->state->header.slice_index + 1, l->state->header.slice_count);
  return NQ_OK;
}

/* Where a line's sums are read to: straight into the journal's sums, or,
 * for a visitor, into the line's own first. */
static nq__totals_t *line_sums(nq__journal_loader_t *l) {
  if (l->visit == NULL)
    return &l->state->sums;
  nq__totals_reset(&l->line_sums);
  return &l->line_sums;
}

static int visit_line(nq__journal_loader_t *l, nq__journal_line_t *line) {
  if (l->visit == NULL)
    return NQ_OK;
  line->sums = &l->line_sums;
  return l->visit(line, l->visit_context);
}

static int take_record(nq__journal_loader_t *l, const char *text, size_t body) {
  nq__journal_state_t *state = l->state;
  nq__journal_fields_t fields = {text, text + body};
  nq__journal_line_t line = {.is_check = 0};
  nq__totals_t *sums = line_sums(l);
  int rc = take_batch(l, &fields, &line, sums);
  if (rc != NQ_OK)
    return rc;
  if (fields.at != NULL)
    return nq__journal_refuse(l->message, l->path, "damaged record at line %" PRIu64 " (fields)",
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
static int take_check(nq__journal_loader_t *l, const char *text, size_t body) {
  nq__journal_state_t *state = l->state;
  size_t word = strlen(CHECK_WORD " ");
  nq__journal_fields_t fields = {text + word, text + body};
  nq__journal_line_t line = {.is_check = 1};
  nq__totals_t *sums = l->visit != NULL ? line_sums(l) : &l->line_sums;
  if (l->visit == NULL)
    nq__totals_reset(sums);
  const char *verdict;
  size_t length;
  int rc = take_batch(l, &fields, &line, sums);
  if (rc != NQ_OK)
    return rc;
  if (!nq__journal_take_field(&fields, &verdict, &length) || fields.at != NULL ||
      !((length == strlen(AGREE_WORD) && memcmp(verdict, AGREE_WORD, length) == 0) ||
        (length == strlen(DIFFER_WORD) && memcmp(verdict, DIFFER_WORD, length) == 0)))
    return nq__journal_refuse(l->message, l->path, "damaged check at line %" PRIu64 " (fields)",
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
 * is counting time (a run that recorded nothing adds none; one that did
 * within its first millisecond is a run of 0 ms). */
static void end_run(nq__journal_loader_t *l) {
  if (l->run_started_ms >= 0 && l->run_last_ms >= l->run_started_ms) {
    l->state->counting_ms += l->run_last_ms - l->run_started_ms;
    l->state->counting_runs++;
  }
  l->run_started_ms = l->run_last_ms = -1;
}

/* "run <time_ms> <ranks>": one more count opened the journal. */
static int take_run(nq__journal_loader_t *l, const char *text, size_t body) {
  nq__journal_fields_t fields = {text + strlen(RUN_WORD " "), text + body};
  uint64_t time_ms, ranks;
  if (!nq__journal_take_u64(&fields, INT64_MAX, &time_ms) ||
      !nq__journal_take_u64(&fields, INT_MAX, &ranks) || fields.at != NULL)
    return nq__journal_refuse(l->message, l->path, "damaged run line at line %" PRIu64 " (fields)",
                              l->line_number);
  l->state->runs++;
  end_run(l);
  l->run_started_ms = (int64_t)time_ms;
  return NQ_OK;
}

static int take_header(nq__journal_loader_t *l, const char *line, size_t length) {
  int rc = nq__journal_parse_header(&l->state->header, l->message, l->path, line, length);
  if (rc == NQ_OK && l->expected != NULL)
    rc = nq__journal_compare_headers(l->message, l->path, &l->state->header, l->expected);
  return rc;
}

/* A whole line, newline included; `line` is NULL for one longer than any
 * journal line, whose bytes were not kept. */
static int take_line(nq__journal_loader_t *l, const char *line, size_t length) {
  l->line_number++;
  /* Only the last line may fail its checksum: this one follows it. */
  if (l->bad_line != 0)
    return nq__journal_refuse(
        l->message, l->path, "damaged record at line %" PRIu64 " (checksum mismatch)", l->bad_line);
  off_t start = l->line_start;
  l->line_start += (off_t)length;
  if (l->line_number == 1)
    return line != NULL ? take_header(l, line, length)
                        : nq__journal_refuse(l->message, l->path,
                                             "not a checkpoint journal (no header line)");
  size_t body;
  if (line == NULL || !nq__journal_crc_matches(line, length, &body)) {
    l->bad_line = l->line_number;
    l->bad_start = start;
    l->bad_kind = line != NULL ? line_kind(line, length) : LINE_RECORD;
    return NQ_OK;
  }
  switch (line_kind(line, body)) {
  case LINE_CHECK:
    return take_check(l, line, body);
  case LINE_RUN:
    return take_run(l, line, body);
  default:
    return take_record(l, line, body);
  }
}

/* `fragment` bytes follow the last newline.  What was torn by a crash, if
 * anything, is that fragment or else a last line that failed its checksum;
 * both at once mean a damaged line before the last. */
static int take_end(nq__journal_loader_t *l, off_t fragment, int fragment_kind) {
  if (l->line_number == 0)
    return nq__journal_refuse(l->message, l->path,
                              fragment == 0 ? "empty file, not a checkpoint journal"
                                            : "not a checkpoint journal (no complete header line)");
  if (l->bad_line != 0 && fragment > 0)
    return nq__journal_refuse(
        l->message, l->path, "damaged record at line %" PRIu64 " (checksum mismatch)", l->bad_line);
  l->file_end = l->line_start + fragment;
  l->good_end = fragment > 0 ? l->line_start : l->bad_line != 0 ? l->bad_start : l->line_start;
  l->torn_line = fragment > 0 ? l->line_number + 1 : l->bad_line;
  l->torn_kind = fragment > 0 ? fragment_kind : l->bad_kind;
  return NQ_OK;
}

/* Reads the file in large chunks and hands each line to take_line. */
static int read_lines(nq__journal_loader_t *l, int fd) {
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
      rc = nq__journal_refuse(l->message, l->path, "cannot read: %s", strerror(errno));
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
static int merge_ranges(nq__journal_loader_t *l) {
  nq__journal_range_t *ranges = l->ranges;
  size_t count = l->range_count, merged = 0;
  for (size_t i = 1; i < count; i++)
    if (ranges[i].first < ranges[i - 1].first) {
      qsort(ranges, count, sizeof *ranges, compare_firsts);
      break;
    }
  for (size_t i = 0; i < count; i++) {
    if (merged > 0 && ranges[i].first < ranges[merged - 1].end)
      return nq__journal_refuse(l->message, l->path, "two records hold unit %" PRIu64,
                                ranges[i].first);
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

void nq__journal_state_reset(nq__journal_state_t *state) {
  nq__journal_state_clear(state);
  nq__journal_state_init(state);
}

/* Reads and validates the whole file into `state`, changing nothing. */
int nq__journal_load(nq__journal_loader_t *l, int fd) {
  nq__totals_init(&l->line_sums);
  l->run_started_ms = l->run_last_ms = -1;
  int rc = read_lines(l, fd);
  end_run(l);
  nq__totals_clear(&l->line_sums);
  if (rc == NQ_OK)
    rc = merge_ranges(l);
  if (rc == NQ_ENOMEM)
    nq__journal_refuse(l->message, l->path, "out of memory while reading the journal");
  free(l->ranges);
  l->ranges = NULL;
  if (rc != NQ_OK)
    nq__journal_state_reset(l->state);
  return rc;
}

/* A journal is a regular file; its identity goes into `state`. */
int nq__journal_check_regular(nq__journal_state_t *state, int fd, char *message, const char *path) {
  struct stat info;
  if (fstat(fd, &info) != 0)
    return nq__journal_refuse(message, path, "cannot stat: %s", strerror(errno));
  if (!S_ISREG(info.st_mode))
    return nq__journal_refuse(message, path, "not a regular file, not a checkpoint journal");
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
                            char message[static NQ__MESSAGE_SIZE], const char *path) {
  const nq__method_t *method = nq__method_named(header->method);
  if (method == NULL)
    return nq__journal_refuse(message, path, "journal of an unknown method '%s'", header->method);
  if (header->scheme != method->scheme(header->n, header->depth))
    return NQ_OK; /* another program's listing: nothing to count it by */
  const nq__method_params_t params = {
      .n = header->n, .unit_param = header->depth, .unique = header->unique, .walk = NQ_WALK_AUTO};
  if (method->check(&params) != NQ_OK)
    return nq__journal_refuse(message, path,
                              "journal header names n = %d with %s %d, which %s cannot count",
                              header->n, method->unit_param_word, header->depth, header->method);
  uint64_t units = 0;
  int rc = method->units_total(&units, &params, NULL);
  if (rc != NQ_OK)
    return rc;
  if (units != header->total_units)
    return nq__journal_refuse(
        message, path,
        "journal header says %" PRIu64 " units, but n = %d at %s %d has %" PRIu64
        ": a damaged or altered header",
        header->total_units, header->n, method->unit_param_word, header->depth, units);
  return NQ_OK;
}

uint64_t nq__journal_units(const nq__journal_state_t *state) {
  const nq_slice_t slice = header_slice(&state->header);
  return nq_slice_units(&slice);
}

int nq__journal_complete(const nq__journal_state_t *state) {
  return state->sums.units == nq__journal_units(state);
}

int nq__journal_read(nq__journal_state_t *state, char message[static NQ__MESSAGE_SIZE],
                     const char *path) {
  return nq__journal_visit(state, message, path, NULL, NULL);
}

int nq__journal_visit(nq__journal_state_t *state, char message[static NQ__MESSAGE_SIZE],
                      const char *path, nq__journal_visitor_fn visit, void *context) {
  message[0] = '\0';
  /* O_NONBLOCK: a FIFO in the journal's place must be refused, not waited
   * on for a writer; it changes nothing for a regular file. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return nq__journal_refuse(message, path, "cannot open: %s", strerror(errno));
  nq__journal_loader_t l = {
      .state = state, .message = message, .path = path, .visit = visit, .visit_context = context};
  int rc = nq__journal_check_regular(state, fd, message, path);
  if (rc == NQ_OK)
    rc = nq__journal_load(&l, fd);
  close(fd);
  if (rc == NQ_OK && l.good_end < l.file_end)
    nq__journal_refuse(message, path, "torn last %s at line %" PRIu64 " (%lld bytes) left out: %s",
                       nq__journal_line_names[l.torn_kind], l.torn_line,
                       (long long)(l.file_end - l.good_end),
                       nq__journal_torn_leave_means[l.torn_kind]);
  return rc;
}

int nq__journal_read_header(nq__journal_header_t *header, char message[static NQ__MESSAGE_SIZE],
                            const char *path) {
  message[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return nq__journal_refuse(message, path, "cannot open: %s", strerror(errno));
  struct stat info;
  char line[LINE_BYTES];
  ssize_t got = -1;
  if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode))
    do
      got = pread(fd, line, sizeof line, 0);
    while (got < 0 && errno == EINTR);
  close(fd);
  const char *end = got > 0 ? memchr(line, '\n', (size_t)got) : NULL;
  if (end == NULL)
    return nq__journal_refuse(message, path, "not a checkpoint journal (no header line)");
  return nq__journal_parse_header(header, message, path, line, (size_t)(end - line) + 1);
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
