/* How long real units take (not a test): times the kernel, one process,
 * the default walk, on every unit of Q(n) or on a uniform random sample of
 * SAMPLE of them, and prints the distribution: the input of the scheduling
 * benchmark's cost models and of docs/scaling.md.
 *   unit_times [--seed S] [--repeat R] [--write FILE] [--range FIRST COUNT] N [SAMPLE]
 * --repeat R makes R passes over the units and keeps each unit's shortest
 * time: on a shared machine one preemption makes a microsecond unit look
 * like a millisecond one (node counts, also printed, have no such noise).
 *   unit_times --counts FROM TO    units per n at the default depth
 * --range FIRST COUNT times ids FIRST..FIRST+COUNT-1 only (a neighbourhood
 * of a large unit a sample found).  When the units timed are consecutive
 * (all of them, or a range), it also prints how the sums of batches of 16
 * consecutive ids spread: large units come in runs of neighbouring ids.
 * --write FILE writes one line per timed unit: "id seconds nodes solutions"
 * (bench_master --cost trace replays it). */

#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nqueens/error.h"
#include "nqueens/kernel.h"
#include "nqueens/units.h"

typedef struct timed_unit {
  uint64_t id;
  double seconds;
  uint64_t nodes, solutions;
} timed_unit_t;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* splitmix64: a uniform double in [0, 1). */
static double uniform(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

static int by_size(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static int counts(int from, int to) {
  printf("%3s %5s %14s %9s\n", "n", "depth", "units", "seconds");
  for (int n = from; n <= to; n++) {
    uint64_t total = 0;
    double started = now();
    int rc = nq_units_total(&total, n, 0);
    if (rc != NQ_OK) {
      fprintf(stderr, "unit_times: n = %d: %s\n", n, nq_strerror(rc));
      return 1;
    }
    printf("%3d %5d %14" PRIu64 " %9.2f\n", n, nq_units_depth(n), total, now() - started);
    fflush(stdout);
  }
  return 0;
}

/* Picks every unit (wanted == total), `wanted` ids from `first` on (a
 * range: `ranged`), or a uniform sample of `wanted` of them, in one pass
 * in id order (Knuth's selection sampling). */
static int pick_units(nq_unit_t *units, uint64_t *picked, int n, uint64_t total,
                      uint64_t wanted, int ranged, uint64_t first, uint64_t seed) {
  nq_unit_gen_t *gen = NULL;
  int rc = nq_unit_gen_create(&gen, n, 0);
  uint64_t seen = 0, taken = 0;
  while (rc == NQ_OK && taken < wanted && (rc = nq_unit_gen_next(gen, &units[taken])) > 0) {
    rc = NQ_OK;
    if (ranged ? units[taken].id >= first
                  : wanted == total ||
                        (double)(total - seen) * uniform(&seed) < (double)(wanted - taken))
      taken++;
    seen++;
  }
  nq_unit_gen_destroy(gen);
  *picked = taken;
  return rc > 0 ? NQ_OK : rc;
}

/* Solves the picked units in id order, `repeat` passes, and keeps each
 * unit's shortest time.  Whole passes, not one unit several times in a
 * row: a unit solved again at once runs a third faster on branch
 * predictors it trained itself, which no real run sees. */
static int time_units(timed_unit_t *timed, const nq_unit_t *units, uint64_t count, int n,
                      int repeat) {
  nq_search_t *search = NULL;
  int rc = nq_kernel_create(&search, n, NQ_WALK_AUTO);
  for (uint64_t i = 0; i < count; i++)
    timed[i] = (timed_unit_t){.id = units[i].id, .seconds = INFINITY};
  for (int pass = 0; rc == NQ_OK && pass < repeat; pass++)
    for (uint64_t i = 0; rc == NQ_OK && i < count; i++) {
      nq_unit_result_t result;
      double started = now();
      rc = nq_kernel_solve(&result, search, &units[i], 0);
      timed[i].seconds = fmin(timed[i].seconds, now() - started);
      timed[i].nodes = result.nodes;
      timed[i].solutions = result.solutions;
    }
  nq_kernel_destroy(search);
  return rc;
}

static int write_times(const char *path, const timed_unit_t *timed, uint64_t count) {
  FILE *file = fopen(path, "w");
  if (file == NULL)
    return -1;
  for (uint64_t i = 0; i < count; i++)
    fprintf(file, "%" PRIu64 " %.9f %" PRIu64 " %" PRIu64 "\n", timed[i].id, timed[i].seconds,
            timed[i].nodes, timed[i].solutions);
  return fclose(file) == 0 ? 0 : -1;
}

/* The share of the sum held by the largest `fraction` of the sizes (at
 * least one); `sorted` is in increasing order. */
static double top_share(const double *sorted, uint64_t count, double sum, double fraction) {
  uint64_t top = (uint64_t)ceil(fraction * (double)count);
  double part = 0.0;
  for (uint64_t i = count - top; i < count; i++)
    part += sorted[i];
  return part / sum;
}

static const char *const columns =
    "n units timed size mean median p99 max/mean top.1% top1% top10% sigma last10% maxpos";

/* One line of a distribution of unit sizes (seconds, or nodes) in id
 * order: its mean, median, 99th percentile, largest over mean, the share
 * of the sum in the largest 0.1%, 1% and 10% of units, the standard
 * deviation of the log (a lognormal's sigma), the share in the last 10%
 * of ids and where the largest sits in the id order (0..1). */
static void report(const char *what, double *sizes, const timed_unit_t *timed, uint64_t count,
                   int n, uint64_t total) {
  double sum = 0.0, log_sum = 0.0, log_squares = 0.0, last_tenth = 0.0, largest = -1.0;
  uint64_t largest_id = 0;
  for (uint64_t i = 0; i < count; i++) {
    double logarithm = log(fmax(sizes[i], 1e-9));
    sum += sizes[i];
    log_sum += logarithm;
    log_squares += logarithm * logarithm;
    if ((double)timed[i].id >= 0.9 * (double)total)
      last_tenth += sizes[i];
    if (sizes[i] > largest) {
      largest = sizes[i];
      largest_id = timed[i].id;
    }
  }
  double mean = sum / (double)count, log_mean = log_sum / (double)count;
  double sigma = sqrt(fmax(0.0, log_squares / (double)count - log_mean * log_mean));
  qsort(sizes, count, sizeof *sizes, by_size);
  printf("%3d %11" PRIu64 " %8" PRIu64 " %7s %10.4g %10.4g %10.4g %8.2f %7.4f %7.4f %7.4f %6.3f"
         " %7.4f %6.3f\n",
         n, total, count, what, mean, sizes[count / 2], sizes[(uint64_t)(0.99 * (double)(count - 1))],
         largest / mean, top_share(sizes, count, sum, 0.001), top_share(sizes, count, sum, 0.01),
         top_share(sizes, count, sum, 0.1), sigma, last_tenth / sum,
         (double)largest_id / (double)total);
}

/* Batches of 16 consecutive ids, as a master hands them out (node
 * counts): the largest and the 99th percentile over the mean, and how
 * many pass 3x the mean.  Only for consecutive units. */
static void report_batches(const timed_unit_t *timed, uint64_t count) {
  enum { BATCH = 16 };
  uint64_t batches = count / BATCH;
  for (uint64_t i = 0; i < count; i++)
    if (timed[i].id != timed[0].id + i)
      return;
  double *sums = batches > 0 ? calloc(batches, sizeof *sums) : NULL;
  if (sums == NULL)
    return;
  double total = 0.0;
  for (uint64_t i = 0; i < batches * BATCH; i++) {
    sums[i / BATCH] += (double)timed[i].nodes;
    total += (double)timed[i].nodes;
  }
  double mean = total / (double)batches;
  uint64_t above = 0;
  for (uint64_t b = 0; b < batches; b++)
    above += sums[b] > 3.0 * mean;
  qsort(sums, batches, sizeof *sums, by_size);
  printf("# batches of %d consecutive ids (nodes): %" PRIu64 ", largest %.2f x the mean,"
         " 99th percentile %.2f x, %" PRIu64 " above 3 x\n",
         BATCH, batches, sums[batches - 1] / mean,
         sums[(uint64_t)(0.99 * (double)(batches - 1))] / mean, above);
  free(sums);
}

/* The distribution of times, then of node counts (the same work without
 * the machine's noise: a node costs about the same in small and large
 * units), then the totals. */
static int report_all(const timed_unit_t *timed, uint64_t count, int n, uint64_t total,
                      double wall, int repeat) {
  double *sizes = malloc(count * sizeof *sizes);
  if (sizes == NULL)
    return 1;
  double seconds = 0.0, nodes = 0.0, solutions = 0.0;
  for (uint64_t i = 0; i < count; i++) {
    seconds += timed[i].seconds;
    nodes += (double)timed[i].nodes;
    solutions += (double)timed[i].solutions;
  }
  printf("# %s\n", columns);
  for (uint64_t i = 0; i < count; i++)
    sizes[i] = timed[i].seconds;
  report("seconds", sizes, timed, count, n, total);
  for (uint64_t i = 0; i < count; i++)
    sizes[i] = (double)timed[i].nodes;
  report("nodes", sizes, timed, count, n, total);
  report_batches(timed, count);
  printf("# n %d: %.3f s timing %" PRIu64 " of %" PRIu64 " units %d time(s); %.4g nodes/s,"
         " %.4g nodes a solution; all units: %.4g s (from the mean when sampled)\n",
         n, wall, count, total, repeat, nodes / seconds, nodes / solutions,
         seconds / (double)count * (double)total);
  free(sizes);
  return 0;
}

int main(int argc, char **argv) {
  uint64_t seed = 1, wanted = 0, first = 0;
  int ranged = 0;
  int repeat = 1;
  const char *write_path = NULL;
  int n = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--counts") == 0 && i + 2 < argc)
      return counts(atoi(argv[i + 1]), atoi(argv[i + 2]));
    if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (strcmp(argv[i], "--write") == 0 && i + 1 < argc)
      write_path = argv[++i];
    else if (strcmp(argv[i], "--range") == 0 && i + 2 < argc) {
      first = strtoull(argv[++i], NULL, 10);
      wanted = strtoull(argv[++i], NULL, 10);
      ranged = 1;
    }
    else if (n < 0)
      n = atoi(argv[i]);
    else if (!ranged)
      wanted = strtoull(argv[i], NULL, 10);
    else
      n = -1; /* a sample and a range */
  }
  uint64_t total = 0;
  if (n < 0 || repeat < 1 || nq_units_total(&total, n, 0) != NQ_OK || total == 0) {
    fprintf(stderr, "usage: unit_times [--seed S] [--repeat R] [--write FILE] [--range FIRST COUNT]"
                    " N [SAMPLE]\n"
                    "       unit_times --counts FROM TO\n");
    return 2;
  }
  if (first >= total) {
    first = wanted = 0;
    ranged = 0;
  }
  if (wanted == 0 || wanted > total - first)
    wanted = total - first;
  timed_unit_t *timed = malloc(wanted * sizeof *timed);
  nq_unit_t *units = malloc(wanted * sizeof *units);
  if (timed == NULL || units == NULL)
    return 1;
  uint64_t count = 0;
  int rc = pick_units(units, &count, n, total, wanted, ranged, first, seed);
  double started = now();
  if (rc == NQ_OK)
    rc = time_units(timed, units, count, n, repeat);
  double wall = now() - started;
  free(units);
  if (rc != NQ_OK || count == 0) {
    fprintf(stderr, "unit_times: n = %d: %s\n", n, nq_strerror(rc));
    return 1;
  }
  if (write_path != NULL && write_times(write_path, timed, count) != 0) {
    fprintf(stderr, "unit_times: cannot write %s\n", write_path);
    return 1;
  }
  rc = report_all(timed, count, n, total, wall, repeat);
  free(timed);
  return rc;
}
