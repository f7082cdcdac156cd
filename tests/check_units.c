/* The units module: frames (the four border queens) and the work units
 * built on them must cover every solution exactly once, counting each
 * canonical frame's orbit through its weight. */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "known_counts.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"
#include "nqueens/units.h"
#include "support.h"

/* ---- helpers ---------------------------------------------------------- */

typedef support_units_t unit_list_t;

static unit_list_t list_units(int n, int depth) { return support_all_units(n, depth); }

static brute_border_t border_of_frame(const nq_frame_t *frame, int bottom) {
  return (brute_border_t){frame->top, bottom, frame->left, frame->right};
}

/* The BORDER placements a frame stands for (one, or a SIDES frame's set
 * of bottoms), each for `frame->weight` placements of its orbit. */
static int expand_frame(int n, const nq_frame_t *frame, brute_border_t *out) {
  if (frame->kind == NQ_FRAME_BORDER) {
    out[0] = border_of_frame(frame, frame->bottom);
    return 1;
  }
  ck_assert_int_eq(frame->kind, NQ_FRAME_SIDES);
  uint64_t bottoms = nq_frame_sides_bottoms(n, frame);
  int count = 0;
  for (int bottom = 0; bottom < n; bottom++)
    if (bottoms >> bottom & 1u)
      out[count++] = border_of_frame(frame, bottom);
  return count;
}


/* ---- frames ----------------------------------------------------------- */

enum { FRAMES_FIRST_N = NQ_FRAME_MIN_N, FRAMES_LAST_N = 10 };

/* The check: the canonical frames' weights add up to the number
 * of all valid border placements, found here by trying all n^4. */
START_TEST(test_frames_weights_sum_to_all_border_placements) {
  int n = _i;
  uint64_t placements = 0, weighted = 0;
  for (int top = 0; top < n; top++)
    for (int bottom = 0; bottom < n; bottom++)
      for (int left = 0; left < n; left++)
        for (int right = 0; right < n; right++)
          placements += (uint64_t)brute_border_is_valid(n, (brute_border_t){top, bottom, left, right});
  unit_list_t list = list_units(n, 1); /* depth 1: one unit per frame */
  brute_border_t expanded[64];
  for (size_t i = 0; i < list.count; i++) {
    const nq_frame_t *frame = &list.units[i].frame;
    ck_assert_int_ne(frame->kind, NQ_FRAME_OPEN);
    if (i > 0)
      ck_assert_msg(memcmp(frame, &list.units[i - 1].frame, sizeof *frame) != 0,
                    "n %d: units %zu and %zu repeat a frame at depth 1", n, i - 1, i);
    weighted += (uint64_t)frame->weight * (uint64_t)expand_frame(n, frame, expanded);
  }
  ck_assert_uint_gt(placements, 0);
  ck_assert_uint_eq(weighted, placements);
  free(list.units);
}
END_TEST

/* Every valid placement P is g(C) for exactly 8/weight(C) pairs (g, C)
 * of a symmetry and a listed canonical frame: the listed frames are one
 * per orbit and their weights are the orbit sizes. */
