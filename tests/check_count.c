/* The run module, under MPI: nq_count_run is collective over the given
 * communicator and its totals (valid on the communicator's rank 0) are the
 * known counts, however many ranks, however the work is cut.
 *
 *   check_count                   the default cases (seconds)
 *   check_count --long            n = 17 and 18 only (minutes: ctest label "long")
 *   check_count --threads         the search threads' cases alone (for rank
 *                                 counts the default cases do not run)
 *   check_count --avx512 [--long] the AVX-512 lane walk against the scalar
 *                                 walk, n = 14..16 (17 with --long); exits 77
 *                                 (ctest: skipped), saying why, where some
 *                                 rank cannot run the lanes */

#define _POSIX_C_SOURCE 200809L /* truncate, getpid */

#include <check.h>
#include <gmp.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/count.h"
#include "nqueens/units.h"

#include "messages.h"
#include "journal.h"
#include "count_faults.h"
#include "run.h"
#include "support.h"

static void assert_count(const mpz_t count, uint64_t expected, const char *what, int n) {
  mpz_t want;
  mpz_init(want);
  mpz_import(want, 1, 1, sizeof expected, 0, 0, &expected);
  char *got = mpz_get_str(NULL, 10, count);
  int equal = mpz_cmp(count, want) == 0;
  ck_assert_msg(equal, "%s(%d) = %s, expected %llu", what, n, got,
                (unsigned long long)expected);
  void (*free_string)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &free_string);
  free_string(got, strlen(got) + 1);
  mpz_clear(want);
}

/* Runs one count on `comm` (every rank calls it); checks on its rank 0. */
static void count_and_check(MPI_Comm comm, const nq_count_options_t *options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = nq_count_run(&result, options, comm);
  ck_assert_msg(rc == NQ_OK, "n %d on rank %d: %s", options->n, rank, nq_strerror(rc));
  if (rank == 0) {
    assert_count(result.solutions, known_all[options->n], "Q", options->n);
    if (options->unique)
      assert_count(result.unique, known_unique[options->n], "U", options->n);
    ck_assert_int_eq(result.ranks, size);
    ck_assert_uint_gt(result.units, 0);
  }
  nq_count_result_clear(&result);
}

START_TEST(test_count_counts_all_solutions) {
  nq_count_options_t options = {.n = _i};
  count_and_check(MPI_COMM_WORLD, &options);
}
END_TEST

START_TEST(test_count_counts_unique_solutions) {
  nq_count_options_t options = {.n = _i, .unique = 1};
  count_and_check(MPI_COMM_WORLD, &options);
}
END_TEST

/* One unit per message and depths other than the default for n = 12
 * (default 1): more messages, other units, the same counts. */
START_TEST(test_count_one_unit_batches_at_other_depths) {
  static const int depths[] = {2, 3, 5, 8};
  nq_count_options_t options = {.n = 12, .unique = 1, .depth = depths[_i], .batch_units = 1};
  count_and_check(MPI_COMM_WORLD, &options);
}
END_TEST

START_TEST(test_count_oversized_batches) {
  nq_count_options_t options = {.n = 11, .unique = 1, .batch_units = 1000000};
  count_and_check(MPI_COMM_WORLD, &options);
}
END_TEST

/* Every rank counts alone on MPI_COMM_SELF: nothing in the run may talk
 * to MPI_COMM_WORLD. */
START_TEST(test_count_on_self_communicator) {
  nq_count_options_t options = {.n = 10, .unique = 1};
  count_and_check(MPI_COMM_SELF, &options);
}
END_TEST

/* Two halves of the world count different boards at once. */
START_TEST(test_count_on_split_communicator) {
  int world_rank = support_rank();
  MPI_Comm half;
  ck_assert_int_eq(MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half),
                   MPI_SUCCESS);
  nq_count_options_t options = {.n = world_rank % 2 ? 11 : 12, .unique = 1};
  count_and_check(half, &options);
  MPI_Comm_free(&half);
}
END_TEST

START_TEST(test_count_rejects_invalid_size) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  nq_count_options_t negative = {.n = -1}, too_big = {.n = NQ_MAX_N + 1};
  ck_assert_int_eq(nq_count_run(&result, &negative, MPI_COMM_WORLD), NQ_EINVAL);
  ck_assert_int_eq(nq_count_run(&result, &too_big, MPI_COMM_WORLD), NQ_EINVAL);
  nq_count_result_clear(&result);
}
END_TEST

/* On every rank of the world: all ranks must refuse at once, none may wait
 * for a master that gave up (this hung before nq_units_check). */
