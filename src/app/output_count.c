/* A count's result: text and JSON (nqueens-mpi -n N). */
#include "output_count.h"

#include <gmp.h>
#include <inttypes.h>

#include "method.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

void nq__output_residues(nq__output_t *output, const uint32_t *residues) {
  static const uint32_t primes[NQ_COUNT_RESIDUES] = NQ_COUNT_RESIDUE_PRIMES;
  nq__output_text(output, ",\"solutions_mod\":{");
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    nq__output_format(output, "%s\"%u\":%u", i ? "," : "", primes[i], residues[i]);
  nq__output_char(output, '}');
}

static double per_second(const mpz_t count, double seconds) {
  return seconds > 0 ? mpz_get_d(count) / seconds : 0.0;
}

/* The time the whole count took: this run's, or with units resumed from a
 * journal the runs' that counted them. */
static double count_seconds(const nq_count_result_t *r) {
  return r->resumed_units > 0 ? r->count_seconds : r->seconds;
}

/* A slice's counts are shares, not Q(n): said so, with how to get Q(n):
 * the slices' journals merged (which checks that every unit is there
 * once), or, where none was kept, their counts added by hand. */
static void slice_as_text(nq__output_t *output, int n, int unique, int journaled,
                          const nq_count_result_t *r) {
  nq__output_format(output, "slice %d/%d of Q(%d): %Zd solution%s ", r->slice_index + 1,
                    r->slice_count, n, r->solutions, mpz_cmp_ui(r->solutions, 1) == 0 ? "" : "s");
  if (journaled)
    nq__output_format(output, "(merge every slice's journal with --merge for Q(%d))\n", n);
  else
    nq__output_format(output,
                      "(no journal kept: Q(%d) is the sum of all %d slices' counts; "
                      "counted with --checkpoint, --merge adds and checks their journals)\n",
                      n, r->slice_count);
  if (unique)
    nq__output_format(output, "its share of 8 x U(%d): %Zd\n", n, r->unique);
}

/* "252 column sets and the turn search": a unit leading the listing (id
 * 0, so in slice 1 of any slicing: nq_slice_of) is named apart from the
 * units the method is made of. */
static void units_as_text(nq__output_t *output, const nq__method_t *method, int n, int unique,
                          const nq_count_result_t *r) {
  const char *leading = method->leading_unit_word ? method->leading_unit_word(n, unique) : NULL;
  uint64_t units = r->units;
  if (leading != NULL && r->slice_index == 0 && units > 0)
    units--;
  else
    leading = NULL;
  nq__output_format(output, "%llu %s%s", (unsigned long long)units, method->unit_word,
                    units == 1 ? "" : "s");
  if (leading != NULL)
    nq__output_format(output, " and %s", leading);
}

/* Where the checks ran, as the journal's check lines name their ranks:
 * the batches of a rerun on one rank are checked by the rank that solved
 * them, those of an earlier run on several by others. */
static void append_verified(nq__output_t *output, const nq_count_result_t *r) {
  const uint64_t others = r->verified_by_other_ranks, batches = r->verified_batches;
  nq__output_format(output, ", %llu batch%s (%llu unit%s) verified",
                    (unsigned long long)batches, batches == 1 ? "" : "es",
                    (unsigned long long)r->verified_units, r->verified_units == 1 ? "" : "s");
  if (others == batches)
    nq__output_text(output, batches == 1 ? " on another rank" : " on other ranks");
  else if (others == 0)
    nq__output_text(output, " on the same rank");
  else
    nq__output_format(output, ", %llu on other ranks", (unsigned long long)others);
}

