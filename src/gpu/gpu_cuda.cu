/* The device: every lane of a warp walks its own sub-problem with the walk
 * of gpu_walk.h, one queen per turn, and a lane that finishes takes the
 * next sub-problem, so lanes stay busy however unequal the sub-problems
 * are.  Lanes look for work only every kTurns turns: the look costs a
 * vote a warp, and a sub-problem is thousands of turns long, so a finished
 * lane waiting a few turns costs less than looking every turn.  The stacks
 * live in shared memory, level-major: the 32 lanes of a warp at one level
 * touch 512 consecutive bytes, and a level's stride is a multiple of 128
 * bytes, so lanes at different levels meet no bank conflict either. */

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "gpu.h"
#include "nqueens/error.h"
}

namespace {

/* Turns between looks for work; a build may set another (-DNQ_GPU_TURNS=...)
 * to measure the trade (docs/performance.md). */
#ifndef NQ_GPU_TURNS
#define NQ_GPU_TURNS 16
#endif

constexpr int kBlock = 128;
constexpr int kTurns = NQ_GPU_TURNS;
/* Sub-problems a warp takes at a time (-DNQ_GPU_CHUNK=... to measure). */
#ifndef NQ_GPU_CHUNK
#define NQ_GPU_CHUNK 64
#endif
constexpr int kChunk = NQ_GPU_CHUNK;
constexpr unsigned kFullWarp = 0xffffffffu;

__device__ void add_counts(unsigned long long *sum, unsigned long long value, int *overflow) {
  if (value == 0)
    return;
  const unsigned long long before = atomicAdd(sum, value);
  if (before + value < before)
    atomicExch(overflow, 1);
}

/* A lane and what it has counted for its unit since it last handed in. */
struct walker {
  nq__gpu_lane_t lane;
  unsigned unit;
  unsigned long long solutions, nodes;
};

struct launch_args {
  const nq__gpu_tables_t *tables;
  const nq__gpu_sub_t *subs;
  unsigned long long sub_count;
  unsigned long long *unit_solutions, *unit_nodes, *next_sub;
  int *overflow;
};

/* The sub-problems a warp has taken from the launch's and not yet handed
 * to a lane: [next, end).  The same in every lane of the warp. */
struct warp_chunk {
  unsigned long long next, end;
};

/* Takes the next kChunk sub-problems for the warp with one atomic.
 * Returns false once the launch's are all taken. */
__device__ bool take_chunk(warp_chunk *chunk, const launch_args &a) {
  unsigned long long base = 0;
  if ((threadIdx.x & 31u) == 0)
    base = atomicAdd(a.next_sub, (unsigned long long)kChunk);
  base = __shfl_sync(kFullWarp, base, 0);
  chunk->next = base < a.sub_count ? base : a.sub_count;
  chunk->end = base + kChunk < a.sub_count ? base + kChunk : a.sub_count;
  return chunk->next < chunk->end;
}

/* Between blocks of turns: a lane whose sub-problem is done hands in its
 * counts, and the warp's idle lanes take the next sub-problems of the
 * warp's chunk, a new chunk when it runs out.  Consecutive sub-problems
 * mostly share a unit, so the lanes of a warp mostly read one frame's
 * table and the table's reads touch few cache lines.  Returns whether the
 * sub-problems ran out (the same for the whole warp). */
__device__ bool serve_idle_lanes(walker *w, warp_chunk *chunk, const launch_args &a,
                                 nq__gpu_stack_t stack) {
  const unsigned lanes_below = (1u << (threadIdx.x & 31u)) - 1u;
  bool idle = w->lane.depth == 0;
  if (idle) {
    add_counts(&a.unit_solutions[w->unit], w->solutions, a.overflow);
    add_counts(&a.unit_nodes[w->unit], w->nodes, a.overflow);
    w->solutions = w->nodes = 0;
  }
  for (unsigned waiting = __ballot_sync(kFullWarp, idle); waiting;
       waiting = __ballot_sync(kFullWarp, idle)) {
    if (chunk->next == chunk->end && !take_chunk(chunk, a))
      return true;
    const unsigned long long index = chunk->next + __popc(waiting & lanes_below);
    if (idle && index < chunk->end) {
      const nq__gpu_sub_t sub = a.subs[index];
      nq__gpu_lane_start(&w->lane, &a.tables[sub.table], &sub, stack);
      w->unit = sub.unit;
      idle = false;
    }
    const unsigned long long left = chunk->end - chunk->next;
    chunk->next += __popc(waiting) < left ? __popc(waiting) : left;
  }
  return false;
}

__global__ void __launch_bounds__(kBlock) walk_subs(launch_args a) {
  __shared__ nq__gpu_entry_t stack_entries[NQ_GPU_STACK_ENTRIES * kBlock];
  const nq__gpu_stack_t stack = {stack_entries + threadIdx.x, kBlock};
  walker w;
  w.lane.depth = 0;
  w.unit = 0;
  w.solutions = w.nodes = 0;
  warp_chunk chunk = {0, 0};
  bool exhausted = false;
  for (;;) {
    if (!exhausted)
      exhausted = serve_idle_lanes(&w, &chunk, a, stack);
    if (exhausted && !__any_sync(kFullWarp, w.lane.depth > 0))
      break;
    nq__gpu_counts_t counts = {0, 0};
#pragma unroll
    for (int turn = 0; turn < kTurns; turn++)
      if (w.lane.depth > 0)
        nq__gpu_lane_turn(&w.lane, stack, &counts);
    w.solutions += counts.solutions;
    w.nodes += counts.nodes;
  }
  add_counts(&a.unit_solutions[w.unit], w.solutions, a.overflow);
  add_counts(&a.unit_nodes[w.unit], w.nodes, a.overflow);
}

int cuda_failed(const nq__gpu_device_t *device, const char *call, cudaError_t error);

}  // namespace