START_TEST(test_count_rejects_invalid_depth) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  nq_count_options_t too_deep = {.n = 8, .depth = NQ_UNIT_MAX_DEPTH + 1};
  nq_count_options_t past_last_row = {.n = 8, .depth = 8};
  nq_count_options_t negative_batch = {.n = 8, .batch_units = -1};
  ck_assert_int_eq(nq_count_run(&result, &too_deep, MPI_COMM_WORLD), NQ_EINVAL);
  ck_assert_int_eq(nq_count_run(&result, &past_last_row, MPI_COMM_WORLD), NQ_EINVAL);
  ck_assert_int_eq(nq_count_run(&result, &negative_batch, MPI_COMM_WORLD), NQ_EINVAL);
  nq_count_result_clear(&result);
}
END_TEST

/* n = 17, 18: both counts from one run with unique set. */
/* A unit that fails, early, midway or last, with batches of 1, 16 and the
 * maximum: rank 0 reports it with the rank that ran it, the ranks that ran
 * it return the failure too (a backup copy may run it twice), nobody hangs, and the communicator is clean
 * enough for a correct count right after. */
START_TEST(test_count_reports_failed_unit_without_hanging) {
  static const int batches[] = {1, 16, NQ_BATCH_MAX};
  static const uint64_t failing_units[] = {0, 97, 189}; /* n = 12 has 190 units */
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int b = 0; b < 3; b++) {
    nq_count_options_t options = {.n = 12, .batch_units = batches[b]};
    nq__faults_t faults = NQ_NO_FAULTS;
    faults.failing_unit = failing_units[_i];
    nq_count_result_t result;
    nq_count_result_init(&result);
    int rc = nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD);
    int failed_here = rc == NQ_EUNIT;
    ck_assert_msg(rc == NQ_OK || rc == NQ_EUNIT, "rank %d: %s", rank, nq_strerror(rc));
    if (rank == 0) {
      ck_assert_int_eq(rc, NQ_EUNIT);
      ck_assert_int_ge(result.failed_rank, 0);
      ck_assert_int_lt(result.failed_rank, size);
    }
    int failures = 0, reported_rank = result.failed_rank;
    int copies = (int)result.copies_sent;
    MPI_Allreduce(&failed_here, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&reported_rank, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&copies, 1, MPI_INT, 0, MPI_COMM_WORLD);
    /* Rank 0 and the rank that ran the unit (maybe the same one), and at
     * the end of a run maybe a rank that ran a copy of its batch. */
    int least = reported_rank == 0 ? 1 : 2;
    ck_assert_int_ge(failures, least);
    ck_assert_int_le(failures, least + copies);
    if (rank == reported_rank)
      ck_assert_int_eq(rc, NQ_EUNIT);
    nq_count_result_clear(&result);
  }
  nq_count_options_t clean = {.n = 12, .unique = 1};
  count_and_check(MPI_COMM_WORLD, &clean);
}
END_TEST

/* One run that must stop: NQ_ESTOPPED on every rank, no failure named. */
static void assert_stops_everywhere(const nq_count_options_t *options, nq__faults_t faults) {
  int rank = support_rank();
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = nq__count_run_with_faults(&result, options, faults, MPI_COMM_WORLD);
  ck_assert_msg(rc == NQ_ESTOPPED, "n %d on rank %d: %s", options->n, rank, nq_strerror(rc));
  if (rank == 0)
    ck_assert_int_eq(result.failed_rank, -1);
  nq_count_result_clear(&result);
}

/* The world counts again right after a stop: nothing of the stopped run
 * is left in flight.  The stop flag is there, and stays down. */
static void assert_counts_after_stop(void) {
  volatile sig_atomic_t stop = 0;
  nq_count_options_t clean = {.n = 12, .unique = 1, .stop = &stop};
  count_and_check(MPI_COMM_WORLD, &clean);
}

/* A stop flag already up when the run starts, on every rank, on rank 0
 * alone, or on the last rank alone (as if only that process got the
 * signal): every rank returns NQ_ESTOPPED, none waits for ever. */
START_TEST(test_count_stops_when_flag_is_up_before_the_run) {
  int rank = support_rank(), size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int up = _i == 0 || (_i == 1 && rank == 0) || (_i == 2 && rank == size - 1);
  volatile sig_atomic_t stop = up;
  nq_count_options_t options = {.n = 12, .stop = &stop};
  assert_stops_everywhere(&options, NQ_NO_FAULTS);
  assert_counts_after_stop();
}
END_TEST

/* A rank's flag goes up during the run, as it starts a unit (its first, or
 * its sixth, which its first batch of 16 holds): rank 0, whose workers
 * learn it from a cancel, or the last rank, whose stop answer tells rank 0.
 * n = 15 has 3,240 units, so every rank gets that far. */
