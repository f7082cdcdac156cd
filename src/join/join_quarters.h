#ifndef NQ_SRC_JOIN_QUARTERS_H
#define NQ_SRC_JOIN_QUARTERS_H

/* The quarters a bucket's tops are built from (join_tops.c): the memory
 * that lives in the join's scratch from bucket to bucket. */

#include <stddef.h>
#include <stdint.h>

#include "join_quarter_tables.h"

/* How wide the join's own loops go (the quarters' pairing, the live
 * words' runs, the completions' lists), widest first: the CPU's widest by
 * default (JOIN_AVX512, 0), lowered by the tests, which hold every width
 * to the same counts.  (The kernels of src/base/ dispatch on the CPU
 * alone.) */
typedef enum join_vectors { JOIN_AVX512, JOIN_AVX2, JOIN_PLAIN } join_vectors_t;

/* The placements of one quarter, by the diagonals their queens hold (ld
 * diagonal c - r + n and rd diagonal c + r of a queen on row r, column c:
 * below 2n, so one word for n <= 32), grouped by the part of the top's
 * columns that the upper quarter takes (join_quarters.c).  Group g is
 * ld/rd[begin[g] .. end[g]), in the process's table of the quarter's rows
 * (join_quarter_tables.h) where one is kept, else in the list's own
 * arrays (own_ld/rd, or own_ld32/rd32 narrowed), listed whole for the
 * bucket; or, where the list is `searched`, its own arrays hold one group
 * at a time: `count` placements of group `held_group`, from index 0.  ld
 * and rd point at whichever holds the words, or, for a lower quarter
 * narrowed (join_quarter_tables.h), ld32 and rd32 in their place, ld and
 * rd NULL. */
typedef struct join_quarter_list {
  int searched;           /* one group at a time */
  int narrowed;           /* its words narrowed (a lower quarter's) */
  int first_row, end_row; /* the quarter's rows */
  uint32_t held_group;    /* searched: the group the own arrays hold */
  uint64_t *own_ld, *own_rd;
  uint32_t *own_ld32, *own_rd32;
  size_t own_ld_capacity, own_rd_capacity, own_ld32_capacity, own_rd32_capacity, count;
  uint32_t *begin, *end; /* unless searched: each group's range */
  size_t range_capacity;
  const uint64_t *ld, *rd;
  const uint32_t *ld32, *rd32;
} join_quarter_list_t;

typedef struct join_quarters {
  join_quarter_list_t upper, lower;
  uint32_t group_limit; /* the most groups a bucket may form; 0: the default */
  uint32_t groups;      /* the bucket's */
  int upper_rows;       /* a: the upper quarter's rows */
  uint64_t columns;     /* the bucket's columns, S */
  int column_at[NQ_JOIN_MAX_N]; /* each place of S: its column */
  uint32_t next_group_places; /* next_group's upper places among S's, as bits */
  uint32_t next_group, next_upper; /* where the next part of tops starts: the
                                      upper quarter's place in its group, */
  size_t next_lower;               /* and the first lower quarter it is not yet paired with */
  join_vectors_t widest;  /* the widest the join's own loops may take */
  join_vectors_t pairing; /* what the bucket's pairs are tried with: the widest the
                             CPU has within `widest` */
  int wide_pairing;     /* never with narrowed words (the tests hold both alike) */
  join_narrowing_t narrowing; /* the lower quarter's, where its words are narrowed */
  int private_quarters; /* searched for the bucket, never read from the process's
                           tables (join_quarter_tables.h; the tests hold both) */
} join_quarters_t;

/* Whether the join's own loops may take `vectors` (where the CPU has them). */
static inline int nq__join_allows(const join_quarters_t *q, join_vectors_t vectors) {
  return q->widest <= vectors;
}

/* How a bucket's quarter is held (nq__join_quarters_open). */
typedef struct join_quarter_choice {
  int is_upper;
  int shared;          /* read from the process's table where one is kept */
  int narrowed;        /* in narrowed words */
  size_t whole_budget; /* the most its words may take listed whole; SIZE_MAX: any */
} join_quarter_choice_t;

/* The upper quarter's rows a for a cut of m rows: m / 2, or fewer where
 * the a-subsets of m would number more than `group_limit` (0: the
 * default). */
int nq__join_upper_rows(int m, uint32_t group_limit);

/* The bucket's quarter of rows first_row..end_row-1 (q's columns, groups,
 * upper_rows and narrowing set, next_group_places at group 0's): its
 * groups' ranges in the process's table, or its placements searched and
 * listed whole, or left to nq__join_quarters_hold, group by group
 * (join_quarters.c says when).  Search nodes are added to *nodes.
 * NQ_ENOMEM. */
int nq__join_quarters_open(join_quarters_t *q, join_quarter_list_t *list, int n, int first_row,
                           int end_row, const join_quarter_choice_t *choice, uint64_t *nodes);

/* Group next_group's placements searched into the lists that take one
 * group at a time, where they do not hold it yet.  NQ_ENOMEM. */
int nq__join_quarters_hold(join_quarters_t *q, int n, uint64_t *nodes);

/* On to the next group, its first upper quarter and its first lower one. */
void nq__join_quarters_next_group(join_quarters_t *q);

/* Where group g's placements start in the list's words, and how many
 * there are (a list searched by group holds g's alone). */
static inline size_t nq__join_group_first(const join_quarter_list_t *list, uint32_t g) {
  return list->searched ? 0 : list->begin[g];
}

static inline size_t nq__join_group_size(const join_quarter_list_t *list, uint32_t g) {
  return list->searched ? list->count : (size_t)(list->end[g] - list->begin[g]);
}

/* The most bytes a scratch's quarters hold for buckets of the cut
 * top_rows when a limit leaves no room to list them whole: a group at a
 * time (the process's tables not among them). */
size_t nq__join_quarters_most_bytes(int n, int top_rows);

/* The bytes of the process's tables of the quarters and of their groups'
 * ranks that buckets of the cut top_rows read (join_quarter_tables.h),
 * built if not yet. */
size_t nq__join_shared_quarters_bytes(int n, int top_rows);

/* Frees the quarters' lists. */
void nq__join_quarters_free(join_quarters_t *quarters);

#endif
