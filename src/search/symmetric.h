#ifndef NQ_SRC_SYMMETRIC_H
#define NQ_SRC_SYMMETRIC_H

/* The solutions that a turn of the board maps onto themselves: with Q(n),
 * what Burnside's lemma needs for U(n) when the count has no frames to
 * classify (the join, method_join.c).  Of the eight symmetries of the
 * square, only the identity and the turns fix a solution of n >= 2 (a
 * solution that a mirror fixes has two queens facing each other across
 * it), so 8 U(n) = Q(n) + half_turn + 2 quarter_turn (the quarter turn
 * and the three-quarter turn fix the same solutions). */

#include <stdint.h>

#include "search.h"

/* The largest board: the images' upward diagonals are kept in 64 bits,
 * 2n - 1 of them. */
#define NQ_SYMMETRIC_MAX_N 32

typedef struct nq__symmetric_counts {
  uint64_t half_turn;    /* fixed by the half turn (OEIS A032522) */
  uint64_t quarter_turn; /* fixed by the quarter turn (A033148), in half_turn too */
  uint64_t nodes;        /* queens placed in the top half, each with its image */
} nq__symmetric_counts_t;

/* Counts the solutions of the n x n board fixed by the half turn, and
 * among them those fixed by the quarter turn, by a search of the top half
 * alone (each queen placed with its image).  `cancelled` (may be NULL) is
 * asked every 2^20 nodes: non-zero abandons the search with NQ_ESTOPPED.
 * NQ_EINVAL for n outside 0..NQ_SYMMETRIC_MAX_N. */
int nq__count_symmetric(nq__symmetric_counts_t *counts, int n, nq__cancel_fn cancelled,
                        void *context);

#endif