START_TEST(test_count_stops_when_a_rank_raises_its_flag_midway) {
  static const struct {
    int last_rank, batch_units;
    uint64_t after_units;
  } cases[] = {{0, 16, 5}, {0, 1, 0}, {1, 16, 5}, {1, 1, 0}};
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  volatile sig_atomic_t stop = 0;
  nq_count_options_t options = {.n = 15, .batch_units = cases[_i].batch_units, .stop = &stop};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.stop_rank = cases[_i].last_rank ? size - 1 : 0;
  faults.stop_after_units = cases[_i].after_units;
  assert_stops_everywhere(&options, faults);
  ck_assert_int_eq(stop, support_rank() == faults.stop_rank);
  assert_counts_after_stop();
}
END_TEST

/* A worker's flag up after its last batch is in (its signal came as the
 * count ended): rank 0 holds the whole count, and no rank may end as
 * stopped, which made the job exit 3 with the result printed. */
START_TEST(test_count_ignores_a_stop_after_the_last_batch) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  volatile sig_atomic_t stop = 0;
  nq_count_options_t options = {.n = 12, .stop = &stop};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.late_stop_rank = size - 1; /* rank 0 alone is no worker: nothing then */
  nq_count_result_t result;
  nq_count_result_init(&result);
  ck_assert_int_eq(nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD), NQ_OK);
  ck_assert_int_eq(stop, size > 1 && support_rank() == size - 1);
  if (support_rank() == 0)
    assert_count(result.solutions, known_all[12], "Q", 12);
  nq_count_result_clear(&result);
}
END_TEST

/* The scheduling benchmark's hook (faults.simulated_seconds): a simulated
 * unit costs what the hook says and returns one solution, weight 1,
 * stabilizer_sum 8 and id + 1 nodes.  Its context counts the calls. */
typedef struct simulated_cost {
  double seconds;
  uint64_t calls;
} simulated_cost_t;

static double simulated_seconds(uint64_t unit_id, void *context) {
  (void)unit_id;
  simulated_cost_t *cost = context;
  cost->calls++;
  return cost->seconds;
}

/* Rank 0: the totals of `units` simulated units, each counted once. */
static void assert_simulated_totals(const nq_count_result_t *result, uint64_t units) {
  ck_assert_uint_eq(result->units, units);
  ck_assert_msg(mpz_cmp_ui(result->solutions, (unsigned long)units) == 0 &&
                    mpz_cmp_ui(result->unique, (unsigned long)units) == 0,
                "Q and U of %llu simulated units", (unsigned long long)units);
  mpz_t nodes;
  mpz_init_set_ui(nodes, (unsigned long)units);
  mpz_mul_ui(nodes, nodes, (unsigned long)units + 1);
  mpz_divexact_ui(nodes, nodes, 2);
  ck_assert(mpz_cmp(result->nodes, nodes) == 0);
  mpz_clear(nodes);
}

/* Zero-cost simulated units at batches of 1, 16 and the most: each unit is
 * asked for its cost once, on whichever rank (again for each backup copy
 * of its batch), and the totals are the
 * accounting the benchmark checks: Q = U = units (generated independently
 * of the run) and nodes = 1 + 2 + ... + units, so a unit lost or counted
 * twice shows. */
START_TEST(test_count_simulated_units_account_exactly) {
  static const int batches[] = {1, 16, NQ_BATCH_MAX};
  const int n = 15;
  uint64_t units = 0;
  ck_assert_int_eq(nq_units_total(&units, n, 0), NQ_OK);
  simulated_cost_t cost = {.seconds = 0.0};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.simulated_seconds = simulated_seconds;
  faults.simulated_context = &cost;
  nq_count_options_t options = {.n = n, .unique = 1, .batch_units = batches[_i]};
  nq_count_result_t result;
  nq_count_result_init(&result);
  ck_assert_int_eq(nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD), NQ_OK);
  uint64_t calls = 0, copies = result.copies_sent;
  MPI_Allreduce(&cost.calls, &calls, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(&copies, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  /* A backup copy solves its batch's units once more, at most. */
  ck_assert_uint_ge(calls, units);
  ck_assert_uint_le(calls, units + copies * (uint64_t)batches[_i]);
  if (copies == 0)
    ck_assert_uint_eq(calls, units);
  if (support_rank() == 0)
    assert_simulated_totals(&result, units);
  nq_count_result_clear(&result);
}
END_TEST

/* A simulated unit of an hour is abandoned like a real long one: the
 * sleep asks the cancel hook, so a rank's stop (rank 0's, or the last
 * rank's) ends the run at once on every rank.  Were the hook not asked,
 * this would run into ctest's timeout. */
START_TEST(test_count_simulated_units_stop_inside_a_unit) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  volatile sig_atomic_t stop = 0;
  simulated_cost_t cost = {.seconds = 3600.0};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.simulated_seconds = simulated_seconds;
  faults.simulated_context = &cost;
  faults.stop_rank = _i == 0 ? 0 : size - 1;
  faults.stop_after_units = 0;
  nq_count_options_t options = {.n = 12, .stop = &stop};
  assert_stops_everywhere(&options, faults);
  assert_counts_after_stop();
}
END_TEST

