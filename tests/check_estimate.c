/* The estimate module, under MPI: Knuth's probes stratified by frame must
 * bracket the known counts with their intervals, average to the truth,
 * and give the same sample however many ranks and threads share it.
 *
 *   check_estimate          every case on the ranks it was started with
 *   check_estimate --ranks  only the comparison of the whole communicator
 *                           with rank 0 alone (for runs at several ranks)
 *
 * The seeds and probe budgets are fixed, so every result is the same on
 * every run: these are not flaky, but each interval case is a draw, and
 * the thresholds say how often a calibrated 95% interval may miss. */

#include <check.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/estimate.h"
#include "nqueens/join.h"
#include "estimate_strata.h"
#include "random.h"
#include "support.h"

/* The nodes a full count places (its "nodes"), printed by
 * `nqueens-mpi -n N --format json` with the units of nq_units_depth(n):
 * the kernel's fingerprint, which the node estimate must reproduce. */
#define NODES_MIN_N 5
#define NODES_MAX_N 18
static const uint64_t known_nodes[NODES_MAX_N + 1] = {
    0,      0,       0,        3,          10,         0,        10,
    58,     280,     1201,     5669,       25627,      133742,   709215,
    4138846, 25101694, 166571658, 1148428709, 8485814140};

/* How far an estimate is from the truth, in its standard errors. */
static double z_score(nq_estimate_value_t estimate, double truth) {
  return estimate.error > 0 ? (estimate.value - truth) / estimate.error
                            : (estimate.value == truth ? 0.0 : INFINITY);
}

static nq_estimate_result_t estimate(int n, uint64_t probes, uint64_t seed, int exact_rows,
                                     int threads) {
  nq_estimate_options_t options = {
      .n = n, .probes = probes, .seed = seed, .exact_rows = exact_rows, .threads = threads};
  nq_estimate_result_t result;
  int rc = nq_estimate_run(&result, &options, MPI_COMM_WORLD);
  ck_assert_msg(rc == NQ_OK, "n %d seed %llu: %s", n, (unsigned long long)seed, nq_strerror(rc));
  return result;
}

/* Interval cases: each within Student's t's 99.9% point at the error's
 * degrees of freedom (3.29 errors where they are unbounded), and at least
 * 80% of them within its 95% point (the program's own interval), so that
 * a few misses that any honest 95% interval has do not fail the test, but
 * errors that are too small do. */
typedef struct calibration {
  int cases, inside95;
} calibration_t;

/* Errors on each side holding the share `level` of Student's t at these
 * degrees, the normal's where they are unbounded. */
static double t_point(double level, double degrees) {
  return isfinite(degrees) && degrees > 0 ? gsl_cdf_tdist_Pinv(level, degrees)
                                          : gsl_cdf_ugaussian_Pinv(level);
}

static void check_case(calibration_t *calibration, nq_estimate_value_t estimate, double truth,
                       const char *what, int n, uint64_t seed) {
  const double z = z_score(estimate, truth);
  ck_assert_msg(fabs(z) < t_point(0.9995, estimate.degrees),
                "%s(%d) seed %llu: %.2f standard errors off (%.3g degrees)", what, n,
                (unsigned long long)seed, z, estimate.degrees);
  calibration->cases++;
  calibration->inside95 += fabs(z) < t_point(0.975, estimate.degrees);
}

static void check_calibration(const calibration_t *calibration, const char *what) {
  ck_assert_msg(calibration->inside95 * 5 >= calibration->cases * 4,
                "%s: only %d of %d 95%% intervals hold the truth", what, calibration->inside95,
                calibration->cases);
}

/* Q(18)..Q(27) with 4 probes a frame and 12 exact rows (about 0.1 s of
 * probes at n = 27): standard errors of 1 to 1.5%. */
START_TEST(test_estimate_interval_holds_known_counts) {
  calibration_t calibration = {0, 0};
  for (int n = 18; n <= KNOWN_LARGE_MAX_N; n++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      nq_estimate_result_t result = estimate(n, 4, seed, 12, 2);
      if (support_rank() == 0)
        check_case(&calibration, result.solutions, (double)known_all_large[n], "Q", n, seed);
    }
  if (support_rank() == 0)
    check_calibration(&calibration, "Q(18..27)");
}
END_TEST

