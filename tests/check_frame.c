/* The frame module: validity, canonical members, weights and stabilizers
 * against the brute-force border placements of support.c, the check a
 * searcher makes, and the rows a frame leaves to the search. */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "frame_rows.h"
#include "nqueens/error.h"
#include "nqueens/frame.h"
#include "nqueens/symmetry.h"
#include "support.h"

enum { FRAMES_FIRST_N = NQ_FRAME_MIN_N };


static nq_frame_t border_frame(brute_border_t b) {
  return (nq_frame_t){.kind = NQ_FRAME_BORDER,
                      .top = (uint8_t)b.top,
                      .bottom = (uint8_t)b.bottom,
                      .left = (uint8_t)b.left,
                      .right = (uint8_t)b.right};
}

START_TEST(test_frame_is_valid_matches_brute_force) {
  int n = _i;
  for (int top = 0; top < n; top++)
    for (int bottom = 0; bottom < n; bottom++)
      for (int left = 0; left < n; left++)
        for (int right = 0; right < n; right++) {
          const brute_border_t b = {top, bottom, left, right};
          nq_frame_t frame = border_frame(b);
          int expected = brute_border_is_valid(n, b);
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
          nq_frame_t frame = border_frame(b);
          nq_frame_classify(n, &frame);
          ck_assert_uint_eq(frame.stabilizer, stabilizer);
          ck_assert_int_eq(frame.weight, NQ_SYM_COUNT / nq_symmetry_set_size(stabilizer));
          /* Canonical members among the distinct images. */
          size_t seen_codes[NQ_SYM_COUNT];
          int distinct = 0, canonical = 0;
          for (int sym = 0; sym < NQ_SYM_COUNT; sym++) {
            brute_border_t image = brute_border_image(n, b, sym);
            size_t code = brute_border_code(n, image);
            int repeat = 0;
            for (int k = 0; k < distinct; k++)
              repeat |= seen_codes[k] == code;
            if (repeat)
              continue;
            seen_codes[distinct++] = code;
            nq_frame_t member = border_frame(image);
            canonical += nq_frame_classify(n, &member);
          }
          ck_assert_int_eq(distinct, frame.weight);
          ck_assert_msg(canonical == 1, "n %d: orbit of (%d,%d,%d,%d) has %d canonical members",
                        n, top, bottom, left, right, canonical);
        }
}
END_TEST

/* nq_frame_check accepts a BORDER frame exactly when it is valid, canonical
 * and carries its orbit's weight and stabilizer. */
START_TEST(test_frame_check_accepts_only_true_canonical_frames) {
  int n = _i;
  for (int top = 0; top < n; top++)
    for (int bottom = 0; bottom < n; bottom++)
      for (int left = 0; left < n; left++)
        for (int right = 0; right < n; right++) {
          brute_border_t b = {top, bottom, left, right};
          nq_frame_t frame = border_frame(b);
          int canonical = nq_frame_classify(n, &frame);
          int expected = brute_border_is_valid(n, b) && canonical;
          ck_assert_int_eq(nq_frame_check(n, &frame), expected ? NQ_OK : NQ_EUNIT);
          frame.weight = (uint8_t)(frame.weight == 8 ? 4 : 8);
          ck_assert_int_eq(nq_frame_check(n, &frame), NQ_EUNIT);
        }
}
END_TEST

START_TEST(test_frame_check_sides_and_open_frames) {
  nq_frame_t open = {.kind = NQ_FRAME_OPEN, .weight = 1, .stabilizer = NQ_SYM_ALL};
  for (int n = 0; n < NQ_FRAME_MIN_N; n++)
    ck_assert_int_eq(nq_frame_check(n, &open), NQ_OK);
  ck_assert_int_eq(nq_frame_check(NQ_FRAME_MIN_N, &open), NQ_EUNIT);
  open.weight = 8;
  ck_assert_int_eq(nq_frame_check(4, &open), NQ_EUNIT);
  /* n = 8: the SIDES frame of some (top, left, right) with bottoms. */
  for (int top = 1; top < 7; top++) {
    nq_frame_t sides = {.kind = NQ_FRAME_SIDES, .top = (uint8_t)top, .left = 3, .right = 5,
                        .weight = 8, .stabilizer = 1u << NQ_SYM_IDENTITY};
    int has_bottoms = nq_frame_sides_bottoms(8, &sides) != 0;
    ck_assert_int_eq(nq_frame_check(8, &sides), has_bottoms ? NQ_OK : NQ_EUNIT);
    sides.weight = 4;
    ck_assert_int_eq(nq_frame_check(8, &sides), NQ_EUNIT);
  }
}
END_TEST