START_TEST(test_frames_are_one_per_orbit) {
  int n = _i;
  size_t codes = (size_t)n * (size_t)n * (size_t)n * (size_t)n;
  int *hits = calloc(codes, sizeof *hits), *weight_of = calloc(codes, sizeof *weight_of);
  ck_assert_ptr_nonnull(hits);
  ck_assert_ptr_nonnull(weight_of);
  unit_list_t list = list_units(n, 1);
  brute_border_t expanded[64];
  for (size_t i = 0; i < list.count; i++) {
    const nq_frame_t *frame = &list.units[i].frame;
    int count = expand_frame(n, frame, expanded);
    ck_assert_int_gt(count, 0);
    for (int e = 0; e < count; e++) {
      brute_border_t canonical = expanded[e];
      ck_assert_msg(brute_border_is_valid(n, canonical), "n %d: unit %zu has an invalid frame",
                    n, i);
      uint32_t stabilizer = brute_border_stabilizer(n, canonical);
      ck_assert_int_eq(frame->weight * nq_symmetry_set_size(stabilizer), NQ_SYM_COUNT);
      if (frame->kind == NQ_FRAME_BORDER)
        ck_assert_uint_eq(frame->stabilizer, stabilizer);
      for (int sym = 0; sym < NQ_SYM_COUNT; sym++) {
        size_t code = brute_border_code(n, brute_border_image(n, canonical, sym));
        hits[code]++;
        ck_assert(weight_of[code] == 0 || weight_of[code] == frame->weight);
        weight_of[code] = frame->weight;
      }
    }
  }
  for (int top = 0; top < n; top++)
    for (int bottom = 0; bottom < n; bottom++)
      for (int left = 0; left < n; left++)
        for (int right = 0; right < n; right++) {
          brute_border_t b = {top, bottom, left, right};
          size_t code = brute_border_code(n, b);
          if (!brute_border_is_valid(n, b)) {
            ck_assert_int_eq(hits[code], 0);
            continue;
          }
          ck_assert_msg(hits[code] > 0 && hits[code] * weight_of[code] == NQ_SYM_COUNT,
                        "n %d: placement (%d,%d,%d,%d) reached %d times, weight %d", n, top,
                        bottom, left, right, hits[code], weight_of[code]);
        }
  free(list.units);
  free(hits);
  free(weight_of);
}
END_TEST

START_TEST(test_sides_frames_bundle_asymmetric_frames) {
  int n = _i;
  unit_list_t list = list_units(n, 1);
  for (size_t i = 0; i < list.count; i++) {
    const nq_frame_t *frame = &list.units[i].frame;
    if (frame->kind != NQ_FRAME_SIDES)
      continue;
    ck_assert_int_eq(frame->bottom, 0);
    ck_assert_int_eq(frame->weight, NQ_SYM_COUNT);
    ck_assert_uint_eq(frame->stabilizer, 1u << NQ_SYM_IDENTITY);
    ck_assert_uint_ne(nq_frame_sides_bottoms(n, frame), 0);
    ck_assert(nq_frame_is_valid(n, frame));
  }
  free(list.units);
}
END_TEST

/* ---- units ------------------------------------------------------------ */

enum { PARTITION_FIRST_N = 1, PARTITION_LAST_N = 10 };

/* Every solution s of the board, seen through each symmetry g, lies in
 * exactly one unit u per g whose frame is s's canonical frame: the pairs
 * (g, u) with g(s) in u number 8/weight(u), all with the same weight.
 * Open frames (n < 5) have weight 1: 8 pairs. */
static void check_partition(int n, int depth) {
  const brute_solutions_t *solutions = brute_solutions(n);
  unit_list_t list = list_units(n, depth);
  uint64_t *bottoms = malloc((list.count + 1) * sizeof *bottoms);
  ck_assert_ptr_nonnull(bottoms);
  for (size_t u = 0; u < list.count; u++)
    bottoms[u] = list.units[u].frame.kind == NQ_FRAME_SIDES
                     ? nq_frame_sides_bottoms(n, &list.units[u].frame)
                     : 0;
  for (size_t i = 0; i < solutions->count; i++) {
    const uint8_t *solution = brute_solution(solutions, i);
    int hits = 0, weight = 0;
    for (int sym = 0; sym < NQ_SYM_COUNT; sym++) {
      uint8_t image[BRUTE_MAX_N];
      brute_image(image, solution, n, sym);
      for (size_t u = 0; u < list.count; u++) {
        if (!support_unit_holds(n, &list.units[u], bottoms[u], image))
          continue;
        hits++;
        ck_assert_msg(weight == 0 || weight == list.units[u].frame.weight,
                      "n %d depth %d: solution %zu hits units of weights %d and %d", n, depth,
                      i, weight, list.units[u].frame.weight);
        weight = list.units[u].frame.weight;
      }
    }
    ck_assert_msg(hits > 0 && hits * weight == NQ_SYM_COUNT,
                  "n %d depth %d: solution %zu lies in %d (symmetry, unit) pairs of weight %d",
                  n, depth, i, hits, weight);
  }
  free(bottoms);
  free(list.units);
}

