/* The join's units: the column sets of the top half, one per orbit under
 * the left-right mirror and the up-down flip, each with the weights of its
 * row-m queens (docs/algorithm.md section 7).  The bucket itself, exact or
 * sampled, is join_bucket.c's. */

#include "join_units.h"

#include <string.h>

#include "bits.h"
#include "join_bucket.h"
#include "nqueens/error.h"

/* The columns mirrored left to right on an n-wide board: the 64 bits
 * reversed (halves, quarters, ... swapped), then shifted into place. */
static uint64_t mirrored(uint64_t columns, int n) {
  uint64_t r = columns;
  r = (r >> 32) | (r << 32);
  r = ((r >> 16) & 0x0000ffff0000ffffull) | ((r & 0x0000ffff0000ffffull) << 16);
  r = ((r >> 8) & 0x00ff00ff00ff00ffull) | ((r & 0x00ff00ff00ff00ffull) << 8);
  r = ((r >> 4) & 0x0f0f0f0f0f0f0f0full) | ((r & 0x0f0f0f0f0f0f0f0full) << 4);
  r = ((r >> 2) & 0x3333333333333333ull) | ((r & 0x3333333333333333ull) << 2);
  r = ((r >> 1) & 0x5555555555555555ull) | ((r & 0x5555555555555555ull) << 1);
  return r >> (64 - n);
}

/* An orbit's member: a top's column set and its middle row's queen.  The
 * orbit's unit is the member that comes first: the larger `crowded`, then
 * the smaller (set, column), lexicographically.  Under scheme 4 (a middle
 * row), `crowded` is how crowded the top's columns are: the up-down
 * flip's member has another top, and of the two the more crowded has the
 * fewer tops, whose table every bottom node reads (docs/algorithm.md, "The
 * halves' order").  Under scheme 3 it is 0, and a board cut in half walks
 * its more crowded half whichever set is the unit (unit_to_walk). */
typedef struct set_and_queen {
  uint64_t columns;
  int middle;  /* the middle row's queen, or -1 */
  int crowded;
} set_and_queen_t;

static int is_before(set_and_queen_t a, set_and_queen_t b) {
  if (a.crowded != b.crowded)
    return a.crowded > b.crowded;
  return a.columns < b.columns || (a.columns == b.columns && a.middle < b.middle);
}

/* How many members the orbit of `members[0]` has, or 0 when another
 * member comes before it. */
static int orbit_size(const set_and_queen_t *members, int count) {
  int distinct = 0;
  for (int i = 0; i < count; i++) {
    if (is_before(members[i], members[0]))
      return 0;
    int seen = 0;
    for (int j = 0; j < i; j++)
      seen |= members[j].columns == members[i].columns && members[j].middle == members[i].middle;
    distinct += !seen;
  }
  return distinct;
}

/* How much a set's columns crowd together: over each pair of its columns
 * closer than `rows`, how much closer (the pairs `apart` apart: the
 * columns the set still holds shifted by `apart`).  Queens in close
 * columns share diagonals within a few rows, so of two sets the more
 * crowded has fewer placements of `rows` rows (docs/algorithm.md, "The
 * halves' order"). */
static int crowding(uint64_t columns, int rows) {
  int crowded = 0;
  for (int apart = 1; apart < rows; apart++)
    crowded += (rows - apart) * bit_count(columns & columns >> apart);
  return crowded;
}

/* A member's `crowded` under `scheme` (set_and_queen_t). */
static int crowded_under(int scheme, uint64_t columns, int rows) {
  return scheme == NQ_JOIN_MIDDLE_ROW_UNIT_SCHEME ? crowding(columns, rows) : 0;
}

/* The weight of each queen c of row m for the top columns S: how many
 * (column set, queen) pairs it stands for, 0 where another pair of its
 * orbit counts them.  The left-right mirror maps the solutions with top
 * columns S and queen c on row m to those with mirror(S) and n-1-c.  The
 * up-down flip maps them to those with top columns the bottom's: when the
 * top is half the board, the complement of S (any c); when a middle row
 * m = (n-1)/2 separates two halves, the columns neither S nor c hold, and
 * the same c.  The pair that counts an orbit is its first member under
 * `scheme` (set_and_queen_t).  Returns 1 when some weight is not 0; the
 * weights start at 0 (nq__join_unit_weights). */