/* Counts Q(n) with `walk` on the world; checks on rank 0 the count and
 * the walk reported, and leaves the node count in `nodes`. */
static void count_with_walk(mpz_t nodes, nq_walk_t walk, int n) {
  nq_count_options_t options = {.n = n, .walk = walk};
  nq_count_result_t result;
  nq_count_result_init(&result);
  ck_assert_int_eq(nq_count_run(&result, &options, MPI_COMM_WORLD), NQ_OK);
  if (support_rank() == 0) {
    assert_count(result.solutions, known_all[n], "Q", n);
    ck_assert_int_eq(result.walk, walk);
    mpz_set(nodes, result.nodes);
  }
  nq_count_result_clear(&result);
}

/* Every CPU runs the scalar walk: asked for, it counts and says so. */
START_TEST(test_count_scalar_walk_counts) {
  mpz_t nodes;
  mpz_init(nodes);
  count_with_walk(nodes, NQ_WALK_SCALAR, _i);
  mpz_clear(nodes);
}
END_TEST

/* --avx512 only (main skips where a rank cannot run it): the lane walk
 * gives the known count and visits the same nodes as the scalar walk. */
START_TEST(test_count_avx512_walk_matches_scalar) {
  int n = _i;
  mpz_t scalar_nodes, lane_nodes;
  mpz_inits(scalar_nodes, lane_nodes, NULL);
  count_with_walk(scalar_nodes, NQ_WALK_SCALAR, n);
  count_with_walk(lane_nodes, NQ_WALK_AVX512, n);
  if (support_rank() == 0)
    ck_assert_msg(mpz_cmp(lane_nodes, scalar_nodes) == 0, "n %d: nodes differ by walk", n);
  mpz_clears(scalar_nodes, lane_nodes, NULL);
}
END_TEST

/* A walk some rank cannot run is refused on every rank, before any work;
 * an unknown walk is a bad option. */
START_TEST(test_count_rejects_walk_it_cannot_run) {
  nq_count_result_t result;
  nq_count_result_init(&result);
  nq_count_options_t too_wide = {.n = 33, .walk = NQ_WALK_AVX512};
  nq_count_options_t unknown = {.n = 8, .walk = (nq_walk_t)9};
  ck_assert_int_eq(nq_count_run(&result, &too_wide, MPI_COMM_WORLD), NQ_ENOTSUP);
  ck_assert_int_eq(nq_count_run(&result, &unknown, MPI_COMM_WORLD), NQ_EINVAL);
  nq_count_options_t lanes = {.n = 12, .walk = NQ_WALK_AVX512};
  int rc = nq_count_run(&result, &lanes, MPI_COMM_WORLD);
  ck_assert_int_eq(rc, nq_walk_supported(NQ_WALK_AVX512, 12) ? NQ_OK : NQ_ENOTSUP);
  nq_count_result_clear(&result);
}
END_TEST

/* One rank (the last) acts as if its CPU could not run the walk: every
 * rank, that one included, returns NQ_ENOTSUP and none waits for the
 * others; the same run with no refusing rank counts. */
START_TEST(test_count_refuses_walk_one_rank_lacks) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nq_count_result_t result;
  nq_count_result_init(&result);
  nq_count_options_t options = {.n = 10, .walk = NQ_WALK_SCALAR};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.walk_refusing_rank = size - 1;
  ck_assert_int_eq(nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD),
                   NQ_ENOTSUP);
  nq_count_result_clear(&result);
  count_and_check(MPI_COMM_WORLD, &options);
}
END_TEST

/* GPU ranks without a GPU: the last rank is a GPU rank whose device is
 * the host stand-in (the same walk, on the CPU), the others count on
 * their CPUs, all in one run; alone, rank 0 is the GPU rank.  The counts,
 * U(n) and the node count are those of a CPU-only run. */
START_TEST(test_count_with_a_gpu_rank) {
  int n = _i, size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nq_count_options_t cpu_only = {.n = n, .unique = 1}, with_gpu = {.n = n, .unique = 1, .gpu = 1};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.gpu_stand_in_rank = size - 1;
  nq_count_result_t expected, got;
  nq_count_result_init(&expected);
  nq_count_result_init(&got);
  ck_assert_int_eq(nq_count_run(&expected, &cpu_only, MPI_COMM_WORLD), NQ_OK);
  ck_assert_int_eq(nq__count_run_with_faults(&got, &with_gpu, faults, MPI_COMM_WORLD), NQ_OK);
  if (support_rank() == 0) {
    assert_count(got.solutions, known_all[n], "Q", n);
    assert_count(got.unique, known_unique[n], "U", n);
    ck_assert_msg(mpz_cmp(got.nodes, expected.nodes) == 0, "n %d: nodes differ with a GPU rank",
                  n);
    ck_assert_int_eq(got.gpu_ranks, 1);
  }
  nq_count_result_clear(&expected);
  nq_count_result_clear(&got);
}
END_TEST

