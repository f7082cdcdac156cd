#ifndef NQ_SRC_TOTALS_H
#define NQ_SRC_TOTALS_H

/* The run's exact totals (rank 0 only): per-unit counts are 64-bit, their
 * weighted sums GMP integers. */

#include <stdint.h>

#include <gmp.h>

#include "nqueens/options.h"
#include "nqueens/kernel.h"

/* The primes of the residues (NQ_COUNT_RESIDUE_PRIMES). */
extern const uint32_t nq__residue_primes[NQ_COUNT_RESIDUES];

typedef struct nq__totals {
  mpz_t solutions;
  /* solutions modulo each prime, summed unit by unit (or record by record)
   * beside the big integer: the residues so far, plus the units' weighted
   * solutions not yet reduced (a 128-bit add a unit in the master's loop;
   * the divisions come once every 2^60 or so units, or when read) */
  uint32_t residues[NQ_COUNT_RESIDUES];
  unsigned __int128 unreduced;
  mpz_t unique_times_8; /* sum of weight x stabilizer_sum: 8 U(n) */
  mpz_t nodes;
  mpz_t term; /* scratch for weight x count, kept to spare an allocation a unit */
  uint64_t units;
} nq__totals_t;

void nq__totals_init(nq__totals_t *totals);
void nq__totals_clear(nq__totals_t *totals);
void nq__totals_add(nq__totals_t *totals, const nq_unit_result_t *result);

/* Adds all of `more` (a journal's sums, a batch's) into `totals`. */
void nq__totals_merge(nq__totals_t *totals, const nq__totals_t *more);

/* Adds `value` (a record's solutions, as read) to the residues alone. */
void nq__totals_add_residues(nq__totals_t *totals, const mpz_t value);

/* The solutions modulo each prime (NQ_COUNT_RESIDUE_PRIMES). */
void nq__totals_residues(uint32_t out[NQ_COUNT_RESIDUES], const nq__totals_t *totals);

/* NQ_ECHECK unless the big-integer solutions agree with the residues. */
int nq__totals_check_residues(const nq__totals_t *totals);

/* A sum as 128 bits (a batch's sums stay far below: a batch of 65,536
 * units cannot pass 26 digits): NQ_EOVERFLOW for one that does not fit. */
int nq__totals_to_u128(unsigned __int128 *out, const mpz_t value);
void nq__totals_from_u128(mpz_t out, unsigned __int128 value);

/* Back to zero, keeping the allocations. */
void nq__totals_reset(nq__totals_t *totals);

/* U(n) from the sums: NQ_ECHECK when 8 does not divide them, which
 * Burnside's lemma rules out for correct counts. */
int nq__totals_unique(mpz_t unique, const nq__totals_t *totals);

#endif
