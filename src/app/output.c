#include "output.h"

#include "build_info.h"

#include <errno.h>
#include <inttypes.h>
#include <gmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "method.h"
#include "nqueens/error.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

/* ---- The buffered stream --------------------------------------------- */

int nq__output_open(nq__output_t *output, FILE *stream, size_t capacity) {
  *output = (nq__output_t){.stream = stream, .status = NQ_OK};
  if (capacity < NQ_OUTPUT_MIN_CAPACITY)
    return NQ_EINVAL;
  output->buffer = malloc(capacity);
  if (output->buffer == NULL)
    return NQ_ENOMEM;
  output->capacity = capacity;
  return NQ_OK;
}

/* Only the first failure counts: what follows it is a consequence. */
static void fail(nq__output_t *output, int code, int write_errno) {
  if (output->status != NQ_OK)
    return;
  output->status = code;
  output->write_errno = write_errno;
}

/* errno is cleared first so that a failure which sets none reports none,
 * not a stale reason.  ferror as well as the count: glibc's fwrite to an
 * unbuffered stream can report every byte written when the write failed. */
static void write_buffer(nq__output_t *output) {
  if (output->status == NQ_OK && output->used > 0) {
    errno = 0;
    size_t written = fwrite(output->buffer, 1, output->used, output->stream);
    if (written != output->used || ferror(output->stream))
      fail(output, NQ_EIO, errno);
  }
  output->used = 0;
}

int nq__output_flush(nq__output_t *output) {
  write_buffer(output);
  if (output->status == NQ_OK) {
    errno = 0;
    if (fflush(output->stream) != 0 || ferror(output->stream))
      fail(output, NQ_EIO, errno);
  }
  return output->status;
}

void nq__output_close(nq__output_t *output) {
  free(output->buffer);
  output->buffer = NULL;
  output->used = output->capacity = 0;
}

/* Where the next `size` bytes go, after writing the buffer out if they do
 * not fit behind what it holds; NULL once the output has failed.  The
 * caller adds what it wrote to `used`. */
static char *room_for(nq__output_t *output, size_t size) {
  if (output->status != NQ_OK)
    return NULL;
  if (output->capacity - output->used < size) {
    write_buffer(output);
    if (output->status != NQ_OK)
      return NULL;
    if (size > output->capacity) {
      fail(output, NQ_EINVAL, 0);
      return NULL;
    }
  }
  return output->buffer + output->used;
}

static void append(nq__output_t *output, const char *bytes, size_t size) {
  char *room = room_for(output, size);
  if (room == NULL)
    return;
  memcpy(room, bytes, size);
  output->used += size;
}

static void append_text(nq__output_t *output, const char *text) {
  append(output, text, strlen(text));
}

static void append_char(nq__output_t *output, char c) { append(output, &c, 1); }

/* printf's conversions plus GMP's %Zd for the big counts.  Measured
 * first, then formatted straight into the buffer. */
static void append_format(nq__output_t *output, const char *format, ...) {
  va_list measure, print;
  va_start(measure, format);
  va_copy(print, measure);
  int length = gmp_vsnprintf(NULL, 0, format, measure);
  if (length < 0) {
    fail(output, NQ_EINVAL, 0);
  } else {
    char *room = room_for(output, (size_t)length + 1); /* and the final NUL */
    if (room != NULL) {
      gmp_vsnprintf(room, (size_t)length + 1, format, print);
      output->used += (size_t)length;
    }
  }
  va_end(print);
  va_end(measure);
}

