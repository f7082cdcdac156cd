#include "nqueens/slice.h"

#include "nqueens/error.h"

int nq_slice_init(nq_slice_t *slice, int index, int count, uint64_t total) {
  if (count < 1 || count > NQ_SLICE_MAX || index < 0 || index >= count)
    return NQ_EINVAL;
  uint64_t blocks = (uint64_t)count * NQ_SLICE_BLOCKS;
  slice->index = index;
  slice->count = count;
  slice->total = total;
  slice->block = total / blocks > 0 ? total / blocks : 1;
  return NQ_OK;
}

int nq_slice_of(const nq_slice_t *slice, uint64_t id) {
  return (int)(id / slice->block % (uint64_t)slice->count);
}

int nq_slice_holds(const nq_slice_t *slice, uint64_t id) {
  return slice->count == 1 || nq_slice_of(slice, id) == slice->index;
}

int nq_slice_holds_range(const nq_slice_t *slice, uint64_t first, uint64_t count) {
  return slice->count == 1 || (nq_slice_holds(slice, first) &&
                               first / slice->block == (first + count - 1) / slice->block);
}

/* Blocks b < `blocks` with b = index (mod count). */
static uint64_t blocks_dealt(uint64_t blocks, uint64_t index, uint64_t count) {
  return blocks > index ? (blocks - index + count - 1) / count : 0;
}

uint64_t nq_slice_units(const nq_slice_t *slice) {
  if (slice->count == 1)
    return slice->total;
  const uint64_t whole_blocks = slice->total / slice->block, tail = slice->total % slice->block;
  uint64_t units = blocks_dealt(whole_blocks, (uint64_t)slice->index, (uint64_t)slice->count) *
                   slice->block;
  if (tail > 0 && whole_blocks % (uint64_t)slice->count == (uint64_t)slice->index)
    units += tail; /* the short last block */
  return units;
}