/* The depths nq_unit_gen_create accepts for n, as {first, last}. */
static void accepted_depths(int n, int *first, int *last) {
  int deepest = n < NQ_FRAME_MIN_N ? n : n - 1;
  *first = n < NQ_FRAME_MIN_N ? 0 : 1;
  *last = deepest < NQ_UNIT_MAX_DEPTH ? deepest : NQ_UNIT_MAX_DEPTH;
}

START_TEST(test_units_partition_solutions) {
  int n = _i, first, last;
  accepted_depths(n, &first, &last);
  check_partition(n, 0); /* nq_units_depth(n) */
  for (int depth = first; depth <= last; depth++)
    if (depth <= 3 || depth == last) /* the deep middle ones add time, not coverage */
      check_partition(n, depth);
}
END_TEST

START_TEST(test_units_carry_their_depth_and_frame) {
  int n = _i, first, last;
  accepted_depths(n, &first, &last);
  for (int depth = first; depth <= last; depth++) {
    unit_list_t list = list_units(n, depth);
    for (size_t u = 0; u < list.count; u++) {
      const nq_unit_t *unit = &list.units[u];
      ck_assert_int_eq(unit->depth, depth);
      ck_assert_int_eq(unit->frame.kind == NQ_FRAME_OPEN, n < NQ_FRAME_MIN_N);
      ck_assert(unit->frame.weight == 1 || unit->frame.weight == 2 ||
                unit->frame.weight == 4 || unit->frame.weight == 8);
      if (unit->frame.kind != NQ_FRAME_OPEN)
        ck_assert_int_eq(unit->prefix[0], unit->frame.top);
      /* The prefix queens do not attack each other. */
      for (int a = 0; a < depth; a++) {
        ck_assert_int_lt(unit->prefix[a], n);
        for (int b = a + 1; b < depth; b++) {
          int gap = abs((int)unit->prefix[a] - (int)unit->prefix[b]);
          ck_assert_msg(gap != 0 && gap != b - a, "n %d depth %d unit %zu: rows %d, %d attack",
                        n, depth, u, a, b);
        }
      }
    }
    free(list.units);
  }
}
END_TEST

START_TEST(test_units_ids_are_consecutive) {
  int n = _i;
  unit_list_t list = list_units(n, 0);
  ck_assert_uint_gt(list.count, 0);
  for (size_t u = 0; u < list.count; u++)
    ck_assert_uint_eq(list.units[u].id, u);
  free(list.units);
}
END_TEST

/* ---- unit ids from the spec ------------------------------------------ */

/* The enumeration of docs/algorithm.md, section 2, written from the text
 * with the brute-force border helpers: the generator must list exactly
 * these units in exactly this order. */

typedef struct spec_queen {
  int row, col;
} spec_queen_t;

static int spec_attack(spec_queen_t a, spec_queen_t b) {
  return a.row == b.row || a.col == b.col || abs(a.row - b.row) == abs(a.col - b.col);
}

/* Section 1's canonical code: the smallest over the orbit. */
static uint64_t spec_code(int n, brute_border_t b) {
  uint64_t side = (uint64_t)n, last = side - 1;
  return (((last - (uint64_t)b.left) * side + (last - (uint64_t)b.top)) * side +
          (uint64_t)b.bottom) * side + (uint64_t)b.right;
}

static int spec_canonical(int n, brute_border_t b) {
  for (int sym = 1; sym < NQ_SYM_COUNT; sym++)
    if (spec_code(n, brute_border_image(n, b, sym)) < spec_code(n, b))
      return 0;
  return 1;
}

