/* The join method (include/nqueens/join.h, src/method/method_join.c): each
 * bucket's count against the permutation brute force, column set by column
 * set and cut by cut; its units' listing; a bucket abandoned on a cancel;
 * Q(n) through the run engine against OEIS over the ranks and threads it
 * runs on; a bucket sampled for the estimate against its exact count; a
 * stop; the arguments it refuses. */
#include <check.h>
#include <gmp.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "join_bucket.h"
#include "join_memory.h"
#include "join_quarter_tables.h"
#include "join_sets.h"
#include "join_tops.h"
#include "join_units.h"
#include "join_walk.h"
#include "known_counts.h"
#include "method.h"
#include "random.h"
#include "nqueens/count.h"
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

/* Each split of the tops into quarters too: the default's, then fewer
 * groups (a shorter upper quarter), down to the tops listed row by row;
 * the tops in parts, from the smallest a limit allows (one upper
 * quarter's pairs) to a few words; the quarters paired without AVX-512,
 * one at a time (JOIN_PLAIN) and with AVX2 (what a CPU without AVX-512 runs;
 * on a CPU without AVX2 it is the portable one); and the
 * quarters searched for each bucket instead of read from the process's
 * tables; and the lower quarters in wide words, as on boards past 26. */
typedef struct bucket_shape {
  uint32_t group_limit;
  size_t memory_limit;
  join_vectors_t widest; /* the join's own loops' widest vectors (JOIN_AVX512: the CPU's) */
  int private_quarters;
  int wide_pairing;
} bucket_shape_t;

static const bucket_shape_t bucket_shapes[] = {
    {0, 0, JOIN_AVX512, 0, 0}, {4, 0, JOIN_AVX512, 0, 0},         {1, 0, JOIN_AVX512, 0, 0},
    {0, 1, JOIN_AVX512, 0, 0}, {0, 24 * 1024, JOIN_AVX512, 0, 0}, {0, 0, JOIN_PLAIN, 0, 0},
    {4, 1, JOIN_PLAIN, 0, 0},  {0, 0, JOIN_AVX512, 1, 0},         {4, 1, JOIN_PLAIN, 1, 0},
    {0, 0, JOIN_AVX512, 0, 1}, {4, 1, JOIN_PLAIN, 0, 1},          {0, 0, JOIN_AVX2, 0, 0},
    {4, 1, JOIN_AVX2, 0, 1},
};

static void assert_buckets_match(nq_join_scratch_t *scratch, int n, int top_rows,
                                 bucket_shape_t shape) {
  uint64_t *expected = brute_bucket_counts(n, top_rows);
  uint64_t sets_joined = 0, mismatches = 0;
  nq__join_limit_quarter_groups(scratch, shape.group_limit);
  nq_join_scratch_limit(scratch, shape.memory_limit);
  nq__join_widest_vectors(scratch, shape.widest);
  nq__join_private_quarters(scratch, shape.private_quarters);
  nq__join_wide_pairing(scratch, shape.wide_pairing);
  for (unsigned set = 0; set < 1u << n; set++) {
    if (__builtin_popcount(set) != top_rows)
      continue;
    uint64_t solutions = UINT64_MAX;
    ck_assert_int_eq(nq_join_bucket(&solutions, NULL, scratch, n, top_rows, set), NQ_OK);
    mismatches += solutions != expected[set];
    sets_joined++;
  }
  ck_assert_msg(mismatches == 0,
                "n=%d top_rows=%d quarter groups %u, memory %zu, vectors %d, private %d, wide %d: "
                "%llu of %llu column sets miscounted",
                n, top_rows, shape.group_limit, shape.memory_limit, (int)shape.widest,
                shape.private_quarters, shape.wide_pairing, (unsigned long long)mismatches,
                (unsigned long long)sets_joined);
  free(expected);
}

START_TEST(test_join_bucket_matches_brute_force) {
  const int n = _i;
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  for (size_t k = 0; k < sizeof bucket_shapes / sizeof *bucket_shapes; k++)
    for (int top_rows = 1; top_rows < n; top_rows++)
      assert_buckets_match(scratch, n, top_rows, bucket_shapes[k]);
  nq_join_scratch_destroy(scratch);
}
END_TEST

/* The long-diagonal rule's weight of a solution (join_units.c): 0 when
 * one half holds a queen on each of the board's two longest diagonals, 2
 * when each half holds one, else 1 (so on an odd board when the middle
 * row's queen stands at the centre, on both). */
typedef struct rule_weights {
  int n;
  uint64_t *by_set; /* summed by the top half's columns */
  int column[NQ_JOIN_MAX_N];
} rule_weights_t;

static int long_diagonals_held(const int *column, int first_row, int rows, int n) {
  int main = 0, anti = 0;
  for (int r = first_row; r < first_row + rows; r++) {
    main |= column[r] == r;
    anti |= column[r] == n - 1 - r;
  }
  return main + anti;
}

/* Every solution from `row` down, by the usual bitmask search (ld and rd
 * the diagonals attacking this row's squares). */
static void add_rule_weights(rule_weights_t *w, int row, unsigned columns, unsigned ld,
                             unsigned rd) {
  const int n = w->n, m = n / 2; /* odd n: the middle row m is the bottom's first */
  if (row == n) {
    const int top = long_diagonals_held(w->column, 0, m, n);
    const int bottom = long_diagonals_held(w->column, m, n - m, n);
    const int centre = n % 2 == 1 && w->column[m] == m;
    unsigned set = 0;
    for (int r = 0; r < m; r++)
      set |= 1u << w->column[r];
    w->by_set[set] += centre ? 1 : top == 2 || bottom == 2 ? 0 : top == 1 && bottom == 1 ? 2 : 1;
    return;
  }
  const unsigned board = (1u << n) - 1;
  for (unsigned free = board & ~(columns | ld | rd); free != 0; free &= free - 1) {
    const unsigned queen = free & -free;
    w->column[row] = __builtin_ctz(queen);
    add_rule_weights(w, row + 1, columns | queen, ((ld | queen) << 1) & board, (rd | queen) >> 1);
  }
}

/* Under the long-diagonal rule each bucket of the default cut (with every
 * middle queen of an odd board) sums the rule's weights of its solutions
 * (a backtracker's, to n = 14), whole, in the smallest parts, with the
 * portable pairing and with quarters searched bucket by bucket; the
 * buckets' sum is Q(n).  At 15 and 16 the walk
 * repacks, so the tops counted twice are followed into the survivors'
 * tables: there the sum alone is checked (the backtracker would take
 * seconds). */
