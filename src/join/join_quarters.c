/* A bucket's quarters (join_quarters.h), held in one of three ways.  The
 * groups are the a-subsets of the bucket's columns S, numbered by their
 * rank among them (the combinatorial number system).  Where the process
 * keeps a table of the quarter's rows, each group is a range of it.  Else
 * the bucket searches the quarter over all of S once, each placement put
 * in its group's room, as large as a group's most (a! or (m - a)!), so
 * that nothing is sorted and the room is known before the search.  A
 * bucket's whole quarters took hundreds of MB a thread from n = 27 (a
 * 64 MB scratch held 671 MB at n = 28), so where the rooms would take more
 * than their share of the scratch's limit (join_memory.c) or
 * WHOLE_MOST_BYTES, the bucket searches one group at a time instead, on
 * the group's a columns and on the other m - a: at most a! and (m - a)!
 * placements held.  That search repeats the rows the groups share, about
 * 3.5 times the nodes, nothing against a bucket's minutes where it is
 * taken (docs/algorithm.md). */

#include <stdlib.h>

#include "bits.h"
#include "grow.h"
#include "join_quarters.h"
#include "join_sets.h"
#include "nqueens/error.h"

/* a is the largest at most m / 2 whose subsets number at most
 * MAX_GROUPS, so that the groups' ranges stay small for any cut (m <= 16,
 * every default cut, always takes a = m / 2). */
enum { MAX_GROUPS = 1 << 16 };

/* A group's placements are reserved at their most at once up to this
 * many rows (8! of them, 640 kB wide: every default cut), so that the
 * quarters' bytes are known before a part is sized; longer quarters, only
 * under the tests' group limits, grow as they fill. */
enum { RESERVED_ROWS = 8 };

int nq__join_upper_rows(int m, uint32_t group_limit) {
  const uint32_t limit = group_limit != 0 ? group_limit : MAX_GROUPS;
  int a = m / 2;
  while (a > 0 && nq__join_binomial(m, a) > limit)
    a--;
  return a;
}

/* Listed whole, a quarter's rooms take at most this much whatever the
 * limit (a quarter of it: nq__grow may double them): every default cut's
 * quarters to n = 25 and its upper one to 27, whose rooms take 10.6 MB
 * (n = 24 and 25) and 19.8 MB (26 and 27). */
#define WHOLE_MOST_BYTES ((size_t)64 << 20)

/* The most placements a group of `rows` rows holds: one queen a row on as
 * many columns, every ordering of them (rows!; SIZE_MAX past 20 rows,
 * where that outgrows 64 bits). */
static size_t group_most(int rows) {
  if (rows > 20) /* 21! passes 2^64 */
    return SIZE_MAX;
  size_t most = 1;
  for (int k = 2; k <= rows; k++)
    most *= (size_t)k;
  return most;
}

/* Room for `needed` placements in the list's own words, wide or narrowed. */
static int reserve_own(join_quarter_list_t *list, size_t needed) {
  if (list->narrowed)
    return nq__grow((void **)&list->own_ld32, &list->own_ld32_capacity, needed,
                    sizeof *list->own_ld32) == NQ_OK &&
                   nq__grow((void **)&list->own_rd32, &list->own_rd32_capacity, needed,
                            sizeof *list->own_rd32) == NQ_OK
               ? NQ_OK
               : NQ_ENOMEM;
  return nq__grow((void **)&list->own_ld, &list->own_ld_capacity, needed, sizeof *list->own_ld) ==
                     NQ_OK &&
                 nq__grow((void **)&list->own_rd, &list->own_rd_capacity, needed,
                          sizeof *list->own_rd) == NQ_OK
             ? NQ_OK
             : NQ_ENOMEM;
}

/* The list reads its own words. */
static void read_own(join_quarter_list_t *list) {
  list->ld = list->narrowed ? NULL : list->own_ld;
  list->rd = list->narrowed ? NULL : list->own_rd;
  list->ld32 = list->narrowed ? list->own_ld32 : NULL;
  list->rd32 = list->narrowed ? list->own_rd32 : NULL;
}