typedef struct spec_walk {
  int n, depth;
  nq_frame_t frame;
  spec_queen_t fixed[4]; /* the frame's queens that rows of the prefix must respect */
  int fixed_count;
  nq_unit_t *units;
  size_t count, capacity;
} spec_walk_t;

static int spec_row_queen(const spec_walk_t *w, int row) {
  for (int q = 0; q < w->fixed_count; q++)
    if (w->fixed[q].row == row)
      return w->fixed[q].col;
  return -1;
}

static int spec_square_free(const spec_walk_t *w, const uint8_t *prefix, int row, int col) {
  spec_queen_t here = {row, col};
  for (int r = 0; r < row; r++)
    if (spec_attack((spec_queen_t){r, prefix[r]}, here))
      return 0;
  for (int q = 0; q < w->fixed_count; q++) {
    spec_queen_t frame_queen = w->fixed[q];
    if ((frame_queen.row != row || frame_queen.col != col) && spec_attack(frame_queen, here))
      return 0;
  }
  return 1;
}

static void spec_emit(spec_walk_t *w, const uint8_t *prefix) {
  if (w->count == w->capacity) {
    w->capacity = w->capacity ? 2 * w->capacity : 256;
    w->units = realloc(w->units, w->capacity * sizeof *w->units);
    ck_assert_ptr_nonnull(w->units);
  }
  nq_unit_t *unit = &w->units[w->count];
  memset(unit, 0, sizeof *unit);
  unit->id = w->count++;
  unit->frame = w->frame;
  unit->depth = (uint8_t)w->depth;
  memcpy(unit->prefix, prefix, (size_t)w->depth);
}

/* Prefixes in lexicographic order: rows from `row` on, lowest column
 * first; a row that holds a frame queen takes that queen. */
static void spec_prefixes(spec_walk_t *w, uint8_t *prefix, int row) {
  if (row == w->depth) {
    spec_emit(w, prefix);
    return;
  }
  int fixed_col = spec_row_queen(w, row);
  for (int col = 0; col < w->n; col++) {
    if ((fixed_col >= 0 && col != fixed_col) || !spec_square_free(w, prefix, row, col))
      continue;
    prefix[row] = (uint8_t)col;
    spec_prefixes(w, prefix, row + 1);
  }
}

static void spec_frame(spec_walk_t *w, nq_frame_t frame) {
  uint8_t prefix[NQ_UNIT_MAX_DEPTH] = {0};
  w->frame = frame;
  w->fixed_count = 0;
  if (frame.kind != NQ_FRAME_OPEN) {
    w->fixed[w->fixed_count++] = (spec_queen_t){0, frame.top};
    w->fixed[w->fixed_count++] = (spec_queen_t){frame.left, 0};
    w->fixed[w->fixed_count++] = (spec_queen_t){frame.right, w->n - 1};
  }
  if (frame.kind == NQ_FRAME_BORDER)
    w->fixed[w->fixed_count++] = (spec_queen_t){w->n - 1, frame.bottom};
  spec_prefixes(w, prefix, 0);
}

/* One triple (top, left, right): its SIDES frame, then its symmetric
 * canonical BORDER frames by increasing bottom. */
static void spec_triple(spec_walk_t *w, int top, int left, int right) {
  int n = w->n, has_asymmetric = 0;
  for (int bottom = 0; bottom < n; bottom++) {
    brute_border_t b = {top, bottom, left, right};
    if (brute_border_is_valid(n, b) && spec_canonical(n, b) &&
        brute_border_stabilizer(n, b) == 1u)
      has_asymmetric = 1;
  }
  if (has_asymmetric)
    spec_frame(w, (nq_frame_t){.kind = NQ_FRAME_SIDES, .top = (uint8_t)top,
                               .left = (uint8_t)left, .right = (uint8_t)right,
                               .weight = NQ_SYM_COUNT, .stabilizer = 1u});
  for (int bottom = 0; bottom < n; bottom++) {
    brute_border_t b = {top, bottom, left, right};
    if (!brute_border_is_valid(n, b) || !spec_canonical(n, b))
      continue;
    uint32_t stabilizer = brute_border_stabilizer(n, b);
    if (stabilizer == 1u)
      continue;
    spec_frame(w, (nq_frame_t){.kind = NQ_FRAME_BORDER, .top = (uint8_t)top,
                               .bottom = (uint8_t)bottom, .left = (uint8_t)left,
                               .right = (uint8_t)right,
                               .weight = (uint8_t)(NQ_SYM_COUNT / __builtin_popcount(stabilizer)),
                               .stabilizer = (uint8_t)stabilizer});
  }
}

