#include "nqueens/kernel.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "frame_rows.h"
#include "lanes.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"
#include "search.h"
#include "walk.h"

/* The walk gets a second copy built for x86-64-v3 processors (BMI1/2: one
 * instruction for the lowest bit, for clearing it, for variable shifts),
 * chosen when the program loads (docs/performance.md has the gain).  Builds
 * that already target such a processor need no copy. */
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

int nq_kernel_create(nq_search_t **out_search, int n, nq_walk_t walk) {
  if (n < 0 || n > NQ_MAX_N || nq_walk_name(walk) == NULL)
    return NQ_EINVAL;
  if (!nq_walk_supported(walk, n))
    return NQ_ENOTSUP;
  nq_search_t *search = calloc(1, sizeof *search);
  if (search == NULL)
    return NQ_ENOMEM;
  search->n = n;
  search->walk = nq_walk_resolve(walk, n);
  search->lanes_min_rows = NQ_LANES_MIN_ROWS;
  *out_search = search;
  return NQ_OK;
}

void nq_kernel_destroy(nq_search_t *search) { free(search); }

nq_walk_t nq_kernel_walk(const nq_search_t *search) { return search->walk; }

/* Takes the tables of `frame`, checked first: its weight multiplies every
 * count, and it may come from another process. */
static int prepare_frame(nq_search_t *search, const nq_frame_t *frame) {
  nq__frame_rows_t rows;
  search->has_frame = 0;
  int rc = nq__frame_rows_checked(&rows, search->n, frame);
  if (rc != NQ_OK)
    return rc;
  memcpy(search->row_mask, rows.mask, sizeof search->row_mask);
  search->last_row = rows.last_row;
  search->frame = *frame;
  init_walk(search, rows.fixed_rows);
  search->has_frame = 1;
  return NQ_OK;
}

