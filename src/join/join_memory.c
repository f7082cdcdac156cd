/* A join scratch's memory, bounded: the tops of a bucket are walked in
 * parts no larger than what the scratch's limit leaves once the bucket's
 * quarters are listed, each part's tables reckoned at their worst.  So a
 * thread's memory follows the limit, not the largest bucket (which grows
 * about fivefold every two rows: 1 GB a thread at n = 27, 6 GB at 28). */

#include "bit_transpose.h"
#include "join_memory.h"
#include "join_tables.h"
#include "join_quarters.h"
#include "join_walk.h"
#include "nqueens/options.h"

/* The least part: a limit that cannot hold it beside the quarters is
 * passed by that much (and `--memory` refuses one for a rank). */
enum { LEAST_PART_TOPS = 64 };

/* A table of `tops` tops: the two masks a top, in arrays that grow by
 * doubling from 1024 (grow.h) with the gather's slack past the last
 * (bit_transpose.h), and its bitsets over its words (the diagonals' and
 * the completions' queen bitsets, join_walk.h), each padded to the stride
 * that keeps its blocks on whole lines, the whole rounded up to a line
 * (join_walk.h). */
static size_t table_bytes(int n, int top_rows, size_t tops) {
  const size_t masks = tops + NQ_BIT_STORE_SLACK;
  size_t room = masks < 1024 ? 1024 : 2 * masks;
  size_t bitsets = nq__join_bitsets_of_table(n, top_rows) *
                   nq__join_bitset_stride(nq__join_table_words(tops)) * sizeof(uint64_t);
  return room * 2 * sizeof(uint32_t) + (bitsets + 63) / 64 * 64;
}

/* A part of `tops` tops at its worst: its table; at each depth where the
 * walk repacks, a table of at most the rule's share of the part's room
 * (join_walk.h); and the live words' values and indexes at every depth of
 * the walk. */
size_t nq__join_part_bytes(int n, int top_rows, size_t tops) {
  size_t bytes = table_bytes(n, top_rows, tops);
  for (int row = top_rows; row < n; row++) {
    const repack_rule_t rule = nq__join_repack_rule(n, row);
    if (rule.share != 0)
      bytes += table_bytes(n, top_rows, nq__join_table_words(tops) * (size_t)(64 / rule.share));
  }
  bytes += (size_t)(n - top_rows + 1) * nq__join_table_words(tops) *
           (sizeof(uint64_t) + sizeof(uint32_t));
  return bytes;
}

size_t nq_join_tops_within(int n, int top_rows, size_t bytes) {
  if (nq__join_part_bytes(n, top_rows, LEAST_PART_TOPS) > bytes)
    return 0;
  /* fits <= the answer < too_many; no part holds 2^48 tops (far past any
   * memory), which keeps the reckoning clear of wrapping around. */
  size_t fits = LEAST_PART_TOPS, too_many = 2 * LEAST_PART_TOPS;
  while (too_many < ((size_t)1 << 48) && nq__join_part_bytes(n, top_rows, too_many) <= bytes)
    fits = too_many, too_many *= 2;
  while (too_many - fits > 64) {
    size_t middle = fits + (too_many - fits) / 2 / 64 * 64;
    if (nq__join_part_bytes(n, top_rows, middle) <= bytes)
      fits = middle;
    else
      too_many = middle;
  }
  return fits;
}

/* Listed whole, a bucket's quarters take at most this share of the
 * scratch's limit, the parts of tops the rest: from n = 26, where they
 * would take more, a bucket costs seconds and searching them a group at a
 * time costs nothing that shows (join_quarters.c). */
enum { WHOLE_QUARTERS_SHARE = 16 };

size_t nq__join_whole_quarters_budget(const nq_join_scratch_t *scratch) {
  const size_t limit = scratch->memory_limit;
  if (limit == 0)
    return SIZE_MAX;
  const int n = scratch->n, m = scratch->top_rows;
  const size_t kept =
      nq__join_part_bytes(n, m, LEAST_PART_TOPS) + nq__join_quarters_most_bytes(n, m);
  const size_t room = limit > kept ? limit - kept : 0;
  const size_t share = limit / WHOLE_QUARTERS_SHARE;
  return share < room ? share : room;
}