static void put_placement(join_quarter_list_t *list, const join_narrowing_t *narrowing, size_t at,
                          uint64_t ld, uint64_t rd) {
  if (list->narrowed) {
    list->own_ld32[at] = (uint32_t)(ld >> narrowing->ld_shift);
    list->own_rd32[at] = (uint32_t)(rd >> narrowing->rd_shift);
  } else {
    list->own_ld[at] = ld;
    list->own_rd[at] = rd;
  }
}

/* A search of the quarter's rows on `columns`: over all of S (counting or
 * placing each group's), or on one group's columns (appending). */
typedef struct quarter_search {
  join_quarter_list_t *list;
  const join_narrowing_t *narrowing;
  int n, is_upper;
  int whole; /* over all of S, each placement put in its group's room; else appended */
  uint64_t columns;
  uint32_t all_places;                                    /* every place of S, as bits */
  uint32_t place_bit[NQ_JOIN_MAX_N];                      /* a column's place in S, as a bit */
  const uint16_t *group_ranks; /* the process's, where kept (join_quarter_tables.h) */
  uint64_t nodes;
} quarter_search_t;

/* The rank of an a-subset of S's places among all of them: its group. */
static uint32_t group_of(const quarter_search_t *s, uint32_t places) {
  return s->group_ranks != NULL ? s->group_ranks[places] : nq__join_set_rank_computed(places);
}

static int record(quarter_search_t *s, uint32_t places, uint64_t ld, uint64_t rd) {
  join_quarter_list_t *list = s->list;
  if (!s->whole) {
    if (reserve_own(list, list->count + 1) != NQ_OK)
      return NQ_ENOMEM;
    put_placement(list, s->narrowing, list->count++, ld, rd);
    return NQ_OK;
  }
  /* An upper quarter's group is the places it takes; a lower one's, the
   * places it leaves. */
  const uint32_t g = group_of(s, s->is_upper ? places : s->all_places & ~places);
  put_placement(list, s->narrowing, list->end[g]++, ld, rd);
  return NQ_OK;
}

/* Every placement of rows row..end_row-1 on the search's columns not yet
 * `used`. */
static int search(quarter_search_t *s, int row, uint64_t used, uint32_t places, uint64_t ld,
                  uint64_t rd) {
  if (row == s->list->end_row)
    return record(s, places, ld, rd);
  const int n = s->n;
  const uint64_t attacked = (ld >> (n - row)) | (rd >> row); /* bit c: column c of `row` */
  for (uint64_t free_squares = s->columns & ~used & ~attacked; free_squares != 0;
       free_squares = drop_lowest_bit(free_squares)) {
    const uint64_t queen = lowest_bit(free_squares);
    const int column = bit_index(queen);
    s->nodes++;
    int rc = search(s, row + 1, used | queen, places | s->place_bit[column],
                    ld | column_bit(column - row + n), rd | column_bit(column + row));
    if (rc != NQ_OK)
      return rc;
  }
  return NQ_OK;
}

/* The columns of S at `places`. */
static uint64_t columns_at(const join_quarters_t *q, uint32_t places) {
  uint64_t columns = 0;
  for (; places != 0; places &= places - 1)
    columns |= column_bit(q->column_at[__builtin_ctz(places)]);
  return columns;
}

/* Room for the groups' ranges, exactly as many (a thread's least memory
 * counts them). */
static int reserve_ranges(join_quarter_list_t *list, uint32_t groups) {
  if (groups <= list->range_capacity)
    return NQ_OK;
  uint32_t *begin = realloc(list->begin, groups * sizeof *begin);
  if (begin != NULL)
    list->begin = begin;
  uint32_t *end = realloc(list->end, groups * sizeof *end);
  if (end != NULL)
    list->end = end;
  if (begin == NULL || end == NULL)
    return NQ_ENOMEM;
  list->range_capacity = groups;
  return NQ_OK;
}

