#ifndef NQUEENS_RUN_H
#define NQUEENS_RUN_H

#include <gmp.h>
#include <mpi.h>
#include <stdint.h>

/* How to count: the board and how the work is cut. */
typedef struct nq_count_options {
  int n;
  int unique;          /* also count solutions up to rotation and reflection */
  int depth;           /* rows pre-placed per unit; 0 = nq_units_depth(n) */
  int batch_units;     /* units per message; 0 = default */
} nq_count_options_t;

/* Totals of a run, valid on rank 0 of the communicator. */
typedef struct nq_count_result {
  mpz_t solutions;
  mpz_t unique;        /* set when options.unique */
  mpz_t nodes;         /* queens placed by all searches */
  uint64_t units;      /* work units solved */
  int ranks;
  double seconds;
} nq_count_result_t;

void nq_count_result_init(nq_count_result_t *result);
void nq_count_result_clear(nq_count_result_t *result);

/* Collective over `comm`: rank 0 generates units and sums results while
 * computing units itself between messages; every other rank is a worker.
 * Returns 0, or a negative NQ_E* code on the rank that failed. */
int nq_count_run(nq_count_result_t *result, const nq_count_options_t *options, MPI_Comm comm);

#endif
