#ifndef NQUEENS_UNITS_H
#define NQUEENS_UNITS_H

#include <signal.h>
#include <stdint.h>

#include "nqueens/frame.h"

/* The version of the unit enumeration: which units exist for (n, depth)
 * and the ids they get.  Bump it whenever the enumeration or the id order
 * changes: checkpoint journals record finished units by id, and one
 * written under another scheme must be refused, not resumed. */
#define NQ_UNIT_SCHEME 1

/* Rows a unit may carry pre-placed (row 0 included). */
#define NQ_UNIT_MAX_DEPTH 8

/* A work unit: a frame plus the queens of rows 0..depth-1 (prefix[0] is
 * the frame's top queen).  Its job is to count the completions. */
typedef struct nq_unit {
  uint64_t id; /* position in the enumeration for this n: stable */
  nq_frame_t frame;
  uint8_t depth;
  uint8_t prefix[NQ_UNIT_MAX_DEPTH];
} nq_unit_t;

/* Streams the units of one board size in id order without holding them. */
typedef struct nq_unit_gen nq_unit_gen_t;

/* Rows pre-placed per unit (row 0 included) for board size n: deep enough
 * that large boards split into many small units. */
int nq_units_depth(int n);

/* NQ_OK when n and depth (0 = nq_units_depth(n)) can be enumerated:
 * n in 0..NQ_MAX_N, and a depth that leaves the last searched row free. */
int nq_units_check(int n, int depth);

/* How many units the enumeration of (n, depth) has, by one pass over the
 * frames that counts each frame's prefixes (the last prefix row is
 * counted, not listed).  NQ_EINVAL as nq_unit_gen_create. */
int nq_units_total(uint64_t *total, int n, int depth);

/* nq_units_total that gives up with NQ_ESTOPPED soon after *stop becomes
 * non-zero (it looks once a frame; NULL: never). */
int nq_units_total_until(uint64_t *total, int n, int depth, volatile sig_atomic_t *stop);

/* `depth` 0 means nq_units_depth(n).  Returns NQ_EINVAL for n outside
 * 0..NQ_MAX_N or a depth the board cannot take, NQ_ENOMEM. */
int nq_unit_gen_create(nq_unit_gen_t **out_gen, int n, int depth);
/* 1 and the next unit, 0 when the enumeration is over. */
int nq_unit_gen_next(nq_unit_gen_t *gen, nq_unit_t *out_unit);
void nq_unit_gen_destroy(nq_unit_gen_t *gen);

#endif
