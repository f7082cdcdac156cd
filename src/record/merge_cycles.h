#ifndef NQ_SRC_MERGE_CYCLES_H
#define NQ_SRC_MERGE_CYCLES_H

/* Which of merge's records were compared (merge_cycles.c).  The records
 * are the edges of a graph over the points where records end: a record on
 * a cycle has another chain of records spanning its range, so a wrong sum
 * in it shows as a conflict; one that is a bridge (its two ends joined by
 * it alone) was summed once, however many records overlap it. */

#include <stddef.h>

/* A record as an edge: the indices of its first and end points among the
 * sorted, distinct points. */
typedef struct nq__merge_edge {
  size_t first, end;
} nq__merge_edge_t;

/* For each of the `count` edges, whether it lies on a cycle (on_cycle[r]
 * 1 or 0), by Tarjan's depth-first numbering, iteratively (a merge may
 * hold millions of records); parallel edges (the same batch in two
 * journals) are told apart by edge, not by point.  Then, for each stretch
 * from point i to point i + 1, whether it is confirmed (confirmed[i]):
 * some edge covers it and every edge that does is on a cycle.  Both arrays
 * are the caller's (count and point_count entries).  NQ_OK or NQ_ENOMEM. */
int nq__merge_find_compared(unsigned char *on_cycle, unsigned char *confirmed,
                            const nq__merge_edge_t *edges, size_t count, size_t point_count);

#endif
