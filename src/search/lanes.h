#ifndef NQ_SRC_LANES_H
#define NQ_SRC_LANES_H

/* The lane walk: the counting walk of kernel.c run eight subtrees at a time
 * in the 64-bit lanes of AVX-512 registers (lanes.c). */

#include <stdint.h>

#include "search.h"

/* Lanes keep the right diagonals 32 bits up, so boards stop at 32. */
#define NQ_LANES_MAX_N NQ_WALK_AVX512_MAX_N

/* 1 when this build has the lane walk and the CPU runs it (AVX-512 F, CD
 * and VPOPCNTDQ, with the OS saving the registers). */
int nq__lanes_supported(void);

/* Below this many walked rows left, a unit has too few subtrees to fill
 * the lanes and the scalar walk is faster (docs/performance.md). */
#define NQ_LANES_MIN_ROWS 11

/* 1 when the lane walk can count the completions from step `start_step`
 * of `search`'s walk: n <= NQ_LANES_MAX_N, at least four steps left, and
 * the lanes' rows span at most 32 board rows. */
int nq__lanes_fit(const nq_search_t *search, int start_step);

/* As the scalar walk: fills result->solutions and result->nodes (the same
 * node count) for the completions from step `start_step`, whose row's
 * attacks are (cols, diag_left, diag_right).  Only where
 * nq__lanes_supported() and nq__lanes_fit(); NQ_EOVERFLOW if the count
 * passes 2^64 - 1, NQ_ESTOPPED when the searcher's cancel hook abandoned
 * the unit. */
int nq__lanes_count(nq_unit_result_t *result, const nq_search_t *search, int start_step,
                    uint64_t cols, uint64_t diag_left, uint64_t diag_right);

#endif