/* A unit that fails on the GPU rank is reported as on a CPU rank. */
START_TEST(test_count_reports_failed_unit_on_gpu_rank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nq_count_options_t options = {.n = 13, .gpu = 1};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.gpu_stand_in_rank = size - 1;
  faults.failing_unit = 200; /* n = 13 has 245 units */
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD);
  if (support_rank() == 0)
    ck_assert_int_eq(rc, NQ_EUNIT);
  nq_count_result_clear(&result);
}
END_TEST

/* GPUs asked for where no rank has one (the devices of a GPU machine
 * hidden): every rank says so, nobody waits. */
START_TEST(test_count_refuses_gpu_where_there_is_none) {
  nq_count_options_t options = {.n = 10, .gpu = 1};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.hide_gpus = 1;
  nq_count_result_t result;
  nq_count_result_init(&result);
  ck_assert_int_eq(nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD),
                   NQ_ENOGPU);
  nq_count_result_clear(&result);
}
END_TEST

/* ---- checkpoint journals ---- */

/* A journal path of rank 0's, the same on every rank. */
static void journal_path(char *path, size_t size, const char *what) {
  int pid = (int)getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, size, "/tmp/nq-check-count-%d-%s.journal", pid, what);
  if (support_rank() == 0)
    unlink(path);
}

static long file_size(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 ? (long)info.st_size : -1;
}

/* What a crash leaves of a run that got through units [first, end) and
 * a few more not yet recorded: a journal holding that range, its sums
 * solved here unit by unit (rank 0). */
static void write_partial_journal(const char *path, int n, uint64_t first, uint64_t end) {
  uint64_t total = 0;
  ck_assert_int_eq(nq_units_total(&total, n, 0), NQ_OK);
  nq__journal_header_t header;
  nq__journal_header_init(&header, n, 1, nq_units_depth(n), total);
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  nq__journal_t *journal = NULL;
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_open(&journal, &state, message, path, &header), NQ_OK);
  nq__totals_t sums;
  nq__totals_init(&sums);
  nq_search_t *search = NULL;
  nq_unit_gen_t *gen = NULL;
  nq_unit_t unit;
  ck_assert_int_eq(nq_kernel_create(&search, n, NQ_WALK_AUTO), NQ_OK);
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, 0), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0 && unit.id < end) {
    nq_unit_result_t result;
    ck_assert_int_eq(nq_kernel_solve(&result, search, &unit, 1), NQ_OK);
    if (unit.id >= first)
      nq__totals_add(&sums, &result);
  }
  ck_assert_int_eq(nq__journal_append(journal, first, &sums, 0, nq__journal_now_ms()), NQ_OK);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq_unit_gen_destroy(gen);
  nq_kernel_destroy(search);
  nq__totals_clear(&sums);
  nq__journal_state_clear(&state);
}

static void count_with_journal(nq_count_result_t *result, int n, const char *path) {
  nq_count_options_t options = {.n = n, .unique = 1, .checkpoint = path};
  nq_count_result_init(result);
  int rc = nq_count_run(result, &options, MPI_COMM_WORLD);
  ck_assert_msg(rc == NQ_OK, "n %d with %s: %s (%s)", n, path, nq_strerror(rc), result->message);
}

/* What a journal holds from byte `from` on. */
static void journal_tail(char *text, size_t size, const char *path, long from) {
  FILE *file = fopen(path, "r");
  ck_assert_ptr_nonnull(file);
  ck_assert_int_eq(fseek(file, from, SEEK_SET), 0);
  size_t got = fread(text, 1, size - 1, file);
  text[got] = '\0';
  fclose(file);
}

/* A run cut short, resumed: the totals, U(n) and the node count of an
 * uninterrupted run; a finished journal answers at once and adds nothing
 * to the journal, not even a run line. */
