#ifndef NQUEENS_SOLUTIONS_H
#define NQUEENS_SOLUTIONS_H

#include <stdint.h>

/* Called with each solution (column of the queen in rows 0..n-1); a
 * non-zero return stops the enumeration and is passed back. */
typedef int (*nq_solution_visit_fn)(const uint8_t *columns, int n, void *context);

/* Visits the solutions of an n x n board in lexicographic order of their
 * columns, row 0 first, at most `limit` of them (0 = all). */
int nq_solutions_each(int n, uint64_t limit, nq_solution_visit_fn visit, void *context);

/* The same, but only one solution of each class under the board's 8
 * symmetries: the lexicographically least of its images
 * (nq_symmetry_is_least), so U(n) of them; `limit` counts those visited. */
int nq_solutions_each_least(int n, uint64_t limit, nq_solution_visit_fn visit, void *context);

typedef enum nq_first_kind {
  NQ_FIRST_NONE = 0,          /* the board has no solution (n = 2, 3) */
  NQ_FIRST_LEXICOGRAPHIC,     /* the lexicographically first solution */
  NQ_FIRST_CONSTRUCTED        /* a solution from the explicit construction */
} nq_first_kind_t;

/* Largest n for which --first searches for the lexicographic first
 * solution; beyond it the backtracking can take minutes (n = 34). */
#define NQ_FIRST_SEARCH_MAX_N 32

/* One solution: the lexicographically first for n <= NQ_FIRST_SEARCH_MAX_N,
 * else the classical explicit construction. */
int nq_solutions_first(uint8_t *columns, nq_first_kind_t *kind, int n);

/* 1 if `columns` places n mutually non-attacking queens. */
int nq_solutions_is_valid(const uint8_t *columns, int n);

#endif
