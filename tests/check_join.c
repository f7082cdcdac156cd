/* The join method (include/nqueens/join.h): each bucket's count against
 * the permutation brute force, column set by column set and cut by cut;
 * Q(n) against OEIS over the ranks and threads it runs on; the arguments
 * it refuses. */
#include <check.h>
#include <gmp.h>
#include <mpi.h>
#include <stdlib.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "support.h"

/* Brute force: for each set S of columns, the solutions whose first
 * `top_rows` rows use exactly S (indexed by S's bits). */
static uint64_t *brute_bucket_counts(int n, int top_rows) {
  uint64_t *by_set = calloc((size_t)1 << n, sizeof *by_set);
  ck_assert_ptr_nonnull(by_set);
  const brute_solutions_t *all = brute_solutions(n);
  for (size_t s = 0; s < all->count; s++) {
    const uint8_t *columns = brute_solution(all, s);
    unsigned set = 0;
    for (int row = 0; row < top_rows; row++)
      set |= 1u << columns[row];
    by_set[set]++;
  }
  return by_set;
}

START_TEST(test_join_bucket_matches_brute_force) {
  const int n = _i;
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  for (int top_rows = 1; top_rows < n; top_rows++) {
    uint64_t *expected = brute_bucket_counts(n, top_rows);
    uint64_t sets_joined = 0, mismatches = 0;
    for (unsigned set = 0; set < 1u << n; set++) {
      if (__builtin_popcount(set) != top_rows)
        continue;
      uint64_t solutions = UINT64_MAX;
      ck_assert_int_eq(nq_join_bucket(&solutions, NULL, scratch, n, top_rows, set), NQ_OK);
      mismatches += solutions != expected[set];
      sets_joined++;
    }
    ck_assert_msg(mismatches == 0, "n=%d top_rows=%d: %llu of %llu column sets miscounted", n,
                  top_rows, (unsigned long long)mismatches, (unsigned long long)sets_joined);
    free(expected);
  }
  nq_join_scratch_destroy(scratch);
}
END_TEST

static void assert_join_total(int n, int top_rows, int threads) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  mpz_t solutions;
  mpz_init_set_ui(solutions, 12345);
  nq_join_stats_t stats = {0};
  nq_join_options_t options = {.n = n, .top_rows = top_rows, .threads = threads};
  ck_assert_int_eq(nq_join_count(solutions, &stats, &options, MPI_COMM_WORLD), NQ_OK);
  if (rank == 0) {
    ck_assert_msg(mpz_cmp_ui(solutions, known_all_large[n]) == 0,
                  "Q(%d) by the join (top %d rows, %d threads) is %s, OEIS says %llu", n,
                  top_rows, threads, mpz_get_str(NULL, 10, solutions),
                  (unsigned long long)known_all_large[n]);
    if (n >= 2)
      ck_assert_uint_ge(stats.tops, stats.max_tops);
  }
  mpz_clear(solutions);
}

/* n = 0..15 at the default cut, on one thread and on three. */
START_TEST(test_join_count_known) {
  assert_join_total(_i, 0, 1);
  assert_join_total(_i, 0, 3);
}
END_TEST

/* Every cut of n = 11 and 12: the up-down flip applies at the middle cut
 * only (on the odd board, with the middle row's queen in the bucket), the
 * mirror at every cut. */
START_TEST(test_join_count_every_cut) {
  for (int n = 11; n <= 12; n++)
    for (int top_rows = 1; top_rows < n; top_rows++)
      assert_join_total(n, top_rows, 2);
}
END_TEST

typedef struct progress_calls {
  uint64_t calls, finals, last_done, total;
  int went_back;
} progress_calls_t;

static void record_progress(uint64_t done, uint64_t total, double seconds, int final,
                            void *context) {
  progress_calls_t *calls = context;
  (void)seconds;
  calls->went_back |= done < calls->last_done || done > total;
  calls->last_done = done;
  calls->total = total;
  calls->calls++;
  calls->finals += (uint64_t)final;
}

