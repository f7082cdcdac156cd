/* A batch of units for the GPU: each unit's walk is cut a few rows below
 * its start into sub-problems (the attacks on one walked row), which the
 * device walks all at once; the unit's counts are the sums over its
 * sub-problems plus the queens placed while cutting, so they equal the
 * CPU kernel's to the node. */

#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "grow.h"
#include "nqueens/error.h"
#include "nqueens/symmetry.h"
#include "search.h"

enum {
  /* Rows the host cuts below a unit's start: each adds a factor of about
   * n/3 sub-problems, enough at two or three to fill a GPU from a batch of
   * a few thousand units. */
  CUT_LEVELS = 3,
  /* A launch's staging: a table a frame (404 bytes) and 20 bytes a
   * sub-problem. */
  MAX_TABLES = 65535,
  MAX_SUBS = 1 << 24
};

struct nq__gpu_solver {
  int n;
  nq_search_t *search; /* the CPU kernel: tables, starts, and the units it keeps */
  nq__gpu_device_t *device;
  nq__gpu_tables_t *tables;
  size_t table_count;
  nq__gpu_sub_t *subs;
  size_t sub_count, sub_capacity;
  uint64_t *unit_solutions, *unit_nodes;
  size_t unit_capacity;
  nq_frame_t table_frame; /* the frame of tables[table_count - 1] */
  uint64_t subs_walked;
};

/* ---- staging ---- */

static int reserve_units(nq__gpu_solver_t *s, size_t count) {
  if (count <= s->unit_capacity)
    return NQ_OK;
  uint64_t *solutions = realloc(s->unit_solutions, count * sizeof *solutions);
  if (solutions == NULL)
    return NQ_ENOMEM;
  s->unit_solutions = solutions;
  uint64_t *nodes = realloc(s->unit_nodes, count * sizeof *nodes);
  if (nodes == NULL)
    return NQ_ENOMEM;
  s->unit_nodes = nodes;
  s->unit_capacity = count;
  return NQ_OK;
}

/* The current frame's walk as a table indexed by queens on the board,
 * added when the frame changes or when a unit's columns hold a different
 * number of the frame's queens (`base_queens`, which the device adds to
 * the walk step through its popcount of the column word). */
static void stage_tables(nq__gpu_solver_t *s, const nq_unit_t *unit, int base_queens) {
  if (s->table_count > 0 && memcmp(&s->table_frame, &unit->frame, sizeof unit->frame) == 0 &&
      s->tables[s->table_count - 1].base_queens == base_queens)
    return;
  const nq_search_t *search = s->search;
  const int steps = search->walk_rows;
  nq__gpu_tables_t *t = &s->tables[s->table_count++];
  memset(t, 0, sizeof *t);
  t->base_queens = base_queens;
  t->leaf_queens = base_queens + steps - 2;
  for (int step = 0; step < steps; step++) {
    const int queens = base_queens + step;
    t->mask[queens] = (uint32_t)search->walk_mask[step];
    if (step + 1 < steps)
      t->row[queens] = (nq__gpu_row_t){.next_mask = (uint32_t)search->walk_mask[step + 1],
                                       .gap = (uint32_t)search->walk_gap[step]};
  }
  s->table_frame = unit->frame;
}

static int push_sub(nq__gpu_solver_t *s, size_t unit, uint64_t cols, uint64_t diag_left,
                    uint64_t diag_right) {
  int rc = nq__grow((void **)&s->subs, &s->sub_capacity, s->sub_count + 1, sizeof *s->subs);
  if (rc != NQ_OK)
    return rc;
  s->subs[s->sub_count++] = (nq__gpu_sub_t){
      .cols = (uint32_t)cols, .diag_left = (uint32_t)diag_left,
      .diag_right = (uint32_t)diag_right, .unit = (uint32_t)unit,
      .table = (uint32_t)(s->table_count - 1)};
  return NQ_OK;
}

