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

typedef struct unit_list {
  size_t count;
  nq_unit_t *units;
} unit_list_t;

static unit_list_t list_units(int n, int depth) {
  nq_unit_gen_t *gen = NULL;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  unit_list_t list = {0, NULL};
  size_t capacity = 0;
  nq_unit_t unit;
  while (nq_unit_gen_next(gen, &unit) > 0) {
    if (list.count == capacity) {
      capacity = capacity ? 2 * capacity : 64;
      list.units = realloc(list.units, capacity * sizeof *list.units);
      ck_assert_ptr_nonnull(list.units);
    }
    list.units[list.count++] = unit;
  }
  nq_unit_gen_destroy(gen);
  return list;
}

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

static uint32_t brute_border_stabilizer(int n, brute_border_t border) {
  uint32_t stabilizer = 0;
  for (int sym = 0; sym < NQ_SYM_COUNT; sym++) {
    brute_border_t image = brute_border_image(n, border, sym);
    if (memcmp(&image, &border, sizeof border) == 0)
      stabilizer |= 1u << sym;
  }
  return stabilizer;
}

static size_t border_code(int n, brute_border_t b) {
  return (((size_t)b.top * (size_t)n + (size_t)b.bottom) * (size_t)n + (size_t)b.left) *
             (size_t)n +
         (size_t)b.right;
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
        size_t code = border_code(n, brute_border_image(n, canonical, sym));
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
          size_t code = border_code(n, b);
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

START_TEST(test_frame_is_valid_matches_brute_force) {
  int n = _i;
  for (int top = 0; top < n; top++)
    for (int bottom = 0; bottom < n; bottom++)
      for (int left = 0; left < n; left++)
        for (int right = 0; right < n; right++) {
          nq_frame_t frame = {.kind = NQ_FRAME_BORDER,
                              .top = (uint8_t)top,
                              .bottom = (uint8_t)bottom,
                              .left = (uint8_t)left,
                              .right = (uint8_t)right};
          int expected = brute_border_is_valid(n, (brute_border_t){top, bottom, left, right});
          ck_assert_msg(!nq_frame_is_valid(n, &frame) == !expected,
                        "n %d: frame (%d,%d,%d,%d) valid %d, expected %d", n, top, bottom, left,
                        right, nq_frame_is_valid(n, &frame), expected);
        }
  nq_frame_t off_board = {.kind = NQ_FRAME_BORDER, .top = (uint8_t)n, .left = 1, .right = 2};
  ck_assert(!nq_frame_is_valid(n, &off_board));
}
END_TEST

/* classify: the stabilizer and weight are the orbit's, and exactly one
 * member of each orbit calls itself canonical. */
START_TEST(test_frame_classify_one_canonical_per_orbit) {
  int n = _i;
  for (int top = 0; top < n; top++)
    for (int bottom = 0; bottom < n; bottom++)
      for (int left = 0; left < n; left++)
        for (int right = 0; right < n; right++) {
          brute_border_t b = {top, bottom, left, right};
          if (!brute_border_is_valid(n, b))
            continue;
          uint32_t stabilizer = brute_border_stabilizer(n, b);
          nq_frame_t frame = {.kind = NQ_FRAME_BORDER,
                              .top = (uint8_t)top,
                              .bottom = (uint8_t)bottom,
                              .left = (uint8_t)left,
                              .right = (uint8_t)right};
          nq_frame_classify(n, &frame);
          ck_assert_uint_eq(frame.stabilizer, stabilizer);
          ck_assert_int_eq(frame.weight, NQ_SYM_COUNT / nq_symmetry_set_size(stabilizer));
          /* Canonical members among the distinct images. */
          size_t seen_codes[NQ_SYM_COUNT];
          int distinct = 0, canonical = 0;
          for (int sym = 0; sym < NQ_SYM_COUNT; sym++) {
            brute_border_t image = brute_border_image(n, b, sym);
            size_t code = border_code(n, image);
            int repeat = 0;
            for (int k = 0; k < distinct; k++)
              repeat |= seen_codes[k] == code;
            if (repeat)
              continue;
            seen_codes[distinct++] = code;
            nq_frame_t member = {.kind = NQ_FRAME_BORDER,
                                 .top = (uint8_t)image.top,
                                 .bottom = (uint8_t)image.bottom,
                                 .left = (uint8_t)image.left,
                                 .right = (uint8_t)image.right};
            canonical += nq_frame_classify(n, &member);
          }
          ck_assert_int_eq(distinct, frame.weight);
          ck_assert_msg(canonical == 1, "n %d: orbit of (%d,%d,%d,%d) has %d canonical members",
                        n, top, bottom, left, right, canonical);
        }
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

static void assert_same_unit(const nq_unit_t *a, const nq_unit_t *b) {
  ck_assert_uint_eq(a->id, b->id);
  ck_assert_int_eq(a->frame.kind, b->frame.kind);
  ck_assert_int_eq(a->frame.top, b->frame.top);
  ck_assert_int_eq(a->frame.bottom, b->frame.bottom);
  ck_assert_int_eq(a->frame.left, b->frame.left);
  ck_assert_int_eq(a->frame.right, b->frame.right);
  ck_assert_int_eq(a->frame.weight, b->frame.weight);
  ck_assert_int_eq(a->frame.stabilizer, b->frame.stabilizer);
  ck_assert_int_eq(a->depth, b->depth);
  ck_assert_mem_eq(a->prefix, b->prefix, a->depth);
}

/* Two generators for the same n, stepped in turn, give the same units:
 * ids are stable and generators share no state. */
START_TEST(test_units_ids_are_stable) {
  int n = _i;
  nq_unit_gen_t *first = NULL, *second = NULL;
  ck_assert_int_eq(nq_unit_gen_create(&first, n, 0), NQ_OK);
  ck_assert_int_eq(nq_unit_gen_create(&second, n, 0), NQ_OK);
  nq_unit_t a, b;
  uint64_t count = 0;
  for (;;) {
    int more_a = nq_unit_gen_next(first, &a), more_b = nq_unit_gen_next(second, &b);
    ck_assert_int_eq(more_a, more_b);
    if (!more_a)
      break;
    assert_same_unit(&a, &b);
    count++;
  }
  nq_unit_gen_destroy(first);
  nq_unit_gen_destroy(second);
  /* A third, run alone afterwards, agrees with the first pair. */
  unit_list_t list = list_units(n, 0);
  ck_assert_uint_eq(list.count, count);
  free(list.units);
}
END_TEST

START_TEST(test_units_depth_zero_means_default_depth) {
  int n = _i;
  int depth = nq_units_depth(n), first, last;
  accepted_depths(n, &first, &last);
  ck_assert_int_ge(depth, first);
  ck_assert_int_le(depth, last);
  if (n > 15 || depth == 0)
    return; /* listing every unit of a big board adds time, not coverage */
  unit_list_t by_default = list_units(n, 0), explicit_depth = list_units(n, depth);
  ck_assert_uint_eq(by_default.count, explicit_depth.count);
  for (size_t u = 0; u < by_default.count; u++) {
    ck_assert_int_eq(by_default.units[u].depth, depth);
    assert_same_unit(&by_default.units[u], &explicit_depth.units[u]);
  }
  free(by_default.units);
  free(explicit_depth.units);
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
  TCase *frames = tcase_create("frames");
  tcase_add_loop_test(frames, test_frames_weights_sum_to_all_border_placements, FRAMES_FIRST_N,
                      FRAMES_LAST_N + 1);
  tcase_add_loop_test(frames, test_frames_are_one_per_orbit, FRAMES_FIRST_N, FRAMES_LAST_N + 1);
  tcase_add_loop_test(frames, test_sides_frames_bundle_asymmetric_frames, FRAMES_FIRST_N, 17);
  tcase_add_loop_test(frames, test_frame_is_valid_matches_brute_force, FRAMES_FIRST_N, 10);
  tcase_add_loop_test(frames, test_frame_classify_one_canonical_per_orbit, FRAMES_FIRST_N, 10);
  suite_add_tcase(suite, frames);
  TCase *units = tcase_create("units");
  tcase_add_loop_test(units, test_units_partition_solutions, PARTITION_FIRST_N,
                      PARTITION_LAST_N + 1);
  tcase_add_loop_test(units, test_units_carry_their_depth_and_frame, 0, 11);
  tcase_add_loop_test(units, test_units_ids_are_consecutive, 0, 14);
  tcase_add_loop_test(units, test_units_ids_are_stable, 0, 14);
  tcase_add_loop_test(units, test_units_depth_zero_means_default_depth, 0, NQ_MAX_N + 1);
  tcase_add_test(units, test_units_first_unit_of_largest_board);
  tcase_add_loop_test(units, test_unit_gen_create_rejects_invalid_arguments, 0,
                      (int)(sizeof bad_requests / sizeof bad_requests[0]));
  suite_add_tcase(suite, units);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, units_suite); }
