/* --estimate's result: text and JSON. */
#include "output_estimate.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "method.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

/* Below this many degrees of freedom, t's 95% point is over 2.04 errors,
 * 4% past the normal's. */
enum { FEW_DEGREES = 30 };

/* Whether the error's degrees of freedom are known and bounded (a result
 * made by hand leaves them 0, no spread makes them infinite). */
static int degrees_bounded(double degrees) {
  return isfinite(degrees) && degrees > 0;
}

/* Standard errors a 95% interval spans on each side: Student's t at the
 * error's degrees of freedom, the normal's 1.96 where they are unbounded. */
static double errors95(double degrees) {
  return degrees_bounded(degrees) ? gsl_cdf_tdist_Pinv(0.975, degrees)
                                  : gsl_cdf_ugaussian_Pinv(0.975);
}

/* The 95% interval; nothing below 0 is possible, so the low end stops
 * there. */
static void interval95(double bounds[2], nq_estimate_value_t estimate) {
  double half = errors95(estimate.degrees) * estimate.error;
  bounds[0] = estimate.value - half;
  bounds[1] = estimate.value + half;
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
    nq__output_format(output, "%.0f", amount);
  else
    nq__output_format(output, "%.3g", amount);
}

/* Few degrees widen an interval past 2 errors: ", 3.1 degrees of freedom"
 * says why. */
static void append_few_degrees(nq__output_t *output, double degrees) {
  char shown[32];
  if (!degrees_bounded(degrees) || degrees >= FEW_DEGREES)
    return;
  snprintf(shown, sizeof shown, "%.3g", degrees);
  nq__output_format(output, ", %s degree%s of freedom", shown, strcmp(shown, "1") ? "s" : "");
}

/* Whether the samples bound the estimate: a spread measured, or every
 * stratum solved whole.  Samples all alike (a few sets of a small board,
 * all without solutions) measure no spread, and an interval of no width
 * would claim what they cannot know. */
static int interval_known(nq_estimate_value_t estimate, int counted) {
  return counted || estimate.error > 0;
}

static const char no_interval[] = "no interval: the samples did not vary; more samples or strata "
                                  "give one";

/* "465 years (95%: 462 to 468)" for core-seconds shared by `cores`; a
 * count's time, measured where an estimate's is sampled, has no interval:
 * "465 years". */
static void append_duration(nq__output_t *output, nq_estimate_value_t core_seconds, double cores,
                            int counted) {
  nq_estimate_value_t wall = nq_estimate_divided(core_seconds, cores);
  double bounds[2], scale;
  const char *unit;
  interval95(bounds, wall);
  duration_unit(wall.value, &scale, &unit);
  append_amount(output, wall.value / scale);
  nq__output_format(output, " %s", unit);
  if (counted)
    return;
  if (!interval_known(wall, 0)) {
    nq__output_format(output, " (%s)", no_interval);
    return;
  }
  nq__output_text(output, " (95%: ");
  append_amount(output, bounds[0] / scale);
  nq__output_text(output, " to ");
  append_amount(output, bounds[1] / scale);
  append_few_degrees(output, wall.degrees);
  nq__output_char(output, ')');
}

/* Sampled (a count's values go to counted_as_text). */
static void estimated_as_text(nq__output_t *output, const char *name,
                              nq_estimate_value_t estimate) {
  double bounds[2];
  if (!interval_known(estimate, 0)) {
    nq__output_format(output, "%s ~ %.4g (%s)\n", name, estimate.value, no_interval);
    return;
  }
  interval95(bounds, estimate);
  nq__output_format(output, "%s ~ %.4g, 95%% interval %.4g to %.4g (standard error %.2g%%", name,
                estimate.value, bounds[0], bounds[1],
                estimate.value > 0 ? 100 * estimate.error / estimate.value : 0.0);
  append_few_degrees(output, estimate.degrees);
  nq__output_text(output, ")\n");
}

/* " (at least 2 each)": the draws each of several strata or frames is
 * sure of; of one, the draws named before say it all. */
static void append_least_each(nq__output_t *output, uint64_t parts, uint64_t least) {
  if (parts > 1)
    nq__output_format(output, " (at least %llu each)", (unsigned long long)least);
}

