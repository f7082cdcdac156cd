#include "nqueens/symmetry.h"

#include "nqueens/frame.h" /* NQ_MAX_N */

void nq_symmetry_apply(nq_symmetry_t sym, int n, int row, int col,
                       int *out_row, int *out_col) {
  int last = n - 1;
  int r = row, c = col;
  switch (sym) {
  case NQ_SYM_IDENTITY: break;
  case NQ_SYM_ROT90: r = col; c = last - row; break;
  case NQ_SYM_ROT180: r = last - row; c = last - col; break;
  case NQ_SYM_ROT270: r = last - col; c = row; break;
  case NQ_SYM_FLIP_COLS: c = last - col; break;
  case NQ_SYM_FLIP_ROWS: r = last - row; break;
  case NQ_SYM_TRANSPOSE: r = col; c = row; break;
  case NQ_SYM_ANTI_TRANSPOSE: r = last - col; c = last - row; break;
  }
  *out_row = r;
  *out_col = c;
}

int nq_symmetry_set_size(uint32_t set) {
  return __builtin_popcount(set & NQ_SYM_ALL);
}

static int maps_onto_itself(const uint8_t *columns, int n, nq_symmetry_t sym) {
  for (int row = 0; row < n; row++) {
    int image_row, image_col;
    nq_symmetry_apply(sym, n, row, columns[row], &image_row, &image_col);
    if (columns[image_row] != image_col)
      return 0;
  }
  return 1;
}

uint32_t nq_symmetry_fixing(const uint8_t *columns, int n, uint32_t set) {
  uint32_t fixing = 0;
  for (int sym = 0; sym < NQ_SYM_COUNT; sym++)
    if ((set >> sym & 1u) && maps_onto_itself(columns, n, (nq_symmetry_t)sym))
      fixing |= 1u << sym;
  return fixing;
}

/* Row k of the image of a board under `sym`, from the board and its
 * inverse (the row of the queen in each column): a turn or a transpose
 * swaps rows and columns, so its rows come from the inverse. */
static int image_column(nq_symmetry_t sym, const uint8_t *columns, const uint8_t *rows, int n,
                        int k) {
  int last = n - 1;
  switch (sym) {
  case NQ_SYM_ROT90: return last - rows[k];
  case NQ_SYM_ROT180: return last - columns[last - k];
  case NQ_SYM_ROT270: return rows[last - k];
  case NQ_SYM_FLIP_COLS: return last - columns[k];
  case NQ_SYM_FLIP_ROWS: return columns[last - k];
  case NQ_SYM_TRANSPOSE: return rows[k];
  case NQ_SYM_ANTI_TRANSPOSE: return last - rows[last - k];
  default: return columns[k];
  }
}

/* Compares row by row and stops at the first that differs, so most
 * images are rejected or passed on their first rows. */
static int image_is_smaller(nq_symmetry_t sym, const uint8_t *columns, const uint8_t *rows, int n) {
  for (int k = 0; k < n; k++) {
    int image = image_column(sym, columns, rows, n, k);
    if (image != columns[k])
      return image < columns[k];
  }
  return 0;
}

int nq_symmetry_is_least(const uint8_t *columns, int n) {
  uint8_t rows[NQ_MAX_N];
  uint64_t seen = 0;
  if (n < 0 || n > NQ_MAX_N)
    return 0;
  for (int row = 0; row < n; row++) {
    if (columns[row] >= n || (seen >> columns[row] & 1u))
      return 0;
    seen |= (uint64_t)1 << columns[row];
    rows[columns[row]] = (uint8_t)row;
  }
  for (int sym = NQ_SYM_ROT90; sym < NQ_SYM_COUNT; sym++)
    if (image_is_smaller((nq_symmetry_t)sym, columns, rows, n))
      return 0;
  return 1;
}