/* One row of a board: a Q in the queen's column, dots elsewhere. */
static void append_row(nq__output_t *output, int n, int queen_col) {
  char *room = room_for(output, (size_t)n);
  if (room == NULL)
    return;
  memset(room, '.', (size_t)n);
  room[queen_col] = 'Q';
  output->used += (size_t)n;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void append_json_string(nq__output_t *output, const char *text) {
  append_char(output, '"');
  for (const char *c = text; *c; c++)
    if (*c == '"' || *c == '\\')
      append_format(output, "\\%c", *c);
    else if ((unsigned char)*c < 0x20)
      append_format(output, "\\u%04x", (unsigned char)*c);
    else
      append_char(output, *c);
  append_char(output, '"');
}

static void append_residues(nq__output_t *output, const uint32_t *residues) {
  static const uint32_t primes[NQ_COUNT_RESIDUES] = NQ_COUNT_RESIDUE_PRIMES;
  append_text(output, ",\"solutions_mod\":{");
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    append_format(output, "%s\"%u\":%u", i ? "," : "", primes[i], residues[i]);
  append_char(output, '}');
}

/* ---- Counts ----------------------------------------------------------- */

static double per_second(const mpz_t count, double seconds) {
  return seconds > 0 ? mpz_get_d(count) / seconds : 0.0;
}

/* The time the whole count took: this run's, or with units resumed from a
 * journal the runs' that counted them. */
static double count_seconds(const nq_count_result_t *r) {
  return r->resumed_units > 0 ? r->count_seconds : r->seconds;
}

/* A slice's counts are shares, not Q(n): said so, with how to get Q(n). */
static void slice_as_text(nq__output_t *output, int n, int unique, const nq_count_result_t *r) {
  append_format(output, "slice %d/%d of Q(%d): %Zd solution%s (merge every slice's journal "
                        "with --merge for Q(%d))\n",
                r->slice_index + 1, r->slice_count, n, r->solutions,
                mpz_cmp_ui(r->solutions, 1) == 0 ? "" : "s", n);
  if (unique)
    append_format(output, "its share of 8 x U(%d): %Zd\n", n, r->unique);
}

static void count_as_text(nq__output_t *output, int n, int unique, const nq_count_result_t *r) {
  if (r->slice_count > 1) {
    slice_as_text(output, n, unique, r);
  } else {
    append_format(output, "Q(%d) = %Zd solution%s on the %dx%d board\n", n, r->solutions,
                  mpz_cmp_ui(r->solutions, 1) == 0 ? "" : "s", n, n);
    if (unique)
      append_format(output, "U(%d) = %Zd up to rotation and reflection\n", n, r->unique);
  }
  /* Resumed, the figures are the count's own, over the runs that counted
   * (a finished count answered from its journal solved nothing now). */
  if (r->resumed_units > 0)
    append_format(output, "%.3f s of counting in %llu run%s (this one %.3f s) on ", r->count_seconds,
                  (unsigned long long)r->count_runs, r->count_runs == 1 ? "" : "s", r->seconds);
  else
    append_format(output, "%.3f s on ", r->seconds);
  const nq__method_t *method = nq__method_of(r->method);
  append_format(output, "%d rank%s, %d thread%s, %llu %s%s, %.3g nodes/s, ", r->ranks,
                r->ranks == 1 ? "" : "s", r->threads, r->threads == 1 ? "" : "s",
                (unsigned long long)r->units, method->unit_word, r->units == 1 ? "" : "s",
                per_second(r->nodes, count_seconds(r)));
  if (r->method == NQ_COUNT_BACKTRACK)
    append_format(output, "%s walk", nq_walk_name(r->walk));
  else
    append_format(output, "%s method", method->name);
  if (r->gpu_ranks > 0)
    append_format(output, ", %d GPU rank%s", r->gpu_ranks, r->gpu_ranks == 1 ? "" : "s");
  if (r->resumed_units > 0)
    append_format(output, ", %llu unit%s from the checkpoint", (unsigned long long)r->resumed_units,
                  r->resumed_units == 1 ? "" : "s");
  if (r->verified_batches > 0)
    append_format(output, ", %llu batch%s (%llu units) verified %s",
                  (unsigned long long)r->verified_batches, r->verified_batches == 1 ? "" : "es",
                  (unsigned long long)r->verified_units,
                  r->ranks > 1 ? "on other ranks" : "on the same rank");
  if (r->copies_sent > 0)
    append_format(output, ", %llu backup cop%s (%llu confirmed)",
                  (unsigned long long)r->copies_sent, r->copies_sent == 1 ? "y" : "ies",
                  (unsigned long long)r->copies_confirmed);
  append_format(output, "\n");
}

/* Big counts are JSON strings: parsers round numbers beyond 2^53. */
static void count_as_json(nq__output_t *output, int n, int unique, const nq_count_result_t *r) {
  append_format(output, "{\"n\":%d,\"solutions\":\"%Zd\"", n, r->solutions);
  if (unique)
    append_format(output, r->slice_count > 1 ? ",\"unique_times_8\":\"%Zd\"" : ",\"unique\":\"%Zd\"",
                  r->unique);
  if (r->slice_count > 1)
    append_format(output, ",\"slice\":\"%d/%d\"", r->slice_index + 1, r->slice_count);
  append_format(output,
                ",\"seconds\":%.6f,\"ranks\":%d,\"threads\":%d,\"units\":%llu,\"depth\":%d,"
                "\"nodes\":\"%Zd\"",
                count_seconds(r), r->ranks, r->threads, (unsigned long long)r->units, r->depth,
                r->nodes);
  append_format(output, ",\"nodes_per_second\":%.0f,\"method\":\"%s\"",
                per_second(r->nodes, count_seconds(r)), nq__method_of(r->method)->name);
  if (r->method == NQ_COUNT_BACKTRACK)
    append_format(output, ",\"walk\":\"%s\"", nq_walk_name(r->walk));
  if (r->gpu_ranks > 0)
    append_format(output, ",\"gpu_ranks\":%d", r->gpu_ranks);
  if (r->resumed_units > 0)
    append_format(output,
                  ",\"resumed_units\":%llu,\"counting_runs\":%llu,\"run_seconds\":%.6f,"
                  "\"from_journal\":%s",
                  (unsigned long long)r->resumed_units, (unsigned long long)r->count_runs,
                  r->seconds, r->resumed_units == r->units ? "true" : "false");
  if (r->verified_batches > 0)
    append_format(output, ",\"verified_batches\":%llu,\"verified_units\":%llu",
                  (unsigned long long)r->verified_batches, (unsigned long long)r->verified_units);
  if (r->copies_sent > 0)
    append_format(output, ",\"copies\":%llu,\"copies_confirmed\":%llu",
                  (unsigned long long)r->copies_sent, (unsigned long long)r->copies_confirmed);
  append_residues(output, r->solutions_mod);
  append_format(output, ",\"version\":\"%s\"}\n", NQ_VERSION);
}

int nq__output_count(nq__output_t *output, nq__format_t format, int n, int unique,
                    const nq_count_result_t *result) {
  if (format == NQ_FORMAT_JSON)
    count_as_json(output, n, unique, result);
  else
    count_as_text(output, n, unique, result);
  return output->status;
}

/* ---- Merges ----------------------------------------------------------- */

enum { MERGE_RANGES_SHOWN = 10 }; /* text lists the first few ranges; JSON all */

static const char *journal_name(char *const *paths, int index) {
  return index >= 0 ? paths[index] : "?";
}

static size_t conflicts_kept(const nq__merge_result_t *r) {
  return r->conflict_count < NQ__MERGE_CONFLICTS_KEPT ? r->conflict_count
                                                      : NQ__MERGE_CONFLICTS_KEPT;
}

static void merge_conflict_as_text(nq__output_t *output, char *const *paths, int n,
                                   const nq__merge_conflict_t *c) {
  switch (c->kind) {
  case NQ__MERGE_SUMS:
    append_format(output, "conflict: the merged sums fail their own checks (8 x U(%d) "
                          "divisible by 8, the residues of the solutions)\n", n);
    return;
  case NQ__MERGE_UNRESOLVED:
    append_format(output,
                  "conflict: units %" PRIu64 "..%" PRIu64 " (from %s on): records overlap there "
                  "but no chain of records spans them, so their sum cannot be told\n",
                  c->first, c->end - 1, journal_name(paths, c->journal));
    return;
  case NQ__MERGE_CHECK:
    append_format(output, "conflict: units %" PRIu64 "..%" PRIu64 ": %s holds a failed check\n",
                  c->first, c->end - 1, journal_name(paths, c->journal));
    return;
  case NQ__MERGE_DIFFER:
    append_format(output, "conflict: units %" PRIu64 "..%" PRIu64 " sum differently in %s than in",
                  c->first, c->end - 1, journal_name(paths, c->journal));
    for (int i = 0; i < c->other_count; i++)
      append_format(output, "%s %s", i ? "," : "", journal_name(paths, c->others[i]));
    append_format(output, "%s\n", c->other_count == 0 ? " its own other records" : "");
    return;
  }
}

static void merge_conflicts_as_text(nq__output_t *output, char *const *paths,
                                    const nq__merge_result_t *r) {
  for (size_t i = 0; i < conflicts_kept(r); i++)
    merge_conflict_as_text(output, paths, r->header.n, &r->conflicts[i]);
  if (r->conflict_count > conflicts_kept(r))
    append_format(output, "conflict: %zu more\n", r->conflict_count - conflicts_kept(r));
}

static void merge_as_text(nq__output_t *output, char *const *paths, const nq__merge_result_t *r) {
  const int n = r->header.n;
  append_format(output, "merged %d journal%s of n = %d: %" PRIu64 " of %" PRIu64 " units present",
                r->journals, r->journals == 1 ? "" : "s", n, r->units_present,
                r->header.total_units);
  append_format(output, "; solved more than once and confirmed: %" PRIu64
                        " units; checks: %" PRIu64 " of %" PRIu64 " confirmed\n",
                r->units_confirmed, r->checks_confirmed, r->checks);
  if (r->units_missing > 0) {
    append_format(output, "missing: %" PRIu64 " units in %zu range%s:", r->units_missing,
                  r->missing_count, r->missing_count == 1 ? "" : "s");
    for (size_t i = 0; i < r->missing_count && i < MERGE_RANGES_SHOWN; i++)
      append_format(output, " %" PRIu64 "..%" PRIu64, r->missing[i].first, r->missing[i].end - 1);
    append_format(output, "%s\n", r->missing_count > MERGE_RANGES_SHOWN ? " ..." : "");
  }
  if (r->slices_missing_count > 0) {
    append_text(output, "slices to run again:");
    for (int i = 0; i < r->slices_missing_count && i < MERGE_RANGES_SHOWN; i++)
      append_format(output, " %d/%d", r->slices_missing[i] + 1, r->slice_count);
    append_format(output, "%s\n", r->slices_missing_count > MERGE_RANGES_SHOWN ? " ..." : "");
  }
  merge_conflicts_as_text(output, paths, r);
  if (!nq__merge_is_total(r)) {
    append_format(output, "no total: %s\n",
                  r->conflict_count > 0 ? "the journals disagree or cannot be compared"
                                        : "units are missing");
    return;
  }
  append_format(output, "Q(%d) = %Zd solution%s on the %dx%d board\n", n, r->solutions,
                mpz_cmp_ui(r->solutions, 1) == 0 ? "" : "s", n, n);
  if (r->header.unique)
    append_format(output, "U(%d) = %Zd up to rotation and reflection\n", n, r->unique);
  append_format(output, "nodes: %Zd\n", r->nodes);
}

/* ,"complete":..., and the totals when the merge is one. */
static void append_merge_totals(nq__output_t *output, const nq__merge_result_t *r) {
  append_format(output, ",\"complete\":%s", nq__merge_is_total(r) ? "true" : "false");
  if (!nq__merge_is_total(r))
    return;
  append_format(output, ",\"solutions\":\"%Zd\"", r->solutions);
  if (r->header.unique)
    append_format(output, ",\"unique\":\"%Zd\"", r->unique);
  append_format(output, ",\"nodes\":\"%Zd\"", r->nodes);
}

static void merge_as_json(nq__output_t *output, char *const *paths, const nq__merge_result_t *r) {
  append_format(output, "{\"n\":%d", r->header.n);
  append_merge_totals(output, r);
  append_format(output,
                ",\"journals\":%d,\"depth\":%d,\"units\":%" PRIu64 ",\"units_present\":%" PRIu64
                ",\"units_confirmed\":%" PRIu64 ",\"units_unresolved\":%" PRIu64
                ",\"checks\":%" PRIu64 ",\"checks_confirmed\":%" PRIu64 ",\"missing\":[",
                r->journals, r->header.depth, r->header.total_units, r->units_present,
                r->units_confirmed, r->units_unresolved, r->checks, r->checks_confirmed);
  for (size_t i = 0; i < r->missing_count; i++)
    append_format(output, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "", r->missing[i].first,
                  r->missing[i].end);
  append_text(output, "],\"slices_missing\":[");
  for (int i = 0; i < r->slices_missing_count; i++)
    append_format(output, "%s%d", i ? "," : "", r->slices_missing[i] + 1);
  append_format(output, "],\"conflict_count\":%zu,\"conflicts\":[", r->conflict_count);
  static const char *const kinds[] = {"differ", "unresolved", "check", "sums"};
  for (size_t i = 0; i < conflicts_kept(r); i++) {
    const nq__merge_conflict_t *c = &r->conflicts[i];
    append_format(output, "%s{\"kind\":\"%s\",\"first\":%" PRIu64 ",\"end\":%" PRIu64,
                  i ? "," : "", kinds[c->kind], c->first, c->end);
    if (c->journal >= 0) {
      append_text(output, ",\"journal\":");
      append_json_string(output, paths[c->journal]);
    }
    if (c->kind == NQ__MERGE_DIFFER) {
      append_text(output, ",\"others\":[");
      for (int k = 0; k < c->other_count; k++) {
        if (k > 0)
          append_char(output, ',');
        append_json_string(output, paths[c->others[k]]);
      }
      append_char(output, ']');
    }
    append_char(output, '}');
  }
  append_char(output, ']');
  append_residues(output, r->solutions_mod);
  append_format(output, ",\"version\":\"%s\"}\n", NQ_VERSION);
}

int nq__output_merge(nq__output_t *output, nq__format_t format, char *const *paths,
                     const nq__merge_result_t *result) {
  if (format == NQ_FORMAT_JSON)
    merge_as_json(output, paths, result);
  else
    merge_as_text(output, paths, result);
  return output->status;
}

/* ---- Provenance records ------------------------------------------------ */



/* "key":"text", the text escaped. */
static void append_json_field(nq__output_t *output, const char *key, const char *text) {
  append_format(output, ",\"%s\":", key);
  append_json_string(output, text);
}

/* What every record says of when, where and by what it was made. */
static void append_origin(nq__output_t *output, const nq__provenance_t *p) {
  char started[32], ended[32];
  nq__provenance_iso_time(started, p->started_ms);
  nq__provenance_iso_time(ended, p->ended_ms);
  append_json_field(output, "started", started);
  append_json_field(output, "ended", ended);
  append_format(output, ",\"wall_seconds\":%.3f,\"cpu_seconds\":%.3f",
                (double)(p->ended_ms - p->started_ms) / 1000.0, p->cpu_seconds);
  append_text(output, ",\"hosts\":[");
  for (int i = 0; i < p->host_count; i++) {
    append_text(output, i ? "," : "");
    append_json_string(output, p->hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME);
  }
  append_char(output, ']');
  append_json_field(output, "version", NQ_VERSION);
  append_json_field(output, "git_commit", NQ_GIT_COMMIT);
  append_json_field(output, "compiler", NQ_BUILD_COMPILER);
  append_json_field(output, "compiler_flags", NQ_BUILD_FLAGS);
  append_json_field(output, "build_type", NQ_BUILD_TYPE);
  append_json_field(output, "mpi_library", p->mpi_library);
  append_json_field(output, "gmp_version", gmp_version);
  static const char *const slurm[][2] = {{"slurm_job_id", "SLURM_JOB_ID"},
                                         {"slurm_array_job_id", "SLURM_ARRAY_JOB_ID"},
                                         {"slurm_array_task_id", "SLURM_ARRAY_TASK_ID"}};
  for (size_t i = 0; i < sizeof slurm / sizeof slurm[0]; i++) {
    const char *value = getenv(slurm[i][1]);
    if (value != NULL && value[0] != '\0')
      append_json_field(output, slurm[i][0], value);
  }
}

int nq__output_count_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq_count_result_t *r, const nq__provenance_t *p,
                            const char *journal_sha256) {
  append_format(output, "{\"record\":\"count\",\"n\":%d,\"solutions\":\"%Zd\"", cli->n,
                r->solutions);
  if (cli->unique)
    append_format(output, r->slice_count > 1 ? ",\"unique_times_8\":\"%Zd\"" : ",\"unique\":\"%Zd\"",
                  r->unique);
  append_format(output, ",\"nodes\":\"%Zd\"", r->nodes);
  append_residues(output, r->solutions_mod);
  if (r->slice_count > 1)
    append_format(output, ",\"slice\":\"%d/%d\"", r->slice_index + 1, r->slice_count);
  append_origin(output, p);
  const nq__method_t *method = nq__method_of(r->method);
  append_format(output, ",\"ranks\":%d,\"threads\":%d,\"gpu_ranks\":%d,\"method\":\"%s\"",
                r->ranks, r->threads, r->gpu_ranks, method->name);
  if (r->method == NQ_COUNT_BACKTRACK)
    append_format(output, ",\"walk\":\"%s\"", nq_walk_name(r->walk));
  append_format(output,
                ",\"unit_scheme\":%d,\"depth\":%d,\"units\":%llu,\"resumed_units\":%llu,"
                "\"restarts\":%llu",
                method->scheme, r->depth, (unsigned long long)(r->units - r->resumed_units),
                (unsigned long long)r->resumed_units, (unsigned long long)r->restarts);
  if (cli->verify > 0)
    append_format(output,
                  ",\"verified\":{\"fraction\":%g,\"seed\":%llu,\"batches\":%llu,\"units\":%llu,"
                  "\"method\":\"journaled batches solved again on another rank, compared "
                  "exactly; verdicts in the journal\"}",
                  cli->verify, (unsigned long long)cli->seed,
                  (unsigned long long)r->verified_batches, (unsigned long long)r->verified_units);
  if (r->copies_sent > 0)
    append_format(output, ",\"backup_copies\":%llu,\"backup_copies_confirmed\":%llu",
                  (unsigned long long)r->copies_sent, (unsigned long long)r->copies_confirmed);
  if (cli->checkpoint != NULL) {
    append_json_field(output, "journal", cli->checkpoint);
    append_json_field(output, "journal_sha256", journal_sha256);
  }
  append_text(output, "}\n");
  return output->status;
}

