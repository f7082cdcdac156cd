/* The lane walk (src/search/lanes.c) against a plain recursive count: the same
 * completions and the same node count, on searches made up to stress it
 * (boards up to 32 wide, queens in column 31, gaps of 1 to 3 rows, stray
 * diagonal bits above the board) and on every unit of real boards.  On a
 * CPU without AVX-512 only the limits are checked, and ctest reports the
 * suite as skipped. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "nqueens/error.h"
#include "nqueens/kernel.h"
#include "nqueens/units.h"
#include "support.h"

typedef struct reference {
  uint64_t solutions, nodes;
} reference_t;

/* Steps i..walk_rows - 1 one by one, as the scalar walk counts nodes:
 * every queen placed above the last two walked rows. */
static void reference_walk(reference_t *out, const nq_search_t *search, int i, uint64_t cols,
                           uint64_t diag_left, uint64_t diag_right) {
  uint64_t free_squares = search->walk_mask[i] & ~(cols | diag_left | diag_right);
  if (i == search->walk_rows - 1) {
    out->solutions += (uint64_t)__builtin_popcountll(free_squares);
    return;
  }
  int gap = search->walk_gap[i];
  for (; free_squares; free_squares &= free_squares - 1) {
    uint64_t bit = free_squares & (~free_squares + 1);
    if (i < search->walk_rows - 2)
      out->nodes++;
    reference_walk(out, search, i + 1, cols | bit, (diag_left | bit) << gap,
                   (diag_right | bit) >> gap);
  }
}

/* A small deterministic generator, so failures can be replayed. */
static uint64_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 17 ^ *state << 23 >> 11;
}

/* About one bit in eight set. */
static uint64_t sparse_random(uint64_t *state) {
  return next_random(state) & next_random(state) & next_random(state);
}

static int random_below(uint64_t *state, int bound) { return (int)(next_random(state) % (uint64_t)bound); }

/* `count` distinct columns of an n-wide board, always including column
 * n - 1 when `edge` is set (the highest bit the lanes must undo exactly). */
static uint64_t random_mask(uint64_t *state, int n, int count, int edge) {
  uint64_t mask = edge ? (uint64_t)1 << (n - 1) : 0;
  while (__builtin_popcountll(mask) < count)
    mask |= (uint64_t)1 << random_below(state, n);
  return mask;
}

/* A made-up search: `rows` walked rows 1 to 3 board rows apart, each
 * allowing a few columns, on an n-wide board. */
static void make_search(nq_search_t *search, uint64_t *state, int n, int rows) {
  memset(search, 0, sizeof *search);
  search->n = n;
  search->walk_rows = rows;
  int row = random_below(state, 3);
  for (int i = 0; i < rows; i++) {
    search->walk_row[i] = row;
    search->walk_gap[i] = 1 + random_below(state, 3);
    int width = 3 + random_below(state, n < 10 ? n - 2 : 8);
    search->walk_mask[i] = random_mask(state, n, width, i % 3 == 0);
    row += search->walk_gap[i];
  }
  search->walk_gap[rows - 1] = 0;
  search->last_row = search->walk_row[rows - 1];
}

static void check_lanes_against_reference(const nq_search_t *search, int start_step, uint64_t cols,
                                          uint64_t diag_left, uint64_t diag_right,
                                          const char *what) {
  reference_t expected = {0, 0};
  reference_walk(&expected, search, start_step, cols, diag_left, diag_right);
  nq_unit_result_t result;
  memset(&result, 0, sizeof result);
  int rc = nq__lanes_count(&result, search, start_step, cols, diag_left, diag_right);
  ck_assert_msg(rc == NQ_OK, "%s: %s", what, nq_strerror(rc));
  ck_assert_msg(result.solutions == expected.solutions && result.nodes == expected.nodes,
                "%s: %llu solutions / %llu nodes, reference %llu / %llu", what,
                (unsigned long long)result.solutions, (unsigned long long)result.nodes,
                (unsigned long long)expected.solutions, (unsigned long long)expected.nodes);
}

/* Attacks from queens above on an n-wide board: sparse on the board, and
 * beyond its edge the left diagonals carry `stray` bits, as a real walk
 * leaves them there. */
static void check_random_attacks(const nq_search_t *search, uint64_t *state, int start_step,
                                 uint64_t stray, const char *what) {
  uint64_t board = (1ull << search->n) - 1;
  uint64_t cols = sparse_random(state) & board;
  uint64_t diag_left = (sparse_random(state) & board) | (stray & ~board);
  uint64_t diag_right = sparse_random(state) & board;
  check_lanes_against_reference(search, start_step, cols, diag_left, diag_right, what);
}