struct nq__gpu_device {
  int index;
  char name[256];
  int blocks; /* resident blocks of walk_subs on the whole device */
  nq__gpu_tables_t *tables;
  nq__gpu_sub_t *subs;
  unsigned long long *sums; /* unit solutions, then unit nodes */
  unsigned long long *next_sub;
  int *overflow;
  size_t table_capacity, sub_capacity, unit_capacity;
};

namespace {

int cuda_failed(const nq__gpu_device_t *device, const char *call, cudaError_t error) {
  fprintf(stderr, "nqueens-mpi: GPU %d (%s): %s failed: %s\n", device ? device->index : -1,
          device ? device->name : "?", call, cudaGetErrorString(error));
  return NQ_EGPU;
}

#define NQ_CUDA_CHECK(device, call)                         \
  do {                                                      \
    cudaError_t nq_cuda_error_ = (call);                    \
    if (nq_cuda_error_ != cudaSuccess)                      \
      return cuda_failed((device), #call, nq_cuda_error_);  \
  } while (0)

/* Device buffers that grow to the largest launch so far. */
template <typename T> int reserve(nq__gpu_device_t *device, T **buffer, size_t *capacity,
                                  size_t needed) {
  if (needed <= *capacity)
    return NQ_OK;
  size_t grown = *capacity ? *capacity : 1024;
  while (grown < needed)
    grown *= 2;
  NQ_CUDA_CHECK(device, cudaFree(*buffer));
  *buffer = nullptr;
  *capacity = 0;
  NQ_CUDA_CHECK(device, cudaMalloc((void **)buffer, grown * sizeof(T)));
  *capacity = grown;
  return NQ_OK;
}

int reserve_all(nq__gpu_device_t *device, const nq__gpu_work_t *work) {
  int rc = reserve(device, &device->tables, &device->table_capacity, work->table_count);
  if (rc == NQ_OK)
    rc = reserve(device, &device->subs, &device->sub_capacity, work->sub_count);
  if (rc == NQ_OK)
    rc = reserve(device, &device->sums, &device->unit_capacity, 2 * work->unit_count);
  return rc;
}

/* Device sums added to the host's, refusing any that would wrap. */
int add_sums(uint64_t *host, const unsigned long long *device_sums, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (__builtin_add_overflow(host[i], (uint64_t)device_sums[i], &host[i]))
      return NQ_EOVERFLOW;
  return NQ_OK;
}

int launch(nq__gpu_device_t *device, const nq__gpu_work_t *work) {
  const size_t units = work->unit_count;
  NQ_CUDA_CHECK(device, cudaMemcpy(device->tables, work->tables,
                                   work->table_count * sizeof *work->tables,
                                   cudaMemcpyHostToDevice));
  NQ_CUDA_CHECK(device, cudaMemcpy(device->subs, work->subs, work->sub_count * sizeof *work->subs,
                                   cudaMemcpyHostToDevice));
  NQ_CUDA_CHECK(device, cudaMemset(device->sums, 0, 2 * units * sizeof *device->sums));
  NQ_CUDA_CHECK(device, cudaMemset(device->next_sub, 0, sizeof *device->next_sub));
  NQ_CUDA_CHECK(device, cudaMemset(device->overflow, 0, sizeof *device->overflow));
  const launch_args args = {device->tables, device->subs,         work->sub_count,
                            device->sums,   device->sums + units, device->next_sub,
                            device->overflow};
  walk_subs<<<device->blocks, kBlock>>>(args);
  NQ_CUDA_CHECK(device, cudaGetLastError());
  NQ_CUDA_CHECK(device, cudaDeviceSynchronize());
  return NQ_OK;
}

int collect(nq__gpu_device_t *device, const nq__gpu_work_t *work) {
  const size_t units = work->unit_count;
  unsigned long long *sums = (unsigned long long *)malloc(2 * units * sizeof *sums + 1);
  int overflow = 0;
  if (sums == NULL)
    return NQ_ENOMEM;
  cudaError_t error = cudaMemcpy(sums, device->sums, 2 * units * sizeof *sums,
                                 cudaMemcpyDeviceToHost);
  if (error == cudaSuccess)
    error = cudaMemcpy(&overflow, device->overflow, sizeof overflow, cudaMemcpyDeviceToHost);
  int rc = error == cudaSuccess ? NQ_OK : cuda_failed(device, "cudaMemcpy", error);
  if (rc == NQ_OK && overflow)
    rc = NQ_EOVERFLOW;
  if (rc == NQ_OK)
    rc = add_sums(work->unit_solutions, sums, units);
  if (rc == NQ_OK)
    rc = add_sums(work->unit_nodes, sums + units, units);
  free(sums);
  return rc;
}

}  // namespace

extern "C" int nq__gpu_device_count(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

extern "C" int nq__gpu_device_open(nq__gpu_device_t **out_device, int index) {
  if (index < 0 || index >= nq__gpu_device_count())
    return NQ_ENOTSUP;
  nq__gpu_device_t *device = (nq__gpu_device_t *)calloc(1, sizeof *device);
  if (device == NULL)
    return NQ_ENOMEM;
  device->index = index;
  cudaDeviceProp props;
  int per_multiprocessor = 0;
  cudaError_t error = cudaSetDevice(index);
  if (error == cudaSuccess)
    error = cudaGetDeviceProperties(&props, index);
  if (error == cudaSuccess)
    error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, walk_subs, kBlock, 0);
  if (error == cudaSuccess)
    error = cudaMalloc((void **)&device->next_sub, sizeof *device->next_sub);
  if (error == cudaSuccess)
    error = cudaMalloc((void **)&device->overflow, sizeof *device->overflow);
  if (error != cudaSuccess) {
    int rc = cuda_failed(device, "opening the device", error);
    nq__gpu_device_close(device);
    return rc;
  }
  snprintf(device->name, sizeof device->name, "%s", props.name);
  device->blocks = props.multiProcessorCount * (per_multiprocessor > 0 ? per_multiprocessor : 1);
  *out_device = device;
  return NQ_OK;
}

extern "C" void nq__gpu_device_close(nq__gpu_device_t *device) {
  if (device == NULL)
    return;
  cudaFree(device->tables);
  cudaFree(device->subs);
  cudaFree(device->sums);
  cudaFree(device->next_sub);
  cudaFree(device->overflow);
  free(device);
}

extern "C" const char *nq__gpu_device_name(const nq__gpu_device_t *device) {
  return device->name;
}

extern "C" int nq__gpu_device_walk(nq__gpu_device_t *device, const nq__gpu_work_t *work) {
  if (work->sub_count == 0)
    return NQ_OK;
  int rc = reserve_all(device, work);
  if (rc == NQ_OK)
    rc = launch(device, work);
  if (rc == NQ_OK)
    rc = collect(device, work);
  return rc;
}