static unit_list_t spec_units(int n, int depth) {
  spec_walk_t w = {.n = n, .depth = depth};
  if (n < NQ_FRAME_MIN_N) {
    spec_frame(&w, (nq_frame_t){.kind = NQ_FRAME_OPEN, .weight = 1, .stabilizer = NQ_SYM_ALL});
  } else {
    for (int top = 0; top < n; top++)
      for (int left = 0; left < n; left++)
        for (int right = 0; right < n; right++)
          spec_triple(&w, top, left, right);
  }
  return (unit_list_t){w.count, w.units};
}

static void assert_same_unit(const nq_unit_t *got, const nq_unit_t *expected, int n, int depth) {
  ck_assert_msg(memcmp(got, expected, sizeof *got) == 0,
                "n %d depth %d unit %llu: generator (kind %d top %d bottom %d left %d right %d "
                "weight %d prefix %d %d %d), spec (kind %d top %d bottom %d left %d right %d "
                "weight %d prefix %d %d %d)",
                n, depth, (unsigned long long)expected->id, got->frame.kind, got->frame.top,
                got->frame.bottom, got->frame.left, got->frame.right, got->frame.weight,
                got->prefix[0], got->prefix[1], got->prefix[2], expected->frame.kind,
                expected->frame.top, expected->frame.bottom, expected->frame.left,
                expected->frame.right, expected->frame.weight, expected->prefix[0],
                expected->prefix[1], expected->prefix[2]);
}

START_TEST(test_units_ids_follow_the_documented_order) {
  int n = _i, shallowest, deepest;
  accepted_depths(n, &shallowest, &deepest);
  if (deepest > 3)
    deepest = 3; /* deeper prefixes add time, not coverage of the order */
  for (int depth = shallowest; depth <= deepest; depth++) {
    unit_list_t got = list_units(n, depth), expected = spec_units(n, depth);
    ck_assert_msg(got.count == expected.count, "n %d depth %d: %zu units, spec %zu", n, depth,
                  got.count, expected.count);
    for (size_t u = 0; u < got.count; u++)
      assert_same_unit(&got.units[u], &expected.units[u], n, depth);
    free(got.units);
    free(expected.units);
  }
}
END_TEST

/* The default depths as docs/algorithm.md states them: unit ids depend
 * on them, so a change here renumbers every unit of those boards. */
static int documented_depth(int n) {
  if (n < NQ_FRAME_MIN_N)
    return 0;
  if (n <= 13)
    return 1;
  if (n <= 18)
    return 2;
  if (n <= 22)
    return 3;
  if (n <= 25)
    return 4;
  return 5;
}

/* Depth 0 asks for the default: the same units as the documented depth
 * given explicitly (the first thousand of each board, every board). */
START_TEST(test_units_depth_zero_means_default_depth) {
  int n = _i, depth = documented_depth(n);
  ck_assert_int_eq(nq_units_depth(n), depth);
  nq_unit_gen_t *by_default = NULL, *explicit_depth = NULL;
  ck_assert_int_eq(nq_unit_gen_create(&by_default, n, 0), NQ_OK);
  ck_assert_int_eq(nq_unit_gen_create(&explicit_depth, n, depth), NQ_OK);
  nq_unit_t a, b;
  for (int taken = 0; taken < 1000; taken++) {
    int more = nq_unit_gen_next(by_default, &a);
    ck_assert_int_eq(nq_unit_gen_next(explicit_depth, &b), more);
    if (!more)
      break;
    ck_assert_int_eq(a.depth, depth);
    assert_same_unit(&a, &b, n, depth);
  }
  nq_unit_gen_destroy(by_default);
  nq_unit_gen_destroy(explicit_depth);
}
END_TEST