START_TEST(test_join_long_diagonal_rule_by_bucket) {
  const int n = _i, top_rows = nq_join_default_top_rows(n); /* n = 8..16 */
  const int by_bucket = n <= 14;
  rule_weights_t weights = {.n = n, .by_set = calloc((size_t)1 << n, sizeof(uint64_t))};
  ck_assert_ptr_nonnull(weights.by_set);
  if (by_bucket)
    add_rule_weights(&weights, 0, 0, 0, 0);
  uint8_t every_queen[NQ_JOIN_MAX_N];
  memset(every_queen, 1, sizeof every_queen);
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  /* Whole, in the smallest parts, whole with the portable pairing and
   * with AVX2's (each leaves out the tops on both long diagonals its own
   * way), and whole with the quarters searched. */
  const size_t limits[] = {0, 1, 0, 0, 0};
  for (size_t k = 0; k < (by_bucket ? 5u : 1u); k++) {
    nq_join_scratch_limit(scratch, limits[k]);
    nq__join_widest_vectors(scratch, k == 2 ? JOIN_PLAIN : k == 4 ? JOIN_AVX2 : JOIN_AVX512);
    nq__join_private_quarters(scratch, k == 3);
    uint64_t mismatches = 0, total = 0;
    for (unsigned set = 0; set < 1u << n; set++) {
      if (__builtin_popcount(set) != top_rows)
        continue;
      uint64_t solutions = UINT64_MAX;
      ck_assert_int_eq(
          nq__join_weighted(&solutions, NULL, scratch, n, top_rows, set, every_queen, 1), NQ_OK);
      mismatches += by_bucket && solutions != weights.by_set[set];
      total += solutions;
    }
    ck_assert_msg(mismatches == 0, "n=%d case %zu: %llu column sets off the rule's weights", n, k,
                  (unsigned long long)mismatches);
    ck_assert_uint_eq(total, known_all_large[n]);
  }
  nq_join_scratch_destroy(scratch);
  free(weights.by_set);
}
END_TEST

/* Q(n), and U(n) with `unique`, by the join through the run engine
 * (nq_count_run, method NQ_COUNT_JOIN), with its work units, over every
 * rank of the test. */
static int count_by_join(nq_count_result_t *result, int n, int top_rows, int threads, int unique,
                         volatile sig_atomic_t *stop) {
  const nq_count_options_t options = {.n = n,
                                      .method = NQ_COUNT_JOIN,
                                      .depth = top_rows,
                                      .threads = threads,
                                      .unique = unique,
                                      .stop = stop};
  nq_count_result_init(result);
  return nq_count_run(result, &options, MPI_COMM_WORLD);
}

/* Rank 0 holds the result; its verdict is sent to every rank and every
 * rank asserts it, so that a wrong count fails the test on all of them at
 * the same point: a failure on rank 0 alone would leave it out of the
 * next count's messages and the others waiting on it until ctest's
 * timeout. */
static void assert_join_total(int n, int top_rows, int threads, int unique) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  nq_count_result_t result;
  const int rc = count_by_join(&result, n, top_rows, threads, unique, NULL);
  const int depth = top_rows ? top_rows : n < 2 ? 1 : n / 2;
  int failed_somewhere = rc != NQ_OK;
  MPI_Allreduce(MPI_IN_PLACE, &failed_somewhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int right = mpz_cmp_ui(result.solutions, known_all_large[n]) == 0 &&
              (!unique || mpz_cmp_ui(result.unique, known_unique_large[n]) == 0) &&
              result.method == NQ_COUNT_JOIN && result.depth == depth;
  MPI_Bcast(&right, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char found[160];
  gmp_snprintf(found, sizeof found, "%Zd, U %Zd (method %d, %d rows)", result.solutions,
               result.unique, (int)result.method, result.depth);
  nq_count_result_clear(&result);
  ck_assert_msg(!failed_somewhere, "rank %d: %s", rank, nq_strerror(rc));
  ck_assert_msg(
      right, "Q(%d) by the join (top %d rows, %d threads, unique %d) is %s, OEIS says %llu, U %llu",
      n, top_rows, threads, unique, found, (unsigned long long)known_all_large[n],
      (unsigned long long)known_unique_large[n]);
}

/* n = 0..15 at the default cut, on one thread and, with U(n), on three. */
START_TEST(test_join_count_known) {
  assert_join_total(_i, 0, 1, 0);
  assert_join_total(_i, 0, 3, 1);
}
END_TEST

/* Every cut of n = 11 and 12: the up-down flip applies at the middle cut
 * only (on the odd board, with the middle row's queen in the bucket), the
 * mirror at every cut. */
START_TEST(test_join_count_every_cut) {
  for (int n = 11; n <= 12; n++)
    for (int top_rows = 1; top_rows < n; top_rows++)
      assert_join_total(n, top_rows, 2, 0);
}
END_TEST

/* A column set of `size` of the n columns, drawn from `state`
 * (random.h), the last column always in it. */
static uint64_t drawn_set(uint64_t *state, int n, int size) {
  uint64_t set = (uint64_t)1 << (n - 1);
  while (__builtin_popcountll(set) < size)
    set |= (uint64_t)1 << nq__random_below(state, (uint64_t)n);
  return set;
}

/* The lower quarters' words narrowed to 32 bits where n + m - a <= 33
 * (join_quarter_tables.h, a the upper quarter's rows): at n + m - a = 33,
 * the largest that fits, where a lower quarter's ld takes bit 31 (its
 * first row's queen in the last column) and its rd, shifted, too (its
 * last row's), and at 34, where those take bit 32 and the words must
 * stay wide, the default pairing counts each drawn set as the wide one
 * does; and at n = 22's default cut, narrowed since it fits.  A quarter
 * of one row (a group limit of m) makes the board small enough to be
 * quick. */
START_TEST(test_join_narrow_words_at_their_bound) {
  static const struct {
    int n, top_rows, sets;
    uint32_t group_limit;
  } cuts[] = {{22, 12, 3, 12}, {22, 13, 1, 13}, {22, 11, 8, 0}};
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
    uint64_t state = 2026, total = 0;
    nq__join_limit_quarter_groups(scratch, cuts[k].group_limit);
    for (int i = 0; i < cuts[k].sets; i++) {
      const uint64_t set = drawn_set(&state, cuts[k].n, cuts[k].top_rows);
      uint64_t narrow = 0, wide = 0;
      nq__join_wide_pairing(scratch, 0);
      ck_assert_int_eq(nq_join_bucket(&narrow, NULL, scratch, cuts[k].n, cuts[k].top_rows, set),
                       NQ_OK);
      nq__join_wide_pairing(scratch, 1);
      ck_assert_int_eq(nq_join_bucket(&wide, NULL, scratch, cuts[k].n, cuts[k].top_rows, set),
                       NQ_OK);
      ck_assert_msg(narrow == wide, "n=%d top_rows=%d set %#llx: %llu narrow, %llu wide",
                    cuts[k].n, cuts[k].top_rows, (unsigned long long)set,
                    (unsigned long long)narrow, (unsigned long long)wide);
      total += wide;
    }
    ck_assert_uint_gt(total, 0);
  }
  nq_join_scratch_destroy(scratch);
}
END_TEST