/* The default exact rows, n = 14..18: the node estimate against the
 * count's own node count. */
START_TEST(test_estimate_interval_holds_node_counts) {
  calibration_t calibration = {0, 0};
  for (int n = 14; n <= NODES_MAX_N; n++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      nq_estimate_result_t result = estimate(n, 4, seed, 0, 2);
      if (support_rank() == 0) {
        check_case(&calibration, result.nodes, (double)known_nodes[n], "nodes", n, seed);
        /* The time is the nodes at a measured rate: the same degrees. */
        ck_assert_double_eq(result.core_seconds.degrees, result.nodes.degrees);
        ck_assert_int_eq(result.depth, 2);
      }
    }
  if (support_rank() == 0)
    check_calibration(&calibration, "nodes(14..18)");
}
END_TEST

/* With 3 exact rows nearly the whole tree is probed at random.  Over 200
 * seeds the mean must come within 3.29 standard errors of the truth, for
 * Q(n) and for the nodes, the standard error of the mean taken from the
 * spread of the 200 estimates (not from their own error estimates, which
 * a skewed estimator makes too small when it is low). */
static double spread_of_mean(double sum, double squares, int count) {
  double mean = sum / count;
  return sqrt((squares - count * mean * mean) / (count - 1) / count);
}

START_TEST(test_estimate_mean_over_seeds_is_unbiased) {
  const int n = _i, seeds = 200;
  double solutions = 0, nodes = 0, solutions_squared = 0, nodes_squared = 0;
  for (int seed = 1; seed <= seeds; seed++) {
    nq_estimate_result_t result = estimate(n, 4, (uint64_t)seed, 3, 1);
    solutions += result.solutions.value;
    solutions_squared += result.solutions.value * result.solutions.value;
    nodes += result.nodes.value;
    nodes_squared += result.nodes.value * result.nodes.value;
  }
  if (support_rank() != 0)
    return;
  nq_estimate_value_t mean_solutions = {
      solutions / seeds, spread_of_mean(solutions, solutions_squared, seeds), seeds - 1};
  nq_estimate_value_t mean_nodes = {nodes / seeds, spread_of_mean(nodes, nodes_squared, seeds),
                                    seeds - 1};
  double z_solutions = z_score(mean_solutions, (double)known_all[n]);
  double z_nodes = z_score(mean_nodes, (double)known_nodes[n]);
  ck_assert_msg(fabs(z_solutions) < 3.29, "Q(%d): mean %.1f, %.2f standard errors off", n,
                mean_solutions.value, z_solutions);
  ck_assert_msg(fabs(z_nodes) < 3.29, "nodes(%d): mean %.1f, %.2f standard errors off", n,
                mean_nodes.value, z_nodes);
}
END_TEST

/* Below n = 14 a unit is a frame and its search starts at row 1; with
 * exact rows covering the whole board the probes are the real kernel's
 * counts: exact solutions and node counts, with no error. */
START_TEST(test_estimate_exact_rows_covering_the_board_are_exact) {
  const int n = _i;
  nq_estimate_result_t result = estimate(n, 2, 1, n > 2 ? n : 2, 1);
  if (support_rank() != 0)
    return;
  ck_assert_msg(result.solutions.value == (double)known_all[n], "Q(%d) = %.1f", n,
                result.solutions.value);
  ck_assert_msg(result.nodes.value == (double)known_nodes[n], "nodes(%d) = %.1f", n,
                result.nodes.value);
  ck_assert(result.solutions.error == 0 && result.nodes.error == 0);
  ck_assert_int_eq(result.exact_rows, n);
}
END_TEST

/* The smallest boards by the default rows: counted, and no more exact
 * rows said than the board has (n = 0 and 1 once said 2). */
START_TEST(test_estimate_smallest_boards_are_counted_on_their_rows) {
  const int n = _i;
  nq_estimate_result_t result = estimate(n, 2, 1, 0, 1);
  if (support_rank() != 0)
    return;
  ck_assert(result.counted);
  ck_assert_msg(result.solutions.value == (double)known_all[n], "Q(%d) = %.1f", n,
                result.solutions.value);
  ck_assert_int_eq(result.exact_rows, n);
}
END_TEST

