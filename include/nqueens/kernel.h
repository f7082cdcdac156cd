#ifndef NQUEENS_KERNEL_H
#define NQUEENS_KERNEL_H

#include <stdint.h>

#include "nqueens/units.h"

/* How the counting walk runs.  NQ_WALK_AVX512 walks eight subtrees at once
 * in the lanes of AVX-512 registers: x86-64 CPUs with AVX-512 F, CD and
 * VPOPCNTDQ (Intel Ice Lake, AMD Zen 4 and later), boards up to 32.  Both
 * walks give the same counts and the same node counts. */
typedef enum nq_walk { NQ_WALK_AUTO = 0, NQ_WALK_SCALAR, NQ_WALK_AVX512 } nq_walk_t;

#define NQ_WALK_AVX512_MAX_N 32

/* 1 when this build and this CPU can run `walk` on n x n boards (AUTO and
 * SCALAR always can), else 0. */
int nq_walk_supported(nq_walk_t walk, int n);

/* The walk `walk` stands for on n x n boards: AUTO becomes AVX512 where
 * supported, else SCALAR; the others stand for themselves. */
nq_walk_t nq_walk_resolve(nq_walk_t walk, int n);

/* "auto", "scalar" or "avx512"; NULL for anything else. */
const char *nq_walk_name(nq_walk_t walk);

/* What a frame allows in each row, prepared once per frame and shared by
 * all units of that frame. */
typedef struct nq_search {
  int n;
  int last_row;                  /* the deepest row the search fills */
  uint64_t row_mask[NQ_MAX_N];   /* squares a queen may take in each row */
  nq_frame_t frame;
  /* The rows the counting walk visits: rows up to last_row that hold no
   * frame queen (frame queens always fit, and their attacks are already in
   * the masks).  walk_row[i] is a row, walk_mask[i] its mask, walk_gap[i]
   * the distance to walk_row[i + 1]. */
  int walk_rows;
  int walk_row[NQ_MAX_N];
  int walk_gap[NQ_MAX_N];
  uint64_t walk_mask[NQ_MAX_N];
  nq_walk_t walk; /* SCALAR or AVX512: how nq_kernel_solve counts */
} nq_search_t;

/* The outcome of one unit. */
typedef struct nq_unit_result {
  uint64_t id;
  uint64_t solutions;       /* completions of the unit */
  uint64_t stabilizer_sum;  /* sum over completions of how many of the
                               frame's symmetries fix them (Burnside) */
  uint64_t nodes;           /* queens placed by the search */
  uint32_t weight;          /* the frame's orbit size */
} nq_unit_result_t;

/* Sets up `search` for `frame`, with the walk nq_walk_resolve(AUTO, n). */
int nq_kernel_prepare(nq_search_t *search, int n, const nq_frame_t *frame);

/* Makes a prepared search count with `walk` (resolved); NQ_ENOTSUP where
 * nq_walk_supported(walk, search->n) is 0. */
int nq_kernel_set_walk(nq_search_t *search, nq_walk_t walk);

/* Counts the completions of `unit` (whose frame must be search->frame).
 * With `classify` set, also fills stabilizer_sum, which needs every
 * completion checked against the frame's symmetries; without, it is 0. */
int nq_kernel_solve(nq_unit_result_t *result, const nq_search_t *search,
                    const nq_unit_t *unit, int classify);

#endif