/* The join's units: ids 0, 1, 2, ... in increasing order of the set, each
 * canonical, as many as units_total says; a unit outside the listing (a
 * set that is not canonical, or of another size) is refused. */
static int compare_words(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The listing holds every canonical set once, ids 0, 1, ... in order, and
 * not in increasing order of the sets (a random order, the same each
 * time); with --unique the turn unit comes first. */
START_TEST(test_join_units_are_listed_in_order) {
  const nq__method_params_t params = {.n = 12, .unit_param = 6};
  void *listing = NULL, *scratch = NULL;
  uint64_t total = 0, listed = 0, increasing = 0, sets[1024];
  ck_assert_int_eq(nq__method_join.units_total(&total, &params, NULL), NQ_OK);
  ck_assert_uint_le(total, 1024);
  ck_assert_int_eq(nq__method_join.units_open(&listing, &params, NULL), NQ_OK);
  nq__work_t unit;
  while (nq__method_join.units_next(listing, &unit) > 0) {
    ck_assert_uint_lt(listed, total);
    ck_assert_uint_eq(unit.id, listed);
    ck_assert(nq__join_is_canonical(unit.data[0], 12, 6));
    increasing += listed > 0 && unit.data[0] > sets[listed - 1];
    sets[listed++] = unit.data[0];
  }
  ck_assert_uint_lt(increasing, total - 1);
  void *again = NULL;
  ck_assert_int_eq(nq__method_join.units_open(&again, &params, NULL), NQ_OK);
  for (uint64_t k = 0; k < total; k++) {
    ck_assert_int_eq(nq__method_join.units_next(again, &unit), 1);
    ck_assert_uint_eq(unit.data[0], sets[k]);
  }
  nq__method_join.units_close(again);
  /* With --unique, the turn unit first, then the same sets. */
  const nq__method_params_t with_unique = {.n = 12, .unit_param = 6, .unique = 1};
  uint64_t total_with_turns = 0;
  ck_assert_int_eq(nq__method_join.units_total(&total_with_turns, &with_unique, NULL), NQ_OK);
  ck_assert_uint_eq(total_with_turns, total + 1);
  ck_assert_int_eq(nq__method_join.units_open(&again, &with_unique, NULL), NQ_OK);
  ck_assert_int_eq(nq__method_join.units_next(again, &unit), 1);
  ck_assert(unit.id == 0 && unit.data[0] == 0 && unit.data[1] == 1);
  for (uint64_t k = 0; k < total; k++) {
    ck_assert_int_eq(nq__method_join.units_next(again, &unit), 1);
    ck_assert(unit.id == k + 1 && unit.data[0] == sets[k] && unit.data[1] == 0);
  }
  ck_assert_int_eq(nq__method_join.units_next(again, &unit), 0);
  nq__method_join.units_close(again);
  qsort(sets, listed, sizeof *sets, compare_words);
  uint64_t set = nq__join_first_set(6);
  for (uint64_t k = 0; k < listed; k++, set = nq__join_next_set(set, 12)) {
    while (!nq__join_is_canonical(set, 12, 6))
      set = nq__join_next_set(set, 12);
    ck_assert_uint_eq(sets[k], set);
  }
  nq__method_join.units_close(listing);
  ck_assert_uint_eq(listed, total);
  ck_assert_uint_gt(total, 0);
  ck_assert_int_eq(nq__method_join.solver_open(&scratch, &params), NQ_OK);
  nq_unit_result_t result;
  const nq__work_t not_canonical = {.id = 0, .data = {0xfc0, 0}}; /* the mirror of 0x3f */
  const nq__work_t wrong_size = {.id = 0, .data = {0x1f, 0}};
  ck_assert_int_eq(nq__method_join.solve(&result, scratch, &not_canonical, &params), NQ_EUNIT);
  ck_assert_int_eq(nq__method_join.solve(&result, scratch, &wrong_size, &params), NQ_EUNIT);
  /* The turn unit: a unit of its own with --unique alone. */
  const nq__work_t turns = {.id = 0, .data = {0, 1}},
                   turns_with_a_set = {.id = 0, .data = {0x3f, 1}};
  ck_assert_int_eq(nq__method_join.solve(&result, scratch, &turns, &params), NQ_EUNIT);
  ck_assert_int_eq(nq__method_join.solve(&result, scratch, &turns_with_a_set, &with_unique),
                   NQ_EUNIT);
  ck_assert_int_eq(nq__method_join.solve(&result, scratch, &turns, &with_unique), NQ_OK);
  ck_assert_uint_eq(result.solutions, 0);
  ck_assert_uint_eq(result.stabilizer_sum, 8 * known_unique[12] - known_all[12]);
  nq__method_join.solver_close(scratch);
}
END_TEST

static int always(void *context) {
  (void)context;
  return 1;
}

/* Listing the sets takes seconds from n = 30: a stop asked is heard
 * within it (n = 24 lists 677,294 sets, past several looks at the flag),
 * the listing left empty. */
START_TEST(test_join_listing_hears_a_stop) {
  const int n = 24, top_rows = nq_join_default_top_rows(n);
  volatile sig_atomic_t stop = 1;
  uint64_t *sets = NULL, count = 0;
  ck_assert_int_eq(nq__join_list_sets(&sets, &count, n, top_rows, &stop), NQ_ESTOPPED);
  ck_assert_ptr_null(sets);
  const nq__method_params_t params = {.n = n, .unit_param = top_rows};
  void *listing = NULL;
  nq__work_t unit;
  ck_assert_int_eq(nq__method_join.units_open(&listing, &params, &stop), NQ_ESTOPPED);
  ck_assert_int_eq(nq__method_join.units_next(listing, &unit), 0);
  nq__method_join.units_close(listing);
}
END_TEST

static int compare_sets(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The unit ids' order: the same sets, not in the listing's order (the
 * test below pins which); a stop asked is heard within it (n = 24's
 * sets pass several looks at the flag). */
START_TEST(test_join_shuffle_is_fixed_and_hears_a_stop) {
  const int n = 24, top_rows = nq_join_default_top_rows(n);
  uint64_t *sets = NULL, count = 0;
  ck_assert_int_eq(nq__join_list_sets(&sets, &count, n, top_rows, NULL), NQ_OK);
  uint64_t *shuffled = malloc(count * sizeof *shuffled);
  ck_assert(shuffled != NULL);
  memcpy(shuffled, sets, count * sizeof *sets);
  ck_assert_int_eq(nq__join_shuffle_sets(shuffled, count, n, top_rows, NULL), NQ_OK);
  uint64_t in_place = 0;
  for (uint64_t i = 0; i < count; i++)
    in_place += shuffled[i] == sets[i];
  ck_assert_uint_lt(in_place, count / 1000);
  qsort(shuffled, count, sizeof *shuffled, compare_sets);
  ck_assert_mem_eq(shuffled, sets, count * sizeof *sets); /* listed in increasing order */
  volatile sig_atomic_t stop = 1;
  ck_assert_int_eq(nq__join_shuffle_sets(shuffled, count, n, top_rows, &stop), NQ_ESTOPPED);
  free(sets);
  free(shuffled);
}
END_TEST

/* A cut far from the default (30 top rows of 32: the lower quarter 26
 * rows, 26! orderings a group) reckons its quarters at a ceiling, not at
 * a product wrapped round to a small number that a limit would pass. */
START_TEST(test_join_quarters_most_bytes_saturate) {
  const size_t most = nq__join_quarters_most_bytes(32, 30);
  ck_assert_uint_ge(most, SIZE_MAX / 4);
  ck_assert_uint_lt(most, SIZE_MAX / 2); /* two of them summed stay clear of wrapping */
  ck_assert_uint_lt(nq__join_quarters_most_bytes(32, 16), (size_t)1 << 30);
}
END_TEST

/* A journal names the join's units by id, under the cut's scheme: a
 * change to the listing or the shuffle that kept the scheme would give an
 * old journal's ids other sets, and its resumed count a wrong total.  So
 * the order is pinned here, of an even board and an odd one under scheme
 * 3 (a middle row, its units a set and that row's queens) and an odd one
 * under scheme 4; an intended change takes a new scheme and new values. */
START_TEST(test_join_unit_order_is_that_of_its_scheme) {
  static const struct {
    int n;
    uint64_t count, first[3], last;
  } pinned[] = {{16, 3299, {0x7d9, 0x19dc, 0x195e}, 0x9db},
                {17, 7107, {0xca36, 0xa5f, 0xa6aa}, 0xd0b6},
                {23, 412080, {0x13389b, 0x19be82, 0x45bc25}, 0x3ece8}};
  ck_assert_int_eq(nq_join_unit_scheme(16, 8), 3);
  ck_assert_int_eq(nq_join_unit_scheme(17, 8), 3);
  ck_assert_int_eq(nq_join_unit_scheme(23, 11), 4);
  ck_assert_int_eq(nq_join_unit_scheme(23, 10), 3); /* no middle row */
  for (size_t k = 0; k < sizeof pinned / sizeof pinned[0]; k++) {
    const int n = pinned[k].n, top_rows = nq_join_default_top_rows(n);
    uint64_t *sets = NULL, count = 0;
    ck_assert_int_eq(nq__join_list_sets(&sets, &count, n, top_rows, NULL), NQ_OK);
    ck_assert_int_eq(nq__join_shuffle_sets(sets, count, n, top_rows, NULL), NQ_OK);
    ck_assert_uint_eq(count, pinned[k].count);
    for (int i = 0; i < 3; i++)
      ck_assert_uint_eq(sets[i], pinned[k].first[i]);
    ck_assert_uint_eq(sets[count - 1], pinned[k].last);
    free(sets);
  }
}
END_TEST

/* The units' total is Q(n), at least `percent` of `of` cases took the
 * smaller table (`what` names them), and the units' tops are fewer than
 * the other choice's. */
static void assert_fewer_tops(int n, uint64_t total, uint64_t fewer, uint64_t of, int percent,
                              const char *what, uint64_t unit_tops, uint64_t other_tops) {
  ck_assert_uint_eq(total, known_all_large[n]);
  ck_assert_msg(fewer * 100 >= of * (uint64_t)percent, "%llu of %llu %s",
                (unsigned long long)fewer, (unsigned long long)of, what);
  ck_assert_uint_lt(unit_tops, other_tops);
}

/* On a board cut in half a unit may walk either half, its count the same:
 * the one with fewer tops, by how crowded their columns are
 * (join_units.c).  Every set of n = 16 walks S or its complement, the
 * sum is Q(16), at least 95% of the sets walk the half with fewer tops,
 * and the units walk fewer tops than the sets themselves would. */
START_TEST(test_join_units_walk_the_half_with_fewer_tops) {
  const int n = 16, top_rows = nq_join_default_top_rows(n);
  uint64_t *sets = NULL, count = 0, total = 0, fewer = 0, walked_tops = 0, set_tops = 0;
  ck_assert_int_eq(nq__join_list_sets(&sets, &count, n, top_rows, NULL), NQ_OK);
  uint8_t every_queen[NQ_JOIN_MAX_N];
  memset(every_queen, 1, sizeof every_queen);
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  for (uint64_t i = 0; i < count; i++) {
    const uint64_t halves[2] = {sets[i], ((uint64_t)1 << n) - 1 - sets[i]};
    uint64_t solutions[2], tops[2], unit = 0;
    for (int h = 0; h < 2; h++) {
      nq_join_stats_t stats = {0};
      ck_assert_int_eq(nq__join_weighted(&solutions[h], &stats, scratch, n, top_rows, halves[h],
                                         every_queen, 1),
                       NQ_OK);
      tops[h] = stats.tops;
    }
    ck_assert_uint_eq(solutions[0], solutions[1]);
    nq_join_stats_t stats = {0};
    ck_assert_int_eq(nq__join_unit(&unit, &stats, scratch, n, top_rows, sets[i]), NQ_OK);
    ck_assert(stats.tops == tops[0] || stats.tops == tops[1]);
    total += unit;
    fewer += stats.tops == (tops[0] < tops[1] ? tops[0] : tops[1]);
    walked_tops += stats.tops;
    set_tops += tops[0];
  }
  assert_fewer_tops(n, total, fewer, count, 95, "sets walk the half with fewer tops", walked_tops,
                    set_tops);
  nq_join_scratch_destroy(scratch);
  free(sets);
}
END_TEST

/* With a middle row the up-down flip maps the solutions with top columns
 * S and row m's queen c onto those with top R - c (R the columns S
 * leaves) and the same c, so an orbit's unit may be either top.  Scheme 4
 * takes the one whose columns crowd more, which has the fewer tops
 * (join_units.c); n = 23 is the first board it counts, so here it is
 * asked for n = 15 and walked set by set.  Its units sum to Q(15), and of
 * the queens they count whose flip is another set, at least 91% have a
 * top with no more tops than the flip's (12,116 of 12,902), more than
 * under scheme 3 (11,361), fewer tops in all. */
typedef struct flip_tally {
  uint64_t total, pairs, fewer, unit_tops, flip_tops;
} flip_tally_t;

static flip_tally_t tally_middle_row_units(nq_join_scratch_t *scratch, int n, int scheme) {
  const int top_rows = nq_join_default_top_rows(n);
  uint8_t every_queen[NQ_JOIN_MAX_N];
  memset(every_queen, 1, sizeof every_queen);
  flip_tally_t t = {0};
  for (uint64_t set = nq__join_first_set(top_rows); set != 0; set = nq__join_next_set(set, n)) {
    uint8_t weight[NQ_JOIN_MAX_N];
    if (!nq__join_unit_weights(weight, set, n, top_rows, scheme))
      continue;
    uint64_t unit = 0, ignored;
    nq_join_stats_t stats = {0};
    ck_assert_int_eq(nq__join_weighted(&unit, &stats, scratch, n, top_rows, set, weight, 1), NQ_OK);
    t.total += unit;
    const uint64_t rest = ((uint64_t)1 << n) - 1 - set;
    for (int c = 0; c < n; c++) {
      const uint64_t flip = rest & ~((uint64_t)1 << c);
      if (weight[c] == 0 || flip == set)
        continue;
      nq_join_stats_t flipped = {0};
      ck_assert_int_eq(
          nq__join_weighted(&ignored, &flipped, scratch, n, top_rows, flip, every_queen, 1), NQ_OK);
      t.pairs++;
      t.fewer += stats.tops <= flipped.tops;
      t.unit_tops += stats.tops;
      t.flip_tops += flipped.tops;
    }
  }
  return t;
}

START_TEST(test_join_middle_row_units_take_the_top_with_fewer_tops) {
  const int n = 15;
  ck_assert_int_eq(nq_join_unit_scheme(n, nq_join_default_top_rows(n)), NQ_JOIN_UNIT_SCHEME);
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  const flip_tally_t crowded = tally_middle_row_units(scratch, n, NQ_JOIN_MIDDLE_ROW_UNIT_SCHEME);
  const flip_tally_t least = tally_middle_row_units(scratch, n, NQ_JOIN_UNIT_SCHEME);
  assert_fewer_tops(n, crowded.total, crowded.fewer, crowded.pairs, 91,
                    "units' tops no more than the flip's", crowded.unit_tops, crowded.flip_tops);
  ck_assert_uint_eq(least.total, known_all_large[n]);
  ck_assert_uint_gt(crowded.fewer * least.pairs, least.fewer * crowded.pairs);
  nq_join_scratch_destroy(scratch);
}
END_TEST

/* A cancel hook that says stop abandons a bucket inside its walk; without
 * it, the same bucket counts as before. */
START_TEST(test_join_unit_is_abandoned_on_cancel) {
  const nq__method_params_t params = {.n = 14, .unit_param = 7};
  void *listing = NULL;
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  ck_assert_int_eq(nq__method_join.units_open(&listing, &params, NULL), NQ_OK);
  nq__work_t unit;
  uint64_t solutions = 0;
  while (solutions == 0 && nq__method_join.units_next(listing, &unit) > 0)
    ck_assert_int_eq(nq__join_unit(&solutions, NULL, scratch, 14, 7, unit.data[0]), NQ_OK);
  nq__method_join.units_close(listing);
  ck_assert_uint_gt(solutions, 0);
  uint64_t abandoned = 0, again = 0;
  nq__join_set_cancel(scratch, always, NULL);
  ck_assert_int_eq(nq__join_unit(&abandoned, NULL, scratch, 14, 7, unit.data[0]), NQ_ESTOPPED);
  nq__join_set_cancel(scratch, NULL, NULL);
  ck_assert_int_eq(nq__join_unit(&again, NULL, scratch, 14, 7, unit.data[0]), NQ_OK);
  ck_assert_uint_eq(again, solutions);
  nq_join_scratch_destroy(scratch);
}
END_TEST

/* The sums over the canonical sets of n with the cut top_rows: the exact
 * solutions and bottom nodes (nq__join_unit), and `paths` single-path
 * samples of each set (nq__join_sample_unit) with their sample
 * variances, for a z-score of the sampled sums. */
typedef struct sampled_sums {
  double exact[2], sampled[2], variance[2];
} sampled_sums_t;

static void add_sampled_set(sampled_sums_t *sums, nq_join_scratch_t *scratch, int n, int top_rows,
                            uint64_t set, int exact_rows, int paths, uint64_t *random_state) {
  uint64_t solutions = 0;
  nq_join_stats_t stats = {0};
  ck_assert_int_eq(nq__join_unit(&solutions, &stats, scratch, n, top_rows, set), NQ_OK);
  sums->exact[0] += (double)solutions;
  sums->exact[1] += (double)stats.bottom_nodes;
  double sum[2] = {0, 0}, squares[2] = {0, 0};
  for (int k = 0; k < paths; k++) {
    nq__join_sample_t estimate, walked;
    ck_assert_int_eq(nq__join_sample_unit(&estimate, &walked, scratch, n, top_rows, set,
                                          exact_rows, 1, random_state),
                     NQ_OK);
    ck_assert_double_gt(estimate.seconds, 0);
    const double of[2] = {estimate.solutions, estimate.bottom_nodes};
    for (int q = 0; q < 2; q++) {
      sum[q] += of[q];
      squares[q] += of[q] * of[q];
    }
  }
  for (int q = 0; q < 2; q++) {
    sums->sampled[q] += sum[q] / paths;
    sums->variance[q] += (squares[q] - sum[q] * sum[q] / paths) / (paths - 1) / paths;
  }
}

/* Knuth's paths through a bucket's bottom walk are unbiased: over every
 * canonical set of an even (14) and an odd (15, with the middle row's
 * weights) board, paths of 1 and 2 rows (the walk's last JOIN_FUSED_ROWS
 * rows are one step, which a path must not enter), the sampled sums of the
 * solutions and of the walk's nodes lie within 4 standard
 * errors of the exact ones (a path that dropped the middle queen's weight,
 * or a node, lands dozens of errors off), each bucket whole and (n = 14)
 * in the smallest parts a limit allows.  With exact_rows covering the
 * bottom half the set is counted exactly. */
static void assert_sampling_unbiased(nq_join_scratch_t *scratch, int n, size_t memory_limit,
                                     uint64_t *random_state) {
  const int top_rows = nq_join_default_top_rows(n);
  uint64_t *sets = NULL, count = 0;
  nq_join_scratch_limit(scratch, memory_limit);
  ck_assert_int_eq(nq__join_list_sets(&sets, &count, n, top_rows, NULL), NQ_OK);
  sampled_sums_t sums = {{0, 0}, {0, 0}, {0, 0}};
  for (uint64_t i = 0; i < count; i++)
    add_sampled_set(&sums, scratch, n, top_rows, sets[i], 5, 24, random_state);
  ck_assert_double_eq(sums.exact[0], (double)known_all_large[n]);
  for (int q = 0; q < 2; q++) {
    double z = (sums.sampled[q] - sums.exact[q]) / sqrt(sums.variance[q]);
    ck_assert_msg(fabs(z) < 4.0, "n %d, memory %zu, %s: sampled %.6g, exact %.6g, %.2f SE off", n,
                  memory_limit, q == 0 ? "solutions" : "nodes", sums.sampled[q], sums.exact[q], z);
  }
  nq__join_sample_t whole, walked;
  uint64_t exact = 0;
  ck_assert_int_eq(nq__join_unit(&exact, NULL, scratch, n, top_rows, sets[count / 2]), NQ_OK);
  ck_assert_int_eq(nq__join_sample_unit(&whole, &walked, scratch, n, top_rows, sets[count / 2],
                                        n - top_rows, 8, random_state),
                   NQ_OK);
  ck_assert_double_eq(whole.solutions, (double)exact);
  free(sets);
}

START_TEST(test_join_sampled_sets_are_unbiased) {
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  uint64_t random_state = 7;
  assert_sampling_unbiased(scratch, 14, 0, &random_state);
  assert_sampling_unbiased(scratch, 15, 0, &random_state);
  assert_sampling_unbiased(scratch, 14, 1, &random_state);
  nq_join_scratch_destroy(scratch);
}
END_TEST

/* Every `step`-th canonical set of n counted by a scratch limited to
 * `limit` bytes (its quarters searched bucket by bucket with
 * `private_quarters`): their sum, the counters, and the most the scratch
 * held after a set.  With `whole` (a scratch without a limit) each set is
 * counted there too and the two counts must be the same. */
static uint64_t count_within(size_t *most_held, nq_join_stats_t *stats, int n, size_t limit,
                             uint64_t step, nq_join_scratch_t *whole, int private_quarters) {
  const int top_rows = nq_join_default_top_rows(n);
  nq_join_scratch_t *limited = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&limited), NQ_OK);
  nq_join_scratch_limit(limited, limit);
  nq__join_private_quarters(limited, private_quarters);
  uint64_t *sets = NULL, count = 0, total = 0;
  ck_assert_int_eq(nq__join_list_sets(&sets, &count, n, top_rows, NULL), NQ_OK);
  *most_held = 0;
  for (uint64_t i = 0; i < count; i += step) {
    uint64_t solutions = 0, at_once = 0;
    ck_assert_int_eq(nq__join_unit(&solutions, stats, limited, n, top_rows, sets[i]), NQ_OK);
    if (whole != NULL) {
      ck_assert_int_eq(nq__join_unit(&at_once, NULL, whole, n, top_rows, sets[i]), NQ_OK);
      ck_assert_uint_eq(solutions, at_once);
    }
    total += solutions;
    size_t held = nq__join_scratch_bytes(limited);
    *most_held = held > *most_held ? held : *most_held;
  }
  free(sets);
  nq_join_scratch_destroy(limited);
  return total;
}