int nq__output_merge_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq__merge_result_t *r, const nq__provenance_t *p,
                            char (*sha256s)[NQ_SHA256_HEX]) {
  append_format(output, "{\"record\":\"merge\",\"n\":%d", r->header.n);
  append_merge_totals(output, r);
  if (nq__merge_is_total(r))
    append_residues(output, r->solutions_mod);
  append_origin(output, p);
  append_format(output,
                ",\"unit_scheme\":%d,\"depth\":%d,\"units\":%" PRIu64 ",\"units_present\":%" PRIu64
                ",\"units_confirmed\":%" PRIu64 ",\"checks\":%" PRIu64 ",\"checks_confirmed\":%" PRIu64
                ",\"missing_units\":%" PRIu64 ",\"conflicts\":%zu,\"journals\":[",
                r->header.scheme, r->header.depth, r->header.total_units, r->units_present,
                r->units_confirmed, r->checks, r->checks_confirmed, r->units_missing,
                r->conflict_count);
  for (int i = 0; i < cli->merge_count; i++) {
    append_text(output, i ? ",{\"path\":" : "{\"path\":");
    append_json_string(output, cli->merge_files[i]);
    append_format(output, ",\"sha256\":\"%s\"}", sha256s[i]);
  }
  append_text(output, "]}\n");
  return output->status;
}