START_TEST(test_count_resumes_from_checkpoint) {
  const int n = 14;
  char path[256];
  journal_path(path, sizeof path, "resume");
  nq_count_options_t plain = {.n = n, .unique = 1};
  nq_count_result_t expected, resumed, finished;
  nq_count_result_init(&expected);
  ck_assert_int_eq(nq_count_run(&expected, &plain, MPI_COMM_WORLD), NQ_OK);
  if (support_rank() == 0)
    write_partial_journal(path, n, 100, 700); /* of 2,300 units */
  MPI_Barrier(MPI_COMM_WORLD);
  count_with_journal(&resumed, n, path);
  long size_after_resume = file_size(path);
  count_with_journal(&finished, n, path);
  if (support_rank() == 0) {
    assert_count(resumed.solutions, known_all[n], "Q", n);
    assert_count(resumed.unique, known_unique[n], "U", n);
    ck_assert_msg(mpz_cmp(resumed.nodes, expected.nodes) == 0, "resumed nodes differ");
    ck_assert_uint_eq(resumed.resumed_units, 600);
    ck_assert_uint_eq(resumed.units, 2300);
    assert_count(finished.solutions, known_all[n], "Q", n);
    ck_assert_msg(mpz_cmp(finished.nodes, expected.nodes) == 0, "finished nodes differ");
    ck_assert_uint_eq(finished.resumed_units, finished.units);
    char added[256];
    journal_tail(added, sizeof added, path, size_after_resume);
    ck_assert_msg(added[0] == '\0', "the finished journal's rerun added '%s'", added);
    ck_assert_uint_eq(resumed.restarts, 0); /* the partial journal was written by hand */
    ck_assert_uint_eq(finished.restarts, 0); /* it counted nothing: the count's */
    unlink(path);
  }
  nq_count_result_clear(&expected);
  nq_count_result_clear(&resumed);
  nq_count_result_clear(&finished);
}
END_TEST

/* --verify through the fault hooks: a rank that reports one solution too
 * many for every unit it solves is caught, by either method's units: by
 * the verification, or already by a backup copy of one of its batches
 * (from 3 ranks on).  The run fails (NQ_ECHECK), and the journal keeps a
 * mark, so that a rerun without --verify still refuses its total (a
 * copy's difference once left none, and the rerun gave the wrong total).
 * It takes 2 ranks (the wrong one a worker, another to solve its batches
 * again): on 1 the case has nothing to check. */
START_TEST(test_count_verify_catches_a_wrong_rank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2)
    return;
  static const nq_count_method_t methods[] = {NQ_COUNT_BACKTRACK, NQ_COUNT_JOIN};
  for (int m = 0; m < 2; m++) {
    char path[256];
    journal_path(path, sizeof path, m == 0 ? "wrong-backtrack" : "wrong-join");
    nq_count_options_t options = {.n = 13, .method = methods[m], .checkpoint = path,
                                  .verify = 1, .verify_seed = 1};
    nq__faults_t faults = NQ_NO_FAULTS;
    faults.wrong_count_rank = 1;
    nq_count_result_t result;
    nq_count_result_init(&result);
    int rc = nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD);
    if (support_rank() == 0) {
      ck_assert_msg(rc == NQ_ECHECK, "method %d: %s", m, nq_strerror(rc));
      /* Caught by --verify, or earlier by a backup copy (3 ranks or more). */
      ck_assert(result.verify_differing > 0 || result.copies_confirmed < result.copies_sent);
    }
    nq_count_result_clear(&result);
    nq_count_options_t again = {.n = 13, .method = methods[m], .checkpoint = path};
    nq_count_result_init(&result);
    rc = nq_count_run(&result, &again, MPI_COMM_WORLD);
    if (support_rank() == 0) {
      ck_assert_msg(rc == NQ_ECHECK, "method %d, rerun: %s", m, nq_strerror(rc));
      ck_assert_uint_gt(result.verify_differing, 0); /* the journal's mark */
      unlink(path);
    }
    nq_count_result_clear(&result);
  }
}
END_TEST

/* A journal of another board is refused on every rank, before any work,
 * and left as it was. */
START_TEST(test_count_refuses_journal_of_another_run) {
  char path[256];
  journal_path(path, sizeof path, "refuse");
  nq_count_result_t result;
  count_with_journal(&result, 12, path);
  nq_count_result_clear(&result);
  long size = file_size(path);
  nq_count_options_t other = {.n = 13, .unique = 1, .checkpoint = path};
  nq_count_result_init(&result);
  ck_assert_int_eq(nq_count_run(&result, &other, MPI_COMM_WORLD), NQ_EJOURNAL);
  if (support_rank() == 0) {
    ck_assert_msg(strstr(result.message, "n = 12") != NULL, "message: %s", result.message);
    ck_assert_int_eq(file_size(path), size);
    unlink(path);
  }
  nq_count_result_clear(&result);
}
END_TEST

START_TEST(test_count_counts_large_boards) {
  nq_count_options_t options = {.n = _i, .unique = 1};
  count_and_check(MPI_COMM_WORLD, &options);
}
END_TEST

/* Set by run_suite: --avx512 was asked for and some rank cannot run the
 * lanes, so nothing ran and main reports the run as skipped. */