/* A scratch limited to 50 kB counts Q(16) over its canonical
 * sets in parts (more parts than sets) and never holds more than its
 * limit, its quarters read from the process's tables or searched (a
 * group at a time, the limit leaving no room to list them whole); the
 * part sizes it derives hold what they promise. */
START_TEST(test_join_parts_keep_the_limit) {
  const int n = 16, top_rows = nq_join_default_top_rows(n);
  const size_t limit = 50 * 1000;
  for (size_t bytes = 1024; bytes < ((size_t)1 << 32); bytes *= 3) {
    size_t tops = nq_join_tops_within(n, top_rows, bytes);
    ck_assert(tops == 0 || nq__join_part_bytes(n, top_rows, tops) <= bytes);
    ck_assert(nq__join_part_bytes(n, top_rows, tops + 64) > bytes);
  }
  nq_join_stats_t stats = {0};
  size_t most_held = 0;
  for (int private_quarters = 0; private_quarters <= 1; private_quarters++) {
    stats = (nq_join_stats_t){0};
    ck_assert_uint_eq(count_within(&most_held, &stats, n, limit, 1, NULL, private_quarters),
                      known_all_large[n]);
    ck_assert_uint_gt(stats.parts, stats.buckets);
    ck_assert_msg(most_held <= limit, "held %zu bytes, limit %zu, private quarters %d",
                  most_held, limit, private_quarters);
  }
  /* The last rows come from the list at n = 16 (eight bottom rows), and
   * each such node counts its tried completions among the bottom's. */
  ck_assert_uint_gt(stats.fused_nodes, 0);
  ck_assert_uint_gt(stats.completions, stats.fused_nodes);
  ck_assert_uint_lt(stats.completions, stats.bottom_nodes);
}
END_TEST