/* ---- Estimates -------------------------------------------------------- */

/* The normal 95% interval, value +- 1.96 standard errors; nothing below 0
 * is possible, so the low end stops there. */
static void interval95(double bounds[2], nq_estimate_value_t estimate) {
  bounds[0] = estimate.value - 1.96 * estimate.error;
  bounds[1] = estimate.value + 1.96 * estimate.error;
  if (bounds[0] < 0)
    bounds[0] = 0;
}

/* Seconds in the unit a person reads best: s, minutes, hours, days, years. */
static void duration_unit(double seconds, double *scale, const char **unit) {
  static const struct {
    double seconds, below;
    const char *name;
  } units[] = {{1, 120, "s"},
               {60, 7200, "minutes"},
               {3600, 172800, "hours"},
               {86400, 2 * 365.25 * 86400, "days"},
               {365.25 * 86400, 0, "years"}};
  size_t i = 0;
  while (units[i].below > 0 && seconds >= units[i].below)
    i++;
  *scale = units[i].seconds;
  *unit = units[i].name;
}

/* Three digits, but whole numbers below ten million as they are: "5226
 * years" reads better than "5.23e+03 years". */
static void append_amount(nq__output_t *output, double amount) {
  if (amount >= 1000 && amount < 1e7)
    append_format(output, "%.0f", amount);
  else
    append_format(output, "%.3g", amount);
}