/* The quarter's groups found in the process's table of its rows: for
 * each a-subset of S's places, in the order of their ranks, the
 * placements on those columns (an upper quarter) or on the others of S (a
 * lower one). */
static int find_in_table(const join_quarters_t *q, join_quarter_list_t *list,
                         const join_quarter_table_t *table, int is_upper) {
  if (reserve_ranges(list, q->groups) != NQ_OK)
    return NQ_ENOMEM;
  list->ld = table->ld;
  list->rd = table->rd;
  list->ld32 = table->ld32;
  list->rd32 = table->rd32;
  uint32_t places = q->next_group_places;
  for (uint32_t g = 0; g < q->groups; g++) {
    if (g > 0) /* (the one empty set has no next) */
      places = (uint32_t)nq__join_next_set(places, 32);
    const uint64_t upper_columns = columns_at(q, places);
    const uint32_t rank =
        nq__join_set_rank(&table->ranks, is_upper ? upper_columns : q->columns & ~upper_columns);
    list->begin[g] = table->start[rank];
    list->end[g] = table->start[rank + 1];
  }
  return NQ_OK;
}

/* A search over all of S, its groups ranked among the a-subsets of S. */
static quarter_search_t search_over(const join_quarters_t *q, join_quarter_list_t *list, int n,
                                    int is_upper) {
  quarter_search_t s = {.list = list, .narrowing = &q->narrowing, .n = n,
                        .is_upper = is_upper, .whole = 1, .columns = q->columns};
  const int places = bit_count(q->columns);
  for (int p = 0; p < places; p++) /* (q->column_at: each place's column) */
    s.place_bit[q->column_at[p]] = (uint32_t)1 << p;
  s.all_places = (uint32_t)board_columns(places);
  s.group_ranks = nq__join_group_ranks(places, q->upper_rows);
  return s;
}

/* The most bytes a quarter's reckoning gives (only cuts far from the
 * default reach it): a few of them summed, as the memory bound does,
 * stay clear of wrapping around. */
#define QUARTER_BYTES_CEILING (SIZE_MAX / 8)

/* What nq__grow's room for `items` takes at most, up to the ceiling. */
static size_t grown_bytes(size_t items, size_t item) {
  if (items > QUARTER_BYTES_CEILING / 2 / item)
    return QUARTER_BYTES_CEILING;
  return (items <= 1024 ? 1024 : 2 * items) * item;
}

static size_t word_bytes(int narrowed) { return narrowed ? sizeof(uint32_t) : sizeof(uint64_t); }

/* The quarter searched over S, each placement put in its group's room
 * of a group's most, where those rooms fit `whole_budget` and
 * WHOLE_MOST_BYTES; else left to be searched a group at a time. */
static int list_whole_or_by_group(const join_quarters_t *q, join_quarter_list_t *list, int n,
                                  int is_upper, size_t whole_budget, uint64_t *nodes) {
  const int rows = list->end_row - list->first_row;
  const size_t room = group_most(rows), word = word_bytes(list->narrowed);
  const size_t budget = whole_budget < WHOLE_MOST_BYTES ? whole_budget : WHOLE_MOST_BYTES;
  if (room > budget / word / 4 / q->groups) { /* (2 arrays, and grown_bytes' doubling) */
    list->searched = 1;
    return rows <= RESERVED_ROWS ? reserve_own(list, room) : NQ_OK;
  }
  if (reserve_ranges(list, q->groups) != NQ_OK || reserve_own(list, q->groups * room) != NQ_OK)
    return NQ_ENOMEM;
  for (uint32_t g = 0; g < q->groups; g++)
    list->begin[g] = list->end[g] = (uint32_t)(g * room);
  quarter_search_t s = search_over(q, list, n, is_upper);
  int rc = search(&s, list->first_row, 0, 0, 0, 0);
  *nodes += s.nodes;
  read_own(list);
  return rc;
}

