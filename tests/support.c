#include "support.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/error.h"
#include "nqueens/units.h"
#include "search.h"

/* Written apart from nq_solutions_is_valid, which compares pairs: here
 * each queen marks its column and its two diagonals, and a line marked
 * twice is an attack. */
int brute_is_solution(const uint8_t *columns, int n) {
  int column_used[64] = {0}, sum_used[128] = {0}, difference_used[128] = {0};
  for (int row = 0; row < n; row++) {
    int col = columns[row];
    if (col >= n)
      return 0;
    if (column_used[col]++ || sum_used[row + col]++ || difference_used[row - col + n]++)
      return 0;
  }
  return 1;
}

/* Narayana's next permutation; 0 after the last (descending) one. */
int brute_next_permutation(uint8_t *p, int n) {
  int i = n - 2;
  while (i >= 0 && p[i] >= p[i + 1])
    i--;
  if (i < 0)
    return 0;
  int j = n - 1;
  while (p[j] <= p[i])
    j--;
  uint8_t swap = p[i];
  p[i] = p[j];
  p[j] = swap;
  for (int lo = i + 1, hi = n - 1; lo < hi; lo++, hi--) {
    swap = p[lo];
    p[lo] = p[hi];
    p[hi] = swap;
  }
  return 1;
}

static brute_solutions_t cache[BRUTE_MAX_N + 1];
static int cached[BRUTE_MAX_N + 1];

const brute_solutions_t *brute_solutions(int n) {
  ck_assert_msg(n >= 0 && n <= BRUTE_MAX_N, "brute force asked for n = %d", n);
  if (cached[n])
    return &cache[n];
  size_t capacity = 16, count = 0;
  uint8_t *found = malloc(capacity * (size_t)(n > 0 ? n : 1));
  uint8_t permutation[BRUTE_MAX_N];
  ck_assert_ptr_nonnull(found);
  for (int i = 0; i < n; i++)
    permutation[i] = (uint8_t)i;
  do {
    if (!brute_is_solution(permutation, n))
      continue;
    if (count == capacity) {
      capacity *= 2;
      found = realloc(found, capacity * (size_t)n);
      ck_assert_ptr_nonnull(found);
    }
    memcpy(found + count * (size_t)n, permutation, (size_t)n);
    count++;
  } while (brute_next_permutation(permutation, n));
  cache[n] = (brute_solutions_t){.n = n, .count = count, .columns = found};
  cached[n] = 1;
  return &cache[n];
}

const uint8_t *brute_solution(const brute_solutions_t *solutions, size_t index) {
  return solutions->columns + index * (size_t)solutions->n;
}

/* Rows of the matrices: (row', col') = M (row, col) in centred coordinates.
 * Derived from the pictures, not from the library: rot90 turns the board
 * clockwise (the top row becomes the right column). */
static const int symmetry_matrix[8][2][2] = {
    {{1, 0}, {0, 1}},   /* identity */
    {{0, 1}, {-1, 0}},  /* rot90: row' = col, col' = -row */
    {{-1, 0}, {0, -1}}, /* rot180 */
    {{0, -1}, {1, 0}},  /* rot270: row' = -col, col' = row */
    {{1, 0}, {0, -1}},  /* mirror left-right */
    {{-1, 0}, {0, 1}},  /* mirror top-bottom */
    {{0, 1}, {1, 0}},   /* main diagonal */
    {{0, -1}, {-1, 0}}, /* anti-diagonal */
};

void brute_map_square(int sym, int n, int row, int col, int *out_row, int *out_col) {
  int y = 2 * row - (n - 1), x = 2 * col - (n - 1);
  const int(*m)[2] = symmetry_matrix[sym];
  int y2 = m[0][0] * y + m[0][1] * x, x2 = m[1][0] * y + m[1][1] * x;
  *out_row = (y2 + (n - 1)) / 2;
  *out_col = (x2 + (n - 1)) / 2;
}

void brute_image(uint8_t *image, const uint8_t *columns, int n, int sym) {
  for (int row = 0; row < n; row++) {
    int image_row, image_col;
    brute_map_square(sym, n, row, columns[row], &image_row, &image_col);
    image[image_row] = (uint8_t)image_col;
  }
}