/* "465 years (95%: 462 to 468)" for core-seconds shared by `cores`. */
static void append_duration(nq__output_t *output, nq_estimate_value_t core_seconds, double cores) {
  nq_estimate_value_t wall = {core_seconds.value / cores, core_seconds.error / cores};
  double bounds[2], scale;
  const char *unit;
  interval95(bounds, wall);
  duration_unit(wall.value, &scale, &unit);
  append_amount(output, wall.value / scale);
  append_format(output, " %s (95%%: ", unit);
  append_amount(output, bounds[0] / scale);
  append_text(output, " to ");
  append_amount(output, bounds[1] / scale);
  append_char(output, ')');
}

static void estimated_as_text(nq__output_t *output, const char *name,
                              nq_estimate_value_t estimate) {
  double bounds[2];
  interval95(bounds, estimate);
  append_format(output, "%s ~ %.4g, 95%% interval %.4g to %.4g (standard error %.2g%%)\n", name,
                estimate.value, bounds[0], bounds[1],
                estimate.value > 0 ? 100 * estimate.error / estimate.value : 0.0);
}

/* The join's sample: its sets, whole or sampled by paths, its strata. */
static void join_sample_as_text(nq__output_t *output, uint64_t seed,
                                const nq_estimate_result_t *r) {
  append_format(output, "join method: %llu column sets drawn from the %llu and ",
                (unsigned long long)r->probes, (unsigned long long)r->units);
  if (r->descents > 0)
    append_format(output, "sampled (%d paths each, exact below %d rows)", r->descents,
                  r->exact_rows);
  else
    append_text(output, "solved exactly");
  append_format(output,
                ", in %llu strata (at least %llu each), seed %llu: %.3f s on %d rank%s, "
                "%d thread%s\n",
                (unsigned long long)r->frames, (unsigned long long)r->min_probes,
                (unsigned long long)seed, r->seconds, r->ranks, r->ranks == 1 ? "" : "s",
                r->threads, r->threads == 1 ? "" : "s");
}

