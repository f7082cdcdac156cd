/* Benchmark of the join method (not a test): for each n given, Q(n) by
 * nq_join_count on one rank, the time, what the join did, and whether the
 * count is OEIS's.
 *   bench_join [--threads T] [--top-rows M] N...
 * Prints one line per n; exits 1 when a count is wrong. */

#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <gmp.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/join.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int bench_one(int n, int top_rows, int threads) {
  mpz_t solutions;
  mpz_init(solutions);
  nq_join_stats_t stats = {0};
  double start = now();
  nq_join_options_t options = {.n = n, .top_rows = top_rows, .threads = threads};
  int code = nq_join_count(solutions, &stats, &options, MPI_COMM_SELF);
  double seconds = now() - start;
  int wrong = code != NQ_OK || n > KNOWN_LARGE_MAX_N ||
              mpz_cmp_ui(solutions, known_all_large[n]) != 0;
  if (code != NQ_OK)
    printf("n=%d failed: %s\n", n, nq_strerror(code));
  else
    gmp_printf("n=%d Q=%Zd %s seconds=%.3f buckets=%" PRIu64 " tops=%" PRIu64
               " max_tops=%" PRIu64 " top_nodes=%" PRIu64 " bottom_nodes=%" PRIu64
               " words=%" PRIu64 " pruned=%" PRIu64 " repacks=%" PRIu64 "\n",
               n, solutions, wrong ? "WRONG" : "ok", seconds, stats.buckets, stats.tops,
               stats.max_tops, stats.top_nodes, stats.bottom_nodes, stats.words, stats.pruned, stats.repacks);
  fflush(stdout);
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