static int same_frame(const nq_frame_t *a, const nq_frame_t *b) {
  return memcmp(a, b, sizeof *a) == 0;
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

/* The last two steps of the walk (the upper and the lower row), seen from
 * the step above them. */
typedef struct last_rows {
  uint64_t upper_mask, lower_mask;
  int gap;       /* from the step above to the upper row */
  int lower_gap; /* from the upper row to the lower */
} last_rows_t;

/* Tries each of `free_squares`, the third-to-last step's squares, whose
 * attacks are (cols, diag_left, diag_right): what those leave free in the
 * last two rows is computed once for all of them. */
static inline uint64_t count_under_row(const last_rows_t *rows, uint64_t free_squares,
                                       uint64_t cols, uint64_t diag_left, uint64_t diag_right) {
  const int gap = rows->gap, reach = rows->gap + rows->lower_gap;
  const uint64_t upper_free = rows->upper_mask & ~(cols | diag_left << gap | diag_right >> gap);
  const uint64_t lower_free =
      rows->lower_mask & ~(cols | diag_left << reach | diag_right >> reach);
  return pairs_under_squares(free_squares, upper_free, lower_free, gap, rows->lower_gap);
}

/* Fewer than three steps left: closed forms, no walk. */
static uint64_t count_short_walk(const nq_search_t *search, int start_step, attacks_t start) {
  const int last = search->walk_rows - 1;
  const uint64_t *mask = search->walk_mask;
  if (start_step > last)
    return 1; /* only frame rows are left, and they fit */
  if (start_step == last)
    return (uint64_t)bit_count(mask[last] & ~attacked(start));
  const int gap = search->walk_gap[last - 1];
  return legal_pairs(mask[last - 1] & ~attacked(start), mask[last] & ~attacked_below(start, gap),
                     gap);
}

/* The scalar walks ask whether to abandon their unit (nq__kernel_set_cancel)
 * once per subtree rooted this many steps above their bottom (the step
 * whose squares count_under_row tries): a few thousand nodes apart at any
 * n (docs/performance.md), however large the unit: asking costs nothing
 * measurable, and a stop waits for one such subtree at most. */
enum { CANCEL_STEPS = 8 };

/* The step where a walk from `start_step` to `bottom_step` asks; a walk of
 * at most CANCEL_STEPS steps never asks, and returns `start_step`. */
static inline int cancel_point(int start_step, int bottom_step) {
  return bottom_step - CANCEL_STEPS > start_step ? bottom_step - CANCEL_STEPS : start_step;
}

void nq__kernel_set_cancel(nq_search_t *search, nq__cancel_fn cancelled, void *context) {
  search->cancelled = cancelled;
  search->cancel_context = context;
}

/* The hot loop: depth-first with an explicit stack over the steps from
 * `start_step` to walk_rows - 4; the squares of step walk_rows - 3 are
 * tried by count_under_row.  Plain scalars and one array per quantity keep
 * every value in a register (a struct of attacks made GCC shuffle them
 * through vector registers). */
NQ_HOT_CLONES
static int count_completions(nq_unit_result_t *result, const nq_search_t *search,
                             int start_step, attacks_t start) {
  const int last = search->walk_rows - 1, walk_end = last - 2;
  const uint64_t *mask = search->walk_mask;
  const int *gap = search->walk_gap;
  uint64_t stack_free[NQ_MAX_N], stack_cols[NQ_MAX_N], stack_left[NQ_MAX_N],
      stack_right[NQ_MAX_N];
  uint64_t cols = start.cols, diag_left = start.diag_left, diag_right = start.diag_right;
  uint64_t solutions = 0, nodes = 0;
  int overflow = 0, i = start_step;
  if (start_step > walk_end) {
    result->solutions = count_short_walk(search, start_step, start);
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
    if (i == start_step)
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

/* count_completions for a searcher with a cancel hook: a plain walk from
 * `start_step` down to `check_step` hands each of its placements there to
 * count_completions, asking the hook before each.  The hot loop stays as
 * it was: a test for the hook inside it, though never taken, slowed it
 * measurably (docs/performance.md).  The nodes add up to the same count:
 * this walk counts the queens it places above `check_step`,
 * count_completions those from there down. */
static int count_in_subtrees(nq_unit_result_t *result, const nq_search_t *search, int start_step,
                             attacks_t start, int check_step) {
  const uint64_t *mask = search->walk_mask;
  const int *gap = search->walk_gap;
  uint64_t free_squares[NQ_MAX_N];
  attacks_t at[NQ_MAX_N];
  uint64_t solutions = 0, nodes = 0, since_asked = 0;
  int overflow = 0, i = start_step;
  at[i] = start;
  free_squares[i] = mask[i] & ~attacked(start);
  while (i >= start_step) {
    if (i == check_step) {
      nq_unit_result_t subtree;
      since_asked = 0;
      if (nq__search_cancelled(search))
        return NQ_ESTOPPED;
      int rc = count_completions(&subtree, search, i, at[i]);
      if (rc != NQ_OK)
        return rc;
      overflow |= __builtin_add_overflow(solutions, subtree.solutions, &solutions);
      nodes += subtree.nodes;
      i--;
    } else if (free_squares[i]) {
      const uint64_t bit = lowest_bit(free_squares[i]);
      free_squares[i] = drop_lowest_bit(free_squares[i]);
      at[i + 1] = (attacks_t){at[i].cols | bit, (at[i].diag_left | bit) << gap[i],
                              (at[i].diag_right | bit) >> gap[i]};
      free_squares[i + 1] = mask[i + 1] & ~attacked(at[i + 1]);
      nodes++;
      i++;
      /* Far above the bottom a walk can dead-end for minutes without
       * reaching check_step (n = 64: the first rows placed leftmost leave
       * no room forty rows down). */
      if (++since_asked == NQ_SEARCH_NODES_BETWEEN_ASKS) {
        since_asked = 0;
        if (nq__search_cancelled(search))
          return NQ_ESTOPPED;
      }
    } else {
      i--;
    }
  }
  if (overflow)
    return NQ_EOVERFLOW;
  result->solutions = solutions;
  result->nodes = nodes;
  return NQ_OK;
}

/* The first step at or below `row`, with the attacks moved to its row. */
static int step_at_or_below(const nq_search_t *search, int row, attacks_t *a) {
  int step = 0;
  while (step < search->walk_rows && search->walk_row[step] < row)
    step++;
  if (step < search->walk_rows) {
    int skip = search->walk_row[step] - row;
    a->diag_left <<= skip;
    a->diag_right >>= skip;
  }
  return step;
}

/* As count_completions, but row by row over every row from `start_row`,
 * building each completion to test it against the frame's symmetries.
 * Only frames with symmetries need it. */
static int classify_completions(nq_unit_result_t *result, const nq_search_t *search,
                                int start_row, attacks_t start, uint8_t *columns) {
  const int n = search->n, last_row = search->last_row;
  const int check_row = cancel_point(start_row, last_row - 2);
  uint64_t stack_free[NQ_MAX_N];
  attacks_t stack_attacks[NQ_MAX_N];
  uint64_t solutions = 0, stabilizer_sum = 0, nodes = 0;
  int row = start_row;
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
    if (row <= check_row) {
      if (row == start_row)
        break;
      if (nq__search_cancelled(search))
        return NQ_ESTOPPED;
    }
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

/* The counting walk from `start_step`, whose row the attacks `start` are
 * already moved to: the lanes where they pay, else the scalar walk. */
static int count_from_step(nq_unit_result_t *result, const nq_search_t *search, int start_step,
                           attacks_t start) {
  if (search->walk == NQ_WALK_AVX512 && search->walk_rows - start_step >= search->lanes_min_rows &&
      nq__lanes_fit(search, start_step))
    return nq__lanes_count(result, search, start_step, start.cols, start.diag_left,
                           start.diag_right);
  int check_step = cancel_point(start_step, search->walk_rows - 3);
  if (search->cancelled != NULL && check_step > start_step)
    return count_in_subtrees(result, search, start_step, start, check_step);
  return count_completions(result, search, start_step, start);
}

static int count_unit(nq_unit_result_t *result, const nq_search_t *search, int start_row,
                      attacks_t start) {
  int start_step = step_at_or_below(search, start_row, &start);
  return count_from_step(result, search, start_step, start);
}

int nq__kernel_count_from(nq_unit_result_t *result, const nq_search_t *search,
                          const nq__walk_start_t *start) {
  memset(result, 0, sizeof *result);
  result->weight = search->frame.weight;
  if (!search->has_frame || start->step < 0 || start->step > search->walk_rows)
    return NQ_EINVAL;
  attacks_t a = {start->cols, start->diag_left, start->diag_right};
  return count_from_step(result, search, start->step, a);
}

/* The frame's tables, prepared unless already there. */
static int take_frame(nq_search_t *search, const nq_frame_t *frame) {
  if (search->has_frame && same_frame(&search->frame, frame))
    return NQ_OK;
  return prepare_frame(search, frame);
}

int nq__kernel_walk_start(nq__walk_start_t *start, nq_search_t *search, const nq_unit_t *unit) {
  uint8_t columns[NQ_MAX_N];
  attacks_t a;
  int rc = take_frame(search, &unit->frame);
  if (rc == NQ_OK)
    rc = place_prefix(&a, columns, search, unit);
  if (rc != NQ_OK)
    return rc;
  start->step = step_at_or_below(search, unit->depth, &a);
  start->cols = a.cols;
  start->diag_left = a.diag_left;
  start->diag_right = a.diag_right;
  return NQ_OK;
}

int nq_kernel_solve(nq_unit_result_t *result, nq_search_t *search, const nq_unit_t *unit,
                    int classify) {
  uint8_t columns[NQ_MAX_N];
  attacks_t start;
  memset(result, 0, sizeof *result);
  result->id = unit->id;
  result->weight = unit->frame.weight;
  int rc = take_frame(search, &unit->frame);
  if (rc == NQ_OK)
    rc = place_prefix(&start, columns, search, unit);
  if (rc != NQ_OK)
    return rc;
  if (unit->depth > search->last_row)
    return solve_complete(result, search, columns, classify);
  /* Frames only the identity fixes need no classification: every
   * completion is fixed by exactly one symmetry. */
  if (classify && search->frame.stabilizer != 1u << NQ_SYM_IDENTITY)
    return classify_completions(result, search, unit->depth, start, columns);
  rc = count_unit(result, search, unit->depth, start);
  if (classify)
    result->stabilizer_sum = result->solutions;
  return rc;
}
