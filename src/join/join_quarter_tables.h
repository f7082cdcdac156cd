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

/* A lower quarter's words narrowed to 32 bits, where they fit: a queen of
 * rows a..m-1 holds ld diagonals n - m + 1 .. 2n - 1 - a and rd diagonals
 * a .. n + m - 2, so ld shifted right by n - m + 1 and rd by a lie in
 * 0 .. n + m - a - 2, and fit where n + m - a <= 33.  An upper quarter's
 * words are shifted alike: the ld bits it loses past 31 lie past every
 * lower quarter's and off the board, the rd ones below a before every
 * lower quarter's and off it too (the top's masks keep squares 0 .. n - 1
 * of row m).  The pairing then tries sixteen an instruction, not eight
 * (docs/performance.md): to n = 26 at the default cut. */
typedef struct join_narrowing {
  int ld_shift, rd_shift;
} join_narrowing_t;

/* The shifts of a lower quarter of rows lower_first_row .. top_rows - 1. */
static inline join_narrowing_t nq__join_narrowing(int n, int top_rows, int lower_first_row) {
  return (join_narrowing_t){.ld_shift = n - top_rows + 1, .rd_shift = lower_first_row};
}

/* Whether that quarter's words fit 32 bits so shifted. */
static inline int nq__join_narrow_fits(int n, int top_rows, int lower_first_row) {
  return lower_first_row > 0 && n + top_rows - lower_first_row <= 33;
}

/* Rows first_row .. first_row + rows - 1 of an n-wide board: the
 * placements on the column set of rank g (among the rows-subsets of the
 * board's columns, colex) are ld/rd[start[g] .. start[g + 1]), each as
 * join_quarter_t's words (ld diagonal c - r + n, rd c + r); or, for a
 * lower quarter (first_row > 0) whose words fit 32 bits narrowed
 * (nq__join_narrow_fits: the cut m = first_row + rows), ld32/rd32 in
 * their place, shifted as it says, ld and rd NULL. */
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

/* A bucket's groups by the places the upper quarter takes among the
 * bucket's m columns, as bits: the rank of each a-subset of m places among
 * them (colex), kept for m up to JOIN_RANKED_PLACES (2^m of them, 128 kB
 * at 16), so that the quarters' search finds a placement's group in one
 * load, not a loop over its places (2.9% of Q(20)'s time,
 * docs/performance.md). */
enum { JOIN_RANKED_PLACES = 16 };

/* The ranks for m places and groups of a, built on the first call and
 * kept for the process; NULL for m past JOIN_RANKED_PLACES or on
 * NQ_ENOMEM, and the caller ranks each set itself.  Safe from any
 * thread. */
const uint16_t *nq__join_group_ranks(int m, int a);

/* The bytes those ranks hold, built if not yet. */
size_t nq__join_group_ranks_bytes(int m, int a);

/* The table of those rows, built on the first call and kept for the
 * process; NULL where none is kept (too many rows or bytes) or on
 * NQ_ENOMEM, and the caller then searches.  Safe from any thread. */
const join_quarter_table_t *nq__join_quarter_table(int n, int first_row, int rows);

#endif