/* Rank 0 alone reports, its finished buckets only growing, and once at
 * the end with all of them done.  With one thread and a zero interval,
 * after every bucket too (with more, the rank's own thread, which
 * reports, may find every bucket taken). */
START_TEST(test_join_reports_progress) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int threads = 1; threads <= 3; threads += 2) {
    progress_calls_t calls = {0};
    nq_join_options_t options = {.n = 12, .threads = threads, .progress = record_progress,
                                 .progress_context = &calls, .progress_seconds = 0};
    mpz_t solutions;
    mpz_init(solutions);
    ck_assert_int_eq(nq_join_count(solutions, NULL, &options, MPI_COMM_WORLD), NQ_OK);
    mpz_clear(solutions);
    if (rank != 0) {
      ck_assert_uint_eq(calls.calls, 0);
      continue;
    }
    ck_assert_int_eq(calls.went_back, 0);
    ck_assert_uint_eq(calls.finals, 1);
    ck_assert_uint_gt(calls.total, 0);
    ck_assert_uint_eq(calls.last_done, calls.total);
    if (threads == 1)
      ck_assert_uint_eq(calls.calls, calls.total + 1);
  }
}
END_TEST

/* A stop raised before the count (on every rank, or on the last alone)
 * ends it on every rank with NQ_ESTOPPED. */
START_TEST(test_join_stops_on_request) {
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (int only_last = 0; only_last <= 1; only_last++) {
    volatile sig_atomic_t stop = !only_last || rank == ranks - 1;
    nq_join_options_t options = {.n = 14, .threads = 2, .stop = &stop};
    mpz_t solutions;
    mpz_init(solutions);
    ck_assert_int_eq(nq_join_count(solutions, NULL, &options, MPI_COMM_WORLD), NQ_ESTOPPED);
    mpz_clear(solutions);
  }
}
END_TEST

START_TEST(test_join_refuses_bad_arguments) {
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  uint64_t solutions = 0;
  ck_assert_int_eq(nq_join_bucket(&solutions, NULL, scratch, 33, 16, 0xffff), NQ_EINVAL);
  ck_assert_int_eq(nq_join_bucket(&solutions, NULL, scratch, 8, 0, 0), NQ_EINVAL);
  ck_assert_int_eq(nq_join_bucket(&solutions, NULL, scratch, 8, 8, 0xff), NQ_EINVAL);
  ck_assert_int_eq(nq_join_bucket(&solutions, NULL, scratch, 8, 4, 0x7), NQ_EINVAL);
  ck_assert_int_eq(nq_join_bucket(&solutions, NULL, scratch, 8, 4, 0x10f), NQ_EINVAL);
  nq_join_scratch_destroy(scratch);
  mpz_t total;
  mpz_init(total);
  const nq_join_options_t refused[] = {
      {.n = 33}, {.n = -1}, {.n = 10, .top_rows = 10}, {.n = 10, .top_rows = -1},
      {.n = 10, .threads = -1}, {.n = 10, .threads = 4097}};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    ck_assert_int_eq(nq_join_count(total, NULL, &refused[i], MPI_COMM_WORLD), NQ_EINVAL);
  mpz_clear(total);
}
END_TEST

static Suite *join_suite(int argc, char **argv) {
  (void)argc, (void)argv;
  Suite *s = suite_create("join");
  TCase *tc = tcase_create("join");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_join_bucket_matches_brute_force, 2, BRUTE_MAX_N + 1);
  tcase_add_loop_test(tc, test_join_count_known, 0, 16);
  tcase_add_test(tc, test_join_count_every_cut);
  tcase_add_test(tc, test_join_reports_progress);
  tcase_add_test(tc, test_join_stops_on_request);
  tcase_add_test(tc, test_join_refuses_bad_arguments);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) { return support_main(argc, argv, join_suite); }
