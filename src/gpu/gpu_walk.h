#ifndef NQ_SRC_GPU_WALK_H
#define NQ_SRC_GPU_WALK_H

/* The GPU's counting walk, written once for the device and the host: CUDA
 * compiles it into the kernel (gpu_cuda.cu), the C compiler into the host
 * backend (gpu_batch.c) that the ordinary tests run against the CPU kernel.
 *
 * It is the scalar walk of kernel.c cut into single turns, so that a
 * warp's 32 lanes can each walk their own sub-problem and a lane that
 * finishes takes the next one while the others go on.  Every turn places
 * exactly one queen and takes one path, whatever the lane's state: the
 * stack holds each level's whole state (attacks and untried squares, 16
 * bytes), a level is popped as soon as its last square is taken, and a
 * child with no free square is never pushed, so there are no separate pop
 * turns and no branch a warp's lanes could disagree on but the push.
 *
 * The device is bound by integer instructions (half the rate of floating
 * point on these chips), so a turn does as few as it can: the walk goes
 * down to the second-to-last row and counts the last row's free squares
 * with one popcount, instead of the CPU kernel's closed form over the last
 * two rows, which would cost every turn about as much as the turn itself
 * to save the few turns on the second-to-last row.  The node count stays
 * the CPU kernel's: queens on the second-to-last row are not nodes.
 *
 * Squares are 32-bit words (boards up to 32): a diagonal shifted off the
 * word is off the board for good, and nothing is undone by shifting back. */

#include <stdint.h>

#ifdef __CUDACC__
#define NQ_HD __host__ __device__ __forceinline__
#else
#define NQ_HD static inline
#endif

#ifdef __CUDACC__
#define NQ_ALIGN8 __align__(8)
#define NQ_ALIGN16 __align__(16)
#else
#define NQ_ALIGN8 _Alignas(8)
#define NQ_ALIGN16 _Alignas(16)
#endif

enum {
  NQ_GPU_MAX_N = 32, /* 32-bit squares */
  /* Stack levels: one per walked row from a sub-problem's own down to the
   * second-to-last, so a sub-problem starts at most 12 rows above the
   * second-to-last. */
  NQ_GPU_STACK_ENTRIES = 13
};

/* What a turn needs about the row below the queen it places, found by the
 * queens on the board (the walk step plus the frame's own columns, which
 * is one popcount of the column word): the squares the frame leaves in
 * that row, and how many board rows down it is. */
typedef struct nq__gpu_row {
  NQ_ALIGN8 uint32_t next_mask; /* aligned so that the device reads it in one load */
  uint32_t gap;
} nq__gpu_row_t;

/* A frame's walk as the GPU reads it, indexed by queens on the board. */
typedef struct nq__gpu_tables {
  nq__gpu_row_t row[NQ_GPU_MAX_N + 1];
  uint32_t mask[NQ_GPU_MAX_N + 1]; /* the squares of the row itself */
  int32_t leaf_queens;             /* queens on the board in the second-to-last row */
  int32_t base_queens;             /* queens on the board in the first walked row */
} nq__gpu_tables_t;

/* A sub-problem: the attacks on one walked row of unit `unit` of the
 * batch, whose frame's walk is tables[`table`]. */
typedef struct nq__gpu_sub {
  uint32_t cols, diag_left, diag_right;
  uint32_t unit;
  uint32_t table;
} nq__gpu_sub_t;


/* One stack level: a placement's attacks on the row below it and the
 * squares of that row not tried yet.  16 bytes, read and written whole. */
typedef struct nq__gpu_entry {
  NQ_ALIGN16 uint32_t cols;
  uint32_t diag_left, diag_right, free_squares;
} nq__gpu_entry_t;

/* A lane's stack lives outside the lane (the device keeps it in shared
 * memory, level-major, so that a warp's lanes at one level read 32
 * consecutive entries); `stride` is the distance between two levels. */
typedef struct nq__gpu_stack {
  nq__gpu_entry_t *entries;
  int stride;
} nq__gpu_stack_t;

/* One lane's walk in progress: its stack's height (0 once the sub-problem
 * is done) and the frame it walks. */
typedef struct nq__gpu_lane {
  int depth;
  int leaf_queens;
  const nq__gpu_row_t *rows;
} nq__gpu_lane_t;

/* A row of a frame's table; the device reads tables through the read-only
 * cache, since no lane writes them during a launch. */
NQ_HD nq__gpu_row_t nq__gpu_row_at(const nq__gpu_row_t *rows, int queens) {
#ifdef __CUDA_ARCH__
  const uint2 both = __ldg((const uint2 *)&rows[queens]);
  nq__gpu_row_t row;
  row.next_mask = both.x;
  row.gap = both.y;
  return row;
#else
  return rows[queens];
#endif
}

/* What turns found, added up by the caller: completions, and nodes as the
 * CPU kernel counts them (queens placed above the second-to-last row). */
typedef struct nq__gpu_counts {
  uint32_t solutions, nodes;
} nq__gpu_counts_t;

NQ_HD int nq__gpu_bit_count(uint32_t set) {
#ifdef __CUDA_ARCH__
  return __popc(set);
#else
  return __builtin_popcount(set);
#endif
}

/* Starts a lane on `sub`, whose row must be at least three walked rows
 * from the end; the lane is done at once (depth 0) when that row has no
 * free square. */
NQ_HD void nq__gpu_lane_start(nq__gpu_lane_t *lane, const nq__gpu_tables_t *t,
                              const nq__gpu_sub_t *sub, nq__gpu_stack_t stack) {
  nq__gpu_entry_t root;
  root.cols = sub->cols;
  root.diag_left = sub->diag_left;
  root.diag_right = sub->diag_right;
  root.free_squares =
      t->mask[nq__gpu_bit_count(sub->cols)] & ~(sub->cols | sub->diag_left | sub->diag_right);
  stack.entries[0] = root;
  lane->depth = root.free_squares != 0;
  lane->leaf_queens = t->leaf_queens;
  lane->rows = t->row;
}

/* One turn of a lane with depth > 0: the top level's lowest untried
 * square gets a queen.  On the second-to-last row the last row's free
 * squares are completions; above it the queen is a node and the child is
 * pushed when its row has a free square.  A level whose last square was
 * taken is popped first, so the child takes its place. */
NQ_HD void nq__gpu_lane_turn(nq__gpu_lane_t *lane, nq__gpu_stack_t stack,
                             nq__gpu_counts_t *counts) {
  nq__gpu_entry_t *top = &stack.entries[(lane->depth - 1) * stack.stride];
  const nq__gpu_entry_t parent = *top;
  const uint32_t rest = parent.free_squares & (parent.free_squares - 1);
  const uint32_t bit = parent.free_squares ^ rest;
  top->free_squares = rest;
  lane->depth -= rest == 0;
  const int queens = nq__gpu_bit_count(parent.cols);
  const nq__gpu_row_t below = nq__gpu_row_at(lane->rows, queens);
  nq__gpu_entry_t child;
  child.cols = parent.cols | bit;
  child.diag_left = (parent.diag_left | bit) << below.gap;
  child.diag_right = (parent.diag_right | bit) >> below.gap;
  child.free_squares = below.next_mask & ~(child.cols | child.diag_left | child.diag_right);
  const int leaf = queens == lane->leaf_queens;
  counts->solutions += leaf ? (uint32_t)nq__gpu_bit_count(child.free_squares) : 0u;
  counts->nodes += !leaf;
  if (!leaf && child.free_squares) {
    stack.entries[lane->depth * stack.stride] = child;
    lane->depth++;
  }
}

#endif
