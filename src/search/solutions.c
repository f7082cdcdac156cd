#include "nqueens/solutions.h"

#include <stddef.h>

#include "bits.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"
#include "nqueens/units.h"

typedef struct stop_after {
  uint64_t limit, seen;
  nq_solution_visit_fn visit;
  void *context;
} stop_after_t;

/* Lexicographic order falls out of trying the lowest free column first.
 * Row 0 tries only the columns of `first_row`. */
static int each_solution(int n, uint64_t first_row,
                         int (*visit)(const uint8_t *, int, stop_after_t *), stop_after_t *state) {
  uint8_t columns[NQ_MAX_N] = {0};
  uint64_t stack_free[NQ_MAX_N + 1], cols[NQ_MAX_N + 1], diag_left[NQ_MAX_N + 1],
      diag_right[NQ_MAX_N + 1];
  const uint64_t board = board_columns(n);
  if (n == 0)
    return visit(columns, 0, state);
  int row = 0;
  cols[0] = diag_left[0] = diag_right[0] = 0;
  stack_free[0] = board & first_row;
  while (row >= 0) {
    if (!stack_free[row]) {
      row--;
      continue;
    }
    uint64_t bit = lowest_bit(stack_free[row]);
    stack_free[row] = drop_lowest_bit(stack_free[row]);
    columns[row] = (uint8_t)bit_index(bit);
    if (row == n - 1) {
      int rc = visit(columns, n, state);
      if (rc != 0)
        return rc;
      continue;
    }
    cols[row + 1] = cols[row] | bit;
    diag_left[row + 1] = (diag_left[row] | bit) << 1;
    diag_right[row + 1] = (diag_right[row] | bit) >> 1;
    row++;
    stack_free[row] = board & ~(cols[row] | diag_left[row] | diag_right[row]);
  }
  return 0;
}

/* A positive value that tells the wrapper the limit, not the caller, stopped. */
enum { LIMIT_REACHED = 1 };

static int visit_until_limit(const uint8_t *columns, int n, stop_after_t *state) {
  int rc = state->visit(columns, n, state->context);
  if (rc != 0)
    return rc;
  state->seen++;
  return state->limit != 0 && state->seen >= state->limit ? LIMIT_REACHED : 0;
}

int nq_solutions_each(int n, uint64_t limit, nq_solution_visit_fn visit, void *context) {
  if (n < 0 || n > NQ_MAX_N || visit == NULL)
    return NQ_EINVAL;
  stop_after_t state = {limit, 0, visit, context};
  int rc = each_solution(n, ~(uint64_t)0, visit_until_limit, &state);
  return rc == LIMIT_REACHED ? NQ_OK : rc;
}

static int visit_least_until_limit(const uint8_t *columns, int n, stop_after_t *state) {
  return nq_symmetry_is_least(columns, n) ? visit_until_limit(columns, n, state) : 0;
}

/* The mirror's image starts with column n - 1 - c, smaller than c past the
 * middle: the least of a class has its first queen in the left half, and
 * the walk need not try the right. */
int nq_solutions_each_least(int n, uint64_t limit, nq_solution_visit_fn visit, void *context) {
  if (n < 0 || n > NQ_MAX_N || visit == NULL)
    return NQ_EINVAL;
  stop_after_t state = {limit, 0, visit, context};
  uint64_t left_half = board_columns((n + 1) / 2);
  int rc = each_solution(n, left_half, visit_least_until_limit, &state);
  return rc == LIMIT_REACHED ? NQ_OK : rc;
}

static int keep_first(const uint8_t *columns, int n, stop_after_t *state) {
  uint8_t *out = state->context;
  for (int row = 0; row < n; row++)
    out[row] = columns[row];
  state->seen = 1;
  return LIMIT_REACHED;
}

/* The classical construction (Hoffman, Loessi and Moore 1969), 1-based:
 * even numbers then odd ones, patched when n mod 6 is 2 or 3. */
static void construct(uint8_t *columns, int n) {
  int evens[NQ_MAX_N], odds[NQ_MAX_N], even_count = 0, odd_count = 0, k = 0;
  for (int v = 2; v <= n; v += 2)
    evens[even_count++] = v;
  for (int v = 1; v <= n; v += 2)
    odds[odd_count++] = v;
  if (n % 6 == 2) { /* odd list 3, 1, 7, 9, ..., 5 */
    odds[0] = 3;
    odds[1] = 1;
    for (int i = 2; i + 1 < odd_count; i++)
      odds[i] = odds[i + 1];
    odds[odd_count - 1] = 5;
  } else if (n % 6 == 3) { /* evens 4, 6, ..., 2; odds 5, 7, ..., 1, 3 */
    for (int i = 0; i + 1 < even_count; i++)
      evens[i] = evens[i + 1];
    evens[even_count - 1] = 2;
    for (int i = 0; i + 2 < odd_count; i++)
      odds[i] = odds[i + 2];
    odds[odd_count - 2] = 1;
    odds[odd_count - 1] = 3;
  }
  for (int i = 0; i < even_count; i++)
    columns[k++] = (uint8_t)(evens[i] - 1);
  for (int i = 0; i < odd_count; i++)
    columns[k++] = (uint8_t)(odds[i] - 1);
}

int nq_solutions_first(uint8_t *columns, nq_first_kind_t *kind, int n) {
  if (n < 0 || n > NQ_MAX_N)
    return NQ_EINVAL;
  *kind = NQ_FIRST_NONE;
  if (n == 2 || n == 3)
    return NQ_OK;
  if (n > NQ_FIRST_SEARCH_MAX_N) {
    construct(columns, n);
    if (!nq_solutions_is_valid(columns, n))
      return NQ_EINVAL;
    *kind = NQ_FIRST_CONSTRUCTED;
    return NQ_OK;
  }
  stop_after_t state = {1, 0, NULL, columns};
  each_solution(n, ~(uint64_t)0, keep_first, &state);
  if (state.seen)
    *kind = NQ_FIRST_LEXICOGRAPHIC;
  return NQ_OK;
}

int nq_solutions_is_valid(const uint8_t *columns, int n) {
  for (int a = 0; a < n; a++) {
    if (columns[a] >= n)
      return 0;
    for (int b = a + 1; b < n; b++) {
      int dc = columns[a] > columns[b] ? columns[a] - columns[b] : columns[b] - columns[a];
      if (dc == 0 || dc == b - a)
        return 0;
    }
  }
  return 1;
}