static int lanes_skipped;

/* ---- search threads ---- */

/* Counts with `threads` threads per rank; on rank 0 checks Q(n), U(n) and
 * the threads reported, and leaves the node count in `nodes`. */
static void count_with_threads(mpz_t nodes, int n, int threads, int batch_units) {
  nq_count_options_t options = {.n = n, .unique = 1, .threads = threads,
                                .batch_units = batch_units};
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = nq_count_run(&result, &options, MPI_COMM_WORLD);
  ck_assert_msg(rc == NQ_OK, "n %d, %d threads: %s", n, threads, nq_strerror(rc));
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (support_rank() == 0) {
    assert_count(result.solutions, known_all[n], "Q", n);
    assert_count(result.unique, known_unique[n], "U", n);
    ck_assert_int_eq(result.threads, size * threads);
    mpz_set(nodes, result.nodes);
  }
  nq_count_result_clear(&result);
}

/* Every number of threads gives the same counts and visits the same nodes
 * as one thread, with the default batches and with one-unit batches (the
 * threads of a rank then share two units). */
START_TEST(test_count_threads_give_the_same_counts) {
  int n = _i;
  mpz_t one, many;
  mpz_inits(one, many, NULL);
  count_with_threads(one, n, 1, 0);
  for (int threads = 2; threads <= 3; threads++) {
    for (int batch = 0; batch <= 1; batch++) {
      count_with_threads(many, n, threads, batch);
      if (support_rank() == 0)
        ck_assert_msg(mpz_cmp(one, many) == 0, "n %d: nodes differ at %d threads", n, threads);
    }
  }
  mpz_clears(one, many, NULL);
}
END_TEST

/* Threads in a run that fails or stops: the same outcome as with one. */
START_TEST(test_count_threads_fail_and_stop_cleanly) {
  int rank = support_rank(), size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nq_count_options_t options = {.n = 12, .threads = 2};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.failing_unit = 97;
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD);
  ck_assert_msg(rc == NQ_OK || rc == NQ_EUNIT, "rank %d: %s", rank, nq_strerror(rc));
  if (rank == 0)
    ck_assert_int_eq(rc, NQ_EUNIT);
  nq_count_result_clear(&result);
  volatile sig_atomic_t stop = 0;
  nq_count_options_t stopping = {.n = 15, .threads = 2, .stop = &stop};
  faults = NQ_NO_FAULTS;
  faults.stop_rank = size - 1;
  faults.stop_after_units = 5;
  assert_stops_everywhere(&stopping, faults);
  assert_counts_after_stop();
}
END_TEST

START_TEST(test_count_rejects_bad_thread_counts) {
  static const int bad[] = {-1, NQ_COUNT_MAX_THREADS + 1};
  for (int i = 0; i < 2; i++) {
    nq_count_options_t options = {.n = 8, .threads = bad[i]};
    nq_count_result_t result;
    nq_count_result_init(&result);
    ck_assert_int_eq(nq_count_run(&result, &options, MPI_COMM_WORLD), NQ_EINVAL);
    nq_count_result_clear(&result);
  }
}
END_TEST

/* A slow rank (simulated units of a tenth of a second there, of nothing
 * elsewhere) at the end of a run: the others, left idle, get copies of
 * its batches, the first answers count, and the accounting is exact: each
 * unit once in Q and U and its id + 1 in the nodes.  From 2 ranks: the
 * master's own threads take copies too, so with one worker, a slow one's
 * batches are copied to the master. */
START_TEST(test_count_copies_a_slow_ranks_batches) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 12;
  uint64_t units = 0;
  ck_assert_int_eq(nq_units_total(&units, n, 0), NQ_OK);
  simulated_cost_t cost = {.seconds = size >= 2 && support_rank() == size - 1 ? 0.1 : 0.0};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.simulated_seconds = simulated_seconds;
  faults.simulated_context = &cost;
  nq_count_options_t options = {.n = n, .unique = 1};
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = nq__count_run_with_faults(&result, &options, faults, MPI_COMM_WORLD);
  ck_assert_msg(rc == NQ_OK, "rank %d: %s", support_rank(), nq_strerror(rc));
  if (support_rank() == 0) {
    assert_simulated_totals(&result, units);
    if (size >= 2)
      ck_assert_uint_gt(result.copies_sent, 0);
    ck_assert_uint_le(result.copies_confirmed, result.copies_sent);
  }
  nq_count_result_clear(&result);
}
END_TEST

static TCase *threads_case(void) {
  TCase *threads = support_tcase("threads");
  tcase_add_loop_test(threads, test_count_threads_give_the_same_counts, 12, 16);
  tcase_add_test(threads, test_count_threads_fail_and_stop_cleanly);
  tcase_add_test(threads, test_count_rejects_bad_thread_counts);
  tcase_add_test(threads, test_count_copies_a_slow_ranks_batches);
  return threads;
}

