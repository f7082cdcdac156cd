/* The lane walk: eight subtrees of one unit searched at once, one per
 * 64-bit lane of AVX-512 registers.
 *
 * The scalar walk loses most of its time to branches it cannot predict:
 * whether a row still has a free square is a coin toss.  Here no branch
 * depends on the board.  Every step computes, for all eight lanes, both a
 * push (place the lowest free square, go down a row) and a pop (take the
 * row's queen back, go up), and masks pick per lane which one happens.
 * Two groups of eight run interleaved, so one group's step overlaps the
 * other's latency.
 *
 * A lane has no stack.  A pop undoes its queen by shifting the diagonals
 * back the other way, and the column of each level's queen is kept in
 * COLUMN_BITS bits of one word.  Undoing is exact on the board: left
 * diagonals stay below bit 64 while their board part (< 32) moves up by at
 * most 32 rows in the lanes, and right diagonals are held 32 bits up so
 * that what a right shift loses was left of column 0.
 *
 * The bottom of each subtree is the closed form of kernel.c: a lane that
 * places a queen on the row above the last three walked rows hands the
 * attacks over to a buffer (only when the third-to-last row keeps a free
 * square, about half the time), and the buffer is counted eight entries at
 * a time when it fills.  The rows above the lanes' first row are walked by
 * a plain explicit-stack search that hands out the subtrees' roots. */

#include "lanes.h"

#include "nqueens/error.h"

enum {
  LANE_LEVELS = 5,  /* rows walked in lanes above the hand-over row: the
                       fastest of 4, 5 and 6 (docs/performance.md) */
  RIGHT_OFFSET = 32 /* right diagonals are held this many bits up */
};

/* The step the lanes start on: LANE_LEVELS above the hand-over row, the row
 * above the last three walked rows. */
static int lanes_start_step(const nq_search_t *search, int start_step) {
  int handover_step = search->walk_rows - 4;
  return handover_step - LANE_LEVELS > start_step ? handover_step - LANE_LEVELS : start_step;
}