/* The join's sample: its sets, whole or sampled by paths, its strata. */
static void join_sample_as_text(nq__output_t *output, uint64_t seed,
                                const nq_estimate_result_t *r) {
  if (r->descents > 0)
    nq__output_format(output,
                      "join method: %llu column sets drawn from the %llu and sampled (%d paths "
                      "each, exact below %d rows)",
                      (unsigned long long)r->probes, (unsigned long long)r->units, r->descents,
                      r->exact_rows);
  else if (r->probes == r->units && r->units == 1)
    nq__output_text(output, "join method: its one column set solved exactly (the count)");
  else if (r->probes == r->units)
    nq__output_format(output, "join method: all %llu column sets solved exactly (the count)",
                      (unsigned long long)r->units);
  else
    nq__output_format(output,
                      "join method: %llu column sets of the %llu drawn without replacement and "
                      "solved exactly",
                      (unsigned long long)r->probes, (unsigned long long)r->units);
  nq__output_format(output, ", in %llu strat%s", (unsigned long long)r->frames,
                    r->frames == 1 ? "um" : "a");
  append_least_each(output, r->frames, r->min_probes);
  nq__output_format(output,
                    ", seed %llu: %.3f s on %d rank%s, %d thread%s, tables within ",
                    (unsigned long long)seed, r->seconds, r->ranks, r->ranks == 1 ? "" : "s",
                    r->threads, r->threads == 1 ? "" : "s");
  nq__output_bytes(output, r->memory);
  nq__output_text(output, " a rank\n");
}

/* Every stratum solved whole: "Q(17) = 95815104 (counted, every column
 * set solved)", the value a count's; a double holds it exactly below
 * 2^53, far above any count an estimate solves whole. */
static void counted_as_text(nq__output_t *output, const char *name, double value,
                            const nq_estimate_result_t *r) {
  nq__output_format(output, "%s = %.0f (counted, every %s solved)\n", name, value,
                    r->method == NQ_COUNT_JOIN ? "column set" : "frame");
}

/* The backtracker's sample: its probes, frames and exact rows. */
static void backtrack_sample_as_text(nq__output_t *output, uint64_t seed,
                                     const nq_estimate_result_t *r) {
  nq__output_format(output, "%llu probes on %llu frame%s", (unsigned long long)r->probes,
                    (unsigned long long)r->frames, r->frames == 1 ? "" : "s");
  append_least_each(output, r->frames, r->min_probes);
  nq__output_format(output,
                    ", exact below %d rows, seed %llu: %.3f s on %d rank%s, %d thread%s, %s "
                    "walk\n",
                    r->exact_rows, (unsigned long long)seed, r->seconds, r->ranks,
                    r->ranks == 1 ? "" : "s", r->threads, r->threads == 1 ? "" : "s",
                    nq_walk_name(r->walk));
}

/* The cores a count could keep busy: a join's column set is never split
 * over cores, so no more than its sets (the backtracker's units, many
 * more than any run's cores from n = 13, are not counted here). */
static uint64_t busy_cores(uint64_t cores, const nq_estimate_result_t *r) {
  return r->method == NQ_COUNT_JOIN && r->units > 0 && cores > r->units ? r->units : cores;
}

static void estimate_as_text(nq__output_t *output, int n, uint64_t cores, uint64_t seed,
                             const nq_estimate_result_t *r) {
  char name[16];
  snprintf(name, sizeof name, "Q(%d)", n);
  if (r->counted) {
    counted_as_text(output, name, r->solutions.value, r);
    counted_as_text(output, "nodes", r->nodes.value, r);
  } else {
    estimated_as_text(output, name, r->solutions);
    estimated_as_text(output, "nodes", r->nodes);
  }
  if (r->nodes_per_second > 0 || (r->method == NQ_COUNT_JOIN && r->core_seconds.value > 0)) {
    nq__output_text(output, "one core: ");
    append_duration(output, r->core_seconds, 1, r->counted);
    if (r->method == NQ_COUNT_JOIN)
      nq__output_format(output, ", the %s sets' own CPU time\n",
                        r->counted ? "solved" : "sampled");
    else
      nq__output_format(output, ", at %.3g nodes/s (the exact counts' rate)\n",
                    r->nodes_per_second);
    nq__output_format(output, "on %d rank%s, %d thread%s: ", r->ranks, r->ranks == 1 ? "" : "s",
                  r->threads, r->threads == 1 ? "" : "s");
    append_duration(output, r->core_seconds, r->threads, r->counted);
    nq__output_char(output, '\n');
    if (cores > 0) {
      nq__output_format(output, "on %llu core%s (--estimate-ranks): ", (unsigned long long)cores,
                    cores == 1 ? "" : "s");
      const uint64_t busy = busy_cores(cores, r);
      append_duration(output, r->core_seconds, (double)busy, r->counted);
      if (busy < cores)
        nq__output_format(output, ", only %llu of them busy (a column set is never split)",
                          (unsigned long long)busy);
      nq__output_char(output, '\n');
    }
  } else {
    nq__output_text(output, "time: too little work under the probes to measure the speed\n");
  }
  if (r->method == NQ_COUNT_JOIN)
    join_sample_as_text(output, seed, r);
  else
    backtrack_sample_as_text(output, seed, r);
}

