#define _POSIX_C_SOURCE 200809L /* PATH_MAX, in app_modes.h */

#include "status.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_modes.h"
#include "journal.h"
#include "journal_checks.h"
#include "output.h"
#include "nqueens/error.h"

typedef struct status {
  const nq__journal_state_t *state;
  double rate;        /* units a second over the runs' counting time; 0 unknown */
  double eta_seconds; /* at that rate; negative unknown */
  int complete;
  nq__journal_checks_t checks; /* the "agree" checks held against their records */
} status_t;

/* The rate over the time the runs spent counting, from the records' own
 * timestamps: the run's pace as the journal saw it, whoever reads it and
 * from where, without the hours a job waited between requeues. */
static status_t measure(const nq__journal_state_t *state) {
  status_t s = {state, 0, -1, nq__journal_complete(state), {0}};
  double counting = (double)state->counting_ms / 1000.0;
  if (counting > 0 && state->sums.units > 0) {
    s.rate = (double)state->sums.units / counting;
    s.eta_seconds = (double)(nq__journal_units(state) - state->sums.units) / s.rate;
  }
  return s;
}

static void print_text(nq__output_t *out, const char *path, const status_t *s) {
  const nq__journal_header_t *h = &s->state->header;
  uint64_t done = s->state->sums.units;
  const uint64_t units = nq__journal_units(s->state);
  double share = units ? 100.0 * (double)done / (double)units : 0;
  char slice[48] = "";
  if (h->slice_count > 1)
    snprintf(slice, sizeof slice, ", slice %d/%d", h->slice_index + 1, h->slice_count);
  nq__output_format(out, "%s: n = %d%s%s, %llu/%llu units (%.1f%%), %Zd solutions so far\n",
                    path, h->n, h->unique ? ", --unique" : "", slice, (unsigned long long)done,
                    (unsigned long long)units, share, s->state->sums.solutions);
  const nq__journal_checks_t *checks = &s->checks;
  if (s->state->checks_differing == 0 && checks->contradicted > 0) {
    nq__output_format(out,
                      "%llu check%s agreed, yet %s record%s now sum%s differently (the first units "
                      "%llu..%llu): the total is not trusted, and a rerun fails\n",
                      (unsigned long long)checks->contradicted, checks->contradicted == 1 ? "" : "s",
                      checks->contradicted == 1 ? "its" : "their",
                      checks->contradicted == 1 ? "" : "s", checks->contradicted == 1 ? "s" : "",
                      (unsigned long long)checks->contradicted_first,
                      (unsigned long long)checks->contradicted_end - 1);
  } else if (s->state->checks_differing > 0) {
    nq__output_format(out,
                      "%llu check%s found a difference (the first units %llu..%llu): the total "
                      "is not trusted, and a rerun fails\n",
                      (unsigned long long)s->state->checks_differing,
                      s->state->checks_differing == 1 ? "" : "s",
                      (unsigned long long)s->state->differing_first,
                      (unsigned long long)s->state->differing_end - 1);
  } else if (s->complete) {
    nq__output_text(out, "complete");
    if (s->state->checks > 0)
      nq__output_format(out, ", and every check agrees (%llu of %llu held to their records' sums)",
                        (unsigned long long)checks->confirmed,
                        (unsigned long long)s->state->checks);
    nq__output_text(out, ": rerun the same command to print the result\n");
  } else if (s->rate > 0) {
    nq__output_format(out,
                      "%.3g units/s over %.0f s of counting in %llu run%s, ETA %.0f s of "
                      "counting at that rate\n",
                      s->rate, (double)s->state->counting_ms / 1000.0,
                      (unsigned long long)s->state->counting_runs,
                      s->state->counting_runs == 1 ? "" : "s", s->eta_seconds);
  } else {
    nq__output_text(out, "rate unknown: too few records yet\n");
  }
}

/* As a rerun would judge it: no check differs, and none that agreed is
 * contradicted by its record now. */
static int trusted(const status_t *s) {
  return s->state->checks_differing == 0 && s->checks.contradicted == 0;
}

