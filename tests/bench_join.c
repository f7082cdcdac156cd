/* Benchmark of the join method (not a test): for each n given, Q(n) by the
 * join, the time, and whether the count is OEIS's.
 *   bench_join [--threads T] [--top-rows M] N...
 * One thread (the default): the canonical column sets one after another
 * through the method's own listing and nq__join_unit, with everything the
 * join did (tops, words, ...).  With --threads T: a whole count through
 * the run engine (nq_count_run, method NQ_COUNT_JOIN) on T threads of one
 * rank, its time and work counter.  Prints one line per n; exits 1 when a
 * count is wrong. */

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

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Q(n) set by set on this thread, with the join's counters. */
static int join_serially(mpz_t solutions, nq_join_stats_t *stats, int n, int top_rows) {
  const nq__method_params_t params = {
      .n = n, .unit_param = top_rows ? top_rows : nq__method_join.default_unit_param(n)};
  void *listing = NULL, *scratch = NULL;
  int rc = nq__method_join.check(&params);
  if (rc == NQ_OK)
    rc = nq__method_join.units_open(&listing, &params);
  if (rc == NQ_OK)
    rc = nq__method_join.solver_open(&scratch, &params);
  nq__work_t unit;
  while (rc == NQ_OK && nq__method_join.units_next(listing, &unit) > 0) {
    uint64_t count = 0;
    if (n < 2)
      count = 1;
    else
      rc = nq__join_unit(&count, stats, scratch, n, params.unit_param, unit.data[0]);
    mpz_add_ui(solutions, solutions, count);
  }
  if (scratch != NULL)
    nq__method_join.solver_close(scratch);
  if (listing != NULL)
    nq__method_join.units_close(listing);
  return rc;
}

static int bench_one(int n, int top_rows, int threads) {
  mpz_t solutions;
  mpz_init(solutions);
  nq_join_stats_t stats = {0};
  nq_count_result_t result;
  nq_count_result_init(&result);
  double start = now();
  int code;
  if (threads > 1) {
    const nq_count_options_t options = {.n = n, .method = NQ_COUNT_JOIN, .depth = top_rows,
                                        .threads = threads};
    code = nq_count_run(&result, &options, MPI_COMM_SELF);
    mpz_set(solutions, result.solutions);
    stats.bottom_nodes = mpz_get_ui(result.nodes);
    stats.buckets = result.units;
  } else {
    code = join_serially(solutions, &stats, n, top_rows);
  }
  double seconds = now() - start;
  int wrong = code != NQ_OK || n > KNOWN_LARGE_MAX_N ||
              mpz_cmp_ui(solutions, known_all_large[n]) != 0;
  if (code != NQ_OK)
    printf("n=%d failed: %s\n", n, nq_strerror(code));
  else
    gmp_printf("n=%d Q=%Zd %s threads=%d seconds=%.3f buckets=%" PRIu64 " tops=%" PRIu64
               " max_tops=%" PRIu64 " top_nodes=%" PRIu64 " bottom_nodes=%" PRIu64
               " words=%" PRIu64 " pruned=%" PRIu64 " repacks=%" PRIu64 "\n",
               n, solutions, wrong ? "WRONG" : "ok", threads, seconds, stats.buckets, stats.tops,
               stats.max_tops, stats.top_nodes, stats.bottom_nodes, stats.words, stats.pruned,
               stats.repacks);
  fflush(stdout);
  nq_count_result_clear(&result);
  mpz_clear(solutions);
  return wrong;
}

int main(int argc, char **argv) {
  int provided, threads = 1, top_rows = 0, failed = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--top-rows") == 0 && i + 1 < argc)
      top_rows = atoi(argv[++i]);
    else
      failed |= bench_one(atoi(argv[i]), top_rows, threads);
  }
  MPI_Finalize();
  return failed;
}
