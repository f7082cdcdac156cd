#ifndef NQ_SRC_JOIN_COMPLETIONS_H
#define NQ_SRC_JOIN_COMPLETIONS_H

/* The completions of the join's bottom walk (join_completions.c): every
 * placement of a board's last JOIN_COMPLETION_ROWS rows, grouped by the
 * columns it takes, built once a process for each board size and shared,
 * read-only, by every thread. */

#include <stddef.h>
#include <stdint.h>

#include "join_sets.h"
#include "nqueens/join.h"

/* The rows whose placements are listed: the walk's fused rows but the
 * first (five measured best, against four and six: docs/performance.md). */
enum { JOIN_COMPLETION_ROWS = 5 };

/* The most placements a group holds: the orderings of its columns. */
enum { JOIN_MOST_COMPLETIONS = 120 };

/* A placement of the last rows, as the cells of its group's square that
 * its queens take: bit 5j + i for the queen of row j (0 the first of
 * those rows) on the group's column i (0 the leftmost), and above them
 * which of the board's two longest diagonals it holds (the long-diagonal
 * rule asks).  Four bytes, where its diagonals and columns took 24: the
 * walk reads dozens of placements at every node six rows from the end,
 * and the table then stays in the caches longer (docs/performance.md). */
typedef uint32_t join_completion_t;

enum {
  JOIN_COMPLETION_CELLS = JOIN_COMPLETION_ROWS * JOIN_COMPLETION_ROWS,
  JOIN_ON_MAIN_DIAGONAL = 1u << JOIN_COMPLETION_CELLS,
  JOIN_ON_ANTI_DIAGONAL = 2u << JOIN_COMPLETION_CELLS,
};

/* The group's column of row j's queen in a placement. */
static inline int nq__join_completion_column_index(join_completion_t placement, int row) {
  return __builtin_ctz((placement >> (JOIN_COMPLETION_ROWS * row)) | (1u << JOIN_COMPLETION_ROWS));
}

/* Group g (the rank of its columns among the JOIN_COMPLETION_ROWS-subsets
 * of the board's, nq__join_completion_group) is
 * placements[start[g] .. start[g + 1]), ordered by how many of the two
 * long diagonals they hold: none, then one, then both, from ruled_end[g]
 * on (the long-diagonal rule leaves those out). */
typedef struct join_completions {
  int n;
  uint32_t groups;
  uint32_t *start, *ruled_end;
  join_completion_t *placements;
  size_t count, bytes;
  join_set_ranks_t ranks; /* a group's rank from its columns */
} join_completions_t;
_Static_assert((int)JOIN_COMPLETION_ROWS <= (int)JOIN_RANKED_SIZE, "the groups are ranked");

/* Board n's completions (JOIN_COMPLETION_ROWS < n <= NQ_JOIN_MAX_N),
 * built on the first call and kept for the process; NULL on NQ_ENOMEM.
 * Safe from any thread. */
const join_completions_t *nq__join_completions(int n);

/* The group of the completions on exactly `columns`
 * (JOIN_COMPLETION_ROWS of them). */
static inline uint32_t nq__join_completion_group(const join_completions_t *completions,
                                                 uint64_t columns) {
  return nq__join_set_rank(&completions->ranks, columns);
}

#endif