START_TEST(test_lanes_match_reference_on_made_up_searches) {
  uint64_t state = (uint64_t)(unsigned)_i;
  state ^= UINT64_C(0x9e3779b97f4a7c15);
  for (int trial = 0; trial < 40; trial++) {
    int n = 5 + random_below(&state, NQ_LANES_MAX_N - 4);
    int rows = 4 + random_below(&state, (n - 2) / 3 < 11 ? (n - 2) / 3 + 1 : 11);
    nq_search_t search;
    make_search(&search, &state, n, rows);
    int start_step = random_below(&state, rows - 3);
    if (!nq__lanes_fit(&search, start_step))
      continue;
    char what[96];
    snprintf(what, sizeof what, "seed %d trial %d (n %d, %d rows, start step %d)", _i, trial, n, rows,
             start_step);
    check_random_attacks(&search, &state, start_step, sparse_random(&state), what);
  }
}
END_TEST

/* The lanes' rows spanning 29 to 32 board rows, the most nq__lanes_fit
 * allows (a limit of 40 gave wrong counts here), on boards 28 to 32 wide
 * with dense stray bits above the board in the left diagonals. */
START_TEST(test_lanes_match_reference_on_widest_spans) {
  uint64_t state = (uint64_t)(unsigned)_i;
  state ^= UINT64_C(0x243f6a8885a308d3);
  for (int trial = 0; trial < 40; trial++) {
    int n = 28 + random_below(&state, 5), span = 29 + random_below(&state, 4);
    nq_search_t search;
    make_search(&search, &state, n, 10);
    /* Walked rows 1..6 are the lanes' rows when the unit starts at 0 or 1:
     * spread `span` over their five gaps. */
    int spread = span;
    for (int i = 1; i <= 5; i++) {
      search.walk_gap[i] = i < 5 ? 5 + random_below(&state, 3) : spread;
      spread -= search.walk_gap[i];
    }
    ck_assert_int_ge(search.walk_gap[5], 1);
    for (int i = 1; i < 10; i++)
      search.walk_row[i] = search.walk_row[i - 1] + search.walk_gap[i - 1];
    search.last_row = search.walk_row[9];
    int start_step = random_below(&state, 2);
    ck_assert(nq__lanes_fit(&search, start_step));
    char what[96];
    snprintf(what, sizeof what, "seed %d trial %d (n %d, span %d, start step %d)", _i, trial, n, span,
             start_step);
    check_random_attacks(&search, &state, start_step, next_random(&state), what);
  }
}
END_TEST

/* Wide open rows: many subtrees, so every lane is refilled many times and
 * the buffer of hand-overs fills and empties within one call. */
START_TEST(test_lanes_match_reference_on_open_rows) {
  int n = 9 + _i;
  nq_search_t search;
  memset(&search, 0, sizeof search);
  search.n = n;
  search.walk_rows = n - 2;
  for (int i = 0; i < search.walk_rows; i++) {
    search.walk_row[i] = 1 + i;
    search.walk_gap[i] = 1;
    search.walk_mask[i] = ((1ull << n) - 1) & ~1ull & ~(1ull << (n - 1));
  }
  search.last_row = search.walk_row[search.walk_rows - 1];
  char what[64];
  snprintf(what, sizeof what, "open rows, n %d", n);
  check_lanes_against_reference(&search, 0, 0, 0, 0, what);
}
END_TEST

/* Every unit of real boards through the kernel's public entry, counted by
 * a scalar searcher and by a lane searcher told to take even the small
 * units the lanes normally leave to the scalar walk. */
