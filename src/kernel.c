#include "nqueens/kernel.h"

#include <string.h>

#include "bits.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"

/* Squares of the next row attacked by the queens placed so far. */
typedef struct attacks {
  uint64_t cols;
  uint64_t diag_left;  /* moves one column up per row */
  uint64_t diag_right; /* moves one column down per row */
} attacks_t;

static inline uint64_t attacked(attacks_t a) { return a.cols | a.diag_left | a.diag_right; }

static inline attacks_t place(attacks_t a, uint64_t bit) {
  attacks_t next = {a.cols | bit, (a.diag_left | bit) << 1, (a.diag_right | bit) >> 1};
  return next;
}

typedef struct fixed_queen {
  int row, col;
} fixed_queen_t;

/* The frame's fixed queens; a SIDES frame has no bottom queen. */
static int frame_queens(int n, const nq_frame_t *frame, fixed_queen_t queens[4]) {
  queens[0] = (fixed_queen_t){0, frame->top};
  queens[1] = (fixed_queen_t){frame->left, 0};
  queens[2] = (fixed_queen_t){frame->right, n - 1};
  queens[3] = (fixed_queen_t){n - 1, frame->bottom};
  return frame->kind == NQ_FRAME_BORDER ? 4 : 3;
}

/* Columns of `row` a fixed queen attacks along its diagonals. */
static uint64_t diagonal_shadow(int n, fixed_queen_t queen, int row) {
  int distance = row > queen.row ? row - queen.row : queen.row - row;
  uint64_t shadow = 0;
  if (distance == 0)
    return 0;
  if (queen.col + distance < n)
    shadow |= column_bit(queen.col + distance);
  if (queen.col - distance >= 0)
    shadow |= column_bit(queen.col - distance);
  return shadow;
}

/* Free rows lose the fixed queens' columns and diagonals up front, so the
 * search never places a queen a fixed one attacks: the fixed queens then
 * always fit in their own rows. */
static void init_frame_masks(nq_search_t *search, const nq_frame_t *frame) {
  int n = search->n;
  fixed_queen_t queens[4];
  int fixed = frame_queens(n, frame, queens);
  uint64_t owned_columns = 0;
  for (int q = 0; q < fixed; q++)
    owned_columns |= column_bit(queens[q].col);
  for (int row = 0; row < n; row++) {
    uint64_t mask = board_columns(n) & ~owned_columns;
    for (int q = 0; q < fixed; q++)
      mask &= ~diagonal_shadow(n, queens[q], row);
    search->row_mask[row] = mask;
  }
  /* A corner queen appears twice in `queens`, on the same square. */
  for (int q = 0; q < fixed; q++)
    search->row_mask[queens[q].row] = column_bit(queens[q].col);
  if (frame->kind == NQ_FRAME_SIDES) {
    search->row_mask[n - 1] &= nq_frame_sides_bottoms(n, frame);
    search->last_row = n - 1;
  } else {
    search->last_row = n - 2; /* the bottom queen always fits */
  }
}

int nq_search_init(nq_search_t *search, int n, const nq_frame_t *frame) {
  if (n < 0 || n > NQ_MAX_N || frame == NULL)
    return NQ_EINVAL;
  memset(search, 0, sizeof *search);
  search->n = n;
  search->frame = *frame;
  if (frame->kind == NQ_FRAME_OPEN) {
    for (int row = 0; row < n; row++)
      search->row_mask[row] = board_columns(n);
    search->last_row = n - 1;
    return NQ_OK;
  }
  if (!nq_frame_is_valid(n, frame))
    return NQ_EINVAL;
  init_frame_masks(search, frame);
  return NQ_OK;
}

/* Attacks after the unit's pre-placed rows, checking each is legal. */
static int place_prefix(attacks_t *out, uint8_t *columns, const nq_search_t *search,
                        const nq_unit_t *unit) {
  attacks_t a = {0, 0, 0};
  if (unit->depth > NQ_UNIT_MAX_DEPTH || unit->depth > search->last_row + 1 ||
      (unit->frame.kind != NQ_FRAME_OPEN && unit->depth == 0))
    return NQ_EUNIT;
  for (int row = 0; row < unit->depth; row++) {
    if (unit->prefix[row] >= search->n)
      return NQ_EUNIT;
    uint64_t bit = column_bit(unit->prefix[row]);
    if (!(bit & search->row_mask[row] & ~attacked(a)))
      return NQ_EUNIT;
    a = place(a, bit);
    columns[row] = unit->prefix[row];
  }
  *out = a;
  return NQ_OK;
}

/* Ways to fill the last two rows, given the attacks `a` on the row before
 * last, without visiting either: every legal pair (x, y) is a free square
 * x of the row before last and a free square y of the last row that x does
 * not attack, and x attacks exactly the squares x, x << 1 and x >> 1 of the
 * next row.  So the pairs number |F| |L| less the attacked ones. */
static inline uint64_t count_last_two_rows(uint64_t before_last_mask, uint64_t last_mask,
                                           attacks_t a) {
  const uint64_t before_free = before_last_mask & ~attacked(a);
  const uint64_t last_free = last_mask & ~(a.cols | a.diag_left << 1 | a.diag_right >> 1);
  const uint64_t pairs = (uint64_t)bit_count(before_free) * (uint64_t)bit_count(last_free);
  return pairs - (uint64_t)bit_count(before_free & last_free) -
         (uint64_t)bit_count(before_free << 1 & last_free) -
         (uint64_t)bit_count(before_free >> 1 & last_free);
}