/* The same seed and budget give the same numbers, on any threads. */
START_TEST(test_estimate_seed_fixes_the_result) {
  nq_estimate_result_t first = estimate(20, 2, 5, 10, 1);
  nq_estimate_result_t again = estimate(20, 2, 5, 10, 1);
  nq_estimate_result_t threaded = estimate(20, 2, 5, 10, 3);
  nq_estimate_result_t other_seed = estimate(20, 2, 6, 10, 1);
  if (support_rank() != 0)
    return;
  ck_assert(first.solutions.value == again.solutions.value);
  ck_assert(first.nodes.value == again.nodes.value);
  ck_assert(first.solutions.error == again.solutions.error);
  ck_assert_double_eq_tol(threaded.solutions.value, first.solutions.value,
                          1e-12 * first.solutions.value);
  ck_assert_double_eq_tol(threaded.nodes.value, first.nodes.value, 1e-12 * first.nodes.value);
  ck_assert(other_seed.solutions.value != first.solutions.value);
  ck_assert_uint_eq(first.probes, 2 * first.frames);
  ck_assert_uint_eq(first.min_probes, 2);
  ck_assert_int_eq(first.exact_rows, 10);
  ck_assert(!first.counted);
}
END_TEST

/* By time: whatever the time allows, but two probes a frame at least. */
START_TEST(test_estimate_by_time_probes_every_frame_twice) {
  nq_estimate_options_t options = {.n = 16, .seconds = 0.05, .seed = 1};
  nq_estimate_result_t result;
  ck_assert_int_eq(nq_estimate_run(&result, &options, MPI_COMM_WORLD), NQ_OK);
  if (support_rank() != 0)
    return;
  ck_assert_uint_ge(result.min_probes, NQ_ESTIMATE_MIN_PROBES);
  ck_assert_uint_ge(result.probes, NQ_ESTIMATE_MIN_PROBES * result.frames);
  ck_assert_int_eq(result.exact_rows, nq_estimate_exact_rows(16));
  ck_assert_double_gt(result.nodes_per_second, 0);
  ck_assert_double_gt(result.core_seconds.value, 0);
}
END_TEST

/* The join's estimate: sets drawn per stratum and solved exactly, n =
 * 10..17 with 4 a stratum, seeds 1..3: Q(n) and the work counter inside
 * their intervals, the time positive and summed from the sets' own; where
 * the 4 draws of the 64 strata could take every set, every set taken
 * once and Q(n) exactly. */
static nq_estimate_result_t estimate_join_rows(int n, uint64_t strata, uint64_t probes,
                                               int exact_rows, uint64_t seed, int threads,
                                               MPI_Comm comm) {
  nq_estimate_options_t options = {.n = n, .method = NQ_COUNT_JOIN, .strata = strata,
                                   .probes = probes, .exact_rows = exact_rows, .seed = seed,
                                   .threads = threads};
  nq_estimate_result_t result;
  int rc = nq_estimate_run(&result, &options, comm);
  ck_assert_msg(rc == NQ_OK, "join n %d seed %llu: %s", n, (unsigned long long)seed,
                nq_strerror(rc));
  return result;
}

static nq_estimate_result_t estimate_join_in(int n, uint64_t strata, uint64_t probes,
                                             uint64_t seed, int threads, MPI_Comm comm) {
  return estimate_join_rows(n, strata, probes, 0, seed, threads, comm);
}

static nq_estimate_result_t estimate_join(int n, uint64_t probes, uint64_t seed, int threads,
                                          MPI_Comm comm) {
  return estimate_join_in(n, 0, probes, seed, threads, comm);
}

START_TEST(test_estimate_join_interval_holds_known_counts) {
  calibration_t calibration = {0, 0};
  for (int n = 10; n <= 17; n++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      nq_estimate_result_t result = estimate_join(n, 4, seed, 2, MPI_COMM_WORLD);
      if (support_rank() != 0)
        continue;
      ck_assert_int_eq(result.method, NQ_COUNT_JOIN);
      ck_assert_uint_gt(result.units, 0);
      ck_assert_int_eq(result.counted, result.units <= 4 * NQ_ESTIMATE_JOIN_STRATA);
      if (result.counted) {
        ck_assert_uint_eq(result.probes, result.units);
        ck_assert_double_eq(result.solutions.value, (double)known_all_large[n]);
        ck_assert_double_eq(result.solutions.error, 0);
      } else {
        ck_assert_uint_eq(result.probes, 4 * result.frames);
      }
      ck_assert_double_gt(result.core_seconds.value, 0);
      check_case(&calibration, result.solutions, (double)known_all_large[n], "join Q", n,
                 seed);
    }
  if (support_rank() == 0)
    check_calibration(&calibration, "join Q(10..17)");
}
END_TEST

