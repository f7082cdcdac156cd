#ifndef NQUEENS_KERNEL_H
#define NQUEENS_KERNEL_H

/* The search kernel: counts the completions of work units. */

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

/* The outcome of one unit. */
typedef struct nq_unit_result {
  uint64_t id;
  uint64_t solutions;       /* completions of the unit */
  uint64_t stabilizer_sum;  /* sum over completions of how many of the
                               frame's symmetries fix them (Burnside) */
  uint64_t nodes;           /* queens placed by the search */
  uint32_t weight;          /* the frame's orbit size */
} nq_unit_result_t;

/* A searcher for one board size: what the current frame allows in each
 * row, prepared once per frame and kept while units of that frame follow. */
typedef struct nq_search nq_search_t;

/* A searcher for n x n boards counting with `walk`.  NQ_EINVAL for n
 * outside 0..NQ_MAX_N or an unknown walk, NQ_ENOTSUP where
 * nq_walk_supported(walk, n) is 0, NQ_ENOMEM. */
int nq_kernel_create(nq_search_t **out_search, int n, nq_walk_t walk);

void nq_kernel_destroy(nq_search_t *search);

/* The walk the searcher counts with (resolved: SCALAR or AVX512). */
nq_walk_t nq_kernel_walk(const nq_search_t *search);

/* Counts the completions of `unit`.  Nothing in the unit is trusted: a
 * frame that nq_frame_check refuses, or a prefix that is not a legal
 * placement inside it, gives NQ_EUNIT.  With `classify` set, also fills
 * stabilizer_sum, which needs every completion checked against the
 * frame's symmetries; without, it is 0.  NQ_EOVERFLOW if a count passes
 * 2^64 - 1. */
int nq_kernel_solve(nq_unit_result_t *result, nq_search_t *search, const nq_unit_t *unit,
                    int classify);

#endif
