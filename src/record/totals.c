#include "totals.h"

#include "nqueens/error.h"

const uint32_t nq__residue_primes[NQ_COUNT_RESIDUES] = NQ_COUNT_RESIDUE_PRIMES;

static void clear_residues(nq__totals_t *totals) {
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    totals->residues[i] = 0;
  totals->unreduced = 0;
}

/* (a + b) mod p for a < p, any b. */
static uint32_t add_mod(uint32_t a, unsigned __int128 b, uint32_t p) {
  return (uint32_t)(((uint64_t)a + (uint64_t)(b % p)) % p);
}

/* Reduces the pending sum into the residues. */
static void reduce(nq__totals_t *totals) {
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    totals->residues[i] = add_mod(totals->residues[i], totals->unreduced, nq__residue_primes[i]);
  totals->unreduced = 0;
}

/* Adds a term below 2^126 (a unit's weighted solutions, or another
 * totals' pending sum): the pending sum is below 2^126 between calls, so
 * the add cannot wrap. */
static void add_unreduced(nq__totals_t *totals, unsigned __int128 term) {
  totals->unreduced += term;
  if (totals->unreduced >> 126)
    reduce(totals);
}

void nq__totals_residues(uint32_t out[NQ_COUNT_RESIDUES], const nq__totals_t *totals) {
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    out[i] = add_mod(totals->residues[i], totals->unreduced, nq__residue_primes[i]);
}

void nq__totals_init(nq__totals_t *totals) {
  mpz_inits(totals->solutions, totals->unique_times_8, totals->nodes, totals->term, NULL);
  totals->units = 0;
  clear_residues(totals);
}

void nq__totals_clear(nq__totals_t *totals) {
  mpz_clears(totals->solutions, totals->unique_times_8, totals->nodes, totals->term, NULL);
}

void nq__totals_add(nq__totals_t *totals, const nq_unit_result_t *result) {
  mpz_set_ui(totals->term, result->solutions);
  mpz_addmul_ui(totals->solutions, totals->term, result->weight);
  mpz_set_ui(totals->term, result->stabilizer_sum);
  mpz_addmul_ui(totals->unique_times_8, totals->term, result->weight);
  mpz_add_ui(totals->nodes, totals->nodes, result->nodes);
  totals->units++;
  add_unreduced(totals, (unsigned __int128)result->solutions * result->weight);
}

void nq__totals_add_residues(nq__totals_t *totals, const mpz_t value) {
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    totals->residues[i] = add_mod(totals->residues[i], mpz_fdiv_ui(value, nq__residue_primes[i]),
                                  nq__residue_primes[i]);
}

int nq__totals_to_u128(unsigned __int128 *out, const mpz_t value) {
  if (mpz_sgn(value) < 0 || mpz_sizeinbase(value, 2) > 128)
    return NQ_EOVERFLOW;
  uint64_t words[2] = {0, 0};
  mpz_export(words, NULL, -1, sizeof words[0], 0, 0, value);
  *out = (unsigned __int128)words[1] << 64 | words[0];
  return NQ_OK;
}

void nq__totals_from_u128(mpz_t out, unsigned __int128 value) {
  uint64_t words[2] = {(uint64_t)value, (uint64_t)(value >> 64)};
  mpz_import(out, 2, -1, sizeof words[0], 0, 0, words);
}

int nq__totals_check_residues(const nq__totals_t *totals) {
  uint32_t residues[NQ_COUNT_RESIDUES];
  nq__totals_residues(residues, totals);
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    if (mpz_fdiv_ui(totals->solutions, nq__residue_primes[i]) != residues[i])
      return NQ_ECHECK;
  return NQ_OK;
}

void nq__totals_merge(nq__totals_t *totals, const nq__totals_t *more) {
  mpz_add(totals->solutions, totals->solutions, more->solutions);
  mpz_add(totals->unique_times_8, totals->unique_times_8, more->unique_times_8);
  mpz_add(totals->nodes, totals->nodes, more->nodes);
  totals->units += more->units;
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    totals->residues[i] = add_mod(totals->residues[i], more->residues[i], nq__residue_primes[i]);
  add_unreduced(totals, more->unreduced);
}

void nq__totals_reset(nq__totals_t *totals) {
  mpz_set_ui(totals->solutions, 0);
  mpz_set_ui(totals->unique_times_8, 0);
  mpz_set_ui(totals->nodes, 0);
  totals->units = 0;
  clear_residues(totals);
}

/* Burnside: each frame's classified sum is |stabilizer| times its number
 * of orbits, and weight x |stabilizer| = 8, so the weighted sum is exactly
 * 8 U(n). */
int nq__totals_unique(mpz_t unique, const nq__totals_t *totals) {
  if (!mpz_divisible_ui_p(totals->unique_times_8, 8))
    return NQ_ECHECK;
  mpz_divexact_ui(unique, totals->unique_times_8, 8);
  return NQ_OK;
}