static size_t list_bytes(const join_quarter_list_t *list) {
  return (list->own_ld_capacity + list->own_rd_capacity) * sizeof(uint64_t) +
         (list->own_ld32_capacity + list->own_rd32_capacity + 2 * list->range_capacity) *
             sizeof(uint32_t);
}

size_t nq__join_quarters_bytes(const join_quarters_t *quarters) {
  return list_bytes(&quarters->upper) + list_bytes(&quarters->lower);
}

void nq_join_scratch_limit(nq_join_scratch_t *scratch, size_t bytes) {
  scratch->memory_limit = bytes;
}

/* The most tops the next part may take: what the limit leaves once the
 * quarters are held. */
size_t nq__join_part_most(const nq_join_scratch_t *scratch) {
  const size_t cap = scratch->part_cap != 0 ? scratch->part_cap : nq__join_part_cap(scratch->n);
  if (scratch->memory_limit == 0)
    return cap;
  const size_t quarters = nq__join_quarters_bytes(&scratch->quarters);
  const size_t left = scratch->memory_limit > quarters ? scratch->memory_limit - quarters : 0;
  const size_t within = nq_join_tops_within(scratch->n, scratch->top_rows, left);
  const size_t most = within > 0 ? within : LEAST_PART_TOPS;
  return most < cap ? most : cap;
}

void nq__join_cap_part_tops(nq_join_scratch_t *scratch, size_t tops) {
  scratch->part_cap = tops;
}

size_t nq__join_scratch_bytes(const nq_join_scratch_t *scratch) {
  size_t bytes = nq__join_quarters_bytes(&scratch->quarters);
  for (int d = 0; d < JOIN_MAX_DEPTH; d++) {
    const top_table_t *table = &scratch->tables[d];
    bytes += table->capacity * 2 * sizeof(uint32_t) + table->attacking_capacity * sizeof(uint64_t);
  }
  return bytes + (size_t)scratch->stack_depths * scratch->stack_words *
                     (sizeof(uint64_t) + sizeof(uint32_t));
}

size_t nq_join_shared_bytes(int n) {
  const join_completions_t *table = nq__join_completions(n);
  return (table != NULL ? table->bytes : 0) +
         (n >= 2 ? nq__join_shared_quarters_bytes(n, nq_join_default_top_rows(n)) : 0);
}

/* What a thread holds at its most besides its part: its quarters. */
static size_t thread_quarters_bytes(int n) {
  return n >= 2 ? nq__join_quarters_most_bytes(n, nq_join_default_top_rows(n)) : 0;
}

size_t nq_join_least_memory(int n, int threads) {
  const size_t least_part = nq__join_part_bytes(n, nq_join_default_top_rows(n), LEAST_PART_TOPS);
  return nq_join_shared_bytes(n) +
         (size_t)(threads > 0 ? threads : 1) * (thread_quarters_bytes(n) + least_part);
}

size_t nq_join_fastest_part_tops(int n) {
  const size_t cap = nq__join_part_cap(n);
  return cap == SIZE_MAX ? 0 : cap;
}

size_t nq_join_rank_bytes(size_t memory) {
  return memory != 0 ? memory : NQ_COUNT_DEFAULT_MEMORY;
}

size_t nq_join_thread_bytes(int n, int threads, size_t rank_bytes) {
  const size_t rank = nq_join_rank_bytes(rank_bytes);
  const size_t shared = nq_join_shared_bytes(n);
  const size_t share = (rank > shared ? rank - shared : 0) / (size_t)(threads > 0 ? threads : 1);
  return share > 0 ? share : 1; /* 0 would lift the bound */
}

size_t nq_join_part_tops_within(int n, int threads, size_t rank_bytes) {
  const size_t share = nq_join_thread_bytes(n, threads, rank_bytes);
  const size_t quarters = thread_quarters_bytes(n);
  return nq_join_tops_within(n, nq_join_default_top_rows(n),
                             share > quarters ? share - quarters : 0);
}

size_t nq_join_memory_for_parts(int n, int threads, size_t tops) {
  const size_t part = nq__join_part_bytes(n, nq_join_default_top_rows(n), tops);
  return nq_join_shared_bytes(n) +
         (size_t)(threads > 0 ? threads : 1) * (part + thread_quarters_bytes(n));
}
