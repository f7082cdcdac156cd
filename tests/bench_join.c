/* Benchmark of the join method (not a test): for each n given, Q(n) by the
 * join, the time, and whether the count is OEIS's.
 *   bench_join [--threads T] [--top-rows M] [--memory BYTES] [--trace FILE] N...
 *   bench_join --turns N...
 * One thread (the default): the canonical column sets one after another
 * through the method's own listing and nq__join_unit, with everything the
 * join did (tops, words, ...) and how the sets' times spread: the mean,
 * the largest against it, the time of each quarter of the listing (random
 * order) and of the sets in increasing order, the share of the dearest 1%
 * of sets (what bounds the end of a run).  --trace FILE writes each set's
 * time in listing order ("id seconds", a line a unit id), the cost trace
 * bench_master --method join --cost trace replays at any rank count.  With
 * --threads T: a whole count through the run engine (nq_count_run, method NQ_COUNT_JOIN) on T
 * threads of one rank, its time and work counter.  --memory BYTES: the tables' bound (a rank's,
 * nq_count_options.memory; one thread: its scratch's), so that large buckets are walked in parts;
 * none by default.  --turns: instead, for each n, the search of the solutions the half and
 * quarter turns fix that gives the join's U(n) (the turn unit, symmetric.h), its counts, queens
 * placed and time, checked against OEIS by 8 U(n) = Q(n) + half turn + 2 quarter turn.
 * Prints one line per n; exits 1 when a count is wrong. */

#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <gmp.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "join_units.h"
#include "known_counts.h"
#include "method.h"
#include "nqueens/count.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "symmetric.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct timed_set {
  uint64_t set;
  double seconds;
} timed_set_t;

static int by_set(const void *a, const void *b) {
  uint64_t x = ((const timed_set_t *)a)->set, y = ((const timed_set_t *)b)->set;
  return (x > y) - (x < y);
}

static int by_decreasing_time(const void *a, const void *b) {
  double x = ((const timed_set_t *)a)->seconds, y = ((const timed_set_t *)b)->seconds;
  return (x < y) - (x > y);
}

/* The tops the repacks copied, in all and by the row of the queen they
 * followed ("repacked=TOTAL rows=ROW:TOPS,..."); one thread only, as the
 * engine's count keeps no join counters. */
static void print_repacked(const nq_join_stats_t *stats) {
  uint64_t total = 0;
  for (int row = 0; row < NQ_JOIN_MAX_N; row++)
    total += stats->repacked[row];
  printf(" repacked=%" PRIu64 " rows=", total);
  const char *separator = "";
  for (int row = 0; row < NQ_JOIN_MAX_N; row++)
    if (stats->repacked[row] != 0) {
      printf("%s%d:%" PRIu64, separator, row, stats->repacked[row]);
      separator = ",";
    }
}

static void print_quarters(const char *order, const timed_set_t *times, size_t count) {
  double quarters[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < count; i++)
    quarters[i * 4 / count] += times[i].seconds;
  printf(", quarters %s %.2f %.2f %.2f %.2f s", order, quarters[0], quarters[1], quarters[2],
         quarters[3]);
}

/* How the sets' times spread (reorders them). */
static void print_spread(timed_set_t *times, size_t count) {
  double total = 0, largest = 0;
  for (size_t i = 0; i < count; i++) {
    total += times[i].seconds;
    largest = times[i].seconds > largest ? times[i].seconds : largest;
  }
  double mean = total / (double)count;
  printf("  sets' times: mean %.4f ms, largest %.1f ms (%.1fx the mean)", 1e3 * mean,
         1e3 * largest, largest / mean);
  print_quarters("of the listing", times, count);
  qsort(times, count, sizeof *times, by_set);
  print_quarters("in increasing order", times, count);
  qsort(times, count, sizeof *times, by_decreasing_time);
  double dearest = 0;
  for (size_t i = 0; i < count / 100; i++)
    dearest += times[i].seconds;
  printf(", dearest 1%% of sets %.1f%% of the time\n", 100 * dearest / total);
}

/* Each set's time by unit id, for bench_master's trace costs. */
static int write_trace(const char *path, const timed_set_t *times, size_t count) {
  FILE *file = fopen(path, "w");
  if (file == NULL)
    return -1;
  for (size_t id = 0; id < count; id++)
    fprintf(file, "%zu %.9f\n", id, times[id].seconds);
  return fclose(file) == 0 ? 0 : -1;
}

