#include "nqueens/kernel.h"

#include <string.h>

#include "bits.h"
#include "frame.h"
#include "lanes.h"
#include "walk.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"

/* The walk gets a second copy built for x86-64-v3 processors (BMI1/2: one
 * instruction for the lowest bit, for clearing it, for variable shifts),
 * chosen when the program loads: Q(16) 0.988 s against 1.045 s, hyperfine
 * 5 runs.  Builds that already target such a processor need no copy. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__BMI2__)
#define NQ_HOT_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define NQ_HOT_CLONES
#endif

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

/* Columns of `row` a fixed queen attacks along its diagonals. */
static uint64_t diagonal_shadow(int n, nq__square_t queen, int row) {
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
static void init_frame_masks(nq_search_t *search, const nq_frame_t *frame, uint64_t bottoms,
                             uint64_t *fixed_rows) {
  int n = search->n;
  nq__square_t queens[4];
  int fixed = nq__frame_squares(n, frame, queens);
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
  for (int q = 0; q < fixed; q++)
    *fixed_rows |= column_bit(queens[q].row);
  if (frame->kind == NQ_FRAME_SIDES) {
    search->row_mask[n - 1] &= bottoms;
    search->last_row = n - 1;
  } else {
    search->last_row = n - 2; /* the bottom queen always fits */
  }
}

static void init_walk(nq_search_t *search, uint64_t fixed_rows) {
  int count = 0;
  for (int row = 0; row <= search->last_row; row++) {
    if (fixed_rows >> row & 1)
      continue;
    search->walk_row[count] = row;
    search->walk_mask[count] = search->row_mask[row];
    if (count > 0)
      search->walk_gap[count - 1] = row - search->walk_row[count - 1];
    count++;
  }
  search->walk_rows = count;
}

int nq_walk_supported(nq_walk_t walk, int n) {
  switch (walk) {
  case NQ_WALK_AUTO:
  case NQ_WALK_SCALAR: return 1;
  case NQ_WALK_AVX512: return n <= NQ_LANES_MAX_N && nq__lanes_supported();
  }
  return 0;
}

nq_walk_t nq_walk_resolve(nq_walk_t walk, int n) {
  if (walk != NQ_WALK_AUTO)
    return walk;
  return nq_walk_supported(NQ_WALK_AVX512, n) ? NQ_WALK_AVX512 : NQ_WALK_SCALAR;
}

const char *nq_walk_name(nq_walk_t walk) {
  switch (walk) {
  case NQ_WALK_AUTO: return "auto";
  case NQ_WALK_SCALAR: return "scalar";
  case NQ_WALK_AVX512: return "avx512";
  }
  return NULL;
}

int nq_kernel_set_walk(nq_search_t *search, nq_walk_t walk) {
  if (!nq_walk_supported(walk, search->n))
    return NQ_ENOTSUP;
  search->walk = nq_walk_resolve(walk, search->n);
  return NQ_OK;
}

int nq_kernel_prepare(nq_search_t *search, int n, const nq_frame_t *frame) {
  if (n < 0 || n > NQ_MAX_N || frame == NULL)
    return NQ_EINVAL;
  memset(search, 0, sizeof *search);
  search->n = n;
  search->frame = *frame;
  uint64_t fixed_rows = 0;
  if (frame->kind == NQ_FRAME_OPEN) {
    for (int row = 0; row < n; row++)
      search->row_mask[row] = board_columns(n);
    search->last_row = n - 1;
  } else if (frame->kind == NQ_FRAME_SIDES) {
    /* The same test as nq_frame_is_valid, done once: the set is needed. */
    uint64_t bottoms = nq_frame_sides_bottoms(n, frame);
    if (frame->bottom != 0 || bottoms == 0)
      return NQ_EINVAL;
    init_frame_masks(search, frame, bottoms, &fixed_rows);
  } else if (nq_frame_is_valid(n, frame)) {
    init_frame_masks(search, frame, 0, &fixed_rows);
  } else {
    return NQ_EINVAL;
  }
  init_walk(search, fixed_rows);
  search->walk = nq_walk_resolve(NQ_WALK_AUTO, n);
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

/* Squares `gap` rows down attacked by the queens so far. */
static inline uint64_t attacked_below(attacks_t a, int gap) {
  return a.cols | a.diag_left << gap | a.diag_right >> gap;
}

/* The last two walked rows, seen from the row above them. */
typedef struct last_rows {
  uint64_t first_mask, second_mask;
  int gap;      /* from the row above to the first of the two */
  int gap_next; /* between the two */
} last_rows_t;

/* Tries each of `free_squares`, the third-to-last walked row's squares,
 * whose attacks are (cols, diag_left, diag_right): what those leave free
 * in the last two rows is computed once for all of them. */
static inline uint64_t count_under_row(const last_rows_t *rows, uint64_t free_squares,
                                       uint64_t cols, uint64_t diag_left, uint64_t diag_right) {
  const int gap = rows->gap, reach = rows->gap + rows->gap_next;
  const uint64_t first_free = rows->first_mask & ~(cols | diag_left << gap | diag_right >> gap);
  const uint64_t second_free =
      rows->second_mask & ~(cols | diag_left << reach | diag_right >> reach);
  return pairs_under_squares(free_squares, first_free, second_free, gap, rows->gap_next);
}

/* The hot loop: depth-first with an explicit stack over the walked rows
 * from index `first` to walk_rows - 4; the squares of walked row
 * walk_rows - 3 are tried by count_under_row.  Plain scalars and one array
 * per quantity keep every value in a register (a struct of attacks made
 * GCC shuffle them through vector registers: 55 instructions a node). */
NQ_HOT_CLONES
static int count_completions(nq_unit_result_t *result, const nq_search_t *search, int first,
                             attacks_t start) {
  const int last = search->walk_rows - 1, walk_end = last - 2;
  const uint64_t *mask = search->walk_mask;
  const int *gap = search->walk_gap;
  uint64_t stack_free[NQ_MAX_N], stack_cols[NQ_MAX_N], stack_left[NQ_MAX_N],
      stack_right[NQ_MAX_N];
  uint64_t cols = start.cols, diag_left = start.diag_left, diag_right = start.diag_right;
  uint64_t solutions = 0, nodes = 0;
  int overflow = 0, i = first;
  if (first > walk_end) {
    if (first > last)
      result->solutions = 1; /* only frame rows are left, and they fit */
    else if (first == last)
      result->solutions = (uint64_t)bit_count(mask[last] & ~attacked(start));
    else
      result->solutions = legal_pairs(mask[last - 1] & ~attacked(start),
                                      mask[last] & ~attacked_below(start, gap[last - 1]),
                                      gap[last - 1]);
    return NQ_OK;
  }
  const last_rows_t rows = {mask[last - 1], mask[last], gap[walk_end], gap[last - 1]};
  uint64_t free_squares = mask[i] & ~(cols | diag_left | diag_right);
  for (;;) {
    if (i == walk_end) {
      nodes += (uint64_t)bit_count(free_squares);
      overflow |= __builtin_add_overflow(
          solutions, count_under_row(&rows, free_squares, cols, diag_left, diag_right), &solutions);
    } else if (free_squares) {
      const uint64_t bit = lowest_bit(free_squares);
      const int shift = gap[i];
      stack_free[i] = drop_lowest_bit(free_squares);
      stack_cols[i] = cols;
      stack_left[i] = diag_left;
      stack_right[i] = diag_right;
      cols |= bit;
      diag_left = (diag_left | bit) << shift;
      diag_right = (diag_right | bit) >> shift;
      i++;
      nodes++;
      free_squares = mask[i] & ~(cols | diag_left | diag_right);
      continue;
    }
    if (i == first)
      break;
    i--;
    free_squares = stack_free[i];
    cols = stack_cols[i];
    diag_left = stack_left[i];
    diag_right = stack_right[i];
  }
  if (overflow)
    return NQ_EOVERFLOW;
  result->solutions = solutions;
  result->nodes = nodes;
  return NQ_OK;
}

/* The first walked row at or below `row`, with the attacks moved there. */
static int walk_start(const nq_search_t *search, int row, attacks_t *a) {
  int first = 0;
  while (first < search->walk_rows && search->walk_row[first] < row)
    first++;
  if (first < search->walk_rows) {
    int skip = search->walk_row[first] - row;
    a->diag_left <<= skip;
    a->diag_right >>= skip;
  }
  return first;
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
  if (classify && search->frame.stabilizer != 1u << NQ_SYM_IDENTITY)
    return classify_completions(result, search, unit->depth, start, columns);
  int first = walk_start(search, unit->depth, &start);
  if (search->walk == NQ_WALK_AVX512 && search->walk_rows - first >= NQ_LANES_MIN_ROWS &&
      nq__lanes_fit(search, first))
    rc = nq__lanes_count(result, search, first, start.cols, start.diag_left, start.diag_right);
  else
    rc = count_completions(result, search, first, start);
  if (classify)
    result->stabilizer_sum = result->solutions;
  return rc;
}
