#ifndef NQ_SRC_JOIN_QUARTER_TABLES_H
#define NQ_SRC_JOIN_QUARTER_TABLES_H

/* The quarters of the join's tops (join_tops.c), listed once a process:
 * every placement of a few rows on every set of as many columns, by the
 * diagonals it holds, grouped by its columns.  A bucket's quarters are
 * then read from the table instead of searched (join_quarter_tables.c
 * has why). */

#include <stddef.h>
#include <stdint.h>

#include "join_sets.h"

/* Tables are kept for quarters of at most JOIN_SHARED_QUARTER_ROWS rows
 * whose worst case (every ordering of every column set) takes at most
 * JOIN_SHARED_QUARTER_BYTES: the default cut's both quarters to n = 18,
 * its upper one at 19.  Larger tables (64 MiB kept both to 21) were no
 * faster at 19 and 20: their groups come from all over tens of MB, and
 * the loads cost what the search did (docs/performance.md). */
enum { JOIN_SHARED_QUARTER_ROWS = 5 };
#define JOIN_SHARED_QUARTER_BYTES ((size_t)16 << 20)

/* A lower quarter's words narrowed to 32 bits, where they fit: ld shifted
 * right by n - m (no queen of rows a..m-1 holds an ld diagonal below
 * n - m + 1, nor above 2n - 1 - a, so shifted they lie in 1 .. n + m - 1 - a),
 * rd as it is (0 .. n + m - 2), so n + m - 1 <= 32 bits.  The upper
 * quarter's ld, shifted alike, can reach n + m - 1: that bit, past 31 where
 * n + m = 33, is dropped, and nothing is lost, as it lies past every lower
 * quarter's ld and off the board (the top's masks keep squares below n).
 * The pairing then tries sixteen an instruction, not eight
 * (docs/performance.md): to n = 22 at the default cut. */
static inline int nq__join_narrow_fits(int n, int top_rows) { return n + top_rows <= 33; }

/* Rows first_row .. first_row + rows - 1 of an n-wide board: the
 * placements on the column set of rank g (among the rows-subsets of the
 * board's columns, colex) are ld/rd[start[g] .. start[g + 1]), each as
 * join_quarter_t's words (ld diagonal c - r + n, rd c + r); or, for a
 * lower quarter (first_row > 0) whose words fit 32 bits narrowed
 * (nq__join_narrow_fits: the cut m = first_row + rows), ld32/rd32 in
 * their place, ld shifted right by n - m, ld and rd NULL. */
typedef struct join_quarter_table {
  int n, first_row, rows;
  uint32_t groups;
  uint32_t *start;
  uint64_t *ld, *rd;
  uint32_t *ld32, *rd32;
  size_t count, bytes;
  join_set_ranks_t ranks; /* a group's rank from its columns */
} join_quarter_table_t;
_Static_assert((int)JOIN_SHARED_QUARTER_ROWS <= (int)JOIN_RANKED_SIZE,
               "a table's groups are ranked");

/* The table of those rows, built on the first call and kept for the
 * process; NULL where none is kept (too many rows or bytes) or on
 * NQ_ENOMEM, and the caller then searches.  Safe from any thread. */
const join_quarter_table_t *nq__join_quarter_table(int n, int first_row, int rows);

#endif
