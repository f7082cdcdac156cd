#include "symmetric.h"

#include <stddef.h>

#include "bits.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"

/* A solution fixed by the half turn is its top half and that half turned:
 * the queen (r, c) brings its image (n-1-r, n-1-c), and on an odd board
 * the middle row's queen is its own image, so it stands in the centre.  The
 * search places the top half's rows in order, each queen with its image,
 * and keeps what rules out squares of the next row:
 *  - the columns of the queens and of their images;
 *  - the top queens' diagonals going down, as the backtracker keeps them;
 *  - the images' diagonals going up, from rows below the half.  The image
 *    of (i, c) reaches row r at column r + (i - c) going up-left and at
 *    (2n - 2 - c - i) - r going up-right, so each is kept once as a bit of
 *    a fixed set, i - c + n - 1 and 2n - 2 - c - i (below 2n - 1), and
 *    shifted down to the row it is read on.
 * A top queen and a later queen's image attack each other exactly when
 * the later queen and the earlier image do (turn the pair), so checking
 * each queen against the images placed before it checks every pair once;
 * a queen and its own image share a diagonal when the queen stands on a
 * long diagonal, which is ruled out as it is placed. */

/* Nodes between two calls of the cancel hook. */
enum { NODES_BETWEEN_LOOKS = 1 << 20 };

typedef struct half_search {
  int n, half; /* half: the rows the search places */
  uint64_t board;
  uint8_t column[NQ_SYMMETRIC_MAX_N]; /* every row's queen, images included */
  nq__symmetric_counts_t *counts;
  nq__cancel_fn cancelled;
  void *context;
} half_search_t;

/* What rules out squares of the row being filled. */
typedef struct attacks {
  uint64_t columns, down_left, down_right;
  uint64_t up_left, up_right; /* the images' diagonals, as fixed sets */
} attacks_t;

/* The squares of `row` that the images' diagonals reach. */
static uint64_t images_reach(const attacks_t *a, int n, int row, uint64_t board) {
  return ((a->up_left >> (n - 1 - row)) | (a->up_right >> row)) & board;
}

/* The attacks on row + 1 once the queen (row, col) and its image stand. */
static attacks_t with_queen(const attacks_t *a, int n, uint64_t board, int row, int col) {
  const uint64_t bit = column_bit(col);
  return (attacks_t){
      .columns = a->columns | bit | column_bit(n - 1 - col),
      .down_left = (a->down_left | bit) << 1 & board,
      .down_right = (a->down_right | bit) >> 1,
      .up_left = a->up_left | column_bit(row - col + n - 1),
      .up_right = a->up_right | column_bit(2 * n - 2 - col - row),
  };
}

static int place_row(half_search_t *s, int row, const attacks_t *a) {
  const int n = s->n;
  if (row == s->half) {
    s->counts->half_turn++;
    s->counts->quarter_turn += nq_symmetry_fixing(s->column, s->n, 1u << NQ_SYM_ROT90) != 0 ? 1 : 0;
    return NQ_OK;
  }
  const uint64_t long_diagonals = column_bit(row) | column_bit(n - 1 - row);
  uint64_t free = s->board & ~(a->columns | a->down_left | a->down_right | long_diagonals |
                               images_reach(a, n, row, s->board));
  while (free != 0) {
    const int col = bit_index(lowest_bit(free));
    free = drop_lowest_bit(free);
    if (++s->counts->nodes % NODES_BETWEEN_LOOKS == 0 && s->cancelled != NULL &&
        s->cancelled(s->context))
      return NQ_ESTOPPED;
    s->column[row] = (uint8_t)col;
    s->column[n - 1 - row] = (uint8_t)(n - 1 - col);
    const attacks_t below = with_queen(a, n, s->board, row, col);
    const int rc = place_row(s, row + 1, &below);
    if (rc != NQ_OK)
      return rc;
  }
  return NQ_OK;
}

int nq__count_symmetric(nq__symmetric_counts_t *counts, int n, nq__cancel_fn cancelled,
                        void *context) {
  *counts = (nq__symmetric_counts_t){0};
  if (n < 0 || n > NQ_SYMMETRIC_MAX_N)
    return NQ_EINVAL;
  half_search_t s = {.n = n,
                     .half = n / 2,
                     .board = board_columns(n),
                     .counts = counts,
                     .cancelled = cancelled,
                     .context = context};
  attacks_t start = {0};
  if (n % 2 == 1) { /* the middle row's queen, its own image */
    s.column[n / 2] = (uint8_t)(n / 2);
    start.columns = column_bit(n / 2);
  }
  return place_row(&s, 0, &start);
}