int nq__lanes_fit(const nq_search_t *search, int start_step) {
  if (search->n > NQ_LANES_MAX_N || start_step < 0 || start_step + 4 > search->walk_rows)
    return 0;
  /* Exact undoing needs the lanes' rows to span at most 32 board rows. */
  int handover_step = search->walk_rows - 4;
  int span = search->walk_row[handover_step] - search->walk_row[lanes_start_step(search, start_step)];
  return span <= RIGHT_OFFSET;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(NQ_NO_LANES)

#include <immintrin.h>

#include "walk.h"

#define LANE_TARGET __attribute__((target("avx512f,avx512cd,avx512vpopcntdq")))
#define LANE_STEP LANE_TARGET __attribute__((always_inline)) static inline

enum {
  COLUMN_BITS = 6, /* a queen's column in the lane's history */
  PENDING_CAPACITY = 1024,
  ROOT_CHUNK = 64
};

_Static_assert(LANE_LEVELS * COLUMN_BITS <= 64, "the history holds every level");
_Static_assert(LANE_LEVELS < 8, "the level tables hold eight entries");

int nq__lanes_supported(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512vpopcntdq");
}

/* ---- roots: the plain walk from the unit's start step to the lanes' ---- */

typedef struct root {
  uint64_t cols, diag_left, diag_right; /* attacks on the lanes' first row */
} root_t;

typedef struct root_walk {
  const nq_search_t *search;
  int start_step, lanes_step, level; /* level < start_step: every root handed out */
  uint64_t nodes;
  uint64_t free_squares[NQ_MAX_N], cols[NQ_MAX_N], diag_left[NQ_MAX_N], diag_right[NQ_MAX_N];
  root_t chunk[ROOT_CHUNK];
  int chunk_size, chunk_next;
  int cancelled; /* the caller asked to abandon the unit: no more roots */
} root_walk_t;

static void root_walk_start(root_walk_t *walk, const nq_search_t *search, int start_step,
                            uint64_t cols, uint64_t diag_left, uint64_t diag_right) {
  walk->search = search;
  walk->start_step = walk->level = start_step;
  walk->lanes_step = lanes_start_step(search, start_step);
  walk->nodes = 0;
  walk->cols[start_step] = cols;
  walk->diag_left[start_step] = diag_left;
  walk->diag_right[start_step] = diag_right;
  walk->free_squares[start_step] = search->walk_mask[start_step] & ~(cols | diag_left | diag_right);
  walk->chunk_size = walk->chunk_next = 0;
  walk->cancelled = 0;
}

/* Refills the chunk with the next roots, depth first; 0 when none is left.
 * Before each chunk it asks whether to abandon the unit: a chunk is
 * ROOT_CHUNK subtrees of the lanes' rows, thousands of nodes or more; and
 * every NQ_SEARCH_NODES_BETWEEN_ASKS nodes of a search for roots that
 * keeps dead-ending above them. */
static int root_walk_next_chunk(root_walk_t *walk) {
  const uint64_t *mask = walk->search->walk_mask;
  const int *gap = walk->search->walk_gap;
  int count = 0, i = walk->level;
  uint32_t since_asked = 0;
  if (nq__search_cancelled(walk->search)) {
    walk->cancelled = 1;
    i = walk->start_step - 1;
  }
  while (count < ROOT_CHUNK && i >= walk->start_step) {
    if (++since_asked == NQ_SEARCH_NODES_BETWEEN_ASKS) {
      since_asked = 0;
      if (nq__search_cancelled(walk->search)) {
        walk->cancelled = 1;
        i = walk->start_step - 1;
        break;
      }
    }
    if (i == walk->lanes_step) {
      walk->chunk[count++] = (root_t){walk->cols[i], walk->diag_left[i], walk->diag_right[i]};
      i--;
    } else if (walk->free_squares[i]) {
      uint64_t bit = lowest_bit(walk->free_squares[i]);
      walk->free_squares[i] = drop_lowest_bit(walk->free_squares[i]);
      walk->cols[i + 1] = walk->cols[i] | bit;
      walk->diag_left[i + 1] = (walk->diag_left[i] | bit) << gap[i];
      walk->diag_right[i + 1] = (walk->diag_right[i] | bit) >> gap[i];
      walk->free_squares[i + 1] = mask[i + 1] & ~(walk->cols[i + 1] | walk->diag_left[i + 1] |
                                                  walk->diag_right[i + 1]);
      walk->nodes++;
      i++;
    } else {
      i--;
    }
  }
  walk->level = i;
  walk->chunk_size = count;
  walk->chunk_next = 0;
  return count;
}

/* ---- the closed form, eight hand-overs at a time ---- */

/* Queens placed on the hand-over row, with the attacks they leave on the
 * third-to-last walked row and its free squares there (never empty). */
typedef struct pending {
  uint64_t cols[PENDING_CAPACITY + 8], diag_left[PENDING_CAPACITY + 8],
      diag_right[PENDING_CAPACITY + 8], third_free[PENDING_CAPACITY + 8];
  int count;
  uint64_t upper_mask, lower_mask; /* the last two walked rows */
  int gap, lower_gap;               /* third-to-last to upper, upper to lower */
  uint64_t solutions;
  uint64_t third_squares; /* nodes: the free squares of the third rows */
  int overflow;
} pending_t;

LANE_STEP __m512i lane_lowest_bit(__m512i set) {
  return _mm512_and_si512(set, _mm512_sub_epi64(_mm512_setzero_si512(), set));
}

LANE_STEP __m512i lane_shadow(__m512i queen, __m512i gap) {
  return _mm512_or_si512(queen, _mm512_or_si512(_mm512_sllv_epi64(queen, gap),
                                                _mm512_srlv_epi64(queen, gap)));
}

LANE_STEP __m512i lane_legal_pairs(__m512i upper_free, __m512i lower_free, __m512i gap) {
  __m512i product = _mm512_mul_epu32(_mm512_popcnt_epi64(upper_free),
                                     _mm512_popcnt_epi64(lower_free));
  __m512i attacked = _mm512_popcnt_epi64(_mm512_and_si512(upper_free, lower_free));
  attacked = _mm512_add_epi64(attacked, _mm512_popcnt_epi64(_mm512_and_si512(
                                            _mm512_sllv_epi64(upper_free, gap), lower_free)));
  attacked = _mm512_add_epi64(attacked, _mm512_popcnt_epi64(_mm512_and_si512(
                                            _mm512_srlv_epi64(upper_free, gap), lower_free)));
  return _mm512_sub_epi64(product, attacked);
}

/* Third-row squares past the first two: rare (under 1% of hand-overs at
 * n = 16), counted one by one as the scalar walk does. */
LANE_TARGET static uint64_t count_extra_squares(const pending_t *pending, __m512i upper_free,
                                                __m512i lower_free, __m512i extra) {
  uint64_t upper_lanes[8], lower_lanes[8], extra_lanes[8], total = 0;
  _mm512_storeu_si512(upper_lanes, upper_free);
  _mm512_storeu_si512(lower_lanes, lower_free);
  _mm512_storeu_si512(extra_lanes, extra);
  for (int lane = 0; lane < 8; lane++)
    total += pairs_under_squares(extra_lanes[lane], upper_lanes[lane], lower_lanes[lane],
                                 pending->gap, pending->lower_gap);
  return total;
}

/* lane_legal_pairs once a queen x of the third-to-last row has taken its
 * squares from the last two rows. */
LANE_STEP __m512i lane_pairs_under(__m512i x, __m512i upper_free, __m512i lower_free,
                                   __m512i gap, __m512i reach, __m512i lower_gap) {
  return lane_legal_pairs(_mm512_andnot_si512(lane_shadow(x, gap), upper_free),
                          _mm512_andnot_si512(lane_shadow(x, reach), lower_free), lower_gap);
}

/* Counts entries [start, start + 8) (those below `valid`); each lane's sum
 * is below 64 * 2^12, so the caller's sum of a full buffer cannot wrap. */
LANE_STEP __m512i settle_eight(const pending_t *pending, int start, __mmask8 valid,
                               __m512i *third_squares, uint64_t *extra_total) {
  const __m512i gap = _mm512_set1_epi64(pending->gap),
                reach = _mm512_set1_epi64(pending->gap + pending->lower_gap),
                lower_gap = _mm512_set1_epi64(pending->lower_gap);
  __m512i cols = _mm512_maskz_loadu_epi64(valid, pending->cols + start);
  __m512i left = _mm512_maskz_loadu_epi64(valid, pending->diag_left + start);
  __m512i right = _mm512_maskz_loadu_epi64(valid, pending->diag_right + start);
  __m512i third = _mm512_maskz_loadu_epi64(valid, pending->third_free + start);
  __m512i upper_free = _mm512_andnot_si512(
      _mm512_or_si512(cols, _mm512_or_si512(_mm512_sllv_epi64(left, gap),
                                            _mm512_srlv_epi64(right, gap))),
      _mm512_set1_epi64((long long)pending->upper_mask));
  __m512i lower_free = _mm512_andnot_si512(
      _mm512_or_si512(cols, _mm512_or_si512(_mm512_sllv_epi64(left, reach),
                                            _mm512_srlv_epi64(right, reach))),
      _mm512_set1_epi64((long long)pending->lower_mask));
  *third_squares = _mm512_add_epi64(*third_squares, _mm512_popcnt_epi64(third));
  __m512i x = lane_lowest_bit(third);
  __m512i sum = lane_pairs_under(x, upper_free, lower_free, gap, reach, lower_gap);
  __m512i rest = _mm512_xor_si512(third, x);
  __mmask8 has_second = _mm512_test_epi64_mask(rest, rest);
  if (has_second) {
    x = lane_lowest_bit(rest);
    sum = _mm512_mask_add_epi64(sum, has_second, sum,
                                lane_pairs_under(x, upper_free, lower_free, gap, reach, lower_gap));
    rest = _mm512_xor_si512(rest, x);
    if (_mm512_test_epi64_mask(rest, rest))
      *extra_total += count_extra_squares(pending, upper_free, lower_free, rest);
  }
  return _mm512_maskz_mov_epi64(valid, sum);
}

LANE_TARGET static void settle_pending(pending_t *pending) {
  __m512i sum = _mm512_setzero_si512(), third_squares = _mm512_setzero_si512();
  uint64_t extra = 0;
  for (int start = 0; start < pending->count; start += 8) {
    const unsigned left = (unsigned)(pending->count - start);
    const __mmask8 valid = (__mmask8)(left >= 8 ? 0xffu : (1u << left) - 1u);
    sum = _mm512_add_epi64(sum, settle_eight(pending, start, valid, &third_squares, &extra));
  }
  pending->third_squares += (uint64_t)_mm512_reduce_add_epi64(third_squares);
  uint64_t settled = (uint64_t)_mm512_reduce_add_epi64(sum) + extra;
  pending->overflow |= __builtin_add_overflow(pending->solutions, settled, &pending->solutions);
  pending->count = 0;
}

/* ---- the lanes ---- */

typedef struct lane_tables {
  __m512i level_mask, level_gap; /* per lane level up to the hand-over row: mask, gap below */
  __m512i handover_level;        /* the lane level of the hand-over row */
  __m512i third_gap, third_gap_right; /* hand-over row to third-to-last row */
  __m512i third_mask;
} lane_tables_t;

typedef struct lanes {
  __m512i level, cols, diag_left, diag_right, free_squares, history;
  __mmask8 active;
  uint64_t nodes;
} lanes_t;

LANE_TARGET static void lane_tables_init(lane_tables_t *tables, pending_t *pending,
                                         const nq_search_t *search, int lanes_step) {
  const int handover_step = search->walk_rows - 4, third = handover_step + 1;
  uint64_t mask[8] = {0}, gap[8] = {0};
  for (int level = 0; level <= handover_step - lanes_step; level++) {
    mask[level] = search->walk_mask[lanes_step + level];
    gap[level] = (uint64_t)search->walk_gap[lanes_step + level];
  }
  tables->level_mask = _mm512_loadu_si512(mask);
  tables->level_gap = _mm512_loadu_si512(gap);
  tables->handover_level = _mm512_set1_epi64(handover_step - lanes_step);
  tables->third_gap = _mm512_set1_epi64(search->walk_gap[handover_step]);
  tables->third_gap_right = _mm512_set1_epi64(search->walk_gap[handover_step] + RIGHT_OFFSET);
  tables->third_mask = _mm512_set1_epi64((long long)search->walk_mask[third]);
  pending->count = 0;
  pending->upper_mask = search->walk_mask[third + 1];
  pending->lower_mask = search->walk_mask[third + 2];
  pending->gap = search->walk_gap[third];
  pending->lower_gap = search->walk_gap[third + 1];
  pending->solutions = 0;
  pending->third_squares = 0;
  pending->overflow = 0;
}

LANE_STEP __m512i lane_attacks(__m512i cols, __m512i diag_left, __m512i diag_right) {
  return _mm512_or_si512(cols,
                         _mm512_or_si512(diag_left, _mm512_srli_epi64(diag_right, RIGHT_OFFSET)));
}

/* Puts the next roots into idle lanes; 0 when no lane has work left.
 * Once the root walk is over, the lanes drain without calling it: the
 * call, which may reach the cancel hook, costs a save of every vector
 * register. */
LANE_STEP int lanes_refill(lanes_t *lanes, root_walk_t *roots, const lane_tables_t *tables) {
  __mmask8 idle = (__mmask8)~lanes->active;
  if (!idle || (roots->chunk_next == roots->chunk_size &&
                (roots->level < roots->start_step || !root_walk_next_chunk(roots))))
    return lanes->active != 0;
  uint64_t cols[8], diag_left[8], diag_right[8];
  __mmask8 filled = 0;
  for (int lane = 0; lane < 8 && roots->chunk_next < roots->chunk_size; lane++)
    if (idle >> lane & 1) {
      const root_t *root = &roots->chunk[roots->chunk_next++];
      cols[lane] = root->cols;
      diag_left[lane] = root->diag_left;
      diag_right[lane] = root->diag_right << RIGHT_OFFSET;
      filled |= (__mmask8)(1u << lane);
    }
  const __m512i zero = _mm512_setzero_si512();
  lanes->cols = _mm512_mask_loadu_epi64(lanes->cols, filled, cols);
  lanes->diag_left = _mm512_mask_loadu_epi64(lanes->diag_left, filled, diag_left);
  lanes->diag_right = _mm512_mask_loadu_epi64(lanes->diag_right, filled, diag_right);
  lanes->level = _mm512_mask_mov_epi64(lanes->level, filled, zero);
  lanes->history = _mm512_mask_mov_epi64(lanes->history, filled, zero);
  lanes->free_squares = _mm512_mask_andnot_epi64(
      lanes->free_squares, filled,
      lane_attacks(lanes->cols, lanes->diag_left, lanes->diag_right),
      _mm512_permutexvar_epi64(zero, tables->level_mask));
  lanes->active |= filled;
  return 1;
}

/* Lanes in `placing` put `bit` on the hand-over row: the nodes it adds,
 * and the attacks on the third-to-last row go to the buffer. */
LANE_STEP void buffer_handovers(lanes_t *lanes, pending_t *pending, const lane_tables_t *tables,
                         __m512i bit, __mmask8 placing) {
  __m512i cols = _mm512_or_si512(lanes->cols, bit);
  __m512i diag_left = _mm512_sllv_epi64(_mm512_or_si512(lanes->diag_left, bit), tables->third_gap);
  __m512i diag_right = _mm512_srlv_epi64(
      _mm512_or_si512(lanes->diag_right, _mm512_slli_epi64(bit, RIGHT_OFFSET)),
      tables->third_gap_right);
  __m512i third_free = _mm512_andnot_si512(
      _mm512_or_si512(cols, _mm512_or_si512(diag_left, diag_right)), tables->third_mask);
  /* The queen itself; the third-to-last row's squares are counted when
   * the buffer is settled (rows without one add nothing). */
  lanes->nodes += (uint64_t)__builtin_popcount(placing);
  __mmask8 worth = _mm512_mask_test_epi64_mask(placing, third_free, third_free);
  if (worth) {
    int at = pending->count;
    _mm512_storeu_si512(pending->cols + at, _mm512_maskz_compress_epi64(worth, cols));
    _mm512_storeu_si512(pending->diag_left + at, _mm512_maskz_compress_epi64(worth, diag_left));
    _mm512_storeu_si512(pending->diag_right + at, _mm512_maskz_compress_epi64(worth, diag_right));
    _mm512_storeu_si512(pending->third_free + at, _mm512_maskz_compress_epi64(worth, third_free));
    pending->count = at + __builtin_popcount(worth);
    if (pending->count > PENDING_CAPACITY - 8)
      settle_pending(pending);
  }
  lanes->free_squares = _mm512_mask_xor_epi64(lanes->free_squares, placing, lanes->free_squares, bit);
}

/* One step of every active lane: hand over, push or pop. */
LANE_STEP void lanes_step(lanes_t *lanes, pending_t *pending, const lane_tables_t *tables) {
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1),
                column_field = _mm512_set1_epi64((1 << COLUMN_BITS) - 1);
  const __m512i level = lanes->level, cols = lanes->cols, diag_left = lanes->diag_left,
                diag_right = lanes->diag_right, history = lanes->history;
  __mmask8 has_square = _mm512_mask_test_epi64_mask(lanes->active, lanes->free_squares,
                                                    lanes->free_squares);
  __mmask8 at_hand_over = _mm512_cmpeq_epi64_mask(level, tables->handover_level);
  __m512i bit = lane_lowest_bit(lanes->free_squares);
  __mmask8 placing = has_square & at_hand_over;
  __mmask8 pushing = has_square & (__mmask8)~at_hand_over;
  __mmask8 popping = lanes->active & (__mmask8)~has_square;
  __mmask8 finished = popping & _mm512_cmpeq_epi64_mask(level, zero);
  __mmask8 backing = popping & (__mmask8)~finished;
  if (placing)
    buffer_handovers(lanes, pending, tables, bit, placing);

  /* Push: the lowest free square, one row down. */
  __m512i gap = _mm512_permutexvar_epi64(level, tables->level_gap);
  __m512i column = _mm512_sub_epi64(_mm512_set1_epi64(63), _mm512_lzcnt_epi64(bit));
  __m512i pushed_history = _mm512_or_si512(_mm512_slli_epi64(history, COLUMN_BITS), column);
  __m512i pushed_left = _mm512_sllv_epi64(_mm512_or_si512(diag_left, bit), gap);
  __m512i pushed_right = _mm512_srlv_epi64(
      _mm512_or_si512(diag_right, _mm512_slli_epi64(bit, RIGHT_OFFSET)), gap);

  /* Pop: the last queen taken back, one row up. */
  __m512i gap_above = _mm512_permutexvar_epi64(_mm512_sub_epi64(level, one), tables->level_gap);
  __m512i queen = _mm512_sllv_epi64(one, _mm512_and_si512(history, column_field));
  __m512i popped_left = _mm512_xor_si512(_mm512_srlv_epi64(diag_left, gap_above), queen);
  __m512i popped_right = _mm512_xor_si512(_mm512_sllv_epi64(diag_right, gap_above),
                                          _mm512_slli_epi64(queen, RIGHT_OFFSET));

  lanes->cols = _mm512_mask_xor_epi64(_mm512_mask_or_epi64(cols, pushing, cols, bit), backing,
                                      cols, queen);
  lanes->diag_left = _mm512_mask_mov_epi64(_mm512_mask_mov_epi64(diag_left, pushing, pushed_left),
                                           backing, popped_left);
  lanes->diag_right = _mm512_mask_mov_epi64(
      _mm512_mask_mov_epi64(diag_right, pushing, pushed_right), backing, popped_right);
  lanes->history = _mm512_mask_srli_epi64(_mm512_mask_mov_epi64(history, pushing, pushed_history),
                                          backing, history, COLUMN_BITS);
  lanes->level = _mm512_mask_sub_epi64(_mm512_mask_add_epi64(level, pushing, level, one), backing,
                                       level, one);
  lanes->nodes += (uint64_t)__builtin_popcount(pushing);

  /* The new row's free squares; a lane back up keeps those after its queen. */
  __m512i free_squares = _mm512_andnot_si512(
      lane_attacks(lanes->cols, lanes->diag_left, lanes->diag_right),
      _mm512_permutexvar_epi64(lanes->level, tables->level_mask));
  __m512i after_queen = _mm512_sub_epi64(zero, _mm512_add_epi64(queen, queen));
  lanes->free_squares = _mm512_mask_mov_epi64(lanes->free_squares, pushing, free_squares);
  lanes->free_squares =
      _mm512_mask_and_epi64(lanes->free_squares, backing, free_squares, after_queen);
  lanes->active &= (__mmask8)~finished;
}