/* At n = 17 the walk repacks at two depths, the first at the denser rule
 * (join_walk.h), which the bound reckons apart: every 29th canonical set
 * counted under a 70 kB limit (in parts) and without one gives the same
 * count set by set, and the limited scratch never holds more than its
 * limit. */
START_TEST(test_join_parts_keep_the_limit_at_every_repack_depth) {
  const size_t limit = 70 * 1000;
  nq_join_scratch_t *whole = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&whole), NQ_OK);
  nq_join_stats_t stats = {0};
  size_t most_held = 0;
  count_within(&most_held, &stats, 17, limit, 29, whole, 0);
  ck_assert_uint_gt(stats.parts, stats.buckets);
  ck_assert_uint_gt(stats.repacks, 0);
  /* Repacked tops at both depths the rule allows (rows 8 and 9, the
   * child six rows or more above the end), none below them, and at least
   * one a repack. */
  uint64_t repacked = 0;
  for (int row = 0; row < NQ_JOIN_MAX_N; row++) {
    if (row == 8 || row == 9)
      ck_assert_uint_gt(stats.repacked[row], 0);
    else
      ck_assert_uint_eq(stats.repacked[row], 0);
    repacked += stats.repacked[row];
  }
  ck_assert_uint_ge(repacked, stats.repacks);
  ck_assert_msg(most_held <= limit, "held %zu bytes, limit %zu", most_held, limit);
  nq_join_scratch_destroy(whole);
}
END_TEST