START_TEST(test_lanes_match_scalar_walk_on_every_unit) {
  int n = _i;
  nq_search_t *scalar_search = NULL, *lane_search = NULL;
  ck_assert_int_eq(nq_kernel_create(&scalar_search, n, NQ_WALK_SCALAR), NQ_OK);
  ck_assert_int_eq(nq_kernel_create(&lane_search, n, NQ_WALK_AVX512), NQ_OK);
  lane_search->lanes_min_rows = 0;
  for (int depth = 1; depth <= 3; depth++) {
    nq_unit_gen_t *gen = NULL;
    nq_unit_t unit;
    ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
    while (nq_unit_gen_next(gen, &unit) > 0) {
      nq_unit_result_t scalar, lanes;
      ck_assert_int_eq(nq_kernel_solve(&scalar, scalar_search, &unit, 0), NQ_OK);
      ck_assert_int_eq(nq_kernel_solve(&lanes, lane_search, &unit, 0), NQ_OK);
      ck_assert_msg(lanes.solutions == scalar.solutions && lanes.nodes == scalar.nodes,
                    "n %d depth %d unit %llu: lanes %llu / %llu nodes, scalar %llu / %llu", n,
                    depth, (unsigned long long)unit.id, (unsigned long long)lanes.solutions,
                    (unsigned long long)lanes.nodes, (unsigned long long)scalar.solutions,
                    (unsigned long long)scalar.nodes);
    }
    nq_unit_gen_destroy(gen);
  }
  nq_kernel_destroy(scalar_search);
  nq_kernel_destroy(lane_search);
}
END_TEST

/* Counts the cancel hook's calls (src/search/search.h); says yes when `yes`. */
typedef struct cancel_probe {
  unsigned calls;
  int yes;
} cancel_probe_t;

static int probe_cancelled(void *context) {
  cancel_probe_t *probe = context;
  probe->calls++;
  return probe->yes;
}

/* The lanes ask the hook before each chunk of roots: a hook that never
 * says yes changes no count; one that says yes at once abandons the unit
 * (NQ_ESTOPPED) without asking again, and the searcher then counts the
 * unit as the scalar walk does. */
START_TEST(test_lanes_abandon_units_when_cancelled) {
  int n = _i;
  nq_search_t *scalar_search = NULL, *lane_search = NULL;
  ck_assert_int_eq(nq_kernel_create(&scalar_search, n, NQ_WALK_SCALAR), NQ_OK);
  ck_assert_int_eq(nq_kernel_create(&lane_search, n, NQ_WALK_AVX512), NQ_OK);
  lane_search->lanes_min_rows = 0;
  nq_unit_gen_t *gen = NULL;
  nq_unit_t unit;
  unsigned abandoned = 0;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, 1), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0) {
    nq_unit_result_t scalar, lanes;
    ck_assert_int_eq(nq_kernel_solve(&scalar, scalar_search, &unit, 0), NQ_OK);
    cancel_probe_t never = {0, 0}, at_once = {0, 1};
    nq__kernel_set_cancel(lane_search, probe_cancelled, &never);
    ck_assert_int_eq(nq_kernel_solve(&lanes, lane_search, &unit, 0), NQ_OK);
    ck_assert_msg(lanes.solutions == scalar.solutions && lanes.nodes == scalar.nodes,
                  "n %d unit %llu: the hook changed the count", n, (unsigned long long)unit.id);
    nq__kernel_set_cancel(lane_search, probe_cancelled, &at_once);
    int rc = nq_kernel_solve(&lanes, lane_search, &unit, 0);
    ck_assert_int_eq(rc, at_once.calls ? NQ_ESTOPPED : NQ_OK);
    ck_assert_uint_le(at_once.calls, 1);
    abandoned += rc == NQ_ESTOPPED;
    nq__kernel_set_cancel(lane_search, NULL, NULL);
    ck_assert_int_eq(nq_kernel_solve(&lanes, lane_search, &unit, 0), NQ_OK);
    ck_assert_msg(lanes.solutions == scalar.solutions && lanes.nodes == scalar.nodes,
                  "n %d unit %llu: miscounted after being abandoned", n,
                  (unsigned long long)unit.id);
  }
  ck_assert_uint_gt(abandoned, 0);
  nq_unit_gen_destroy(gen);
  nq_kernel_destroy(scalar_search);
  nq_kernel_destroy(lane_search);
}
END_TEST

/* Where no branch reaches the lanes' rows, the search for roots asks the
 * hook every so many nodes as well, as the scalar walk does (before, it
 * asked once, at the start, and ran the unit out). */
START_TEST(test_lanes_asked_far_above_their_rows) {
  enum { N = NQ_LANES_MAX_N, FREE_COLUMNS = 15 }; /* 7e6 nodes */
  nq_search_t *search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, N, NQ_WALK_AVX512), NQ_OK);
  search->lanes_min_rows = 0;
  /* The lanes start LANE_LEVELS (5) above the hand-over, walk_rows - 4. */
  support_assert_asked_short_of_the_bottom(search, N, FREE_COLUMNS, 4 + 5);
  nq_kernel_destroy(search);
}
END_TEST