/* The join's sets sampled rather than solved (what the default does from
 * n = 25 on, where a set costs a core-minute to a core-hour): 3 rows
 * exact under random paths through the rest of each set's bottom walk,
 * n = 12..17, seeds 1..3: Q(n) inside its intervals as often as whole
 * sets put it there, and the default rows whole sets to n = 24 and a
 * fixed depth above. */
START_TEST(test_estimate_join_sampled_sets_hold_known_counts) {
  calibration_t calibration = {0, 0};
  for (int n = 12; n <= 17; n++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      nq_estimate_result_t result = estimate_join_rows(n, 0, 4, 3, seed, 2, MPI_COMM_WORLD);
      if (support_rank() != 0)
        continue;
      ck_assert_int_eq(result.exact_rows, 3);
      ck_assert_double_gt(result.core_seconds.value, 0);
      check_case(&calibration, result.solutions, (double)known_all_large[n],
                 "join Q (sampled sets)", n, seed);
    }
  if (support_rank() == 0)
    check_calibration(&calibration, "join Q(12..17), sampled sets");
  ck_assert_int_ge(nq_estimate_join_exact_rows(24), 24 - nq_join_default_top_rows(24));
  ck_assert_int_lt(nq_estimate_join_exact_rows(25), 25 - nq_join_default_top_rows(25));
  ck_assert_int_lt(nq_estimate_join_exact_rows(28), 28 - nq_join_default_top_rows(28));
  ck_assert_int_ge(nq_estimate_join_exact_rows(28), 2);
}
END_TEST

/* Q(21) by the join's estimate, 6 sets a stratum (384 of the 98,920,
 * about 20 s on one core), seed 1: within 5% of OEIS's, and inside its
 * interval. */
START_TEST(test_estimate_join_q21_within_five_percent) {
  nq_estimate_result_t result = estimate_join(21, 6, 1, 2, MPI_COMM_WORLD);
  if (support_rank() != 0)
    return;
  const double truth = (double)known_all_large[21];
  ck_assert_msg(fabs(result.solutions.value - truth) < 0.05 * truth,
                "join Q(21) ~ %.4g, OEIS %.4g", result.solutions.value, truth);
  ck_assert_msg(fabs(z_score(result.solutions, truth)) < 3.29, "join Q(21): %.2f SE off",
                z_score(result.solutions, truth));
}
END_TEST

/* Fewer strata (a quick look at a large n): as many as asked, never more
 * than half the sets, and the intervals still hold, n = 14..16.  More
 * strata than a census needs: as many as take every set in the draws
 * asked (n = 8's 23 sets, 2 draws: 12), and the count exact. */
START_TEST(test_estimate_join_strata_as_asked) {
  calibration_t calibration = {0, 0};
  for (int n = 14; n <= 16; n++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      nq_estimate_result_t result = estimate_join_in(n, 4, 6, seed, 2, MPI_COMM_WORLD);
      if (support_rank() != 0)
        continue;
      ck_assert_uint_eq(result.frames, 4);
      ck_assert_uint_eq(result.probes, 24);
      check_case(&calibration, result.solutions, (double)known_all_large[n],
                 "join Q (4 strata)", n, seed);
    }
  nq_estimate_result_t small = estimate_join_in(8, 1000, 2, 1, 1, MPI_COMM_WORLD);
  if (support_rank() == 0) {
    check_calibration(&calibration, "join Q(14..16), 4 strata");
    ck_assert_uint_eq(small.units, 23);
    ck_assert_uint_eq(small.frames, 12);
    ck_assert_uint_eq(small.probes, 23);
    ck_assert_uint_eq(small.min_probes, 1);
    ck_assert_double_eq(small.solutions.value, 92);
  }
}
END_TEST