/* A part takes at most its cap of tops, with no memory limit at all
 * (nq__join_part_cap by default, join_walk.h): every 29th canonical set
 * of n = 17 under a cap of 256 tops is walked in parts, none past the
 * cap, with the count of each set the same as whole.  The default caps
 * nothing below n = 25, 2^(n - 4) tops at 25 and 26 and 2^(n - 5) from
 * 27, the sizes measured fastest. */
START_TEST(test_join_parts_keep_their_cap) {
  const int n = 17, top_rows = nq_join_default_top_rows(n);
  const size_t cap = 256;
  ck_assert_uint_eq(nq__join_part_cap(24), SIZE_MAX);
  ck_assert_uint_eq(nq__join_part_cap(25), (size_t)1 << 21);
  ck_assert_uint_eq(nq__join_part_cap(26), (size_t)1 << 22);
  ck_assert_uint_eq(nq__join_part_cap(27), (size_t)1 << 22);
  ck_assert_uint_eq(nq__join_part_cap(28), (size_t)1 << 23);
  nq_join_scratch_t *capped = NULL, *whole = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&capped), NQ_OK);
  ck_assert_int_eq(nq_join_scratch_create(&whole), NQ_OK);
  nq__join_cap_part_tops(capped, cap);
  uint64_t *sets = NULL, count = 0;
  ck_assert_int_eq(nq__join_list_sets(&sets, &count, n, top_rows, NULL), NQ_OK);
  nq_join_stats_t stats = {0}, whole_stats = {0};
  for (uint64_t i = 0; i < count; i += 29) {
    uint64_t in_parts = 0, at_once = 0;
    ck_assert_int_eq(nq__join_unit(&in_parts, &stats, capped, n, top_rows, sets[i]), NQ_OK);
    ck_assert_int_eq(nq__join_unit(&at_once, &whole_stats, whole, n, top_rows, sets[i]), NQ_OK);
    ck_assert_uint_eq(in_parts, at_once);
  }
  ck_assert_uint_gt(stats.parts, stats.buckets);
  ck_assert_uint_le(stats.max_tops, cap);
  ck_assert_uint_eq(whole_stats.parts, whole_stats.buckets);
  free(sets);
  nq_join_scratch_destroy(capped);
  nq_join_scratch_destroy(whole);
}
END_TEST