START_TEST(test_lanes_fit_limits) {
  nq_search_t search;
  memset(&search, 0, sizeof search);
  search.n = NQ_LANES_MAX_N + 1;
  search.walk_rows = 10;
  for (int i = 0; i < 10; i++) {
    search.walk_row[i] = i;
    search.walk_gap[i] = 1;
  }
  ck_assert_int_eq(nq__lanes_fit(&search, 0), 0);
  search.n = NQ_LANES_MAX_N;
  ck_assert_int_eq(nq__lanes_fit(&search, 6), 1);
  ck_assert_int_eq(nq__lanes_fit(&search, 7), 0); /* three walked rows left */
  ck_assert_int_eq(nq__lanes_fit(&search, -1), 0);
  /* Rows more than 32 apart inside the lanes would shift board bits out. */
  search.walk_row[6] = 40;
  search.walk_gap[5] = 40 - search.walk_row[5];
  ck_assert_int_eq(nq__lanes_fit(&search, 0), 0);
}
END_TEST

START_TEST(test_walk_selection) {
  nq_search_t *search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, 40, NQ_WALK_AUTO), NQ_OK);
  ck_assert_int_eq(nq_kernel_walk(search), NQ_WALK_SCALAR);
  nq_kernel_destroy(search);
  search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, 40, NQ_WALK_AVX512), NQ_ENOTSUP);
  ck_assert_ptr_null(search);
  ck_assert_int_eq(nq_walk_supported(NQ_WALK_AVX512, 33), 0);
  ck_assert_int_eq(nq_walk_supported(NQ_WALK_SCALAR, 64), 1);
  ck_assert_int_eq(nq_walk_supported((nq_walk_t)7, 8), 0);
  ck_assert_ptr_null(nq_walk_name((nq_walk_t)7));
  nq_walk_t best = nq__lanes_supported() ? NQ_WALK_AVX512 : NQ_WALK_SCALAR;
  ck_assert_int_eq(nq_kernel_create(&search, 16, NQ_WALK_AUTO), NQ_OK);
  ck_assert_int_eq(nq_kernel_walk(search), best);
  nq_kernel_destroy(search);
  ck_assert_int_eq(nq_walk_resolve(NQ_WALK_AUTO, 16), best);
  ck_assert_int_eq(nq_walk_resolve(NQ_WALK_AUTO, 33), NQ_WALK_SCALAR);
  ck_assert_int_eq(nq_kernel_create(&search, 16, NQ_WALK_SCALAR), NQ_OK);
  ck_assert_int_eq(nq_kernel_walk(search), NQ_WALK_SCALAR);
  nq_kernel_destroy(search);
  search = NULL;
  ck_assert_int_eq(nq_kernel_create(&search, 16, NQ_WALK_AVX512),
                   nq__lanes_supported() ? NQ_OK : NQ_ENOTSUP);
  nq_kernel_destroy(search);
}
END_TEST

static Suite *lanes_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("lanes");
  TCase *limits = support_tcase("limits");
  tcase_add_test(limits, test_lanes_fit_limits);
  tcase_add_test(limits, test_walk_selection);
  suite_add_tcase(suite, limits);
  if (!nq__lanes_supported()) {
    if (support_rank() == 0)
      fprintf(stderr, "check_lanes: lane counts skipped: lane walk not built, or this CPU "
                      "lacks AVX-512 F/CD/VPOPCNTDQ\n");
    return suite;
  }
  TCase *counts = support_tcase("counts");
  tcase_add_loop_test(counts, test_lanes_match_reference_on_made_up_searches, 0, 25);
  tcase_add_loop_test(counts, test_lanes_match_reference_on_widest_spans, 0, 10);
  tcase_add_loop_test(counts, test_lanes_match_reference_on_open_rows, 0, 5);
  tcase_add_loop_test(counts, test_lanes_match_scalar_walk_on_every_unit, 8, 16);
  tcase_add_loop_test(counts, test_lanes_abandon_units_when_cancelled, 12, 15);
  tcase_add_test(counts, test_lanes_asked_far_above_their_rows);
  suite_add_tcase(suite, counts);
  return suite;
}

/* ctest shows the suite as skipped (status 77) where the CPU cannot run
 * the lanes, rather than as a pass that never counted anything. */
int main(int argc, char **argv) {
  int status = support_main(argc, argv, lanes_suite);
  return status == 0 && !nq__lanes_supported() ? 77 : status;
}
