/* Benchmark of the GPU search alone, without MPI ranks: every unit of each
 * board, in batches as a GPU rank receives them, walked on CUDA device 0
 * (or on the host with --host, to compare).  Prints one line per board:
 * Q(n), its check against OEIS A000170, seconds, solutions and nodes per
 * second, sub-problems.
 *   bench_gpu [--host] [--batch UNITS] N...      */

#define _POSIX_C_SOURCE 199309L /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/units.h"

typedef struct totals {
  unsigned __int128 solutions;
  uint64_t nodes, units;
} totals_t;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int solve_batches(totals_t *totals, nq__gpu_solver_t *solver, int n, size_t batch_units) {
  nq_unit_gen_t *gen = NULL;
  nq_unit_t *units = malloc(batch_units * sizeof *units);
  nq_unit_result_t *results = malloc(batch_units * sizeof *results);
  int rc = units && results ? nq_unit_gen_create(&gen, n, 0) : NQ_ENOMEM;
  while (rc == NQ_OK) {
    size_t count = 0;
    while (count < batch_units && nq_unit_gen_next(gen, &units[count]) > 0)
      count++;
    if (count == 0)
      break;
    rc = nq__gpu_solver_solve(solver, results, units, count, 0);
    for (size_t i = 0; rc == NQ_OK && i < count; i++) {
      totals->solutions += (unsigned __int128)results[i].solutions * results[i].weight;
      totals->nodes += results[i].nodes;
      totals->units++;
    }
  }
  if (gen)
    nq_unit_gen_destroy(gen);
  free(units);
  free(results);
  return rc;
}

static void print_u128(unsigned __int128 value, char *text, size_t size) {
  char digits[48];
  int length = 0;
  do {
    digits[length++] = (char)('0' + (int)(value % 10));
    value /= 10;
  } while (value);
  size_t out = 0;
  while (length > 0 && out + 1 < size)
    text[out++] = digits[--length];
  text[out] = '\0';
}

static int bench(int n, nq__gpu_device_t *device, size_t batch_units) {
  nq__gpu_solver_t *solver = NULL;
  totals_t totals = {0, 0, 0};
  int rc = nq__gpu_solver_create(&solver, n, NQ_WALK_AUTO, device);
  double started = now();
  if (rc == NQ_OK)
    rc = solve_batches(&totals, solver, n, batch_units);
  double seconds = now() - started;
  if (rc != NQ_OK) {
    fprintf(stderr, "bench_gpu: n = %d failed: %s\n", n, nq_strerror(rc));
    nq__gpu_solver_destroy(solver);
    return 1;
  }
  char count[48];
  print_u128(totals.solutions, count, sizeof count);
  int known = n <= KNOWN_LARGE_MAX_N;
  int correct = known && totals.solutions == known_all_large[n];
  printf("%4d %20s %7s %10.3f %12.4g %12.4g %12llu %10llu\n", n, count,
         !known ? "-" : correct ? "ok" : "WRONG", seconds, (double)totals.solutions / seconds,
         (double)totals.nodes / seconds, (unsigned long long)nq__gpu_solver_subs(solver),
         (unsigned long long)totals.units);
  fflush(stdout);
  nq__gpu_solver_destroy(solver);
  return known && !correct;
}

int main(int argc, char **argv) {
  int on_host = 0, failed = 0;
  size_t batch_units = 4096;
  int arg = 1;
  for (; arg < argc && argv[arg][0] == '-'; arg++) {
    if (strcmp(argv[arg], "--host") == 0)
      on_host = 1;
    else if (strcmp(argv[arg], "--batch") == 0 && arg + 1 < argc)
      batch_units = (size_t)strtoul(argv[++arg], NULL, 10);
    else {
      fprintf(stderr, "usage: bench_gpu [--host] [--batch UNITS] N...\n");
      return 2;
    }
  }
  nq__gpu_device_t *device = NULL;
  if (!on_host) {
    int rc = nq__gpu_device_open(&device, 0);
    if (rc != NQ_OK) {
      fprintf(stderr, "bench_gpu: cannot open CUDA device 0 (%s); --host walks on the CPU\n",
              rc == NQ_ENOTSUP ? "none here, or a build without CUDA" : nq_strerror(rc));
      return 1;
    }
  }
  printf("# bench_gpu on %s, batches of %zu units\n",
         device ? nq__gpu_device_name(device) : "the host (one core)", batch_units);
  printf("%4s %20s %7s %10s %12s %12s %12s %10s\n", "n", "solutions", "OEIS", "seconds",
         "solutions/s", "nodes/s", "subproblems", "units");
  for (; arg < argc; arg++)
    failed |= bench(atoi(argv[arg]), device, batch_units);
  nq__gpu_device_close(device);
  return failed;
}
