#ifndef NQ_TESTS_SUPPORT_H
#define NQ_TESTS_SUPPORT_H

/* What the suites share: a brute-force oracle written without the library
 * (every permutation tried, symmetries as matrices), and the test main. */

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* The largest board the permutation brute force is asked to solve:
 * 10! = 3.6 million permutations, a fraction of a second. */
#define BRUTE_MAX_N 10

/* Every solution of an n x n board, in lexicographic order of the columns
 * (row 0 first), found by trying all n! permutations.  n = 0 has one
 * solution, the empty board.  The result is cached and never freed. */
typedef struct brute_solutions {
  int n;
  size_t count;
  const uint8_t *columns; /* count rows of n columns */
} brute_solutions_t;

const brute_solutions_t *brute_solutions(int n);
const uint8_t *brute_solution(const brute_solutions_t *solutions, size_t index);

/* 1 if `columns` holds n columns in 0..n-1 with no two queens attacking. */
int brute_is_solution(const uint8_t *columns, int n);

/* The symmetry with id `sym` (nq_symmetry_t numbering) as a signed 2x2
 * matrix acting on centred coordinates (2 row - (n-1), 2 col - (n-1)). */
void brute_map_square(int sym, int n, int row, int col, int *out_row, int *out_col);

/* The board `columns` seen through `sym`: image[row'] = col' for each
 * queen (row, col) -> (row', col').  `columns` must be a permutation. */
void brute_image(uint8_t *image, const uint8_t *columns, int n, int sym);

/* Symmetries (bitmask) that map the permutation `columns` onto itself. */
uint32_t brute_fixing(const uint8_t *columns, int n);

/* The next permutation of p[0..n-1] in lexicographic order, in place; 0
 * after the last (descending) one. */
int brute_next_permutation(uint8_t *p, int n);

/* 1 if no image of the permutation `columns` is lexicographically smaller. */
int brute_is_least(const uint8_t *columns, int n);

/* A placement of one queen on each border line of the board, stored as
 * the column of the queen in row 0 / row n-1 and the row of the queen in
 * column 0 / column n-1. */
typedef struct brute_border {
  int top, bottom, left, right;
} brute_border_t;

/* 1 if the squares named by `border` hold mutually non-attacking queens
 * and each border line holds exactly one of them (a corner queen may
 * serve two lines). */
int brute_border_is_valid(int n, brute_border_t border);

/* The border placement seen through `sym`; `border` must be valid. */
brute_border_t brute_border_image(int n, brute_border_t border, int sym);

/* Symmetries (bitmask) that map the valid `border` onto itself. */
uint32_t brute_border_stabilizer(int n, brute_border_t border);

/* A distinct number for each border of an n x n board, below n^4. */
size_t brute_border_code(int n, brute_border_t border);

/* The border lines of a complete solution. */
brute_border_t brute_border_of(const uint8_t *columns, int n);

/* Does the board `columns` lie in `unit`: its border queens are the
 * frame's (a SIDES frame takes any column of `bottoms` in the last row) and
 * its first unit->depth rows are the prefix?  An OPEN frame fixes no line. */
struct nq_unit;
int support_unit_holds(int n, const struct nq_unit *unit, uint64_t bottoms,
                       const uint8_t *columns);

/* Every unit of (n, depth) from the generator, in id order; free units. */
struct nq_unit;
typedef struct support_units {
  size_t count;
  struct nq_unit *units;
} support_units_t;
support_units_t support_all_units(int n, int depth);

/* Counts n's first unit in `search` from its walk start with all but
 * `free` of its columns attacked and no diagonal, so that every branch
 * dead-ends within `free` steps, short of the step `asking_steps_up` above
 * the walk's last, where it asks its cancel hook before each subtree or
 * chunk of roots (a real
 * board's first rows can leave a walk there for minutes), after about as
 * many nodes as a count of `free` queens takes: a hook that says yes at
 * its second call must have stopped the walk, asked no more. */
struct nq_search;
void support_assert_asked_short_of_the_bottom(struct nq_search *search, int n, int free,
                                              int asking_steps_up);

/* Initialises MPI, builds the suite with `make_suite` (which may read the
 * arguments), runs it without forking (check's fork mode breaks Open MPI),
 * finalises MPI.  Rank 0 prints check's report, another rank only its
 * failures.  Returns the exit status for main:
 * failure when any rank had a failing test. */
int support_main(int argc, char **argv, Suite *(*make_suite)(int argc, char **argv));

/* A test case of the suite: every suite makes its cases here, so that on
 * more than one rank every rank stops at the first test after a failure
 * on any of them (reported, and the process fails), instead of the ranks
 * waiting in different tests' collectives for ctest's timeout. */
TCase *support_tcase(const char *name);

/* Rank of this process in MPI_COMM_WORLD (0 when MPI is not initialised). */
int support_rank(void);

#endif