/* Sums worked out by hand: strata of 2 probes (10, 14), 4 probes (1, 3, 5,
 * 7), 1 probe (100) and 3 alike (5, 5, 5).  Means 12 + 4 + 100 + 5; the
 * shares of the variance 8 / 2 and (20 / 3) / 4, none from the last two;
 * degrees (17/3)^2 / (4^2 / 1 + (5/3)^2 / 3) = 867 / 457. */
START_TEST(test_stratified_by_hand) {
  nq__stratum_sums_t sums[4] = {{.probes = 2}, {.probes = 4}, {.probes = 1}, {.probes = 3}};
  sums[0].sum[NQ__OF_NODES] = 24, sums[0].squares[NQ__OF_NODES] = 296;
  sums[1].sum[NQ__OF_NODES] = 16, sums[1].squares[NQ__OF_NODES] = 84;
  sums[2].sum[NQ__OF_NODES] = 100, sums[2].squares[NQ__OF_NODES] = 10000;
  sums[3].sum[NQ__OF_NODES] = 15, sums[3].squares[NQ__OF_NODES] = 75;
  nq_estimate_value_t nodes = nq__estimate_stratified(sums, 4, NQ__OF_NODES, 0);
  ck_assert_double_eq_tol(nodes.value, 121, 1e-9);
  ck_assert_double_eq_tol(nodes.error, sqrt(17.0 / 3), 1e-9);
  ck_assert_double_eq_tol(nodes.degrees, 867.0 / 457, 1e-9);
  /* No spread: no bound on the degrees. */
  nq_estimate_value_t alike = nq__estimate_stratified(sums + 2, 2, NQ__OF_NODES, 0);
  ck_assert_double_eq_tol(alike.value, 105, 1e-9);
  ck_assert_double_eq(alike.error, 0);
  ck_assert(isinf(alike.degrees));
}
END_TEST

/* Drawn without replacement, the first two strata above as blocks of 5
 * sets (a population of 10): shares 8 / 2 x (1 - 2/5) = 12/5 and (20 / 3)
 * / 4 x (1 - 4/5) = 1/3; degrees (41/15)^2 / ((12/5)^2 + (1/3)^2 / 3) =
 * 5043 / 3913.  A stratum drawn whole adds its mean and no variance. */
START_TEST(test_stratified_without_replacement_by_hand) {
  nq__stratum_sums_t sums[2] = {{.probes = 2}, {.probes = 4}};
  sums[0].sum[NQ__OF_NODES] = 24, sums[0].squares[NQ__OF_NODES] = 296;
  sums[1].sum[NQ__OF_NODES] = 16, sums[1].squares[NQ__OF_NODES] = 84;
  ck_assert_uint_eq(nq__stratum_first(10, 2, 1), 5);
  nq_estimate_value_t nodes = nq__estimate_stratified(sums, 2, NQ__OF_NODES, 10);
  ck_assert_double_eq_tol(nodes.value, 16, 1e-9);
  ck_assert_double_eq_tol(nodes.error, sqrt(41.0 / 15), 1e-9);
  ck_assert_double_eq_tol(nodes.degrees, 5043.0 / 3913, 1e-9);
  /* Blocks of 2 and 4 sets (a population of 6): both drawn whole. */
  ck_assert_uint_eq(nq__stratum_first(6, 2, 1), 3);
  sums[0].probes = 3, sums[0].sum[NQ__OF_NODES] = 30, sums[0].squares[NQ__OF_NODES] = 500;
  sums[1].probes = 3;
  nq_estimate_value_t whole = nq__estimate_stratified(sums, 2, NQ__OF_NODES, 6);
  ck_assert_double_eq_tol(whole.value, 10 + 16.0 / 3, 1e-9);
  ck_assert_double_eq(whole.error, 0);
  ck_assert(isinf(whole.degrees));
}
END_TEST

/* The draws without replacement: each order a permutation of its range,
 * sizes 1 to 300 (and one past 2^32, where the network's halves are
 * widest, on a sample); and every draw uniform over the keys, which the
 * Feistel order alone is not (docs/algorithm.md): draws 0 and 1 of ranges
 * of 3, 6, 8 and 17 over 20,000 keys, each chi-square under its 0.1%
 * point. */
