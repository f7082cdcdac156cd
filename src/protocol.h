#ifndef NQ_SRC_PROTOCOL_H
#define NQ_SRC_PROTOCOL_H

/* Master/worker messages.  All are arrays of uint64 words:
 *   NQ_TAG_WORK   master -> worker: [unit count, units (NQ_UNIT_WORDS each)]
 *   NQ_TAG_RESULT worker -> master: [status, result count, results
 *                                    (NQ_RESULT_WORDS each)]
 *   NQ_TAG_STOP   master -> worker: empty, no more work. */

#include <stdint.h>
#include <stdio.h>

#include <gmp.h>
#include <mpi.h>

#include "nqueens/kernel.h"
#include "nqueens/count.h"
#include "nqueens/units.h"

enum { NQ_TAG_WORK = 1, NQ_TAG_RESULT = 2, NQ_TAG_STOP = 3 };

#define NQ_UNIT_WORDS 3
#define NQ_RESULT_WORDS 5
#define NQ_BATCH_DEFAULT 16
#define NQ_BATCH_MAX 256

void nq__unit_pack(uint64_t *words, const nq_unit_t *unit);
void nq__unit_unpack(nq_unit_t *unit, const uint64_t *words);
void nq__result_pack(uint64_t *words, const nq_unit_result_t *result);
void nq__result_unpack(nq_unit_result_t *result, const uint64_t *words);

/* Accumulates unit results into the run's totals (rank 0 only). */
typedef struct nq__totals {
  mpz_t solutions;
  mpz_t unique_times_8; /* sum of weight x stabilizer_sum: 8 U(n) */
  mpz_t nodes;
  mpz_t term; /* scratch for weight x count, kept to spare an allocation a unit */
  uint64_t units;
} nq__totals_t;

void nq__totals_init(nq__totals_t *totals);
void nq__totals_clear(nq__totals_t *totals);
void nq__totals_add(nq__totals_t *totals, const nq_unit_result_t *result);

int nq__master_run(nq__totals_t *totals, int *failed_rank, const nq_count_options_t *options,
                   MPI_Comm comm);
int nq__worker_run(const nq_count_options_t *options, MPI_Comm comm);

/* Solves one unit, re-preparing `search` when the unit's frame changes. */
int nq__solve_unit(nq_unit_result_t *result, nq_search_t *search,
                   const nq_count_options_t *options, const nq_unit_t *unit);

void nq__mpi_report(int mpi_code, const char *call, const char *file, int line, MPI_Comm comm);

/* Every MPI call goes through this: on failure say where and why, and hand
 * NQ_EMPI back to the caller (which aborts the job from main). */
#define NQ_MPI_CHECK(comm, call)                                          \
  do {                                                                    \
    int nq_mpi_code_ = (call);                                            \
    if (nq_mpi_code_ != MPI_SUCCESS) {                                    \
      nq__mpi_report(nq_mpi_code_, #call, __FILE__, __LINE__, (comm));    \
      return NQ_EMPI;                                                     \
    }                                                                     \
  } while (0)

#endif