static void count_as_text(nq__output_t *output, int n, int unique, int journaled,
                          const nq_count_result_t *r) {
  if (r->slice_count > 1) {
    slice_as_text(output, n, unique, journaled, r);
  } else {
    nq__output_format(output, "Q(%d) = %Zd solution%s on the %dx%d board\n", n, r->solutions,
                  mpz_cmp_ui(r->solutions, 1) == 0 ? "" : "s", n, n);
    if (unique)
      nq__output_format(output, "U(%d) = %Zd up to rotation and reflection\n", n, r->unique);
  }
  /* Resumed, the figures are the count's own, over the runs that counted
   * (a finished count answered from its journal solved nothing now). */
  if (r->resumed_units > 0)
    nq__output_format(output, "%.3f s of counting in %llu run%s (this one %.3f s) on ", r->count_seconds,
                  (unsigned long long)r->count_runs, r->count_runs == 1 ? "" : "s", r->seconds);
  else
    nq__output_format(output, "%.3f s on ", r->seconds);
  const nq__method_t *method = nq__method_of(r->method);
  nq__output_format(output, "%d rank%s, %d thread%s, ", r->ranks, r->ranks == 1 ? "" : "s",
                    r->threads, r->threads == 1 ? "" : "s");
  units_as_text(output, method, n, unique, r);
  nq__output_format(output, ", %.3g nodes/s, ", per_second(r->nodes, count_seconds(r)));
  if (r->method == NQ_COUNT_BACKTRACK) {
    nq__output_format(output, "%s walk", nq_walk_name(r->walk));
  } else {
    nq__output_format(output, "%s method, its tables within ", method->name);
    nq__output_bytes(output, r->memory);
    nq__output_text(output, " a rank");
  }
  if (r->gpu_ranks > 0)
    nq__output_format(output, ", %d GPU rank%s", r->gpu_ranks, r->gpu_ranks == 1 ? "" : "s");
  if (r->resumed_units > 0)
    nq__output_format(output, ", %llu unit%s from the checkpoint", (unsigned long long)r->resumed_units,
                  r->resumed_units == 1 ? "" : "s");
  if (r->verified_batches > 0)
    append_verified(output, r);
  if (r->copies_sent > 0)
    nq__output_format(output, ", %llu backup cop%s (%llu confirmed)",
                  (unsigned long long)r->copies_sent, r->copies_sent == 1 ? "y" : "ies",
                  (unsigned long long)r->copies_confirmed);
  nq__output_format(output, "\n");
}

/* Big counts are JSON strings: parsers round numbers beyond 2^53. */
static void count_as_json(nq__output_t *output, int n, int unique, const nq_count_result_t *r) {
  nq__output_format(output, "{\"n\":%d,\"solutions\":\"%Zd\"", n, r->solutions);
  if (unique)
    nq__output_format(output, r->slice_count > 1 ? ",\"unique_times_8\":\"%Zd\"" : ",\"unique\":\"%Zd\"",
                  r->unique);
  nq__output_json_slice(output, r->slice_index, r->slice_count);
  nq__output_format(output,
                ",\"seconds\":%.6f,\"ranks\":%d,\"threads\":%d,\"units\":%llu,\"depth\":%d,"
                "\"nodes\":\"%Zd\"",
                count_seconds(r), r->ranks, r->threads, (unsigned long long)r->units, r->depth,
                r->nodes);
  nq__output_format(output, ",\"nodes_per_second\":%.0f,\"method\":\"%s\"",
                per_second(r->nodes, count_seconds(r)), nq__method_of(r->method)->name);
  if (r->method == NQ_COUNT_BACKTRACK)
    nq__output_format(output, ",\"walk\":\"%s\"", nq_walk_name(r->walk));
  else
    nq__output_format(output, ",\"memory_per_rank\":%zu", r->memory);
  if (r->gpu_ranks > 0)
    nq__output_format(output, ",\"gpu_ranks\":%d", r->gpu_ranks);
  if (r->resumed_units > 0)
    nq__output_format(output,
                  ",\"resumed_units\":%llu,\"counting_runs\":%llu,\"run_seconds\":%.6f,"
                  "\"from_journal\":%s",
                  (unsigned long long)r->resumed_units, (unsigned long long)r->count_runs,
                  r->seconds, r->resumed_units == r->units ? "true" : "false");
  if (r->verified_batches > 0)
    nq__output_format(output,
                  ",\"verified_batches\":%llu,\"verified_units\":%llu,"
                  "\"verified_by_other_ranks\":%llu",
                  (unsigned long long)r->verified_batches, (unsigned long long)r->verified_units,
                  (unsigned long long)r->verified_by_other_ranks);
  if (r->copies_sent > 0)
    nq__output_format(output, ",\"copies\":%llu,\"copies_confirmed\":%llu",
                  (unsigned long long)r->copies_sent, (unsigned long long)r->copies_confirmed);
  nq__output_residues(output, r->solutions_mod);
  nq__output_format(output, ",\"version\":\"%s\"}\n", NQ_VERSION);
}

int nq__output_count(nq__output_t *output, nq__format_t format, int n, int unique,
                     int journaled, const nq_count_result_t *result) {
  if (format == NQ_FORMAT_JSON)
    count_as_json(output, n, unique, result);
  else
    count_as_text(output, n, unique, journaled, result);
  return output->status;
}