/* A bucket's groups are ranked by the process's table for up to
 * JOIN_RANKED_PLACES places, else by their binomials: both give each
 * a-subset of m places its place in the order the groups are taken. */
START_TEST(test_join_group_ranks_follow_the_sets_order) {
  for (int m = 0; m <= JOIN_RANKED_PLACES; m++)
    for (int a = 0; a <= m; a++) {
      const uint16_t *ranks = nq__join_group_ranks(m, a);
      ck_assert_ptr_nonnull(ranks);
      uint64_t places = nq__join_first_set(a);
      for (uint32_t g = 0; g < nq__join_binomial(m, a); g++) {
        if (g > 0)
          places = nq__join_next_set(places, m);
        ck_assert_uint_eq(ranks[places], g);
        ck_assert_uint_eq(nq__join_set_rank_computed(places), g);
      }
    }
  ck_assert_ptr_null(nq__join_group_ranks(JOIN_RANKED_PLACES + 1, 8));
}
END_TEST

/* Where no table holds a board's quarters (from n = 19) each bucket
 * searches them, and they once took hundreds of MB a thread from n = 27,
 * beyond the limit.  A scratch limited to 64 MB opens a bucket at n = 28
 * and 32 and builds its first part within the limit, a part of tops as
 * large as what the limit leaves, and the least memory for a rank holds
 * a thread's quarters. */
START_TEST(test_join_quarters_keep_the_limit_on_large_boards) {
  const size_t limit = (size_t)64 << 20;
  static const uint8_t no_weights[NQ_JOIN_MAX_N] = {0};
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  nq_join_scratch_limit(scratch, limit);
  uint64_t state = 28;
  for (int n = 28; n <= 32; n += 4) {
    const int top_rows = nq_join_default_top_rows(n);
    bottom_walk_t walk;
    ck_assert_int_eq(nq__join_open_bucket(&walk, scratch, n, top_rows,
                                          drawn_set(&state, n, top_rows), no_weights, 1),
                     NQ_OK);
    ck_assert_int_eq(nq__join_next_part(&walk), NQ_OK);
    const size_t held = nq__join_scratch_bytes(scratch);
    ck_assert_msg(held <= limit, "n=%d: held %zu bytes, limit %zu", n, held, limit);
    ck_assert_uint_eq(walk.stats.max_tops, nq__join_part_most(scratch));
    ck_assert_uint_gt(walk.stats.max_tops, (size_t)1 << 16);
    ck_assert_uint_ge(nq_join_least_memory(n, 1),
                      nq__join_quarters_bytes(&scratch->quarters) +
                          nq__join_part_bytes(n, top_rows, 64));
  }
  nq_join_scratch_destroy(scratch);
}
END_TEST

/* What the command line's memory note reads: the fastest part (the cap,
 * none below 25), a thread's share of a rank's memory, the parts it holds,
 * and the memory that holds the fastest parts: enough, with room for a
 * thread's quarters at their most, and not much more. */
START_TEST(test_join_memory_for_the_fastest_parts) {
  ck_assert_uint_eq(nq_join_fastest_part_tops(24), 0);
  ck_assert_uint_eq(nq_join_fastest_part_tops(28), nq__join_part_cap(28));
  const size_t four_gigabytes = (size_t)4 << 30, shared = nq_join_shared_bytes(28);
  ck_assert_uint_eq(nq_join_thread_bytes(28, 16, 0), (four_gigabytes - shared) / 16);
  ck_assert_uint_eq(nq_join_thread_bytes(28, 4, four_gigabytes),
                    nq_join_thread_bytes(28, 4, 0));
  ck_assert_uint_eq(nq_join_thread_bytes(28, 2, 1), 1);
  const size_t fastest = nq_join_fastest_part_tops(28);
  ck_assert_uint_lt(nq_join_part_tops_within(28, 16, 0), fastest / 4);
  ck_assert_uint_ge(nq_join_part_tops_within(28, 1, 0), fastest);
  const size_t enough = nq_join_memory_for_parts(28, 16, fastest);
  ck_assert_uint_ge(nq_join_part_tops_within(28, 16, enough), fastest);
  ck_assert_uint_lt(nq_join_part_tops_within(28, 16, enough), fastest + fastest / 4);
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
    nq_count_result_t result;
    ck_assert_int_eq(count_by_join(&result, 14, 0, 2, 0, &stop), NQ_ESTOPPED);
    nq_count_result_clear(&result);
  }
}
END_TEST