/* The rows a frame leaves, square by square against the rules, on wide
 * boards: a row that holds a frame queen allows just that square; any
 * other row allows the squares off the frame queens' columns and
 * diagonals; a SIDES frame's last row allows its bottoms.  Catches masks
 * cut to 32 bits or shifted wrongly near bit 63. */
static int square_allowed(int n, const nq_frame_t *frame, int row, int col) {
  int queens[4][2] = {
      {0, frame->top}, {frame->left, 0}, {frame->right, n - 1}, {n - 1, frame->bottom}};
  int fixed = frame->kind == NQ_FRAME_BORDER ? 4 : 3;
  for (int q = 0; q < fixed; q++)
    if (queens[q][0] == row)
      return queens[q][1] == col;
  for (int q = 0; q < fixed; q++) {
    int drow = abs(queens[q][0] - row), dcol = abs(queens[q][1] - col);
    if (dcol == 0 || dcol == drow)
      return 0;
  }
  return 1;
}

static void check_rows(int n, const nq_frame_t *frame) {
  nq__frame_rows_t rows;
  ck_assert_int_eq(nq__frame_rows_checked(&rows, n, frame), NQ_OK);
  uint64_t bottoms = frame->kind == NQ_FRAME_SIDES ? nq_frame_sides_bottoms(n, frame) : 0;
  for (int row = 0; row < n; row++)
    for (int col = 0; col < n; col++) {
      int allowed = square_allowed(n, frame, row, col);
      if (row == n - 1 && frame->kind == NQ_FRAME_SIDES)
        allowed = allowed && (bottoms >> col & 1);
      ck_assert_msg((int)(rows.mask[row] >> col & 1) == allowed,
                    "n %d frame (%d,%d,%d,%d): row %d column %d", n, frame->top, frame->bottom,
                    frame->left, frame->right, row, col);
    }
  ck_assert_int_eq(rows.last_row, frame->kind == NQ_FRAME_SIDES ? n - 1 : n - 2);
  uint64_t expected_fixed = 1 | (uint64_t)1 << frame->left | (uint64_t)1 << frame->right;
  if (frame->kind == NQ_FRAME_BORDER)
    expected_fixed |= (uint64_t)1 << (n - 1);
  ck_assert_uint_eq(rows.fixed_rows, expected_fixed);
}

START_TEST(test_frame_rows_on_wide_boards) {
  static const int sizes[] = {33, 40, 64};
  int n = sizes[_i], checked = 0;
  /* Plain frames near the top-left and the bottom-right of the range. */
  for (int top = 1; top < n - 1 && checked < 12; top += 5)
    for (int left = n - 2; left > 0 && checked < 12; left -= 7)
      for (int right = 1; right < n - 1 && checked < 12; right += 9) {
        nq_frame_t sides = {.kind = NQ_FRAME_SIDES, .top = (uint8_t)top, .left = (uint8_t)left,
                            .right = (uint8_t)right, .weight = 8,
                            .stabilizer = 1u << NQ_SYM_IDENTITY};
        if (nq_frame_check(n, &sides) == NQ_OK) {
          check_rows(n, &sides);
          checked++;
        }
      }
  ck_assert_int_eq(checked, 12);
  /* A symmetric BORDER frame: mirror-symmetric top and bottom. */
  nq_frame_t border = {.kind = NQ_FRAME_BORDER, .top = 1, .bottom = (uint8_t)(n - 2),
                       .left = (uint8_t)(n - 2), .right = 1};
  if (nq_frame_is_valid(n, &border) && nq_frame_classify(n, &border))
    check_rows(n, &border);
}
END_TEST

static Suite *frame_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("frame");
  TCase *frames = support_tcase("frames");
  tcase_add_loop_test(frames, test_frame_is_valid_matches_brute_force, FRAMES_FIRST_N, 10);
  tcase_add_loop_test(frames, test_frame_classify_one_canonical_per_orbit, FRAMES_FIRST_N, 10);
  tcase_add_loop_test(frames, test_frame_check_accepts_only_true_canonical_frames,
                      FRAMES_FIRST_N, 10);
  tcase_add_test(frames, test_frame_check_sides_and_open_frames);
  suite_add_tcase(suite, frames);
  TCase *rows = support_tcase("rows");
  tcase_add_loop_test(rows, test_frame_rows_on_wide_boards, 0, 3);
  suite_add_tcase(suite, rows);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, frame_suite); }