uint32_t brute_fixing(const uint8_t *columns, int n) {
  uint8_t image[64];
  uint32_t fixing = 0;
  for (int sym = 0; sym < 8; sym++) {
    brute_image(image, columns, n, sym);
    if (memcmp(image, columns, (size_t)n) == 0)
      fixing |= 1u << sym;
  }
  return fixing;
}

int brute_is_least(const uint8_t *columns, int n) {
  uint8_t image[64];
  for (int sym = 0; sym < 8; sym++) {
    brute_image(image, columns, n, sym);
    if (memcmp(image, columns, (size_t)n) < 0)
      return 0;
  }
  return 1;
}

typedef struct square {
  int row, col;
} square_t;

static void border_squares(int n, brute_border_t b, square_t squares[4]) {
  squares[0] = (square_t){0, b.top};
  squares[1] = (square_t){n - 1, b.bottom};
  squares[2] = (square_t){b.left, 0};
  squares[3] = (square_t){b.right, n - 1};
}

/* Put the queens on a board and count per line, instead of comparing
 * pairs: a corner named twice is one queen. */
int brute_border_is_valid(int n, brute_border_t b) {
  if (b.top < 0 || b.top >= n || b.bottom < 0 || b.bottom >= n || b.left < 0 ||
      b.left >= n || b.right < 0 || b.right >= n)
    return 0;
  static unsigned char board[64][64];
  square_t squares[4];
  border_squares(n, b, squares);
  for (int i = 0; i < 4; i++)
    board[squares[i].row][squares[i].col] = 1;
  int rows[64] = {0}, cols[64] = {0}, sums[128] = {0}, differences[128] = {0};
  int ok = 1;
  for (int row = 0; row < n; row++)
    for (int col = 0; col < n; col++)
      if (board[row][col]) {
        board[row][col] = 0;
        if (rows[row]++ || cols[col]++ || sums[row + col]++ || differences[row - col + n]++)
          ok = 0;
      }
  /* Each line must hold exactly one queen: the named one. */
  return ok && rows[0] == 1 && rows[n - 1] == 1 && cols[0] == 1 && cols[n - 1] == 1;
}

brute_border_t brute_border_image(int n, brute_border_t b, int sym) {
  square_t squares[4];
  brute_border_t image = {-1, -1, -1, -1};
  border_squares(n, b, squares);
  for (int i = 0; i < 4; i++) {
    int row, col;
    brute_map_square(sym, n, squares[i].row, squares[i].col, &row, &col);
    if (row == 0)
      image.top = col;
    if (row == n - 1)
      image.bottom = col;
    if (col == 0)
      image.left = row;
    if (col == n - 1)
      image.right = row;
  }
  return image;
}

uint32_t brute_border_stabilizer(int n, brute_border_t border) {
  uint32_t stabilizer = 0;
  for (int sym = 0; sym < 8; sym++) {
    brute_border_t image = brute_border_image(n, border, sym);
    if (memcmp(&image, &border, sizeof border) == 0)
      stabilizer |= 1u << sym;
  }
  return stabilizer;
}

size_t brute_border_code(int n, brute_border_t b) {
  size_t side = (size_t)n;
  return (((size_t)b.top * side + (size_t)b.bottom) * side + (size_t)b.left) * side +
         (size_t)b.right;
}

brute_border_t brute_border_of(const uint8_t *columns, int n) {
  brute_border_t b = {columns[0], columns[n - 1], -1, -1};
  for (int row = 0; row < n; row++) {
    if (columns[row] == 0)
      b.left = row;
    if (columns[row] == n - 1)
      b.right = row;
  }
  return b;
}

int support_unit_holds(int n, const nq_unit_t *unit, uint64_t bottoms, const uint8_t *columns) {
  const nq_frame_t *frame = &unit->frame;
  if (frame->kind == NQ_FRAME_BORDER || frame->kind == NQ_FRAME_SIDES) {
    brute_border_t b = brute_border_of(columns, n);
    if (b.top != frame->top || b.left != frame->left || b.right != frame->right)
      return 0;
    if (frame->kind == NQ_FRAME_BORDER ? b.bottom != frame->bottom : !(bottoms >> b.bottom & 1u))
      return 0;
  } else if (frame->kind != NQ_FRAME_OPEN) {
    return 0;
  }
  return memcmp(unit->prefix, columns, unit->depth) == 0;
}