/* The bucket of `columns` walked from `start` solutions, every queen of
 * row m weighed 3: what it ends at and whether it went past 64 bits. */
static uint64_t walked_from(int *overflowed, nq_join_scratch_t *scratch, int n, int top_rows,
                            uint64_t columns, uint64_t start) {
  uint8_t weight[NQ_JOIN_MAX_N];
  memset(weight, 3, sizeof weight);
  bottom_walk_t walk;
  ck_assert_int_eq(nq__join_open_bucket(&walk, scratch, n, top_rows, columns, weight, 1), NQ_OK);
  walk.solutions = start;
  ck_assert_int_eq(nq__join_walk_parts(&walk, columns), NQ_OK);
  *overflowed = walk.overflowed;
  return walk.solutions;
}

/* A count one past 2^64 - 1 is caught, one short of it is not, whichever
 * way the walk sums: the last row alone (m = n - 1), the last two rows,
 * one-word tables, the fused rows and the long diagonals' twice counts
 * (the default cuts of 11 and 16), each bucket started where its own
 * count ends exactly at 2^64 - 1 or one past it. */
START_TEST(test_join_counts_past_64_bits_are_caught) {
  const struct {
    int n, top_rows, step;
  } cuts[] = {{12, 11, 1}, {12, 10, 3}, {11, 5, 2}, {16, 8, 61}};
  nq_join_scratch_t *scratch = NULL;
  ck_assert_int_eq(nq_join_scratch_create(&scratch), NQ_OK);
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    uint64_t *sets = NULL, count = 0, caught = 0;
    ck_assert_int_eq(nq__join_list_sets(&sets, &count, cuts[i].n, cuts[i].top_rows, NULL),
                     NQ_OK);
    for (uint64_t k = 0; k < count; k += (uint64_t)cuts[i].step) {
      int overflowed;
      const uint64_t solutions =
          walked_from(&overflowed, scratch, cuts[i].n, cuts[i].top_rows, sets[k], 0);
      ck_assert_int_eq(overflowed, 0);
      if (solutions == 0)
        continue;
      ck_assert_uint_eq(walked_from(&overflowed, scratch, cuts[i].n, cuts[i].top_rows, sets[k],
                                    UINT64_MAX - solutions),
                        UINT64_MAX);
      ck_assert_int_eq(overflowed, 0);
      walked_from(&overflowed, scratch, cuts[i].n, cuts[i].top_rows, sets[k],
                  UINT64_MAX - solutions + 1);
      ck_assert_msg(overflowed, "n=%d m=%d set %#llx: %llu solutions past 2^64 - 1 not caught",
                    cuts[i].n, cuts[i].top_rows, (unsigned long long)sets[k],
                    (unsigned long long)solutions);
      caught++;
    }
    ck_assert_uint_gt(caught, 0);
    free(sets);
  }
  nq_join_scratch_destroy(scratch);
  /* A weight that carries a small count past 2^64. */
  bottom_walk_t walk = {.solutions = ((uint64_t)1 << 63) + 5};
  nq__join_weigh_since(&walk, 5, 2);
  ck_assert_int_eq(walk.overflowed, 1);
  walk = (bottom_walk_t){.solutions = ((uint64_t)1 << 62) + 5};
  nq__join_weigh_since(&walk, 5, 2);
  ck_assert_int_eq(walk.overflowed, 0);
  ck_assert_uint_eq(walk.solutions, ((uint64_t)1 << 63) + 5);
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
  /* What the join cannot count: boards over 32, a cut off the board, and
   * what only the backtracker gives (a chosen walk, GPUs). */
  const nq_count_options_t refused[] = {{.n = 33, .method = NQ_COUNT_JOIN},
                                        {.n = 10, .method = NQ_COUNT_JOIN, .depth = 10},
                                        {.n = 10, .method = NQ_COUNT_JOIN, .walk = NQ_WALK_SCALAR},
                                        {.n = 10, .method = NQ_COUNT_JOIN, .gpu = 1},
                                        {.n = 10, .method = (nq_count_method_t)7}};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    nq_count_result_t result;
    nq_count_result_init(&result);
    ck_assert_int_eq(nq_count_run(&result, &refused[i], MPI_COMM_WORLD), NQ_EINVAL);
    nq_count_result_clear(&result);
  }
}
END_TEST

/* With --ranks (check_join_3ranks), only the tests whose counts go through
 * the run engine over the ranks: the others count inside one process, the
 * same on each rank, and check_join runs them once. */
static Suite *join_suite(int argc, char **argv) {
  Suite *s = suite_create("join");
  TCase *tc = support_tcase("join");
  tcase_set_timeout(tc, 300);
  suite_add_tcase(s, tc);
  tcase_add_loop_test(tc, test_join_count_known, 0, 16);
  tcase_add_test(tc, test_join_count_every_cut);
  tcase_add_test(tc, test_join_stops_on_request);
  tcase_add_test(tc, test_join_refuses_bad_arguments);
  if (argc > 1 && strcmp(argv[1], "--ranks") == 0)
    return s;
  tcase_add_loop_test(tc, test_join_bucket_matches_brute_force, 2, BRUTE_MAX_N + 1);
  tcase_add_loop_test(tc, test_join_long_diagonal_rule_by_bucket, 8, 17);
  tcase_add_test(tc, test_join_units_are_listed_in_order);
  tcase_add_test(tc, test_join_unit_is_abandoned_on_cancel);
  tcase_add_test(tc, test_join_units_walk_the_half_with_fewer_tops);
  tcase_add_test(tc, test_join_middle_row_units_take_the_top_with_fewer_tops);
  tcase_add_test(tc, test_join_listing_hears_a_stop);
  tcase_add_test(tc, test_join_shuffle_is_fixed_and_hears_a_stop);
  tcase_add_test(tc, test_join_quarters_most_bytes_saturate);
  tcase_add_test(tc, test_join_unit_order_is_that_of_its_scheme);
  tcase_add_test(tc, test_join_sampled_sets_are_unbiased);
  tcase_add_test(tc, test_join_parts_keep_the_limit);
  tcase_add_test(tc, test_join_parts_keep_the_limit_at_every_repack_depth);
  tcase_add_test(tc, test_join_parts_keep_their_cap);
  tcase_add_test(tc, test_join_quarters_keep_the_limit_on_large_boards);
  tcase_add_test(tc, test_join_group_ranks_follow_the_sets_order);
  tcase_add_test(tc, test_join_memory_for_the_fastest_parts);
  tcase_add_test(tc, test_join_narrow_words_at_their_bound);
  tcase_add_test(tc, test_join_counts_past_64_bits_are_caught);
  return s;
}

int main(int argc, char **argv) { return support_main(argc, argv, join_suite); }