static void estimate_as_text(nq__output_t *output, int n, uint64_t cores, uint64_t seed,
                             const nq_estimate_result_t *r) {
  char name[16];
  snprintf(name, sizeof name, "Q(%d)", n);
  estimated_as_text(output, name, r->solutions);
  estimated_as_text(output, "nodes", r->nodes);
  if (r->nodes_per_second > 0 || (r->method == NQ_COUNT_JOIN && r->core_seconds.value > 0)) {
    append_text(output, "one core: ");
    append_duration(output, r->core_seconds, 1);
    if (r->method == NQ_COUNT_JOIN)
      append_text(output, ", the sampled sets' own CPU time\n");
    else
      append_format(output, ", at %.3g nodes/s (the exact counts' rate)\n",
                    r->nodes_per_second);
    append_format(output, "on %d rank%s, %d thread%s: ", r->ranks, r->ranks == 1 ? "" : "s",
                  r->threads, r->threads == 1 ? "" : "s");
    append_duration(output, r->core_seconds, r->threads);
    append_char(output, '\n');
    if (cores > 0) {
      append_format(output, "on %llu core%s (--estimate-ranks): ", (unsigned long long)cores,
                    cores == 1 ? "" : "s");
      append_duration(output, r->core_seconds, (double)cores);
      append_char(output, '\n');
    }
  } else {
    append_text(output, "time: too little work under the probes to measure the speed\n");
  }
  if (r->method == NQ_COUNT_JOIN)
    join_sample_as_text(output, seed, r);
  else
    append_format(output,
                  "%llu probes on %llu frames (at least %llu each), exact below %d rows, seed "
                  "%llu: %.3f s on %d rank%s, %d thread%s, %s walk\n",
                  (unsigned long long)r->probes, (unsigned long long)r->frames,
                  (unsigned long long)r->min_probes, r->exact_rows, (unsigned long long)seed,
                  r->seconds, r->ranks, r->ranks == 1 ? "" : "s", r->threads,
                  r->threads == 1 ? "" : "s", nq_walk_name(r->walk));
}