static void print_json(nq__output_t *out, const char *path, const status_t *s) {
  const nq__journal_state_t *st = s->state;
  nq__output_text(out, "{\"journal\":");
  nq__output_json_string(out, path);
  nq__output_format(out,
                    ",\"n\":%d,\"unique\":%s,\"depth\":%d,\"units_done\":%llu,"
                    "\"units_total\":%llu,\"solutions\":\"%Zd\",\"nodes\":\"%Zd\",\"records\":%llu,"
                    "\"complete\":%s",
                    st->header.n, st->header.unique ? "true" : "false", st->header.depth,
                    (unsigned long long)st->sums.units, (unsigned long long)nq__journal_units(st),
                    st->sums.solutions, st->sums.nodes, (unsigned long long)st->records,
                    s->complete ? "true" : "false");
  nq__output_format(out, ",\"method\":\"%s\"", st->header.method); /* letters alone */
  nq__output_json_slice(out, st->header.slice_index, st->header.slice_count);
  nq__output_format(out,
                    ",\"checks\":%llu,\"checks_differing\":%llu,\"checks_confirmed\":%llu,"
                    "\"checks_contradicted\":%llu,\"trusted\":%s",
                    (unsigned long long)st->checks, (unsigned long long)st->checks_differing,
                    (unsigned long long)s->checks.confirmed,
                    (unsigned long long)s->checks.contradicted, trusted(s) ? "true" : "false");
  nq__output_format(out, ",\"counting_seconds\":%.3f,\"counting_runs\":%llu",
                    (double)st->counting_ms / 1000.0, (unsigned long long)st->counting_runs);
  if (s->rate > 0)
    nq__output_format(out, ",\"units_per_second\":%.6g,\"eta_seconds\":%.0f", s->rate,
                      s->eta_seconds);
  nq__output_text(out, "}\n");
}

/* The "agree" checks against their records, as a rerun holds them.  A
 * journal that changed into one that cannot be read since the first
 * reading is refused. */
static int confirm_checks(nq__journal_checks_t *checks, const char *path, FILE *err) {
  char message[NQ__MESSAGE_SIZE];
  int rc = nq__journal_checks_confirm(checks, message, path);
  if (rc != NQ_OK)
    fprintf(err, "nqueens-mpi: --status %s: %s\n", path,
            rc == NQ_EJOURNAL ? nq__app_after_path(message, path) : nq_strerror(rc));
  return rc;
}

int nq__status_print(FILE *out, FILE *err, const char *path, nq__format_t format) {
  char message[NQ__MESSAGE_SIZE];
  if (nq__app_journal_apart_from_output("--status", path, err) != NQ_EXIT_OK)
    return NQ_EXIT_USAGE;
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  int rc = nq__journal_read(&state, message, path);
  char header_message[NQ__MESSAGE_SIZE];
  if (rc == NQ_OK && nq__journal_check_units(&state.header, header_message, path) != NQ_OK) {
    rc = NQ_EJOURNAL;
    memcpy(message, header_message, sizeof message);
  }
  if (rc != NQ_OK) {
    fprintf(err, "nqueens-mpi: --status %s: %s\n", path,
            rc == NQ_EJOURNAL ? nq__app_after_path(message, path) : nq_strerror(rc));
    nq__journal_state_clear(&state);
    return NQ_EXIT_USAGE;
  }
  if (message[0] != '\0') /* a record being written as we read */
    fprintf(err, "nqueens-mpi: warning: --status %s: %s\n", path,
            nq__app_after_path(message, path));
  status_t s = measure(&state);
  if (state.checks > state.checks_differing &&
      confirm_checks(&s.checks, path, err) != NQ_OK) {
    nq__journal_state_clear(&state);
    return NQ_EXIT_USAGE;
  }
  const int untrusted = !trusted(&s);
  nq__output_t output;
  int status = nq__app_open_output(&output, out, err, "--status failed");
  if (status == NQ_EXIT_OK) {
    if (format == NQ_FORMAT_JSON)
      print_json(&output, path, &s);
    else
      print_text(&output, path, &s);
    status = nq__app_close_output(&output, output.status, err, "--status failed");
  }
  nq__journal_state_clear(&state);
  if (status != NQ_EXIT_OK)
    return status;
  /* As a rerun would: a journal with a failed check gives no total. */
  return untrusted ? NQ_EXIT_FAILURE : NQ_EXIT_OK;
}
