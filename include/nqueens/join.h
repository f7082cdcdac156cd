#ifndef NQUEENS_JOIN_H
#define NQUEENS_JOIN_H

/* The join method (`--method join`, and `--method auto`'s choice for
 * counts where it measured faster): Q(n) counted by cutting the board at a
 * middle row and counting, for each set S of columns the top rows use, the
 * pairs of a top half and a bottom half that fit together, instead of
 * walking each solution.  docs/algorithm.md (section 7) has the design,
 * docs/research.md the measurements and where it beats the backtracker.
 * A whole count by the join is nq_count_run with method NQ_COUNT_JOIN
 * (include/nqueens/count.h): its units are the canonical column sets, and
 * it has the run engine's journal, slices, verification and scheduling. */

#include <stddef.h>
#include <stdint.h>

/* The largest board the join counts: its masks, and the column sets it
 * enumerates, C(n, n/2) of them. */
#define NQ_JOIN_MAX_N 32

/* The version of the join's units (the canonical column sets in a fixed
 * random order; 1 was increasing order; 3 counts the solutions of a set
 * by the long-diagonal rule, so a set's count is no
 * longer its solutions', only the sum over all sets is Q(n)): journals
 * record it, as the backtracker's NQ_UNIT_SCHEME, so a journal of another
 * scheme is refused rather than summed with counts that mean otherwise. */
#define NQ_JOIN_UNIT_SCHEME 3

/* Scheme 4: a cut with a middle row (odd n, n = 2 top_rows + 1) from
 * n = 23 on takes as each orbit's unit the set and queen whose top
 * columns crowd most, where scheme 3 took the least, so its units are
 * other sets.  Below n = 23, where the tables are small, it gained too
 * little to change those boards' units and journals (docs/performance.md,
 * "The middle row's orbits"); every cut but those keeps scheme 3. */
#define NQ_JOIN_MIDDLE_ROW_UNIT_SCHEME 4
#define NQ_JOIN_MIDDLE_ROW_SCHEME_FROM_N 23

static inline int nq_join_unit_scheme(int n, int top_rows) {
  return 2 * top_rows + 1 == n && n >= NQ_JOIN_MIDDLE_ROW_SCHEME_FROM_N
             ? NQ_JOIN_MIDDLE_ROW_UNIT_SCHEME
             : NQ_JOIN_UNIT_SCHEME;
}

/* What a join did, for the measurements. */
typedef struct nq_join_stats {
  uint64_t buckets;      /* column sets joined (canonical ones only) */
  uint64_t tops;         /* top halves enumerated */
  uint64_t top_nodes;    /* queens placed enumerating them */
  uint64_t bottom_nodes; /* queens placed by the bottom searches */
  uint64_t words;        /* 64-bit words combined (ORed or counted) */
  uint64_t fused_nodes;  /* bottom nodes whose last rows came from the completions' list */
  uint64_t completions;  /* completions of those rows that fit (a count over the words each) */
  uint64_t pruned;       /* bottom subtrees cut because no top fit any more */
  uint64_t repacks;      /* survivors moved to a table of their own */
  /* The tops those repacks copied (gathered and transposed again), by the
   * row of the queen whose narrowing they followed: what grows fastest
   * with n (docs/performance.md). */
  uint64_t repacked[NQ_JOIN_MAX_N];
  uint64_t max_tops;     /* the most top halves walked at once (a part's) */
  uint64_t parts;        /* tables of top halves walked: a bucket's tops
                            are cut into parts of at most a scratch's limit */
} nq_join_stats_t;

/* Scratch memory of one joiner: reused from bucket to bucket. */
typedef struct nq_join_scratch nq_join_scratch_t;

int nq_join_scratch_create(nq_join_scratch_t **scratch);
void nq_join_scratch_destroy(nq_join_scratch_t *scratch);

