#ifndef NQ_SRC_GPU_WALK_H
#define NQ_SRC_GPU_WALK_H

/* The GPU's counting walk, written once for the device and the host: CUDA
 * compiles it into the kernel (gpu_cuda.cu), the C compiler into the host
 * backend (gpu_batch.c) that the ordinary tests run against the CPU kernel.
 *
 * It is the scalar walk of kernel.c cut into single steps, so that a warp's
 * 32 lanes can each walk their own sub-problem and a lane that finishes
 * takes the next one while the others go on.  Squares are 32-bit words
 * (boards up to 32).  The stack keeps only each level's queen and its
 * remaining free squares, 8 bytes, so that many lanes' stacks fit in
 * shared memory; a pop undoes the queen by shifting the diagonals back, as
 * the AVX-512 lanes do (lanes.c): left diagonals in 64 bits, right ones
 * held 32 bits up, which is exact while a sub-problem's rows span at most
 * 32 board rows, always so on boards up to 32. */

#include <stdint.h>

#ifdef __CUDACC__
#define NQ_HD __host__ __device__ __forceinline__
#else
#define NQ_HD static inline
#endif

enum {
  NQ_GPU_MAX_N = 32,      /* 32-bit squares */
  NQ_GPU_MAX_STEPS = 32,  /* walked rows of one search */
  NQ_GPU_MAX_LEVELS = 12, /* stack levels of one sub-problem */
  NQ_GPU_RIGHT_OFFSET = 32
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

/* One lane's walk in progress.  The stack lives outside (the device keeps
 * it in shared memory, level-major so a warp's lanes at one level touch
 * consecutive words); `stride` is the distance between two levels' words. */
typedef struct nq__gpu_lane {
  uint32_t free_squares, cols;
  uint64_t diag_left, diag_right; /* right: NQ_GPU_RIGHT_OFFSET bits up */
  int step, start_step;
  /* The frame's last rows, kept at hand: the third-to-last walked row's
   * step, the last two rows' masks, the gaps down to each. */
  int third_step, upper_gap, lower_gap;
  uint32_t upper_mask, lower_mask;
  uint64_t solutions, nodes;
} nq__gpu_lane_t;

typedef struct nq__gpu_stack {
  uint32_t *free_squares, *queen;
  int stride;
} nq__gpu_stack_t;

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

/* A queen `bit` on the third-to-last walked row, whose attacks there are
 * (cols, diag_left, diag_right): the ways to fill the last two rows below
 * it, in closed form (walk.h's pairs_under_squares for one square). */
NQ_HD uint32_t nq__gpu_pairs_below(const nq__gpu_lane_t *lane, uint32_t bit) {
  const uint32_t cols = lane->cols | bit, left = (uint32_t)lane->diag_left | bit,
                 right = (uint32_t)(lane->diag_right >> NQ_GPU_RIGHT_OFFSET) | bit;
  const int gap = lane->upper_gap, reach = lane->upper_gap + lane->lower_gap;
  const uint32_t upper_free = lane->upper_mask & ~(cols | left << gap | right >> gap);
  const uint32_t lower_free = lane->lower_mask & ~(cols | left << reach | right >> reach);
  return nq__gpu_legal_pairs(upper_free, lower_free, lane->lower_gap);
}

/* The lane's free squares on its current row. */
NQ_HD uint32_t nq__gpu_free_on(const nq__gpu_tables_t *t, const nq__gpu_lane_t *lane) {
  return t->mask[lane->step] & ~(lane->cols | (uint32_t)lane->diag_left |
                                 (uint32_t)(lane->diag_right >> NQ_GPU_RIGHT_OFFSET));
}

/* Starts a lane on `sub`; its step must leave at least the last three
 * walked rows (step <= steps - 3). */
NQ_HD void nq__gpu_lane_start(nq__gpu_lane_t *lane, const nq__gpu_tables_t *t,
                              const nq__gpu_sub_t *sub) {
  const int last = t->steps - 1;
  lane->cols = sub->cols;
  lane->diag_left = sub->diag_left;
  lane->diag_right = (uint64_t)sub->diag_right << NQ_GPU_RIGHT_OFFSET;
  lane->step = lane->start_step = sub->step;
  lane->free_squares = nq__gpu_free_on(t, lane);
  lane->third_step = last - 2;
  lane->upper_gap = t->gap[last - 2];
  lane->lower_gap = t->gap[last - 1];
  lane->upper_mask = t->mask[last - 1];
  lane->lower_mask = t->mask[last];
  lane->solutions = lane->nodes = 0;
}

/* One step of a lane: place a queen (on the third-to-last row, counting
 * the last two rows under it in closed form instead of going down), or
 * take one back.  Every branch is a few instructions, so a warp whose
 * lanes are in different branches loses little.  Returns 0 once the
 * sub-problem is done (its counts are in the lane), else 1.  Nodes are
 * counted as the scalar walk counts them: each queen placed down to the
 * third-to-last row. */
NQ_HD int nq__gpu_lane_step(nq__gpu_lane_t *lane, const nq__gpu_tables_t *t,
                            nq__gpu_stack_t stack) {
  if (lane->free_squares) {
    const uint32_t bit = lane->free_squares & (~lane->free_squares + 1);
    lane->free_squares ^= bit;
    lane->nodes++;
    if (lane->step == lane->third_step) {
      lane->solutions += nq__gpu_pairs_below(lane, bit);
      return 1;
    }
    const int level = (lane->step - lane->start_step) * stack.stride, gap = t->gap[lane->step];
    stack.free_squares[level] = lane->free_squares;
    stack.queen[level] = bit;
    lane->cols |= bit;
    lane->diag_left = (lane->diag_left | bit) << gap;
    lane->diag_right = (lane->diag_right | (uint64_t)bit << NQ_GPU_RIGHT_OFFSET) >> gap;
    lane->step++;
    lane->free_squares = nq__gpu_free_on(t, lane);
    return 1;
  }
  if (lane->step == lane->start_step)
    return 0;
  lane->step--;
  const int level = (lane->step - lane->start_step) * stack.stride, gap = t->gap[lane->step];
  const uint32_t bit = stack.queen[level];
  lane->free_squares = stack.free_squares[level];
  lane->cols ^= bit;
  lane->diag_left = lane->diag_left >> gap ^ bit;
  lane->diag_right = lane->diag_right << gap ^ (uint64_t)bit << NQ_GPU_RIGHT_OFFSET;
  return 1;
}

#endif