static void estimated_as_json(nq__output_t *output, const char *key,
                              nq_estimate_value_t estimate) {
  double bounds[2];
  interval95(bounds, estimate);
  append_format(output, ",\"%s\":%.10g,\"%s_error\":%.10g,\"%s_low\":%.10g,\"%s_high\":%.10g",
                key, estimate.value, key, estimate.error, key, bounds[0], key, bounds[1]);
}

static void estimate_as_json(nq__output_t *output, int n, uint64_t cores, uint64_t seed,
                             const nq_estimate_result_t *r) {
  append_format(output, "{\"n\":%d,\"estimate\":true", n);
  estimated_as_json(output, "solutions", r->solutions);
  estimated_as_json(output, "nodes", r->nodes);
  append_format(output, ",\"nodes_per_second\":%.6g", r->nodes_per_second);
  estimated_as_json(output, "core_seconds", r->core_seconds);
  double threads = r->threads > 0 ? r->threads : 1;
  estimated_as_json(output, "wall_seconds",
                    (nq_estimate_value_t){r->core_seconds.value / threads,
                                          r->core_seconds.error / threads});
  if (cores > 0) {
    append_format(output, ",\"estimate_ranks\":%llu", (unsigned long long)cores);
    estimated_as_json(output, "estimate_ranks_wall_seconds",
                      (nq_estimate_value_t){r->core_seconds.value / (double)cores,
                                            r->core_seconds.error / (double)cores});
  }
  append_format(output,
                ",\"probes\":%llu,\"frames\":%llu,\"min_probes\":%llu,\"exact_rows\":%d,"
                "\"seed\":%llu,\"depth\":%d,\"seconds\":%.6f,\"ranks\":%d,\"threads\":%d,"
                "\"method\":\"%s\"",
                (unsigned long long)r->probes, (unsigned long long)r->frames,
                (unsigned long long)r->min_probes, r->exact_rows, (unsigned long long)seed,
                r->depth, r->seconds, r->ranks, r->threads, nq__method_of(r->method)->name);
  if (r->method == NQ_COUNT_JOIN)
    append_format(output, ",\"units\":%llu,\"descents\":%d", (unsigned long long)r->units,
                  r->descents);
  else
    append_format(output, ",\"walk\":\"%s\"", nq_walk_name(r->walk));
  append_format(output, ",\"version\":\"%s\"}\n", NQ_VERSION);
}

int nq__output_estimate(nq__output_t *output, nq__format_t format, int n, uint64_t cores,
                        uint64_t seed, const nq_estimate_result_t *result) {
  if (format == NQ_FORMAT_JSON)
    estimate_as_json(output, n, cores, seed, result);
  else
    estimate_as_text(output, n, cores, seed, result);
  return output->status;
}

/* ---- Listing ---------------------------------------------------------- */

/* A row of the kept board with its queen in column 0, where `shown`
 * says it is until the first board moves it. */
static char *lay_out_row(nq__board_writer_t *writer, int row, char *at) {
  writer->row_squares[row] = (size_t)(at - writer->text);
  writer->shown[row] = 0;
  memset(at, '.', (size_t)writer->n);
  at[0] = 'Q';
  return at + writer->n;
}

static const char empty_board[] = "(the empty board)\n";

