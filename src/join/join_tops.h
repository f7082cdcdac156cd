#ifndef NQ_SRC_JOIN_TOPS_H
#define NQ_SRC_JOIN_TOPS_H

/* A bucket's tops, built from quarters (join_tops.c): the memory that
 * lives in the join's scratch from bucket to bucket. */

#include <stddef.h>
#include <stdint.h>

#include "nqueens/join.h"

/* The bottom walk's last rows but one, whose placements are listed once
 * a bucket: the completions (join.c; five measured best, against four and
 * six: docs/performance.md). */
enum { JOIN_COMPLETION_ROWS = 5 };

/* A quarter's queens, by the diagonals they hold: ld diagonal c - r + n
 * and rd diagonal c + r of a queen on row r, column c (below 2n, so one
 * word for n <= 32); `group` names the part of the top's columns that the
 * upper quarter takes (join_tops.c); `column` holds the columns of its
 * first rows (a completion's all). */
typedef struct join_quarter {
  uint64_t ld, rd;
  uint32_t group;
  uint8_t column[JOIN_COMPLETION_ROWS];
} join_quarter_t;

/* The placements of one quarter, as listed and then by group: those of
 * group g are grouped[start[g] .. start[g + 1]). */
typedef struct join_quarter_list {
  join_quarter_t *listed, *grouped;
  uint32_t *start;
  size_t count, listed_capacity, grouped_capacity, start_capacity;
} join_quarter_list_t;

/* The completions' groups: by the columns they take, ranked among the
 * JOIN_COMPLETION_ROWS-subsets of the bottom's columns. */
typedef struct join_completion_groups {
  uint8_t place[NQ_JOIN_MAX_N]; /* a bottom column's place among them */
  uint32_t rank_of[NQ_JOIN_MAX_N][JOIN_COMPLETION_ROWS + 1];
} join_completion_groups_t;

typedef struct join_quarters {
  join_quarter_list_t upper, lower;
  join_quarter_list_t completions; /* rows n - JOIN_COMPLETION_ROWS .. n - 1 */
  join_completion_groups_t completion_groups;
  uint32_t group_limit; /* the most groups a bucket may form; 0: the default */
  uint32_t groups;      /* the bucket's */
  size_t largest_lower_group;
  uint32_t next_group, next_upper; /* where the next part of tops starts */
} join_quarters_t;

void nq__join_quarters_free(join_quarters_t *quarters);

/* The group of the completions on exactly `columns` (JOIN_COMPLETION_ROWS
 * of the bottom's columns). */
static inline uint32_t nq__join_completion_group(const join_completion_groups_t *groups,
                                                 uint64_t columns) {
  uint32_t rank = 0;
  for (int k = 1; columns != 0; k++, columns &= columns - 1)
    rank += groups->rank_of[groups->place[__builtin_ctzll(columns)]][k];
  return rank;
}

#endif