/* The step the device starts from: CUT_LEVELS below the unit's, and deep
 * enough that the device's stack holds every row down to the
 * second-to-last, but never past the third-to-last row. */
static int cut_step(const nq_search_t *search, int start_step) {
  const int walk_end = search->walk_rows - 3;
  int cut = start_step + CUT_LEVELS;
  if (cut < walk_end + 2 - NQ_GPU_STACK_ENTRIES)
    cut = walk_end + 2 - NQ_GPU_STACK_ENTRIES;
  return cut < walk_end ? cut : walk_end;
}

/* Depth-first from the unit's start down to the cut step, as the scalar
 * walk places queens (one node each); every placement reaching the cut
 * step with a free square there is a sub-problem (one with none would
 * count nothing). */
static int cut_unit(nq__gpu_solver_t *s, size_t unit, const nq__walk_start_t *start,
                    uint64_t *nodes) {
  const nq_search_t *search = s->search;
  const int cut = cut_step(search, start->step);
  uint64_t free_squares[NQ_MAX_N], cols[NQ_MAX_N], diag_left[NQ_MAX_N], diag_right[NQ_MAX_N];
  int step = start->step;
  cols[step] = start->cols;
  diag_left[step] = start->diag_left;
  diag_right[step] = start->diag_right;
  for (;;) {
    free_squares[step] =
        search->walk_mask[step] & ~(cols[step] | diag_left[step] | diag_right[step]);
    if (step == cut) {
      int rc = free_squares[step]
                   ? push_sub(s, unit, cols[step], diag_left[step], diag_right[step])
                   : NQ_OK;
      if (rc != NQ_OK)
        return rc;
      free_squares[step] = 0; /* the device walks this row */
    }
    while (step >= start->step && !free_squares[step])
      step--;
    if (step < start->step)
      return NQ_OK;
    const uint64_t bit = free_squares[step] & (~free_squares[step] + 1);
    const int gap = search->walk_gap[step];
    free_squares[step] ^= bit;
    cols[step + 1] = cols[step] | bit;
    diag_left[step + 1] = (diag_left[step] | bit) << gap;
    diag_right[step + 1] = (diag_right[step] | bit) >> gap;
    (*nodes)++;
    step++;
  }
}

/* ---- units ---- */

/* Units the device walks: boards of up to 32 columns, at least the last
 * three rows left to walk, and no classification needed. */
static int device_takes(const nq__gpu_solver_t *s, const nq_unit_t *unit, int classify) {
  if (s->n > NQ_GPU_MAX_N)
    return 0;
  return !classify || unit->frame.stabilizer == 1u << NQ_SYM_IDENTITY;
}

static int run_staged(nq__gpu_solver_t *s, size_t unit_count) {
  nq__gpu_work_t work = {s->tables,         s->table_count,     s->subs, s->sub_count,
                         s->unit_solutions, s->unit_nodes, unit_count};
  int rc = s->device ? nq__gpu_device_walk(s->device, &work) : nq__gpu_host_walk(&work);
  s->subs_walked += s->sub_count;
  s->sub_count = 0;
  s->table_count = 0;
  return rc;
}

/* Adds what the device counted to the staged units' results. */
static int settle(nq__gpu_solver_t *s, nq_unit_result_t *results, const size_t *staged,
                  size_t staged_count, int classify) {
  int rc = run_staged(s, staged_count);
  if (rc != NQ_OK)
    return rc;
  for (size_t i = 0; i < staged_count; i++) {
    nq_unit_result_t *r = &results[staged[i]];
    r->solutions = s->unit_solutions[i];
    if (__builtin_add_overflow(r->nodes, s->unit_nodes[i], &r->nodes))
      return NQ_EOVERFLOW;
    r->stabilizer_sum = classify ? r->solutions : 0;
  }
  return NQ_OK;
}

/* Stages one unit for the device, or counts it on the CPU when its walk
 * is too short to cut. */
