#ifndef NQ_SRC_GPU_H
#define NQ_SRC_GPU_H

/* GPU ranks: a batch of units cut a few rows deeper into many sub-problems
 * that a device walks in parallel (gpu_batch.c), and the device itself
 * (gpu_cuda.cu, or gpu_none.c in builds without CUDA). */

#include <stddef.h>
#include <stdint.h>

#include "gpu_walk.h"
#include "nqueens/kernel.h"

/* ---- the device ---- */

typedef struct nq__gpu_device nq__gpu_device_t;

/* CUDA devices this process sees; 0 in a build without CUDA. */
int nq__gpu_device_count(void);

/* Opens device `index`.  NQ_ENOTSUP without CUDA or without that device,
 * NQ_ENOMEM. */
int nq__gpu_device_open(nq__gpu_device_t **out_device, int index);
void nq__gpu_device_close(nq__gpu_device_t *device);

/* The device's name, for messages. */
const char *nq__gpu_device_name(const nq__gpu_device_t *device);

/* Walks every sub-problem and adds its completions and nodes to
 * unit_solutions[sub.unit] and unit_nodes[sub.unit].  NQ_EOVERFLOW where
 * a unit's sum would wrap, NQ_EGPU when the device fails. */
typedef struct nq__gpu_work {
  const nq__gpu_tables_t *tables;
  size_t table_count;
  const nq__gpu_sub_t *subs;
  size_t sub_count;
  uint64_t *unit_solutions, *unit_nodes;
  size_t unit_count;
} nq__gpu_work_t;

int nq__gpu_device_walk(nq__gpu_device_t *device, const nq__gpu_work_t *work);

/* The same on the host, one sub-problem after another with the same walk:
 * what the tests compare with the CPU kernel. */
int nq__gpu_host_walk(const nq__gpu_work_t *work);

/* ---- batches of units ---- */

typedef struct nq__gpu_solver nq__gpu_solver_t;

/* A solver for n x n boards that walks its sub-problems on `device`, or on
 * the host when `device` is NULL.  Units the GPU walk does not take (n
 * above NQ_GPU_MAX_N, walks too short to cut, frames whose completions
 * must be classified) are counted by the CPU kernel with `walk`. */
int nq__gpu_solver_create(nq__gpu_solver_t **out_solver, int n, nq_walk_t walk,
                          nq__gpu_device_t *device);
void nq__gpu_solver_destroy(nq__gpu_solver_t *solver);

/* Counts `count` units into results[0..count-1] exactly as nq_kernel_solve
 * would, unit by unit: the same solutions, stabilizer sums and nodes.  The
 * first failing unit's code is returned (NQ_EUNIT, NQ_EOVERFLOW, NQ_EGPU,
 * NQ_ENOMEM). */
int nq__gpu_solver_solve(nq__gpu_solver_t *solver, nq_unit_result_t *results,
                         const nq_unit_t *units, size_t count, int classify);

/* Sub-problems walked by the device (or the host stand-in) so far. */
uint64_t nq__gpu_solver_subs(const nq__gpu_solver_t *solver);

#endif