/* Q(n) set by set on this thread, with the join's counters. */
static int join_serially(mpz_t solutions, nq_join_stats_t *stats, int n, int top_rows,
                         size_t memory, const char *trace_path) {
  const nq__method_params_t params = {
      .n = n,
      .unit_param = top_rows ? top_rows : nq__method_join.default_unit_param(n),
      .solver_bytes = memory};
  void *listing = NULL;
  /* The join's own scratch, not the method's solver (which wraps one with
   * the cancel hook): nq__join_unit takes the scratch. */
  nq_join_scratch_t *scratch = NULL;
  int rc = nq__method_join.check(&params);
  if (rc == NQ_OK)
    rc = nq__method_join.units_open(&listing, &params, NULL);
  if (rc == NQ_OK)
    rc = nq_join_scratch_create(&scratch);
  if (rc == NQ_OK)
    nq_join_scratch_limit(scratch, params.solver_bytes);
  uint64_t total = 0;
  if (rc == NQ_OK)
    rc = nq__method_join.units_total(&total, &params, NULL);
  timed_set_t *times = rc == NQ_OK ? malloc((total ? total : 1) * sizeof *times) : NULL;
  size_t timed = 0;
  nq__work_t unit;
  while (rc == NQ_OK && times != NULL && nq__method_join.units_next(listing, &unit) > 0) {
    uint64_t count = 0;
    double started = now();
    if (n < 2)
      count = 1;
    else
      rc = nq__join_unit(&count, stats, scratch, n, params.unit_param, unit.data[0]);
    if (timed < total)
      times[timed++] = (timed_set_t){unit.data[0], now() - started};
    mpz_add_ui(solutions, solutions, count);
  }
  if (rc == NQ_OK && trace_path != NULL && write_trace(trace_path, times, timed) != 0)
    rc = NQ_EIO;
  if (rc == NQ_OK && timed >= 100)
    print_spread(times, timed);
  free(times);
  nq_join_scratch_destroy(scratch);
  if (listing != NULL)
    nq__method_join.units_close(listing);
  return rc;
}

static int bench_one(int n, int top_rows, int threads, size_t memory, const char *trace_path) {
  mpz_t solutions;
  mpz_init(solutions);
  nq_join_stats_t stats = {0};
  nq_count_result_t result;
  nq_count_result_init(&result);
  double start = now();
  int code;
  if (threads > 1) {
    const nq_count_options_t options = {
        .n = n, .method = NQ_COUNT_JOIN, .depth = top_rows, .threads = threads, .memory = memory};
    code = nq_count_run(&result, &options, MPI_COMM_SELF);
    mpz_set(solutions, result.solutions);
    stats.bottom_nodes = mpz_get_ui(result.nodes);
    stats.buckets = result.units;
  } else {
    code = join_serially(solutions, &stats, n, top_rows, memory, trace_path);
  }
  double seconds = now() - start;
  int wrong = code != NQ_OK || n > KNOWN_LARGE_MAX_N ||
              mpz_cmp_ui(solutions, known_all_large[n]) != 0;
  if (code != NQ_OK) {
    printf("n=%d failed: %s\n", n, nq_strerror(code));
  } else {
    gmp_printf("n=%d Q=%Zd %s threads=%d seconds=%.3f buckets=%" PRIu64 " tops=%" PRIu64
               " max_tops=%" PRIu64 " top_nodes=%" PRIu64 " bottom_nodes=%" PRIu64
               " words=%" PRIu64 " fused_nodes=%" PRIu64 " completions=%" PRIu64
               " pruned=%" PRIu64 " repacks=%" PRIu64 " parts=%" PRIu64,
               n, solutions, wrong ? "WRONG" : "ok", threads, seconds, stats.buckets,
               stats.tops, stats.max_tops, stats.top_nodes, stats.bottom_nodes, stats.words,
               stats.fused_nodes, stats.completions, stats.pruned, stats.repacks, stats.parts);
    if (threads <= 1)
      print_repacked(&stats);
    printf("\n");
  }
  fflush(stdout);
  nq_count_result_clear(&result);
  mpz_clear(solutions);
  return wrong;
}

/* The turn unit's search alone; 1 when its counts disagree with OEIS. */
static int bench_turns(int n) {
  nq__symmetric_counts_t counts;
  const double start = now();
  const int rc = nq__count_symmetric(&counts, n, NULL, NULL);
  const double seconds = now() - start;
  const int known = n >= 2 && n <= KNOWN_LARGE_MAX_N;
  const uint64_t burnside =
      known ? known_all_large[n] + counts.half_turn + 2 * counts.quarter_turn : 0;
  const int right = rc == 0 && (!known || burnside == 8 * known_unique_large[n]);
  const char *verdict = !known ? "unchecked" : right ? "ok" : "WRONG";
  printf("n=%d turns %s half_turn=%" PRIu64 " quarter_turn=%" PRIu64 " nodes=%" PRIu64
         " seconds=%.3f\n",
         n, verdict, counts.half_turn, counts.quarter_turn, counts.nodes, seconds);
  fflush(stdout);
  return !right;
}

int main(int argc, char **argv) {
  int provided, threads = 1, top_rows = 0, failed = 0, turns = 0;
  const char *trace_path = NULL;
  size_t memory = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--top-rows") == 0 && i + 1 < argc)
      top_rows = atoi(argv[++i]);
    else if (strcmp(argv[i], "--memory") == 0 && i + 1 < argc)
      memory = (size_t)strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc)
      trace_path = argv[++i];
    else if (strcmp(argv[i], "--turns") == 0)
      turns = 1;
    else if (turns)
      failed |= bench_turns(atoi(argv[i]));
    else
      failed |= bench_one(atoi(argv[i]), top_rows, threads, memory, trace_path);
  }
  MPI_Finalize();
  return failed;
}