/* Where the samples give no interval, its ends and degrees are null. */
static void estimated_as_json(nq__output_t *output, const char *key,
                              nq_estimate_value_t estimate, int counted) {
  double bounds[2];
  interval95(bounds, estimate);
  nq__output_format(output, ",\"%s\":%.10g,\"%s_error\":%.10g", key, estimate.value, key,
                    estimate.error);
  if (!interval_known(estimate, counted)) {
    nq__output_format(output, ",\"%s_low\":null,\"%s_high\":null,\"%s_degrees\":null", key, key,
                      key);
    return;
  }
  nq__output_format(output, ",\"%s_low\":%.10g,\"%s_high\":%.10g", key, bounds[0], key,
                    bounds[1]);
  if (degrees_bounded(estimate.degrees))
    nq__output_format(output, ",\"%s_degrees\":%.4g", key, estimate.degrees);
  else
    nq__output_format(output, ",\"%s_degrees\":null", key);
}

static void estimate_as_json(nq__output_t *output, int n, uint64_t cores, uint64_t seed,
                             const nq_estimate_result_t *r) {
  nq__output_format(output, "{\"n\":%d,\"estimate\":true,\"counted\":%s", n,
                    r->counted ? "true" : "false");
  estimated_as_json(output, "solutions", r->solutions, r->counted);
  estimated_as_json(output, "nodes", r->nodes, r->counted);
  nq__output_format(output, ",\"nodes_per_second\":%.6g", r->nodes_per_second);
  estimated_as_json(output, "core_seconds", r->core_seconds, r->counted);
  double threads = r->threads > 0 ? r->threads : 1;
  estimated_as_json(output, "wall_seconds", nq_estimate_divided(r->core_seconds, threads),
                    r->counted);
  if (cores > 0) {
    const uint64_t busy = busy_cores(cores, r);
    nq__output_format(output, ",\"estimate_ranks\":%llu,\"estimate_ranks_busy\":%llu",
                      (unsigned long long)cores, (unsigned long long)busy);
    estimated_as_json(output, "estimate_ranks_wall_seconds",
                      nq_estimate_divided(r->core_seconds, (double)busy), r->counted);
  }
  nq__output_format(output,
                ",\"probes\":%llu,\"frames\":%llu,\"min_probes\":%llu,\"exact_rows\":%d,"
                "\"seed\":%llu,\"depth\":%d,\"seconds\":%.6f,\"ranks\":%d,\"threads\":%d,"
                "\"method\":\"%s\"",
                (unsigned long long)r->probes, (unsigned long long)r->frames,
                (unsigned long long)r->min_probes, r->exact_rows, (unsigned long long)seed,
                r->depth, r->seconds, r->ranks, r->threads, nq__method_of(r->method)->name);
  if (r->method == NQ_COUNT_JOIN)
    nq__output_format(output, ",\"units\":%llu,\"descents\":%d,\"memory_per_rank\":%zu",
                      (unsigned long long)r->units, r->descents, r->memory);
  else
    nq__output_format(output, ",\"walk\":\"%s\"", nq_walk_name(r->walk));
  nq__output_format(output, ",\"version\":\"%s\"}\n", NQ_VERSION);
}

int nq__output_estimate(nq__output_t *output, nq__format_t format, int n, uint64_t cores,
                        uint64_t seed, const nq_estimate_result_t *result) {
  if (format == NQ_FORMAT_JSON)
    estimate_as_json(output, n, cores, seed, result);
  else
    estimate_as_text(output, n, cores, seed, result);
  return output->status;
}