/* The hot loop: depth-first with an explicit stack over rows first_row ..
 * last_row - 2.  The squares of row last_row - 2 are tried in a tight loop
 * that counts the two rows below each in closed form, so the three deepest
 * levels of the tree (most of it) never touch the stack. */
static int count_completions(nq_unit_result_t *result, const nq_search_t *search,
                             int first_row, attacks_t start) {
  const int last_row = search->last_row, walk_end = last_row - 2;
  const uint64_t before_last_mask = search->row_mask[last_row - 1];
  const uint64_t last_mask = search->row_mask[last_row];
  uint64_t stack_free[NQ_MAX_N];
  attacks_t stack_attacks[NQ_MAX_N];
  uint64_t solutions = 0, nodes = 0;
  int row = first_row;
  attacks_t a = start;
  if (first_row > walk_end) {
    result->solutions = first_row == last_row
                            ? (uint64_t)bit_count(last_mask & ~attacked(start))
                            : count_last_two_rows(before_last_mask, last_mask, start);
    return NQ_OK;
  }
  uint64_t free_squares = search->row_mask[row] & ~attacked(a);
  for (;;) {
    if (row == walk_end) {
      for (; free_squares; free_squares = drop_lowest_bit(free_squares)) {
        attacks_t child = place(a, lowest_bit(free_squares));
        nodes++;
        if (__builtin_add_overflow(solutions,
                                   count_last_two_rows(before_last_mask, last_mask, child),
                                   &solutions))
          return NQ_EOVERFLOW;
      }
    } else if (free_squares) {
      uint64_t bit = lowest_bit(free_squares);
      stack_free[row] = drop_lowest_bit(free_squares);
      stack_attacks[row] = a;
      a = place(a, bit);
      row++;
      nodes++;
      free_squares = search->row_mask[row] & ~attacked(a);
      continue;
    }
    if (row == first_row)
      break;
    row--;
    free_squares = stack_free[row];
    a = stack_attacks[row];
  }
  result->solutions = solutions;
  result->nodes = nodes;
  return NQ_OK;
}

/* As count_completions, but builds every completion to test it against
 * the frame's symmetries.  Only frames with symmetries need it. */
static int classify_completions(nq_unit_result_t *result, const nq_search_t *search,
                                int first_row, attacks_t start, uint8_t *columns) {
  const int n = search->n, last_row = search->last_row;
  uint64_t stack_free[NQ_MAX_N];
  attacks_t stack_attacks[NQ_MAX_N];
  uint64_t solutions = 0, stabilizer_sum = 0, nodes = 0;
  int row = first_row;
  attacks_t a = start;
  uint64_t free_squares = search->row_mask[row] & ~attacked(a);
  if (search->frame.kind == NQ_FRAME_BORDER)
    columns[n - 1] = search->frame.bottom;
  for (;;) {
    if (free_squares && row == last_row) {
      columns[row] = (uint8_t)bit_index(lowest_bit(free_squares));
      free_squares = drop_lowest_bit(free_squares);
      uint32_t fixing = nq_symmetry_fixing(columns, n, search->frame.stabilizer);
      solutions++;
      stabilizer_sum += (uint64_t)nq_symmetry_set_size(fixing);
      continue;
    }
    if (free_squares) {
      uint64_t bit = lowest_bit(free_squares);
      columns[row] = (uint8_t)bit_index(bit);
      stack_free[row] = drop_lowest_bit(free_squares);
      stack_attacks[row] = a;
      a = place(a, bit);
      row++;
      nodes++;
      free_squares = search->row_mask[row] & ~attacked(a);
      continue;
    }
    if (row == first_row)
      break;
    row--;
    free_squares = stack_free[row];
    a = stack_attacks[row];
  }
  result->solutions = solutions;
  result->stabilizer_sum = stabilizer_sum;
  result->nodes = nodes;
  return NQ_OK;
}

/* A unit whose prefix already fills every searched row is one solution. */
static int solve_complete(nq_unit_result_t *result, const nq_search_t *search,
                          uint8_t *columns, int classify) {
  result->solutions = 1;
  if (classify) {
    if (search->frame.kind == NQ_FRAME_BORDER)
      columns[search->n - 1] = search->frame.bottom;
    uint32_t fixing = nq_symmetry_fixing(columns, search->n, search->frame.stabilizer);
    result->stabilizer_sum = (uint64_t)nq_symmetry_set_size(fixing);
  }
  return NQ_OK;
}

int nq_kernel_solve(nq_unit_result_t *result, const nq_search_t *search,
                    const nq_unit_t *unit, int classify) {
  uint8_t columns[NQ_MAX_N];
  attacks_t start;
  memset(result, 0, sizeof *result);
  result->id = unit->id;
  result->weight = unit->frame.weight;
  if (memcmp(&unit->frame, &search->frame, sizeof unit->frame) != 0)
    return NQ_EINVAL;
  int rc = place_prefix(&start, columns, search, unit);
  if (rc != NQ_OK)
    return rc;
  if (unit->depth > search->last_row)
    return solve_complete(result, search, columns, classify);
  /* Frames only the identity fixes need no classification: every
   * completion is fixed by exactly one symmetry. */
  if (!classify)
    return count_completions(result, search, unit->depth, start);
  if (search->frame.stabilizer == 1u << NQ_SYM_IDENTITY) {
    rc = count_completions(result, search, unit->depth, start);
    result->stabilizer_sum = result->solutions;
    return rc;
  }
  return classify_completions(result, search, unit->depth, start, columns);
}
