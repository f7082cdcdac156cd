/* The join's quarters, one table a board size and rows for the process.
 * Each bucket searched its own quarters, and at n = 18 that search, its
 * records and their sorting by group took an eighth of the time (perf,
 * docs/performance.md), though a quarter on a given set of columns is the
 * same in every bucket that holds those columns.  A table of every
 * placement of five rows is small up to n = 18 (C(n, 5) sets of a few
 * dozen placements, 16 bytes each: 5.8 MB at 18), so it is built once
 * under a lock and a bucket reads its groups where they lie (copying
 * them into the bucket's lists took 7% of Q(18)'s time, perf). */

#include "join_quarter_tables.h"

#include <pthread.h>
#include <stdlib.h>

#include "bits.h"
#include "grow.h"
#include "join_sets.h"
#include "nqueens/error.h"
#include "nqueens/join.h"

static pthread_mutex_t building = PTHREAD_MUTEX_INITIALIZER;
static join_quarter_table_t *tables[NQ_JOIN_MAX_N + 1][NQ_JOIN_MAX_N][JOIN_SHARED_QUARTER_ROWS + 1];

static size_t factorial(int k) { return k <= 1 ? 1 : (size_t)k * factorial(k - 1); }

/* The most the table can take: every ordering of every column set, as
 * wide words (a narrowed table takes half that: the limit was measured
 * with wide words, docs/performance.md). */
static size_t worst_bytes(int n, int rows) {
  const size_t groups = nq__join_binomial(n, rows);
  return groups * factorial(rows) * 2 * sizeof(uint64_t) + (groups + 1) * sizeof(uint32_t);
}

typedef struct listing {
  join_quarter_table_t *table;
  size_t ld_room, rd_room;
} listing_t;

/* Every placement of rows row.. on `free_columns`, one queen a row, none
 * attacking another, appended in the order found. */
static int search(listing_t *l, int row, uint64_t free_columns, uint64_t ld, uint64_t rd) {
  join_quarter_table_t *t = l->table;
  const int n = t->n;
  if (row == t->first_row + t->rows) {
    if (nq__grow((void **)&t->ld, &l->ld_room, t->count + 1, sizeof *t->ld) != NQ_OK ||
        nq__grow((void **)&t->rd, &l->rd_room, t->count + 1, sizeof *t->rd) != NQ_OK)
      return NQ_ENOMEM;
    t->ld[t->count] = ld;
    t->rd[t->count++] = rd;
    return NQ_OK;
  }
  const uint64_t attacked = (ld >> (n - row)) | (rd >> row); /* bit c: column c of `row` */
  for (uint64_t squares = free_columns & ~attacked; squares != 0;
       squares = drop_lowest_bit(squares)) {
    const int column = bit_index(lowest_bit(squares));
    int rc = search(l, row + 1, free_columns & ~column_bit(column),
                    ld | column_bit(column - row + n), rd | column_bit(column + row));
    if (rc != NQ_OK)
      return rc;
  }
  return NQ_OK;
}

static void free_table(join_quarter_table_t *table) {
  if (table != NULL) {
    free(table->start);
    free(table->ld);
    free(table->rd);
    free(table->ld32);
    free(table->rd32);
  }
  free(table);
}

/* A lower quarter's words narrowed (join_quarter_tables.h), in place of the wide
 * ones; NQ_ENOMEM leaves the wide ones. */
static int narrow(join_quarter_table_t *t, join_narrowing_t narrowing) {
  const size_t count = t->count ? t->count : 1;
  t->ld32 = malloc(count * sizeof *t->ld32);
  t->rd32 = malloc(count * sizeof *t->rd32);
  if (t->ld32 == NULL || t->rd32 == NULL) {
    free(t->ld32);
    free(t->rd32);
    t->ld32 = t->rd32 = NULL;
    return NQ_ENOMEM;
  }
  for (size_t i = 0; i < t->count; i++) {
    t->ld32[i] = (uint32_t)(t->ld[i] >> narrowing.ld_shift);
    t->rd32[i] = (uint32_t)(t->rd[i] >> narrowing.rd_shift);
  }
  free(t->ld);
  free(t->rd);
  t->ld = t->rd = NULL;
  return NQ_OK;
}