static int first_row_weights(uint8_t weight[NQ_JOIN_MAX_N], uint64_t columns, int n, int top_rows,
                             int scheme) {
  uint64_t board = board_columns(n);
  int any = 0;
  if (2 * top_rows + 1 != n) {
    set_and_queen_t orbit[4] = {{columns, -1, 0}, {mirrored(columns, n), -1, 0}};
    if (orbit[1].columns < columns)
      return 0; /* its mirror counts it */
    int count = 2;
    if (2 * top_rows == n) {
      orbit[2] = (set_and_queen_t){board & ~columns, -1, 0};
      orbit[3] = (set_and_queen_t){mirrored(board & ~columns, n), -1, 0};
      count = 4;
    }
    int size = orbit_size(orbit, count);
    for (int c = 0; c < n; c++)
      weight[c] = (uint8_t)size;
    return size != 0;
  }
  /* The mirror of S, as crowded as S, comes before S for every queen: no
   * pair of S counts (half of all sets; the test that a listing makes
   * most). */
  const uint64_t mirror = mirrored(columns, n), rest = board & ~columns;
  if (mirror < columns)
    return 0;
  const uint64_t rest_mirror = mirrored(rest, n);
  const int top_crowded = crowded_under(scheme, columns, top_rows);
  for (int c = 0; c < n; c++) {
    if (columns & column_bit(c))
      continue;
    const uint64_t bottom = rest & ~column_bit(c);
    const int bottom_crowded = crowded_under(scheme, bottom, top_rows);
    set_and_queen_t orbit[4] = {{columns, c, top_crowded},
                                {mirror, n - 1 - c, top_crowded},
                                {bottom, c, bottom_crowded},
                                {rest_mirror & ~column_bit(n - 1 - c), n - 1 - c, bottom_crowded}};
    weight[c] = (uint8_t)orbit_size(orbit, 4);
    any |= weight[c] != 0;
  }
  return any;
}

/* The long-diagonal rule (the default cut; nq__join_weighted applies
 * it).  The mirror and the flip above keep the cut; the board's
 * other four symmetries (the two diagonal reflections and the quarter
 * turns) do not, but they act on the two longest diagonals, each of which
 * holds at most one queen: reflecting in one long diagonal keeps the
 * queen on it and moves the other's queen to the other half.  So over an
 * orbit under all eight symmetries, the solutions whose halves hold one
 * long diagonal's queen each are exactly as many as those with both
 * queens in one half, and each solution may count instead 0 when one half
 * holds both queens, 2 when each holds one, 1 otherwise: every orbit
 * still sums to its size, and the weight is the same under the mirror and
 * the flip, so the sets' weights here stay.  On an odd board the middle
 * row's queen is on neither long diagonal, or on both at the centre
 * (where its solutions count once: no other queen is on them), and the
 * reflections map the middle row to the middle column and back, so the
 * same holds.  The pairs of weight 0 are never looked at: a top on both is
 * dropped, and a bottom queen on one long diagonal closes the other below
 * it.  About a third of the pairs go (docs/algorithm.md). */

/* A canonical set's bucket as it is walked: its row-m weights, and the
 * half that holds the table of tops.  On a board cut in half the up-down
 * flip maps the solutions with top columns S one to one onto those with
 * the complement of S, each with the same weight (the long-diagonal
 * rule's too), so either half can hold the table and the other be
 * walked.  The table is what a bottom node reads, and a smaller one walks
 * faster the more it outgrows the caches: the half with fewer tops, the
 * more crowded one (docs/algorithm.md, "The halves' order").  The unit
 * stays S: its id, count and weights do not change.  0 when `columns` is
 * no unit of the cut. */
static int unit_to_walk(uint8_t weight[NQ_JOIN_MAX_N], uint64_t *walked_columns,
                        uint64_t columns, int n, int top_rows) {
  if (!nq__join_unit_weights(weight, columns, n, top_rows, nq_join_unit_scheme(n, top_rows)))
    return 0;
  const uint64_t complement = board_columns(n) & ~columns;
  const int flipped =
      2 * top_rows == n && crowding(complement, top_rows) > crowding(columns, top_rows);
  *walked_columns = flipped ? complement : columns;
  return 1;
}

/* ---- the units of the join: canonical column sets, in increasing order ---- */

int nq__join_unit_weights(uint8_t weight[NQ_JOIN_MAX_N], uint64_t columns, int n, int top_rows,
                          int scheme) {
  memset(weight, 0, NQ_JOIN_MAX_N);
  return nq__join_bucket_is_valid(n, top_rows, columns) &&
         first_row_weights(weight, columns, n, top_rows, scheme);
}

int nq__join_is_canonical(uint64_t columns, int n, int top_rows) {
  uint8_t weight[NQ_JOIN_MAX_N];
  return nq__join_unit_weights(weight, columns, n, top_rows, nq_join_unit_scheme(n, top_rows));
}

int nq__join_unit(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch, int n,
                  int top_rows, uint64_t columns) {
  uint8_t weight[NQ_JOIN_MAX_N];
  uint64_t walked_columns;
  if (!unit_to_walk(weight, &walked_columns, columns, n, top_rows))
    return NQ_EUNIT;
  return nq__join_weighted(solutions, stats, scratch, n, top_rows, walked_columns, weight, 1);
}

int nq__join_sample_unit(nq__join_sample_t *estimate, nq__join_sample_t *walked,
                         nq_join_scratch_t *scratch, int n, int top_rows, uint64_t columns,
                         int exact_rows, int descents, uint64_t *random_state) {
  uint8_t weight[NQ_JOIN_MAX_N];
  uint64_t walked_columns;
  if (!unit_to_walk(weight, &walked_columns, columns, n, top_rows))
    return NQ_EUNIT;
  return nq__join_sample_weighted(estimate, walked, scratch, n, top_rows, walked_columns, weight,
                                  1, exact_rows, descents, random_state);
}
