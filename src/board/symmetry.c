#include "nqueens/symmetry.h"

#include <string.h>

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

/* The board seen through `sym`, as nq_symmetry_apply moves each queen;
 * `columns` must be a permutation, or rows of the image stay unset. */
static void image_of(nq_symmetry_t sym, const uint8_t *columns, int n, uint8_t *image) {
  for (int row = 0; row < n; row++) {
    int image_row, image_col;
    nq_symmetry_apply(sym, n, row, columns[row], &image_row, &image_col);
    image[image_row] = (uint8_t)image_col;
  }
}

static int is_permutation(const uint8_t *columns, int n) {
  uint64_t seen = 0;
  for (int row = 0; row < n; row++) {
    if (columns[row] >= n || (seen >> columns[row] & 1u))
      return 0;
    seen |= (uint64_t)1 << columns[row];
  }
  return 1;
}

int nq_symmetry_is_least(const uint8_t *columns, int n) {
  uint8_t image[NQ_MAX_N];
  if (n < 0 || n > NQ_MAX_N || !is_permutation(columns, n))
    return 0;
  for (int sym = NQ_SYM_ROT90; sym < NQ_SYM_COUNT; sym++) {
    image_of((nq_symmetry_t)sym, columns, n, image);
    if (memcmp(image, columns, (size_t)n) < 0)
      return 0;
  }
  return 1;
}