static Suite *run_suite(int argc, char **argv) {
  int long_only = 0, lanes_only = 0, threads_only = 0;
  for (int i = 1; i < argc; i++) {
    long_only |= strcmp(argv[i], "--long") == 0;
    lanes_only |= strcmp(argv[i], "--avx512") == 0;
    threads_only |= strcmp(argv[i], "--threads") == 0;
  }
  Suite *suite = suite_create("run");
  if (threads_only) {
    suite_add_tcase(suite, threads_case());
    return suite;
  }
  if (lanes_only) {
    /* Every rank must run the lanes; ranks on different CPUs agree here. */
    int here = nq_walk_supported(NQ_WALK_AVX512, 14), everywhere = 0;
    MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!everywhere) {
      lanes_skipped = 1;
      if (support_rank() == 0)
        fprintf(stderr, "check_count --avx512: skipped: the lane walk is not built "
                        "(NQ_LANES=OFF) or a rank's CPU lacks AVX-512 F/CD/VPOPCNTDQ\n");
      return suite;
    }
    TCase *lanes = support_tcase("avx512");
    if (long_only)
      tcase_add_loop_test(lanes, test_count_avx512_walk_matches_scalar, 17, 18);
    else
      tcase_add_loop_test(lanes, test_count_avx512_walk_matches_scalar, 14, 17);
    suite_add_tcase(suite, lanes);
    return suite;
  }
  if (long_only) {
    TCase *large = support_tcase("long");
    tcase_add_loop_test(large, test_count_counts_large_boards, 17, KNOWN_MAX_N + 1);
    suite_add_tcase(suite, large);
    return suite;
  }
  TCase *counts = support_tcase("counts");
  tcase_add_loop_test(counts, test_count_counts_all_solutions, 0, 17);
  tcase_add_loop_test(counts, test_count_counts_unique_solutions, 1, 17);
  tcase_add_loop_test(counts, test_count_with_a_gpu_rank, 4, 16);
  tcase_add_loop_test(counts, test_count_scalar_walk_counts, 14, 17);
  suite_add_tcase(suite, counts);
  TCase *cutting = support_tcase("cutting");
  tcase_add_loop_test(cutting, test_count_one_unit_batches_at_other_depths, 0, 4);
  tcase_add_test(cutting, test_count_oversized_batches);
  suite_add_tcase(suite, cutting);
  TCase *communicators = support_tcase("communicators");
  tcase_add_test(communicators, test_count_on_self_communicator);
  tcase_add_test(communicators, test_count_on_split_communicator);
  suite_add_tcase(suite, communicators);
  TCase *invalid = support_tcase("invalid");
  tcase_add_test(invalid, test_count_rejects_invalid_size);
  tcase_add_test(invalid, test_count_rejects_invalid_depth);
  tcase_add_test(invalid, test_count_rejects_walk_it_cannot_run);
  tcase_add_test(invalid, test_count_refuses_walk_one_rank_lacks);
  tcase_add_test(invalid, test_count_refuses_gpu_where_there_is_none);
  tcase_add_test(invalid, test_count_refuses_journal_of_another_run);
  tcase_add_test(invalid, test_count_resumes_from_checkpoint);
  tcase_add_test(invalid, test_count_verify_catches_a_wrong_rank);
  tcase_add_test(invalid, test_count_reports_failed_unit_on_gpu_rank);
  tcase_add_loop_test(invalid, test_count_reports_failed_unit_without_hanging, 0, 3);
  suite_add_tcase(suite, invalid);
  suite_add_tcase(suite, threads_case());
  TCase *stops = support_tcase("stops");
  tcase_add_loop_test(stops, test_count_stops_when_flag_is_up_before_the_run, 0, 3);
  tcase_add_loop_test(stops, test_count_stops_when_a_rank_raises_its_flag_midway, 0, 4);
  tcase_add_test(stops, test_count_ignores_a_stop_after_the_last_batch);
  suite_add_tcase(suite, stops);
  TCase *simulated = support_tcase("simulated");
  tcase_add_loop_test(simulated, test_count_simulated_units_account_exactly, 0, 3);
  tcase_add_loop_test(simulated, test_count_simulated_units_stop_inside_a_unit, 0, 2);
  suite_add_tcase(suite, simulated);
  return suite;
}

/* 77 is ctest's skip (SKIP_RETURN_CODE): decided by all ranks together, so
 * mpirun, which passes on the first non-zero status, reports it whole. */
int main(int argc, char **argv) {
  int status = support_main(argc, argv, run_suite);
  return status == 0 && lanes_skipped ? 77 : status;
}
