#ifndef NQ_SRC_JOIN_QUARTERS_H
#define NQ_SRC_JOIN_QUARTERS_H

/* The quarters a bucket's tops are built from (join_tops.c): the memory
 * that lives in the join's scratch from bucket to bucket. */

#include <stddef.h>
#include <stdint.h>

#include "join_quarter_tables.h"

/* A quarter's queens, by the diagonals they hold: ld diagonal c - r + n
 * and rd diagonal c + r of a queen on row r, column c (below 2n, so one
 * word for n <= 32); `group` names the part of the top's columns that the
 * upper quarter takes (join_tops.c). */
typedef struct join_quarter {
  uint64_t ld, rd;
  uint32_t group;
} join_quarter_t;

/* The placements of one quarter: those of group g are
 * ld/rd[begin[g] .. end[g]), arrays of their diagonal words (the pairing
 * reads eight at a time) that are either the list's own (grouped_ld/rd,
 * its search's placements sorted by group) or the process's table of the
 * quarter's rows (join_quarter_tables.h), read where it lies; or, for a
 * lower quarter narrowed (join_quarter_tables.h), ld32/rd32[begin[g] .. end[g]) in their place
 * (the list's own narrow_ld/rd, or the table's), ld and rd NULL. */
typedef struct join_quarter_list {
  join_quarter_t *listed;
  uint64_t *grouped_ld, *grouped_rd;
  uint32_t *narrow_ld, *narrow_rd;
  uint32_t *start; /* the search's groups: grouped_ld/rd[start[g] .. start[g + 1]) */
  uint32_t *begin, *end;
  const uint64_t *ld, *rd;
  const uint32_t *ld32, *rd32;
  size_t count, listed_capacity, grouped_ld_capacity, grouped_rd_capacity, narrow_ld_capacity,
      narrow_rd_capacity, start_capacity, range_capacity;
} join_quarter_list_t;

typedef struct join_quarters {
  join_quarter_list_t upper, lower;
  uint32_t group_limit; /* the most groups a bucket may form; 0: the default */
  uint32_t groups;      /* the bucket's */
  size_t largest_lower_group;
  uint32_t next_group, next_upper; /* where the next part of tops starts (the
                                      upper quarter's place in its group) */
  int vector_pairing;              /* the bucket's pairs tried with AVX-512 */
  int portable_pairing; /* never with AVX-512, nor the completions' lists (join_bucket.c):
                           the tests hold both to the same counts */
  int wide_pairing;     /* never with narrowed words (the tests hold both alike) */
  join_narrowing_t narrowing; /* the lower quarter's, where its words are narrowed */
  int private_quarters; /* searched for the bucket, never read from the process's
                           tables (join_quarter_tables.h; the tests hold both) */
} join_quarters_t;

#endif
