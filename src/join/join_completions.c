/* The join's completions, one table a board size for the whole process.
 * A bucket's walk needs those on its bottom columns only, but listing
 * them bucket by bucket cost a quarter of the time at n = 17 (perf),
 * while the table of all of them is small (C(n, 5) groups of a few dozen
 * placements, four bytes each) and the same for every bucket and thread,
 * so it is built once under a lock and then only read. */

#include "join_completions.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "grow.h"
#include "join_sets.h"
#include "nqueens/error.h"

static pthread_mutex_t building = PTHREAD_MUTEX_INITIALIZER;
static join_completions_t *tables[NQ_JOIN_MAX_N + 1];

typedef struct listing {
  join_completions_t *table;
  size_t capacity;
  int n;
  uint64_t columns; /* the group's */
  uint32_t cells;   /* the path's, as a placement's */
} listing_t;

/* Every placement of rows row..n-1 on `free_columns`, one queen a row,
 * none attacking another, appended in the order found. */
static int search(listing_t *l, int row, uint64_t free_columns, uint64_t ld, uint64_t rd) {
  const int n = l->n, first = n - JOIN_COMPLETION_ROWS;
  if (row == n) {
    join_completions_t *t = l->table;
    if (nq__grow((void **)&t->placements, &l->capacity, t->count + 1, sizeof *t->placements) !=
        NQ_OK)
      return NQ_ENOMEM;
    /* ld bit n: a queen with c = r; rd bit n - 1: one with r + c = n - 1. */
    t->placements[t->count++] = l->cells | (uint32_t)((ld >> n) & 1) * JOIN_ON_MAIN_DIAGONAL |
                                (uint32_t)((rd >> (n - 1)) & 1) * JOIN_ON_ANTI_DIAGONAL;
    return NQ_OK;
  }
  uint64_t attacked = (ld >> (n - row)) | (rd >> row); /* bit c: column c of `row` */
  for (uint64_t squares = free_columns & ~attacked; squares != 0;
       squares = drop_lowest_bit(squares)) {
    int column = bit_index(lowest_bit(squares));
    const uint32_t cell = 1u << (JOIN_COMPLETION_ROWS * (row - first) + column_rank(l->columns, column));
    l->cells |= cell;
    int rc = search(l, row + 1, free_columns & ~column_bit(column),
                    ld | column_bit(column - row + n), rd | column_bit(column + row));
    l->cells &= ~cell;
    if (rc != NQ_OK)
      return rc;
  }
  return NQ_OK;
}

/* How many of the board's two longest diagonals a placement holds. */
static int long_diagonals_held(join_completion_t placement) {
  return (int)((placement / JOIN_ON_MAIN_DIAGONAL) & 1u) +
         (int)((placement / JOIN_ON_ANTI_DIAGONAL) & 1u);
}

/* The group's placements ordered by how many long diagonals they hold,
 * none first, each kind in the order found: a node's fitting ones then
 * come counted once first, then those that may count twice, and those on
 * both (which the long-diagonal rule leaves out) last.  Returns how many
 * are not on both. */
static uint32_t order_by_long_diagonals(join_completion_t *group, uint32_t count) {
  join_completion_t sorted[JOIN_MOST_COMPLETIONS];
  uint32_t placed = 0, on_both = 0;
  for (int held = 0; held <= 2; held++)
    for (uint32_t e = 0; e < count; e++)
      if (long_diagonals_held(group[e]) == held) {
        sorted[placed++] = group[e];
        on_both += held == 2;
      }
  memcpy(group, sorted, count * sizeof *group);
  return count - on_both;
}

static void free_table(join_completions_t *table) {
  if (table != NULL) {
    free(table->start);
    free(table->ruled_end);
    free(table->placements);
  }
  free(table);
}

/* The column sets in increasing order as numbers (colex, the order of
 * their ranks), each searched on its own: the list comes out grouped. */
static join_completions_t *build(int n) {
  const int rows = JOIN_COMPLETION_ROWS;
  join_completions_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return NULL;
  t->n = n;
  t->groups = nq__join_binomial(n, rows);
  t->start = malloc(((size_t)t->groups + 1) * sizeof *t->start);
  t->ruled_end = malloc((size_t)t->groups * sizeof *t->ruled_end);
  nq__join_set_ranks_fill(&t->ranks);
  listing_t l = {.table = t, .n = n};
  int rc = t->start == NULL || t->ruled_end == NULL ? NQ_ENOMEM : NQ_OK;
  uint64_t columns = nq__join_first_set(rows);
  for (uint32_t g = 0; g < t->groups && rc == NQ_OK; g++, columns = nq__join_next_set(columns, n)) {
    t->start[g] = (uint32_t)t->count;
    l.columns = columns;
    rc = search(&l, n - rows, columns, 0, 0);
    t->ruled_end[g] =
        order_by_long_diagonals(t->placements + t->start[g], (uint32_t)t->count - t->start[g]) +
        t->start[g];
  }
  if (rc != NQ_OK) {
    free_table(t);
    return NULL;
  }
  t->start[t->groups] = (uint32_t)t->count;
  /* Kept for the process: no room left over from the doubling. */
  join_completion_t *fitted = realloc(t->placements, t->count * sizeof *t->placements);
  if (fitted != NULL)
    t->placements = fitted;
  t->bytes = sizeof *t + ((size_t)t->groups * 2 + 1) * sizeof *t->start +
             (fitted != NULL ? t->count : l.capacity) * sizeof *t->placements;
  return t;
}

const join_completions_t *nq__join_completions(int n) {
  if (n <= JOIN_COMPLETION_ROWS || n > NQ_JOIN_MAX_N)
    return NULL;
  pthread_mutex_lock(&building);
  if (tables[n] == NULL)
    tables[n] = build(n);
  const join_completions_t *table = tables[n];
  pthread_mutex_unlock(&building);
  return table;
}