/* The column sets in increasing order (the order of their ranks), each
 * searched on its own: the list comes out grouped. */
static join_quarter_table_t *build(int n, int first_row, int rows) {
  join_quarter_table_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return NULL;
  *t = (join_quarter_table_t){.n = n, .first_row = first_row, .rows = rows};
  t->groups = nq__join_binomial(n, rows);
  nq__join_set_ranks_fill(&t->ranks);
  t->start = malloc(((size_t)t->groups + 1) * sizeof *t->start);
  listing_t l = {.table = t};
  int rc = t->start == NULL ? NQ_ENOMEM : NQ_OK;
  uint64_t columns = nq__join_first_set(rows);
  for (uint32_t g = 0; g < t->groups && rc == NQ_OK; g++, columns = nq__join_next_set(columns, n)) {
    t->start[g] = (uint32_t)t->count;
    rc = search(&l, first_row, columns, 0, 0);
  }
  if (rc != NQ_OK) {
    free_table(t);
    return NULL;
  }
  t->start[t->groups] = (uint32_t)t->count;
  const size_t index_bytes = sizeof *t + ((size_t)t->groups + 1) * sizeof *t->start;
  if (nq__join_narrow_fits(n, first_row + rows, first_row) &&
      narrow(t, nq__join_narrowing(n, first_row + rows, first_row)) == NQ_OK) {
    t->bytes = index_bytes + 2 * (t->count ? t->count : 1) * sizeof(uint32_t);
    return t;
  }
  /* Kept for the process: no room left over from the doubling. */
  uint64_t *ld = realloc(t->ld, (t->count ? t->count : 1) * sizeof *t->ld);
  if (ld != NULL)
    t->ld = ld, l.ld_room = t->count;
  uint64_t *rd = realloc(t->rd, (t->count ? t->count : 1) * sizeof *t->rd);
  if (rd != NULL)
    t->rd = rd, l.rd_room = t->count;
  t->bytes = index_bytes + (l.ld_room + l.rd_room) * sizeof(uint64_t);
  return t;
}

const join_quarter_table_t *nq__join_quarter_table(int n, int first_row, int rows) {
  if (n < 1 || n > NQ_JOIN_MAX_N || rows < 1 || rows > JOIN_SHARED_QUARTER_ROWS || first_row < 0 ||
      first_row + rows > n || worst_bytes(n, rows) > JOIN_SHARED_QUARTER_BYTES)
    return NULL;
  pthread_mutex_lock(&building);
  if (tables[n][first_row][rows] == NULL)
    tables[n][first_row][rows] = build(n, first_row, rows);
  const join_quarter_table_t *table = tables[n][first_row][rows];
  pthread_mutex_unlock(&building);
  return table;
}

static uint16_t *group_ranks[JOIN_RANKED_PLACES + 1][JOIN_RANKED_PLACES + 1];

/* Every set of m places of a of them ranked; the others 0, never read. */
static uint16_t *build_group_ranks(int m, int a) {
  uint16_t *ranks = calloc((size_t)1 << m, sizeof *ranks);
  if (ranks == NULL)
    return NULL;
  const uint32_t groups = nq__join_binomial(m, a);
  uint64_t places = nq__join_first_set(a);
  for (uint32_t g = 0; g < groups; g++) {
    if (g > 0) /* (the one empty set has no next) */
      places = nq__join_next_set(places, m);
    ranks[places] = (uint16_t)g;
  }
  return ranks;
}

const uint16_t *nq__join_group_ranks(int m, int a) {
  if (m < 0 || m > JOIN_RANKED_PLACES || a < 0 || a > m)
    return NULL;
  pthread_mutex_lock(&building);
  if (group_ranks[m][a] == NULL)
    group_ranks[m][a] = build_group_ranks(m, a);
  const uint16_t *ranks = group_ranks[m][a];
  pthread_mutex_unlock(&building);
  return ranks;
}

size_t nq__join_group_ranks_bytes(int m, int a) {
  return nq__join_group_ranks(m, a) != NULL ? ((size_t)1 << m) * sizeof(uint16_t) : 0;
}
