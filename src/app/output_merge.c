/* --merge's result: text and JSON. */
#include "output_count.h"
#include "output_merge.h"

#include <gmp.h>
#include <inttypes.h>

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

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
    nq__output_format(output, "conflict: the merged sums fail their own checks (8 x U(%d) "
                          "divisible by 8, the residues of the solutions)\n", n);
    return;
  case NQ__MERGE_UNRESOLVED:
    nq__output_format(output,
                  "conflict: units %" PRIu64 "..%" PRIu64 " (from %s on): records overlap there "
                  "but no chain of records spans them, so their sum cannot be told\n",
                  c->first, c->end - 1, journal_name(paths, c->journal));
    return;
  case NQ__MERGE_CHECK:
    nq__output_format(output, "conflict: units %" PRIu64 "..%" PRIu64 ": %s holds a failed check\n",
                  c->first, c->end - 1, journal_name(paths, c->journal));
    return;
  case NQ__MERGE_DIFFER:
    nq__output_format(output, "conflict: units %" PRIu64 "..%" PRIu64 " sum differently in %s than in",
                  c->first, c->end - 1, journal_name(paths, c->journal));
    for (int i = 0; i < c->other_count; i++)
      nq__output_format(output, "%s %s", i ? "," : "", journal_name(paths, c->others[i]));
    nq__output_format(output, "%s\n", c->other_count == 0 ? " its own other records" : "");
    return;
  }
}

static void merge_conflicts_as_text(nq__output_t *output, char *const *paths,
                                    const nq__merge_result_t *r) {
  for (size_t i = 0; i < conflicts_kept(r); i++)
    merge_conflict_as_text(output, paths, r->header.n, &r->conflicts[i]);
  if (r->conflict_count > conflicts_kept(r))
    nq__output_format(output, "conflict: %zu more\n", r->conflict_count - conflicts_kept(r));
}

int nq__merge_slice_runs(char runs[NQ__MERGE_SLICE_RUNS_SIZE], const nq__merge_result_t *r) {
  const int *slice = r->slices_missing, count = r->slices_missing_count;
  size_t used = 0;
  int i = 0;
  runs[0] = '\0';
  for (int shown = 0; i < count && shown < MERGE_RANGES_SHOWN; shown++) {
    int last = i;
    while (last + 1 < count && slice[last + 1] == slice[last] + 1)
      last++;
    used += (size_t)snprintf(runs + used, NQ__MERGE_SLICE_RUNS_SIZE - used, "%s%d",
                             shown == 0 ? "" : ", ", slice[i] + 1);
    if (last > i)
      used += (size_t)snprintf(runs + used, NQ__MERGE_SLICE_RUNS_SIZE - used, "..%d",
                               slice[last] + 1);
    i = last + 1;
  }
  if (i == count)
    return 0;
  snprintf(runs + used, NQ__MERGE_SLICE_RUNS_SIZE - used, ", ...");
  return 1;
}

static void merge_as_text(nq__output_t *output, char *const *paths, const nq__merge_result_t *r) {
  const int n = r->header.n;
  nq__output_format(output, "merged %d journal%s of n = %d: %" PRIu64 " of %" PRIu64 " units present",
                r->journals, r->journals == 1 ? "" : "s", n, r->units_present,
                r->header.total_units);
  if (r->units_unresolved > 0) /* held, but in overlaps no chain of records spans */
    nq__output_format(output, " (and %" PRIu64 " held that cannot be summed)",
                      r->units_unresolved);
  nq__output_format(output, "; solved more than once and confirmed: %" PRIu64 " units",
                    r->units_confirmed);
  if (r->units_uncompared > 0) /* their records end where no other chain of records does */
    nq__output_format(output, "; solved more than once, not compared: %" PRIu64 " units",
                      r->units_uncompared);
  nq__output_format(output, "; checks: %" PRIu64 " of %" PRIu64 " confirmed\n",
                    r->checks_confirmed, r->checks);
  if (r->lines_copied > 0)
    nq__output_format(output,
                      "copied: %" PRIu64 " line%s held by two journals alike (one run's work, "
                      "copied), each taken once and confirming nothing\n",
                      r->lines_copied, r->lines_copied == 1 ? "" : "s");
  if (r->units_missing > 0) {
    nq__output_format(output, "missing: %" PRIu64 " units in %zu range%s:", r->units_missing,
                  r->missing_count, r->missing_count == 1 ? "" : "s");
    for (size_t i = 0; i < r->missing_count && i < MERGE_RANGES_SHOWN; i++)
      nq__output_format(output, " %" PRIu64 "..%" PRIu64, r->missing[i].first, r->missing[i].end - 1);
    nq__output_format(output, "%s\n", r->missing_count > MERGE_RANGES_SHOWN ? " ..." : "");
  }
  if (r->slices_missing_count > 0) {
    char runs[NQ__MERGE_SLICE_RUNS_SIZE];
    nq__merge_slice_runs(runs, r);
    nq__output_format(output, "slices to run again (of %d): %s\n", r->slice_count, runs);
  }
  merge_conflicts_as_text(output, paths, r);
  if (!nq__merge_is_total(r)) {
    nq__output_format(output, "no total: %s\n",
                  r->conflict_count > 0 ? "the journals disagree or cannot be compared"
                                        : "units are missing");
    return;
  }
  nq__output_format(output, "Q(%d) = %Zd solution%s on the %dx%d board\n", n, r->solutions,
                mpz_cmp_ui(r->solutions, 1) == 0 ? "" : "s", n, n);
  if (r->header.unique)
    nq__output_format(output, "U(%d) = %Zd up to rotation and reflection\n", n, r->unique);
  nq__output_format(output, "nodes: %Zd\n", r->nodes);
}