static int stage_unit(nq__gpu_solver_t *s, nq_unit_result_t *result, const nq_unit_t *unit,
                      size_t slot, int classify, int *staged) {
  nq__walk_start_t start;
  *staged = 0;
  int rc = nq__kernel_walk_start(&start, s->search, unit);
  if (rc != NQ_OK)
    return rc;
  if (start.step > s->search->walk_rows - 3)
    return nq_kernel_solve(result, s->search, unit, classify);
  memset(result, 0, sizeof *result);
  result->id = unit->id;
  result->weight = unit->frame.weight;
  stage_tables(s, unit, __builtin_popcountll(start.cols) - start.step);
  s->unit_solutions[slot] = s->unit_nodes[slot] = 0;
  *staged = 1;
  return cut_unit(s, slot, &start, &result->nodes);
}

int nq__gpu_solver_solve(nq__gpu_solver_t *s, nq_unit_result_t *results, const nq_unit_t *units,
                         size_t count, int classify) {
  size_t *staged = malloc((count ? count : 1) * sizeof *staged), staged_count = 0;
  int rc = staged && reserve_units(s, count) == NQ_OK ? NQ_OK : NQ_ENOMEM;
  for (size_t u = 0; rc == NQ_OK && u < count; u++) {
    if (!device_takes(s, &units[u], classify)) {
      rc = nq_kernel_solve(&results[u], s->search, &units[u], classify);
      continue;
    }
    int is_staged = 0;
    rc = stage_unit(s, &results[u], &units[u], staged_count, classify, &is_staged);
    if (is_staged)
      staged[staged_count++] = u;
    if (rc == NQ_OK && (s->table_count == MAX_TABLES || s->sub_count >= MAX_SUBS)) {
      rc = settle(s, results, staged, staged_count, classify);
      staged_count = 0;
    }
  }
  if (rc == NQ_OK && staged_count > 0)
    rc = settle(s, results, staged, staged_count, classify);
  s->sub_count = s->table_count = 0;
  free(staged);
  return rc;
}

uint64_t nq__gpu_solver_subs(const nq__gpu_solver_t *solver) { return solver->subs_walked; }

int nq__gpu_solver_create(nq__gpu_solver_t **out_solver, int n, nq_walk_t walk,
                          nq__gpu_device_t *device) {
  nq__gpu_solver_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NQ_ENOMEM;
  s->n = n;
  s->device = device;
  s->tables = malloc(MAX_TABLES * sizeof *s->tables);
  int rc = s->tables ? nq_kernel_create(&s->search, n, walk) : NQ_ENOMEM;
  if (rc != NQ_OK) {
    nq__gpu_solver_destroy(s);
    return rc;
  }
  *out_solver = s;
  return NQ_OK;
}

void nq__gpu_solver_destroy(nq__gpu_solver_t *s) {
  if (s == NULL)
    return;
  nq_kernel_destroy(s->search);
  free(s->tables);
  free(s->subs);
  free(s->unit_solutions);
  free(s->unit_nodes);
  free(s);
}

/* ---- the host stand-in for the device ---- */

int nq__gpu_host_walk(const nq__gpu_work_t *work) {
  nq__gpu_entry_t entries[NQ_GPU_STACK_ENTRIES];
  const nq__gpu_stack_t stack = {entries, 1};
  for (size_t i = 0; i < work->sub_count; i++) {
    const nq__gpu_sub_t *sub = &work->subs[i];
    uint64_t *solutions = &work->unit_solutions[sub->unit], *nodes = &work->unit_nodes[sub->unit];
    nq__gpu_lane_t lane;
    nq__gpu_lane_start(&lane, &work->tables[sub->table], sub, stack);
    while (lane.depth > 0) {
      nq__gpu_counts_t counts = {0, 0};
      nq__gpu_lane_turn(&lane, stack, &counts);
      if (__builtin_add_overflow(*solutions, counts.solutions, solutions) ||
          __builtin_add_overflow(*nodes, counts.nodes, nodes))
        return NQ_EOVERFLOW;
    }
  }
  return NQ_OK;
}