support_units_t support_all_units(int n, int depth) {
  nq_unit_gen_t *gen = NULL;
  support_units_t list = {0, NULL};
  size_t capacity = 0;
  nq_unit_t unit;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, depth), NQ_OK);
  while (nq_unit_gen_next(gen, &unit) > 0) {
    if (list.count == capacity) {
      capacity = capacity ? 2 * capacity : 256;
      list.units = realloc(list.units, capacity * sizeof *list.units);
      ck_assert_ptr_nonnull(list.units);
    }
    list.units[list.count++] = unit;
  }
  nq_unit_gen_destroy(gen);
  return list;
}

int support_rank(void) {
  int initialized = 0, rank = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/* The runner of this process, for the fixture below. */
static SRunner *running;

/* What a rank prints of its failures: rank 0 all of check's report, the
 * others only when they have failed (their report is otherwise silent). */
static void print_failures(int rank) {
  if (rank == 0 || srunner_ntests_failed(running) > 0)
    srunner_print(running, CK_NORMAL);
}

/* Before each test, when there is more than one rank: whether a test before
 * it failed on any rank, agreed by all.  A rank whose assertion fails
 * after a test's collectives (most tests check on rank 0 alone) leaves the
 * test while the others finish it; it would then call the next test's
 * collectives alone and every rank would wait for ctest's timeout.  So
 * every rank stops there together: each prints the failures it has, and
 * the process ends with a failure, the tests after it not run. */
static void stop_after_a_failure(void) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1)
    return;
  int failed = srunner_ntests_failed(running);
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed == 0)
    return;
  const int rank = support_rank();
  print_failures(rank);
  if (rank == 0)
    printf("stopped at the first test after a failure on some rank: the tests after it did not "
           "run\n");
  fflush(stdout);
  MPI_Finalize();
  exit(EXIT_FAILURE);
}

TCase *support_tcase(const char *name) {
  TCase *tcase = tcase_create(name);
  tcase_add_checked_fixture(tcase, stop_after_a_failure, NULL);
  return tcase;
}

int support_main(int argc, char **argv, Suite *(*make_suite)(int argc, char **argv)) {
  /* FUNNELED, as the program asks: runs with search threads need it. */
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "MPI_Init_thread failed\n");
    return EXIT_FAILURE;
  }
  int rank = support_rank();
  SRunner *runner = srunner_create(make_suite(argc, argv));
  running = runner;
  srunner_set_fork_status(runner, CK_NOFORK);
  srunner_run_all(runner, CK_SILENT);
  print_failures(rank);
  int failed = srunner_ntests_failed(runner), failed_anywhere = 0;
  srunner_free(runner);
  MPI_Allreduce(&failed, &failed_anywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed_anywhere == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int yes_at_second_call(void *context) {
  unsigned *calls = context;
  return ++*calls >= 2;
}

void support_assert_asked_short_of_the_bottom(nq_search_t *search, int n, int free,
                                              int asking_steps_up) {
  nq_unit_gen_t *gen = NULL;
  nq_unit_t unit;
  nq__walk_start_t start;
  nq_unit_result_t result;
  ck_assert_int_eq(nq_unit_gen_create(&gen, n, 0), NQ_OK);
  ck_assert_int_gt(nq_unit_gen_next(gen, &unit), 0);
  ck_assert_int_eq(nq__kernel_walk_start(&start, search, &unit), NQ_OK);
  nq_unit_gen_destroy(gen);
  ck_assert_int_lt(start.step + free, search->walk_rows - asking_steps_up);
  /* The middle columns, and no diagonal attacked: a walk as long as the
   * count of `free` queens on their own board. */
  uint64_t open = search->walk_mask[start.step] & ~start.cols, kept = 0;
  for (int skip = (__builtin_popcountll(open) - free) / 2; skip > 0; skip--)
    open &= open - 1;
  for (int i = 0; i < free && open != 0; i++) {
    kept |= open & -open;
    open &= open - 1;
  }
  ck_assert_int_eq(__builtin_popcountll(kept), free);
  start.cols = ~kept;
  start.diag_left = start.diag_right = 0;
  unsigned calls = 0;
  nq__kernel_set_cancel(search, yes_at_second_call, &calls);
  ck_assert_int_eq(nq__kernel_count_from(&result, search, &start), NQ_ESTOPPED);
  ck_assert_uint_eq(calls, 2);
  nq__kernel_set_cancel(search, NULL, NULL);
}
