/* The symmetry module: nq_symmetry_apply must be the action of the
 * dihedral group D4 on the squares, and nq_symmetry_fixing must find the
 * symmetries of a board exactly. */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "known_counts.h"
#include "nqueens/symmetry.h"
#include "support.h"

enum { SMALLEST_N = 1, LARGEST_N = 9 };

/* Where sym sends every square of an n x n board, as one index per square. */
static void square_map(int *map, int sym, int n) {
  for (int row = 0; row < n; row++)
    for (int col = 0; col < n; col++) {
      int image_row = -1, image_col = -1;
      nq_symmetry_apply((nq_symmetry_t)sym, n, row, col, &image_row, &image_col);
      ck_assert_msg(image_row >= 0 && image_row < n && image_col >= 0 && image_col < n,
                    "sym %d, n %d: (%d,%d) -> (%d,%d) is off the board", sym, n, row, col,
                    image_row, image_col);
      map[row * n + col] = image_row * n + image_col;
    }
}

/* The map id of `map` among the 8 maps of the board, or -1. */
static int which_map(const int maps[8][LARGEST_N * LARGEST_N], const int *map, int n) {
  int found = -1;
  for (int sym = 0; sym < 8; sym++)
    if (memcmp(maps[sym], map, sizeof(int) * (size_t)(n * n)) == 0) {
      ck_assert_msg(found == -1, "n %d: maps %d and %d are equal", n, found, sym);
      found = sym;
    }
  return found;
}

START_TEST(test_apply_matches_documented_formulas) {
  int sym = _i;
  for (int n = SMALLEST_N; n <= LARGEST_N; n++)
    for (int row = 0; row < n; row++)
      for (int col = 0; col < n; col++) {
        int got_row, got_col, want_row, want_col;
        nq_symmetry_apply((nq_symmetry_t)sym, n, row, col, &got_row, &got_col);
        brute_map_square(sym, n, row, col, &want_row, &want_col);
        ck_assert_msg(got_row == want_row && got_col == want_col,
                      "sym %d, n %d: (%d,%d) -> (%d,%d), expected (%d,%d)", sym, n, row, col,
                      got_row, got_col, want_row, want_col);
      }
}
END_TEST

START_TEST(test_apply_is_bijection) {
  int sym = _i;
  for (int n = SMALLEST_N; n <= LARGEST_N; n++) {
    int map[LARGEST_N * LARGEST_N];
    int hit[LARGEST_N * LARGEST_N] = {0};
    square_map(map, sym, n);
    for (int square = 0; square < n * n; square++)
      hit[map[square]]++;
    for (int square = 0; square < n * n; square++)
      ck_assert_msg(hit[square] == 1, "sym %d, n %d: square %d is hit %d times", sym, n,
                    square, hit[square]);
  }
}
END_TEST

START_TEST(test_apply_rot90_four_times_is_identity) {
  for (int n = SMALLEST_N; n <= LARGEST_N; n++)
    for (int row = 0; row < n; row++)
      for (int col = 0; col < n; col++) {
        int r = row, c = col;
        for (int turn = 1; turn <= 4; turn++) {
          int expected_row, expected_col;
          nq_symmetry_apply(NQ_SYM_ROT90, n, r, c, &r, &c);
          /* One, two, three quarter turns are ROT90, ROT180, ROT270. */
          if (turn < 4) {
            nq_symmetry_apply((nq_symmetry_t)(NQ_SYM_IDENTITY + turn), n, row, col,
                              &expected_row, &expected_col);
            ck_assert_int_eq(r, expected_row);
            ck_assert_int_eq(c, expected_col);
          }
        }
        ck_assert_int_eq(r, row);
        ck_assert_int_eq(c, col);
      }
}
END_TEST

START_TEST(test_apply_identity_fixes_every_square) {
  for (int n = SMALLEST_N; n <= LARGEST_N; n++)
    for (int row = 0; row < n; row++)
      for (int col = 0; col < n; col++) {
        int r, c;
        nq_symmetry_apply(NQ_SYM_IDENTITY, n, row, col, &r, &c);
        ck_assert_int_eq(r, row);
        ck_assert_int_eq(c, col);
      }
}
END_TEST

/* The 8 maps are distinct and closed under composition, and the table is
 * a group table: a Latin square with the identity as neutral element. */