/* At most `bytes` for the scratch's quarters, tables of tops and the
 * walk's stacks, by construction: a bucket's tops are cut into parts of
 * at most what the bytes hold once the quarters' room is taken
 * (nq_join_tops_within, docs/algorithm.md), and each part is walked
 * against every bottom half, at the cost of walking the bottoms once a
 * part.  A limit too small for the quarters and 64 tops is exceeded by
 * that much (nq_join_least_memory refuses such a limit for a rank).
 * 0: no limit (the default).  Either way, from n = 25 a part holds at most
 * 2^(n - 4) tops (2^(n - 5) from n = 27), which measured faster than
 * larger parts (docs/performance.md). */
void nq_join_scratch_limit(nq_join_scratch_t *scratch, size_t bytes);

/* What a process holds for the join of board n (default cut) besides its
 * scratches, whatever its threads: the table of the bottom walk's
 * completions and those of the tops' quarters where they are kept, built
 * on the first call (for any thread) and kept.  0 where the board needs
 * none or they could not be built (the count then fails with NQ_ENOMEM,
 * or searches its quarters bucket by bucket). */
size_t nq_join_shared_bytes(int n);

/* The least a rank's --memory can be for the join of board n (default
 * cut) on `threads` threads: the shared tables, and a thread's quarters
 * at their most and a part of 64 tops a thread. */
size_t nq_join_least_memory(int n, int threads);

/* The most tops a part may hold for its tables to stay within `bytes` on
 * an n-wide board with the cut top_rows (1 <= top_rows < n <=
 * NQ_JOIN_MAX_N): the tables of tops, their repacked survivors and the
 * walk's stacks counted at their worst (a scratch takes its quarters'
 * room from its limit first); 0 where `bytes` cannot hold even one part
 * of 64 tops. */
size_t nq_join_tops_within(int n, int top_rows, size_t bytes);

/* The tops of the part that walked fastest on board n (the cap above:
 * 2^(n - 4) at n = 25 and 26, 2^(n - 5) from 27), or 0 below n = 25,
 * where a set walked whole measured fastest. */
size_t nq_join_fastest_part_tops(int n);

/* The bound on a rank's join tables that options.memory (or --memory)
 * sets: `memory`, or NQ_COUNT_DEFAULT_MEMORY for 0. */
size_t nq_join_rank_bytes(size_t memory);

/* A thread's share of a rank's `rank_bytes` for the join of board n
 * (0: NQ_COUNT_DEFAULT_MEMORY) on `threads` threads, once the shared
 * table is taken: each thread's scratch limit; at least 1. */
size_t nq_join_thread_bytes(int n, int threads, size_t rank_bytes);

/* The most tops a thread's part holds on board n (default cut) when a
 * rank of `threads` threads has `rank_bytes` for the join (0: the
 * default, NQ_COUNT_DEFAULT_MEMORY): what nq_join_thread_bytes holds
 * by nq_join_tops_within once the quarters' room at its most is taken. */
size_t nq_join_part_tops_within(int n, int threads, size_t rank_bytes);

/* The rank memory under which each of `threads` threads holds a part of
 * `tops` tops on board n (default cut): the shared tables, and a part's
 * tables and the quarters' room at its most a thread. */
size_t nq_join_memory_for_parts(int n, int threads, size_t tops);

/* The default cut: the top has n / 2 rows, so the up-down flip halves the
 * work (on odd boards the middle row's queen lies between two halves of
 * n / 2 rows).  Inline here because the join's memory bounds and its
 * count both depend on it and neither should depend on the other. */
static inline int nq_join_default_top_rows(int n) { return n / 2; }

/* Counts the n-queens solutions whose rows 0..top_rows-1 hold their queens
 * in exactly the columns of `top_columns` (a set of top_rows columns),
 * into *solutions, and adds to *stats (when not NULL).  NQ_EINVAL for n
 * outside 1..NQ_JOIN_MAX_N, top_rows outside 1..n-1 or a column set of another size;
 * NQ_ENOMEM. */
int nq_join_bucket(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                   int n, int top_rows, uint64_t top_columns);

#endif
