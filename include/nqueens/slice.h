#ifndef NQUEENS_SLICE_H
#define NQUEENS_SLICE_H

/* Slices: K disjoint parts of a count's units, each counted by its own run
 * (a job of an array, another cluster) with its own journal, then merged.
 *
 * The ids are cut into blocks of consecutive units, and the blocks dealt
 * to the slices in turn: slice i of K holds blocks i, i + K, i + 2K, ...
 * With NQ_SLICE_BLOCKS blocks to each slice, every slice draws evenly from
 * the whole id order, which runs frame by frame from cheap units to dear
 * ones, so the slices' expected work is equal and not just their unit
 * counts (docs/design.md, "Slices", has the measured spread).  The cut
 * depends on the units' total and K alone, so every job computes the same
 * one. */

#include <stdint.h>

#define NQ_SLICE_BLOCKS 1024 /* blocks of each slice, when there are units enough */
#define NQ_SLICE_MAX 1000000  /* slices of one count, at most */

typedef struct nq_slice {
  int index;      /* 0-based: the slice called index + 1 of count */
  int count;      /* 1: the whole count */
  uint64_t total; /* units of the whole count */
  uint64_t block; /* units a block */
} nq_slice_t;

/* Slice `index` (0-based) of `count` over `total` units.  NQ_EINVAL unless
 * 0 <= index < count <= NQ_SLICE_MAX. */
int nq_slice_init(nq_slice_t *slice, int index, int count, uint64_t total);

/* Whether unit `id` belongs to the slice. */
int nq_slice_holds(const nq_slice_t *slice, uint64_t id);

/* Whether units first..first+count-1 (count >= 1) are all the slice's:
 * within one of its blocks, as no two of a slice's blocks are neighbours
 * (every id, for the whole count). */
int nq_slice_holds_range(const nq_slice_t *slice, uint64_t first, uint64_t count);

/* Units of the slice. */
uint64_t nq_slice_units(const nq_slice_t *slice);

/* The slice (0-based) that holds unit `id`. */
int nq_slice_of(const nq_slice_t *slice, uint64_t id);

#endif