int nq__join_quarters_open(join_quarters_t *q, join_quarter_list_t *list, int n, int first_row,
                           int end_row, const join_quarter_choice_t *choice, uint64_t *nodes) {
  /* The bucket's settings; the arrays and their room are kept. */
  list->searched = 0;
  list->narrowed = choice->narrowed;
  list->first_row = first_row;
  list->end_row = end_row;
  list->held_group = UINT32_MAX;
  list->count = 0;
  list->ld = list->rd = NULL;
  list->ld32 = list->rd32 = NULL;
  const join_quarter_table_t *table =
      choice->shared ? nq__join_quarter_table(n, first_row, end_row - first_row) : NULL;
  if (table != NULL && (table->ld32 != NULL) == choice->narrowed)
    return find_in_table(q, list, table, choice->is_upper);
  return list_whole_or_by_group(q, list, n, choice->is_upper, choice->whole_budget, nodes);
}

int nq__join_quarters_hold(join_quarters_t *q, int n, uint64_t *nodes) {
  const uint64_t upper_columns = columns_at(q, q->next_group_places);
  join_quarter_list_t *lists[2] = {&q->upper, &q->lower};
  for (int k = 0; k < 2; k++) {
    join_quarter_list_t *list = lists[k];
    if (!list->searched || list->held_group == q->next_group)
      continue;
    quarter_search_t s = {.list = list, .narrowing = &q->narrowing, .n = n,
                          .columns = k == 0 ? upper_columns : q->columns & ~upper_columns};
    list->count = 0;
    list->held_group = UINT32_MAX;
    int rc = search(&s, list->first_row, 0, 0, 0, 0);
    *nodes += s.nodes;
    if (rc != NQ_OK)
      return rc;
    list->held_group = q->next_group;
    read_own(list);
  }
  return NQ_OK;
}

void nq__join_quarters_next_group(join_quarters_t *q) {
  q->next_group++;
  q->next_upper = 0;
  q->next_lower = 0;
  if (q->next_group < q->groups)
    q->next_group_places = (uint32_t)nq__join_next_set(q->next_group_places, 32);
}

/* A quarter held at its most: a table's ranges, or a group's words
 * searched one group at a time; listed whole, it takes no more than its
 * share of a limit (and without one, no bound holds). */
static size_t quarter_most_bytes(int n, int first_row, int end_row, uint32_t groups,
                                 int narrowed) {
  const size_t ranges = 2 * (size_t)groups * sizeof(uint32_t);
  const join_quarter_table_t *table = nq__join_quarter_table(n, first_row, end_row - first_row);
  if (table != NULL && (table->ld32 != NULL) == narrowed)
    return ranges;
  return ranges + 2 * grown_bytes(group_most(end_row - first_row), word_bytes(narrowed));
}

size_t nq__join_quarters_most_bytes(int n, int top_rows) {
  const int a = nq__join_upper_rows(top_rows, 0);
  const uint32_t groups = nq__join_binomial(top_rows, a);
  return quarter_most_bytes(n, 0, a, groups, 0) + /* (each under 3 ceilings) */
         quarter_most_bytes(n, a, top_rows, groups, nq__join_narrow_fits(n, top_rows, a));
}

size_t nq__join_shared_quarters_bytes(int n, int top_rows) {
  const int a = nq__join_upper_rows(top_rows, 0);
  const join_quarter_table_t *upper = nq__join_quarter_table(n, 0, a);
  const join_quarter_table_t *lower = nq__join_quarter_table(n, a, top_rows - a);
  return (upper != NULL ? upper->bytes : 0) + (lower != NULL ? lower->bytes : 0) +
         nq__join_group_ranks_bytes(top_rows, a);
}

static void free_list(join_quarter_list_t *list) {
  free(list->own_ld);
  free(list->own_rd);
  free(list->own_ld32);
  free(list->own_rd32);
  free(list->begin);
  free(list->end);
}

void nq__join_quarters_free(join_quarters_t *quarters) {
  free_list(&quarters->upper);
  free_list(&quarters->lower);
}