/* A blank line before the board, then its rows. */
static size_t lay_out_text_board(nq__board_writer_t *writer) {
  char *at = writer->text;
  *at++ = '\n';
  if (writer->n == 0) {
    memcpy(at, empty_board, sizeof empty_board - 1);
    at += sizeof empty_board - 1;
  }
  for (int row = 0; row < writer->n; row++) {
    at = lay_out_row(writer, row, at);
    *at++ = '\n';
  }
  return (size_t)(at - writer->text);
}

/* A comma before the board, then an array of row strings. */
static size_t lay_out_json_board(nq__board_writer_t *writer) {
  char *at = writer->text;
  *at++ = ',';
  *at++ = '[';
  for (int row = 0; row < writer->n; row++) {
    if (row > 0)
      *at++ = ',';
    *at++ = '"';
    at = lay_out_row(writer, row, at);
    *at++ = '"';
  }
  *at++ = ']';
  return (size_t)(at - writer->text);
}

int nq__output_boards_begin(nq__board_writer_t *writer, nq__output_t *output, nq__format_t format,
                            int n) {
  if (n < 0 || n > NQ_MAX_N)
    return NQ_EINVAL;
  writer->output = output;
  writer->format = format;
  writer->n = n;
  writer->boards = 0;
  if (format == NQ_FORMAT_JSON) {
    writer->text_size = lay_out_json_board(writer);
    append_char(output, '[');
  } else {
    writer->text_size = lay_out_text_board(writer);
  }
  return output->status;
}

static void move_queen(nq__board_writer_t *writer, int row, int col) {
  char *squares = writer->text + writer->row_squares[row];
  squares[writer->shown[row]] = '.';
  squares[col] = 'Q';
  writer->shown[row] = (uint8_t)col;
}

int nq__output_board(nq__board_writer_t *writer, const uint8_t *columns, int n) {
  if (n != writer->n)
    return NQ_EINVAL;
  for (int row = 0; row < n; row++) {
    if (columns[row] == writer->shown[row])
      continue;
    if (columns[row] >= n)
      return NQ_EINVAL;
    move_queen(writer, row, columns[row]);
  }
  size_t separator = writer->boards == 0 ? 1 : 0; /* none before the first board */
  append(writer->output, writer->text + separator, writer->text_size - separator);
  writer->boards++;
  return writer->output->status;
}

int nq__output_boards_end(nq__board_writer_t *writer) {
  if (writer->format == NQ_FORMAT_JSON)
    append_text(writer->output, "]\n");
  return writer->output->status;
}

/* ---- One solution ----------------------------------------------------- */

static const char *kind_name(nq_first_kind_t kind) {
  switch (kind) {
  case NQ_FIRST_LEXICOGRAPHIC: return "lexicographically-first";
  case NQ_FIRST_CONSTRUCTED: return "constructed";
  default: return "none";
  }
}

static void board_as_json(nq__output_t *output, const uint8_t *columns, int n) {
  append_char(output, '[');
  for (int row = 0; row < n; row++) {
    append_text(output, row ? ",\"" : "\"");
    append_row(output, n, columns[row]);
    append_char(output, '"');
  }
  append_char(output, ']');
}

static void first_as_json(nq__output_t *output, int n, const uint8_t *columns,
                          nq_first_kind_t kind, double seconds) {
  append_format(output, "{\"n\":%d,\"board\":", n);
  if (kind == NQ_FIRST_NONE) {
    append_text(output, "null,\"columns\":null");
  } else {
    board_as_json(output, columns, n);
    append_text(output, ",\"columns\":[");
    for (int row = 0; row < n; row++)
      append_format(output, row ? ",%d" : "%d", columns[row]);
    append_char(output, ']');
  }
  append_format(output, ",\"kind\":\"%s\",\"seconds\":%.6f,\"version\":\"%s\"}\n",
                kind_name(kind), seconds, NQ_VERSION);
}

static void first_as_text(nq__output_t *output, int n, const uint8_t *columns,
                          nq_first_kind_t kind) {
  if (kind == NQ_FIRST_NONE) {
    append_format(output, "No solution exists for n = %d.\n", n);
    return;
  }
  append_format(output, "%s solution for n = %d:\n",
                kind == NQ_FIRST_LEXICOGRAPHIC ? "Lexicographically first"
                                               : "Constructed (not the lexicographically first)",
                n);
  for (int row = 0; row < n; row++) {
    append_row(output, n, columns[row]);
    append_char(output, '\n');
  }
  append_text(output, "columns:");
  for (int row = 0; row < n; row++)
    append_format(output, " %d", columns[row]);
  append_char(output, '\n');
}

int nq__output_first(nq__output_t *output, nq__format_t format, int n, const uint8_t *columns,
                    nq_first_kind_t kind, double seconds) {
  if (format == NQ_FORMAT_JSON)
    first_as_json(output, n, columns, kind, seconds);
  else
    first_as_text(output, n, columns, kind);
  return output->status;
}
