#ifndef NQ_SRC_GPU_WALK_H
#define NQ_SRC_GPU_WALK_H

/* The GPU's counting walk, written once for the device and the host: CUDA
 * compiles it into the kernel (gpu_cuda.cu), the C compiler into the host
 * backend (gpu_batch.c) that the ordinary tests run against the CPU kernel.
 *
 * It is the scalar walk of kernel.c cut into single steps, so that a warp's
 * 32 lanes can each walk their own sub-problem and a lane that finishes
 * takes the next one while the others go on.  Every step places exactly
 * one queen and takes one path, whatever the lane's state: the stack holds
 * each level's whole state (attacks and untried squares, 16 bytes), a
 * level is popped as soon as its last square is taken, and a child with
 * no free square is never pushed, so there are no separate pop steps and
 * no branch a warp's lanes could disagree on but the stack's push.
 * Squares are 32-bit words (boards up to 32): a diagonal shifted off the
 * word is off the board for good, and nothing is undone by shifting back. */

#include <stdint.h>

#ifdef __CUDACC__
#define NQ_HD __host__ __device__ __forceinline__
#else
#define NQ_HD static inline
#endif

enum {
  NQ_GPU_MAX_N = 32,      /* 32-bit squares */
  NQ_GPU_MAX_STEPS = 32,  /* walked rows of one search */
  NQ_GPU_MAX_LEVELS = 12, /* steps a sub-problem walks above its third-to-last row */
  NQ_GPU_STACK_ENTRIES = NQ_GPU_MAX_LEVELS + 1 /* one level per step, that row's included */
};

/* A frame's walk as the GPU reads it (kernel.c's walk_mask and walk_gap). */
typedef struct nq__gpu_tables {
  uint32_t mask[NQ_GPU_MAX_STEPS];
  uint8_t gap[NQ_GPU_MAX_STEPS];
  int32_t steps; /* walked rows: walk_rows */
} nq__gpu_tables_t;

/* A sub-problem: the attacks on the row of walk step `step`, in unit
 * `unit` of the batch, whose frame's walk is tables[`table`]. */
typedef struct nq__gpu_sub {
  uint32_t cols, diag_left, diag_right;
  uint32_t unit;
  uint16_t table;
  uint8_t step;
  uint8_t unused;
} nq__gpu_sub_t;

#ifdef __CUDACC__
#define NQ_ALIGN16 __align__(16)
#else
#define NQ_ALIGN16 _Alignas(16)
#endif

/* One stack level: a placement's attacks on the row of its step and the
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

/* One lane's walk in progress. */
typedef struct nq__gpu_lane {
  int depth;       /* entries on the stack; 0 once the sub-problem is done */
  int start_step;  /* the sub-problem's step, holding base_queens queens */
  int base_queens; /* a level's step is start_step + its queens - base_queens */
  /* The frame's last rows, kept at hand: the third-to-last walked row's
   * step, the last two rows' masks, the gaps down to each. */
  int third_step, upper_gap, lower_gap;
  uint32_t upper_mask, lower_mask;
  uint64_t solutions, nodes;
} nq__gpu_lane_t;

NQ_HD int nq__gpu_bit_count(uint32_t set) {
#ifdef __CUDA_ARCH__
  return __popc(set);
#else
  return __builtin_popcount(set);
#endif
}

/* kernel.c's legal_pairs: ways to fill the upper and lower row, `gap`
 * rows apart, given their free squares. */
NQ_HD uint32_t nq__gpu_legal_pairs(uint32_t upper_free, uint32_t lower_free, int gap) {
  return (uint32_t)(nq__gpu_bit_count(upper_free) * nq__gpu_bit_count(lower_free) -
                    nq__gpu_bit_count(upper_free & lower_free) -
                    nq__gpu_bit_count(upper_free << gap & lower_free) -
                    nq__gpu_bit_count(upper_free >> gap & lower_free));
}

/* A queen `bit` placed from `entry`, on the third-to-last walked row: the
 * ways to fill the last two rows below it, in closed form (walk.h's
 * pairs_under_squares for one square). */
NQ_HD uint32_t nq__gpu_pairs_below(const nq__gpu_lane_t *lane, const nq__gpu_entry_t *entry,
                                   uint32_t bit) {
  const uint32_t cols = entry->cols | bit, left = entry->diag_left | bit,
                 right = entry->diag_right | bit;
  const int gap = lane->upper_gap, reach = lane->upper_gap + lane->lower_gap;
  const uint32_t upper_free = lane->upper_mask & ~(cols | left << gap | right >> gap);
  const uint32_t lower_free = lane->lower_mask & ~(cols | left << reach | right >> reach);
  return nq__gpu_legal_pairs(upper_free, lower_free, lane->lower_gap);
}

/* Starts a lane on `sub`, whose step must leave at least the last three
 * walked rows (step <= steps - 3); the lane is done at once (depth 0) when
 * the sub-problem's row has no free square. */
NQ_HD void nq__gpu_lane_start(nq__gpu_lane_t *lane, const nq__gpu_tables_t *t,
                              const nq__gpu_sub_t *sub, nq__gpu_stack_t stack) {
  const int last = t->steps - 1;
  nq__gpu_entry_t root;
  root.cols = sub->cols;
  root.diag_left = sub->diag_left;
  root.diag_right = sub->diag_right;
  root.free_squares = t->mask[sub->step] & ~(sub->cols | sub->diag_left | sub->diag_right);
  stack.entries[0] = root;
  lane->depth = root.free_squares != 0;
  lane->start_step = sub->step;
  lane->base_queens = nq__gpu_bit_count(sub->cols);
  lane->third_step = last - 2;
  lane->upper_gap = t->gap[last - 2];
  lane->lower_gap = t->gap[last - 1];
  lane->upper_mask = t->mask[last - 1];
  lane->lower_mask = t->mask[last];
  lane->solutions = lane->nodes = 0;
}

/* One step of a lane with depth > 0: the top level's lowest untried
 * square gets a queen (one node).  On the third-to-last row the two rows
 * below are counted in closed form; above it the child is pushed when its
 * row has a free square.  A level whose last square was taken is popped
 * first, so the child takes its place.  Returns the depth left: 0 once the
 * sub-problem is done (its counts are in the lane). */
NQ_HD int nq__gpu_lane_step(nq__gpu_lane_t *lane, const nq__gpu_tables_t *t,
                            nq__gpu_stack_t stack) {
  nq__gpu_entry_t *top = &stack.entries[(lane->depth - 1) * stack.stride];
  const nq__gpu_entry_t parent = *top;
  const int step = lane->start_step + nq__gpu_bit_count(parent.cols) - lane->base_queens;
  const uint32_t bit = parent.free_squares & (~parent.free_squares + 1);
  const uint32_t rest = parent.free_squares ^ bit;
  top->free_squares = rest;
  lane->depth -= rest == 0;
  lane->nodes++;
  const int leaf = step == lane->third_step, gap = t->gap[step];
  const uint32_t pairs = nq__gpu_pairs_below(lane, &parent, bit);
  lane->solutions += leaf ? pairs : 0;
  nq__gpu_entry_t child;
  child.cols = parent.cols | bit;
  child.diag_left = (parent.diag_left | bit) << gap;
  child.diag_right = (parent.diag_right | bit) >> gap;
  child.free_squares = t->mask[step + 1] & ~(child.cols | child.diag_left | child.diag_right);
  if (!leaf && child.free_squares) {
    stack.entries[lane->depth * stack.stride] = child;
    lane->depth++;
  }
  return lane->depth;
}

#endif