LANE_TARGET static uint64_t run_lanes(root_walk_t *roots, pending_t *pending,
                                      const lane_tables_t *tables) {
  const __m512i zero = _mm512_setzero_si512();
  lanes_t a = {zero, zero, zero, zero, zero, zero, 0, 0}, b = a;
  for (;;) {
    int a_busy = lanes_refill(&a, roots, tables);
    int b_busy = lanes_refill(&b, roots, tables);
    if (!a_busy && !b_busy)
      break;
    lanes_step(&a, pending, tables);
    lanes_step(&b, pending, tables);
  }
  settle_pending(pending);
  return a.nodes + b.nodes;
}

int nq__lanes_count(nq_unit_result_t *result, const nq_search_t *search, int start_step, uint64_t cols,
                    uint64_t diag_left, uint64_t diag_right) {
  if (!nq__lanes_fit(search, start_step))
    return NQ_EINVAL;
  root_walk_t roots;
  pending_t pending;
  lane_tables_t tables;
  root_walk_start(&roots, search, start_step, cols, diag_left, diag_right);
  lane_tables_init(&tables, &pending, search, roots.lanes_step);
  uint64_t lane_nodes = run_lanes(&roots, &pending, &tables);
  if (roots.cancelled)
    return NQ_ESTOPPED;
  if (pending.overflow)
    return NQ_EOVERFLOW;
  result->solutions = pending.solutions;
  result->nodes = roots.nodes + lane_nodes + pending.third_squares;
  return NQ_OK;
}

#else /* no AVX-512 code in this build */

int nq__lanes_supported(void) { return 0; }

int nq__lanes_count(nq_unit_result_t *result, const nq_search_t *search, int start_step, uint64_t cols,
                    uint64_t diag_left, uint64_t diag_right) {
  (void)result, (void)search, (void)start_step, (void)cols, (void)diag_left, (void)diag_right;
  return NQ_EINVAL;
}

#endif