/* The biggest board: the first unit is a valid frame with its top queen. */
START_TEST(test_units_first_unit_of_largest_board) {
  nq_unit_gen_t *gen = NULL;
  nq_unit_t unit;
  ck_assert_int_eq(nq_unit_gen_create(&gen, NQ_MAX_N, 0), NQ_OK);
  ck_assert_int_eq(nq_unit_gen_next(gen, &unit), 1);
  ck_assert_uint_eq(unit.id, 0);
  ck_assert_int_eq(unit.depth, nq_units_depth(NQ_MAX_N));
  ck_assert_int_eq(unit.prefix[0], unit.frame.top);
  brute_border_t expanded[NQ_MAX_N];
  int count = expand_frame(NQ_MAX_N, &unit.frame, expanded);
  ck_assert_int_gt(count, 0);
  for (int e = 0; e < count; e++)
    ck_assert(brute_border_is_valid(NQ_MAX_N, expanded[e]));
  nq_unit_gen_destroy(gen);
}
END_TEST

typedef struct bad_request {
  int n, depth;
} bad_request_t;

static const bad_request_t bad_requests[] = {
    {-1, 0},                                 /* n below the range */
    {NQ_MAX_N + 1, 0},                       /* n above it */
    {8, -1},                                 /* negative depth */
    {8, 8},                                  /* rows 0..7 pre-placed leave no search */
    {12, NQ_UNIT_MAX_DEPTH + 1},             /* deeper than a unit holds */
    {NQ_MAX_N, NQ_UNIT_MAX_DEPTH + 1},       /* the same at the largest board */
    {4, 5},                                  /* an open 4x4 board has 4 rows */
    {0, 1},                                  /* the empty board has none */
    {5, 5},                                  /* a 5x5 frame leaves rows 1..3 */
};

START_TEST(test_unit_gen_create_rejects_invalid_arguments) {
  const bad_request_t *bad = &bad_requests[_i];
  nq_unit_gen_t *gen = NULL;
  ck_assert_msg(nq_unit_gen_create(&gen, bad->n, bad->depth) == NQ_EINVAL,
                "n %d depth %d was accepted", bad->n, bad->depth);
}
END_TEST

static Suite *units_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("units");
  TCase *frames = support_tcase("frames");
  tcase_add_loop_test(frames, test_frames_weights_sum_to_all_border_placements, FRAMES_FIRST_N,
                      FRAMES_LAST_N + 1);
  tcase_add_loop_test(frames, test_frames_are_one_per_orbit, FRAMES_FIRST_N, FRAMES_LAST_N + 1);
  tcase_add_loop_test(frames, test_sides_frames_bundle_asymmetric_frames, FRAMES_FIRST_N, 17);
  suite_add_tcase(suite, frames);
  TCase *units = support_tcase("units");
  tcase_add_loop_test(units, test_units_partition_solutions, PARTITION_FIRST_N,
                      PARTITION_LAST_N + 1);
  tcase_add_loop_test(units, test_units_carry_their_depth_and_frame, 0, 11);
  tcase_add_loop_test(units, test_units_ids_are_consecutive, 0, 14);
  tcase_add_loop_test(units, test_units_ids_follow_the_documented_order, 0, 12);
  tcase_add_loop_test(units, test_units_depth_zero_means_default_depth, 0, NQ_MAX_N + 1);
  tcase_add_test(units, test_units_first_unit_of_largest_board);
  tcase_add_loop_test(units, test_unit_gen_create_rejects_invalid_arguments, 0,
                      (int)(sizeof bad_requests / sizeof bad_requests[0]));
  suite_add_tcase(suite, units);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, units_suite); }