void nq__output_merge_totals(nq__output_t *output, const nq__merge_result_t *r) {
  nq__output_format(output, ",\"complete\":%s", nq__merge_is_total(r) ? "true" : "false");
  if (!nq__merge_is_total(r))
    return;
  nq__output_format(output, ",\"solutions\":\"%Zd\"", r->solutions);
  if (r->header.unique)
    nq__output_format(output, ",\"unique\":\"%Zd\"", r->unique);
  nq__output_format(output, ",\"nodes\":\"%Zd\"", r->nodes);
  /* With units missing or in conflict they would be the residues of a
   * partial or wrong sum, which below 3 x 2^32 is that sum itself. */
  nq__output_residues(output, r->solutions_mod);
}

static void merge_as_json(nq__output_t *output, char *const *paths, const nq__merge_result_t *r) {
  nq__output_format(output, "{\"n\":%d", r->header.n);
  nq__output_merge_totals(output, r);
  nq__output_format(output,
                ",\"journals\":%d,\"depth\":%d,\"units\":%" PRIu64 ",\"units_present\":%" PRIu64
                ",\"units_confirmed\":%" PRIu64 ",\"units_uncompared\":%" PRIu64
                ",\"units_unresolved\":%" PRIu64 ",\"checks\":%" PRIu64
                ",\"checks_confirmed\":%" PRIu64 ",\"lines_copied\":%" PRIu64 ",\"missing\":[",
                r->journals, r->header.depth, r->header.total_units, r->units_present,
                r->units_confirmed, r->units_uncompared, r->units_unresolved, r->checks,
                r->checks_confirmed, r->lines_copied);
  for (size_t i = 0; i < r->missing_count; i++)
    nq__output_format(output, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "", r->missing[i].first,
                  r->missing[i].end);
  nq__output_text(output, "],\"slices_missing\":[");
  for (int i = 0; i < r->slices_missing_count; i++)
    nq__output_format(output, "%s%d", i ? "," : "", r->slices_missing[i] + 1);
  nq__output_format(output, "],\"conflict_count\":%zu,\"conflicts\":[", r->conflict_count);
  static const char *const kinds[] = {"differ", "unresolved", "check", "sums"};
  for (size_t i = 0; i < conflicts_kept(r); i++) {
    const nq__merge_conflict_t *c = &r->conflicts[i];
    nq__output_format(output, "%s{\"kind\":\"%s\",\"first\":%" PRIu64 ",\"end\":%" PRIu64,
                  i ? "," : "", kinds[c->kind], c->first, c->end);
    if (c->journal >= 0) {
      nq__output_text(output, ",\"journal\":");
      nq__output_json_string(output, paths[c->journal]);
    }
    if (c->kind == NQ__MERGE_DIFFER) {
      nq__output_text(output, ",\"others\":[");
      for (int k = 0; k < c->other_count; k++) {
        if (k > 0)
          nq__output_char(output, ',');
        nq__output_json_string(output, paths[c->others[k]]);
      }
      nq__output_char(output, ']');
    }
    nq__output_char(output, '}');
  }
  nq__output_char(output, ']');
  nq__output_format(output, ",\"version\":\"%s\"}\n", NQ_VERSION);
}

int nq__output_merge(nq__output_t *output, nq__format_t format, char *const *paths,
                     const nq__merge_result_t *result) {
  if (format == NQ_FORMAT_JSON)
    merge_as_json(output, paths, result);
  else
    merge_as_text(output, paths, result);
  return output->status;
}