static void check_draw_uniform(uint64_t size, uint64_t draw, double limit) {
  int counts[17] = {0};
  const int keys = 20000;
  for (uint64_t key = 0; key < (uint64_t)keys; key++)
    counts[nq__random_permuted(draw, size, nq__random_scramble(key))]++;
  double expected = (double)keys / (double)size, chi = 0;
  for (uint64_t i = 0; i < size; i++)
    chi += (counts[i] - expected) * (counts[i] - expected) / expected;
  ck_assert_msg(chi < limit, "draw %llu of %llu items: chi-square %.1f", (unsigned long long)draw,
                (unsigned long long)size, chi);
}

START_TEST(test_draws_without_replacement_permute) {
  static unsigned char seen[300];
  for (uint64_t size = 1; size <= 300; size++)
    for (uint64_t key = 0; key < 3; key++) {
      memset(seen, 0, sizeof seen);
      for (uint64_t j = 0; j < size; j++) {
        uint64_t x = nq__random_permuted(j, size, key * 0x9e3779b97f4a7c15u);
        ck_assert_msg(x < size && !seen[x], "size %llu key %llu: %llu twice or out",
                      (unsigned long long)size, (unsigned long long)key, (unsigned long long)x);
        seen[x] = 1;
      }
    }
  const uint64_t wide = (UINT64_C(1) << 32) + 7;
  uint64_t previous = UINT64_MAX;
  for (uint64_t j = 0; j < 1000; j++) {
    uint64_t x = nq__random_permuted(j, wide, 42);
    ck_assert(x < wide && x != previous);
    previous = x;
  }
  static const struct {
    uint64_t size;
    double limit; /* chi-square's 0.1% point at size - 1 degrees */
  } ranges[] = {{3, 13.8}, {6, 20.5}, {8, 24.3}, {17, 39.3}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
    for (uint64_t draw = 0; draw < 2; draw++)
      check_draw_uniform(ranges[r].size, draw, ranges[r].limit);
}
END_TEST

/* The join's estimate by time where the sets are few (n = 12's 252): the
 * draws end when every stratum has solved each of its sets, long before
 * the minute asked, with Q(12) exactly; and with 2 draws sure a stratum,
 * n = 0..9 cut into blocks of at most 2 sets, exact too.  The
 * backtracker's by time up to n = 12: every probe counts its frame whole,
 * and the run ends after the 2 rounds, with Q(n) and its nodes exactly. */
START_TEST(test_estimate_small_boards_are_their_counts) {
  for (int n = 0; n <= 12; n++) {
    nq_estimate_options_t whole = {.n = n, .seconds = 60, .seed = 1};
    nq_estimate_result_t counted;
    ck_assert_int_eq(nq_estimate_run(&counted, &whole, MPI_COMM_WORLD), NQ_OK);
    if (support_rank() != 0)
      continue;
    ck_assert_msg(counted.solutions.value == (double)known_all[n] && counted.solutions.error == 0,
                  "Q(%d) ~ %g +- %g", n, counted.solutions.value, counted.solutions.error);
    ck_assert(n < NODES_MIN_N || counted.nodes.value == (double)known_nodes[n]);
    ck_assert(counted.counted);
    ck_assert_uint_eq(counted.probes, NQ_ESTIMATE_MIN_PROBES * counted.frames);
  }
  nq_estimate_options_t options = {.n = 12, .method = NQ_COUNT_JOIN, .seconds = 60, .seed = 1};
  nq_estimate_result_t result;
  ck_assert_int_eq(nq_estimate_run(&result, &options, MPI_COMM_WORLD), NQ_OK);
  if (support_rank() == 0) {
    ck_assert_uint_eq(result.probes, result.units);
    ck_assert_uint_eq(result.frames, NQ_ESTIMATE_JOIN_STRATA);
    ck_assert_double_eq(result.solutions.value, (double)known_all[12]);
    ck_assert_double_eq(result.solutions.error, 0);
  }
  for (int n = 0; n <= 9; n++) {
    result = estimate_join_in(n, 0, 2, 3, 1, MPI_COMM_WORLD);
    if (support_rank() != 0)
      continue;
    ck_assert_msg(result.solutions.value == (double)known_all[n] && result.solutions.error == 0,
                  "join Q(%d) ~ %g +- %g", n, result.solutions.value, result.solutions.error);
    ck_assert_uint_eq(result.probes, result.units);
    ck_assert(result.counted);
  }
}
END_TEST

/* Few degrees of freedom: 4 strata of 2 sets at n = 13, seeds 1..200.  The
 * degrees lie between the fewest sets a stratum less one and all of them
 * less one a stratum, and Student's t at those degrees holds Q(13) in at
 * least 90% of the intervals, where the normal's 1.96, too narrow, falls
 * short (docs/performance.md has how often each held it). */
START_TEST(test_estimate_join_few_degrees_widen_the_interval) {
  const int seeds = 200;
  int inside_t = 0;
  for (int seed = 1; seed <= seeds; seed++) {
    nq_estimate_result_t result = estimate_join_in(13, 4, 2, (uint64_t)seed, 1, MPI_COMM_WORLD);
    if (support_rank() != 0)
      continue;
    double degrees = result.solutions.degrees;
    ck_assert_msg(degrees >= 1 - 1e-9 && degrees <= 4 + 1e-9, "seed %d: %g degrees", seed,
                  degrees);
    inside_t += fabs(z_score(result.solutions, (double)known_all[13])) <
                gsl_cdf_tdist_Pinv(0.975, degrees);
  }
  if (support_rank() == 0)
    ck_assert_msg(inside_t * 10 >= seeds * 9, "t intervals held Q(13) %d times of %d", inside_t,
                  seeds);
}
END_TEST

/* The quick look of a large board (8 strata, 2 sets each), n = 22 and
 * 23 (about 5 and 20 s on a core): Q(n) inside its interval.  Larger n
 * cost minutes a set: docs/record-attempt.md has Q(24) and Q(27) by hand. */
START_TEST(test_estimate_join_quick_look_holds_q22_q23) {
  for (int n = 22; n <= 23; n++) {
    nq_estimate_result_t result = estimate_join_in(n, 8, 2, 1, 2, MPI_COMM_WORLD);
    if (support_rank() != 0)
      continue;
    ck_assert_uint_eq(result.probes, 16);
    ck_assert_msg(fabs(z_score(result.solutions, (double)known_all_large[n])) < 3.29,
                  "join Q(%d) ~ %.4g (8 strata): %.2f SE off", n, result.solutions.value,
                  z_score(result.solutions, (double)known_all_large[n]));
  }
}
END_TEST

START_TEST(test_estimate_refuses_bad_options) {
  static const nq_estimate_options_t bad[] = {
      {.n = 33, .probes = 2, .method = NQ_COUNT_JOIN},
      {.n = 12, .probes = 2, .method = NQ_COUNT_JOIN, .walk = NQ_WALK_SCALAR},
      {.n = 12, .probes = 2, .method = (nq_count_method_t)7},
      {.n = 12, .probes = 2, .strata = 4}, /* the backtracker's strata are its frames */
      {.n = 65, .probes = 2},
      {.n = -1, .probes = 2},
      {.n = 12, .probes = 1},
      {.n = 12, .seconds = 0},
      {.n = 12, .seconds = -1},
      {.n = 12, .probes = 2, .exact_rows = 1},
      {.n = 12, .probes = 2, .exact_rows = -3},
      {.n = 12, .probes = 2, .walk = (nq_walk_t)7},
      /* probes times frames past 64 bits: wrapped, it left frames unprobed */
      {.n = 12, .probes = UINT64_MAX / 2},
      {.n = 12, .probes = UINT64_MAX / 2, .method = NQ_COUNT_JOIN, .strata = 4, .exact_rows = 3},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    nq_estimate_result_t result;
    ck_assert_msg(nq_estimate_run(&result, &bad[i], MPI_COMM_WORLD) == NQ_EINVAL, "case %zu", i);
  }
}
END_TEST

/* The sample does not depend on the ranks: the whole communicator and
 * rank 0 alone (MPI_COMM_SELF) find the same numbers. */
START_TEST(test_estimate_ranks_share_one_sample) {
  nq_estimate_options_t options = {.n = 19, .probes = 3, .seed = 11, .exact_rows = 11};
  nq_estimate_result_t everyone, alone;
  ck_assert_int_eq(nq_estimate_run(&everyone, &options, MPI_COMM_WORLD), NQ_OK);
  if (support_rank() != 0)
    return;
  ck_assert_int_eq(nq_estimate_run(&alone, &options, MPI_COMM_SELF), NQ_OK);
  ck_assert_double_eq_tol(everyone.solutions.value, alone.solutions.value,
                          1e-12 * alone.solutions.value);
  ck_assert_double_eq_tol(everyone.nodes.value, alone.nodes.value, 1e-12 * alone.nodes.value);
  ck_assert_double_eq_tol(everyone.solutions.error, alone.solutions.error,
                          1e-9 * alone.solutions.error);
  ck_assert_uint_eq(everyone.probes, alone.probes);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_assert_int_eq(everyone.ranks, size);
  ck_assert_int_eq(alone.ranks, 1);
}
END_TEST

/* The same for the join's sets, sampled by paths (each drawn from its
 * probe's own stream, whichever thread runs it). */
START_TEST(test_estimate_join_ranks_share_one_sample) {
  nq_estimate_result_t everyone = estimate_join_rows(14, 0, 3, 3, 7, 1, MPI_COMM_WORLD);
  if (support_rank() != 0)
    return;
  nq_estimate_result_t alone = estimate_join_rows(14, 0, 3, 3, 7, 2, MPI_COMM_SELF);
  ck_assert_double_eq_tol(everyone.solutions.value, alone.solutions.value,
                          1e-12 * alone.solutions.value);
  ck_assert_double_eq_tol(everyone.nodes.value, alone.nodes.value, 1e-12 * alone.nodes.value);
  ck_assert_uint_eq(everyone.probes, alone.probes);
}
END_TEST

static Suite *make_suite(int argc, char **argv) {
  Suite *suite = suite_create("estimate");
  TCase *ranks = support_tcase("ranks");
  tcase_set_timeout(ranks, 120);
  tcase_add_test(ranks, test_estimate_ranks_share_one_sample);
  tcase_add_test(ranks, test_estimate_join_ranks_share_one_sample);
  suite_add_tcase(suite, ranks);
  if (argc > 1 && strcmp(argv[1], "--ranks") == 0)
    return suite;
  if (argc > 1 && strcmp(argv[1], "--long") == 0) {
    TCase *slow = support_tcase("long");
    tcase_set_timeout(slow, 600);
    tcase_add_test(slow, test_estimate_join_q21_within_five_percent);
    tcase_add_test(slow, test_estimate_join_quick_look_holds_q22_q23);
    suite_add_tcase(suite, slow);
    return suite;
  }
  TCase *intervals = support_tcase("intervals");
  tcase_set_timeout(intervals, 300);
  tcase_add_test(intervals, test_estimate_interval_holds_known_counts);
  tcase_add_test(intervals, test_estimate_interval_holds_node_counts);
  tcase_add_loop_test(intervals, test_estimate_mean_over_seeds_is_unbiased, 10, 15);
  tcase_add_test(intervals, test_estimate_join_interval_holds_known_counts);
  tcase_add_test(intervals, test_estimate_join_strata_as_asked);
  tcase_add_test(intervals, test_estimate_join_few_degrees_widen_the_interval);
  tcase_add_test(intervals, test_stratified_by_hand);
  tcase_add_test(intervals, test_stratified_without_replacement_by_hand);
  tcase_add_test(intervals, test_estimate_join_sampled_sets_hold_known_counts);
  suite_add_tcase(suite, intervals);
  TCase *exact = support_tcase("exact");
  tcase_add_loop_test(exact, test_estimate_exact_rows_covering_the_board_are_exact, NODES_MIN_N,
                      14);
  tcase_add_loop_test(exact, test_estimate_smallest_boards_are_counted_on_their_rows, 0,
                      NODES_MIN_N);
  tcase_add_test(exact, test_estimate_seed_fixes_the_result);
  tcase_add_test(exact, test_estimate_by_time_probes_every_frame_twice);
  tcase_add_test(exact, test_estimate_refuses_bad_options);
  tcase_add_test(exact, test_draws_without_replacement_permute);
  tcase_add_test(exact, test_estimate_small_boards_are_their_counts);
  suite_add_tcase(suite, exact);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, make_suite); }