START_TEST(test_apply_composition_table_is_a_group) {
  static const int sizes[] = {2, 5, 6, 9};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int n = sizes[s];
    int maps[8][LARGEST_N * LARGEST_N];
    int table[8][8];
    for (int sym = 0; sym < 8; sym++)
      square_map(maps[sym], sym, n);
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++) {
        int composed[LARGEST_N * LARGEST_N]; /* b first, then a */
        for (int square = 0; square < n * n; square++)
          composed[square] = maps[a][maps[b][square]];
        table[a][b] = which_map((const int(*)[LARGEST_N * LARGEST_N])maps, composed, n);
        ck_assert_msg(table[a][b] >= 0, "n %d: %d after %d is none of the 8 maps", n, a, b);
      }
    for (int a = 0; a < 8; a++) {
      ck_assert_int_eq(table[NQ_SYM_IDENTITY][a], a);
      ck_assert_int_eq(table[a][NQ_SYM_IDENTITY], a);
      int row_seen = 0, col_seen = 0;
      for (int b = 0; b < 8; b++) {
        row_seen |= 1 << table[a][b];
        col_seen |= 1 << table[b][a];
      }
      ck_assert_int_eq(row_seen, 0xFF);
      ck_assert_int_eq(col_seen, 0xFF);
    }
    /* Relations read off the pictures. */
    ck_assert_int_eq(table[NQ_SYM_ROT90][NQ_SYM_ROT90], NQ_SYM_ROT180);
    ck_assert_int_eq(table[NQ_SYM_ROT90][NQ_SYM_ROT180], NQ_SYM_ROT270);
    ck_assert_int_eq(table[NQ_SYM_ROT90][NQ_SYM_ROT270], NQ_SYM_IDENTITY);
    ck_assert_int_eq(table[NQ_SYM_FLIP_COLS][NQ_SYM_FLIP_ROWS], NQ_SYM_ROT180);
    ck_assert_int_eq(table[NQ_SYM_TRANSPOSE][NQ_SYM_ANTI_TRANSPOSE], NQ_SYM_ROT180);
    ck_assert_int_eq(table[NQ_SYM_TRANSPOSE][NQ_SYM_ROT90], NQ_SYM_FLIP_ROWS);
    ck_assert_int_eq(table[NQ_SYM_FLIP_COLS][NQ_SYM_ROT90], NQ_SYM_TRANSPOSE);
    for (int reflection = NQ_SYM_FLIP_COLS; reflection <= NQ_SYM_ANTI_TRANSPOSE; reflection++)
      ck_assert_int_eq(table[reflection][reflection], NQ_SYM_IDENTITY);
  }
}
END_TEST

START_TEST(test_set_size_counts_members) {
  ck_assert_int_eq(nq_symmetry_set_size(0), 0);
  ck_assert_int_eq(nq_symmetry_set_size(NQ_SYM_ALL), 8);
  ck_assert_int_eq(nq_symmetry_set_size(0x0F), 4);
  ck_assert_int_eq(nq_symmetry_set_size(0x55), 4);
  for (int sym = 0; sym < 8; sym++)
    ck_assert_int_eq(nq_symmetry_set_size(1u << sym), 1);
}
END_TEST

/* [1,3,0,2]: a quarter turn sends (0,1)->(1,3), (1,3)->(3,2), (2,0)->(0,1),
 * (3,2)->(2,0), the same four squares, so all four rotations fix it; a
 * mirror sends it to [2,0,3,1], the other solution. */
START_TEST(test_fixing_n4_solution_is_fixed_by_rotations_only) {
  const uint8_t board[4] = {1, 3, 0, 2};
  uint32_t expected = brute_fixing(board, 4);
  ck_assert_uint_eq(expected, (1u << NQ_SYM_IDENTITY) | (1u << NQ_SYM_ROT90) |
                                  (1u << NQ_SYM_ROT180) | (1u << NQ_SYM_ROT270));
  ck_assert_uint_eq(nq_symmetry_fixing(board, 4, NQ_SYM_ALL), expected);
  ck_assert_uint_eq(nq_symmetry_fixing(board, 4, 1u << NQ_SYM_ROT90), 1u << NQ_SYM_ROT90);
  ck_assert_uint_eq(nq_symmetry_fixing(board, 4, 1u << NQ_SYM_TRANSPOSE), 0);
}
END_TEST

/* The main diagonal [0,1,2,3,4] is its own image under the half turn and
 * both diagonal mirrors; not under a quarter turn or the axis mirrors. */
START_TEST(test_fixing_diagonal_board) {
  const uint8_t board[5] = {0, 1, 2, 3, 4};
  uint32_t expected = brute_fixing(board, 5);
  ck_assert_uint_eq(expected, (1u << NQ_SYM_IDENTITY) | (1u << NQ_SYM_ROT180) |
                                  (1u << NQ_SYM_TRANSPOSE) | (1u << NQ_SYM_ANTI_TRANSPOSE));
  ck_assert_uint_eq(nq_symmetry_fixing(board, 5, NQ_SYM_ALL), expected);
}
END_TEST

