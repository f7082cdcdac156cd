#ifndef NQUEENS_SYMMETRY_H
#define NQUEENS_SYMMETRY_H

#include <stdint.h>

/* The 8 symmetries of the square board (the dihedral group D4).  A set of
 * them is a bitmask with bit (1 << symmetry). */
typedef enum nq_symmetry {
  NQ_SYM_IDENTITY = 0,
  NQ_SYM_ROT90,      /* (r, c) -> (c, n-1-r) */
  NQ_SYM_ROT180,     /* (r, c) -> (n-1-r, n-1-c) */
  NQ_SYM_ROT270,     /* (r, c) -> (n-1-c, r) */
  NQ_SYM_FLIP_COLS,  /* mirror left-right: (r, c) -> (r, n-1-c) */
  NQ_SYM_FLIP_ROWS,  /* mirror top-bottom: (r, c) -> (n-1-r, c) */
  NQ_SYM_TRANSPOSE,  /* main diagonal: (r, c) -> (c, r) */
  NQ_SYM_ANTI_TRANSPOSE /* anti-diagonal: (r, c) -> (n-1-c, n-1-r) */
} nq_symmetry_t;

#define NQ_SYM_COUNT 8
#define NQ_SYM_ALL 0xFFu

/* Maps square (row, col) of an n x n board through symmetry `sym`. */
void nq_symmetry_apply(nq_symmetry_t sym, int n, int row, int col,
                       int *out_row, int *out_col);

/* Number of symmetries in a set (its size as a group). */
int nq_symmetry_set_size(uint32_t set);

/* Bitmask of the symmetries in `set` that map the complete solution
 * `columns` (column of the queen in each row 0..n-1) onto itself. */
uint32_t nq_symmetry_fixing(const uint8_t *columns, int n, uint32_t set);

/* 1 if the complete solution `columns` is the lexicographically least of
 * its 8 images (row 0's column first): the one board --list --unique shows
 * of its class.  0 otherwise, and for a board that is not a permutation. */
int nq_symmetry_is_least(const uint8_t *columns, int n);

#endif