/* A board with no symmetry at all: only the identity fixes it. */
START_TEST(test_fixing_asymmetric_board) {
  const uint8_t board[5] = {0, 2, 4, 1, 3};
  ck_assert_uint_eq(brute_fixing(board, 5), 1u << NQ_SYM_IDENTITY);
  ck_assert_uint_eq(nq_symmetry_fixing(board, 5, NQ_SYM_ALL), 1u << NQ_SYM_IDENTITY);
  ck_assert_uint_eq(nq_symmetry_fixing(board, 5, NQ_SYM_ALL & ~1u), 0);
}
END_TEST

START_TEST(test_fixing_matches_brute_force) {
  int n = _i;
  static const uint32_t sets[] = {NQ_SYM_ALL, 0x01, 0x0F, 0xF0, 0x05, 0xAA, 0x44, 0x00};
  const brute_solutions_t *solutions = brute_solutions(n);
  for (size_t i = 0; i < solutions->count; i++) {
    const uint8_t *board = brute_solution(solutions, i);
    uint32_t fixing = brute_fixing(board, n);
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
      ck_assert_msg(nq_symmetry_fixing(board, n, sets[s]) == (fixing & sets[s]),
                    "n %d, solution %zu, set 0x%02x: got 0x%02x, expected 0x%02x", n, i,
                    sets[s], nq_symmetry_fixing(board, n, sets[s]), fixing & sets[s]);
  }
}
END_TEST

/* Burnside: the sum over solutions of their stabilizer sizes is 8 U(n). */
START_TEST(test_fixing_burnside_gives_unique_count) {
  int n = _i;
  const brute_solutions_t *solutions = brute_solutions(n);
  uint64_t fixed_pairs = 0;
  for (size_t i = 0; i < solutions->count; i++)
    fixed_pairs += (uint64_t)nq_symmetry_set_size(
        nq_symmetry_fixing(brute_solution(solutions, i), n, NQ_SYM_ALL));
  ck_assert_uint_eq(solutions->count, known_all[n]);
  ck_assert_uint_eq(fixed_pairs, 8 * known_unique[n]);
}
END_TEST

/* On every permutation, not only solutions: the least test must not lean
 * on the queens' diagonals.  Each class has exactly one least member. */
START_TEST(test_is_least_matches_brute_force_on_permutations) {
  int n = _i;
  uint8_t p[LARGEST_N] = {0};
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t)i;
  uint64_t least = 0, fixed_pairs = 0;
  do {
    int expected = brute_is_least(p, n);
    ck_assert_msg(nq_symmetry_is_least(p, n) == expected, "n %d: is_least %d, expected %d", n,
                  nq_symmetry_is_least(p, n), expected);
    least += (uint64_t)expected;
    fixed_pairs += (uint64_t)nq_symmetry_set_size(brute_fixing(p, n));
  } while (n > 0 && brute_next_permutation(p, n));
  ck_assert_uint_eq(8 * least, fixed_pairs); /* Burnside: one per class */
}
END_TEST

START_TEST(test_is_least_refuses_what_is_no_board) {
  const uint8_t repeated[4] = {1, 1, 3, 0}, off_board[4] = {0, 1, 2, 4};
  const uint8_t board[4] = {1, 3, 0, 2};
  ck_assert_int_eq(nq_symmetry_is_least(repeated, 4), 0);
  ck_assert_int_eq(nq_symmetry_is_least(off_board, 4), 0);
  ck_assert_int_eq(nq_symmetry_is_least(board, -1), 0);
  ck_assert_int_eq(nq_symmetry_is_least(board, 4), 1); /* [2,0,3,1] is its mirror */
}
END_TEST

static Suite *symmetry_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("symmetry");
  TCase *apply = support_tcase("apply");
  tcase_add_loop_test(apply, test_apply_matches_documented_formulas, 0, NQ_SYM_COUNT);
  tcase_add_loop_test(apply, test_apply_is_bijection, 0, NQ_SYM_COUNT);
  tcase_add_test(apply, test_apply_rot90_four_times_is_identity);
  tcase_add_test(apply, test_apply_identity_fixes_every_square);
  tcase_add_test(apply, test_apply_composition_table_is_a_group);
  suite_add_tcase(suite, apply);
  TCase *fixing = support_tcase("fixing");
  tcase_add_test(fixing, test_set_size_counts_members);
  tcase_add_test(fixing, test_fixing_n4_solution_is_fixed_by_rotations_only);
  tcase_add_test(fixing, test_fixing_diagonal_board);
  tcase_add_test(fixing, test_fixing_asymmetric_board);
  tcase_add_loop_test(fixing, test_fixing_matches_brute_force, 1, 9);
  tcase_add_loop_test(fixing, test_fixing_burnside_gives_unique_count, 0, BRUTE_MAX_N + 1);
  suite_add_tcase(suite, fixing);
  TCase *least = support_tcase("least");
  tcase_add_loop_test(least, test_is_least_matches_brute_force_on_permutations, 0, 8);
  tcase_add_test(least, test_is_least_refuses_what_is_no_board);
  suite_add_tcase(suite, least);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, symmetry_suite); }
