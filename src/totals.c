#include "totals.h"

#include "nqueens/error.h"

void nq__totals_init(nq__totals_t *totals) {
  mpz_inits(totals->solutions, totals->unique_times_8, totals->nodes, totals->term, NULL);
  totals->units = 0;
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
}

void nq__totals_merge(nq__totals_t *totals, const nq__totals_t *more) {
  mpz_add(totals->solutions, totals->solutions, more->solutions);
  mpz_add(totals->unique_times_8, totals->unique_times_8, more->unique_times_8);
  mpz_add(totals->nodes, totals->nodes, more->nodes);
  totals->units += more->units;
}

void nq__totals_reset(nq__totals_t *totals) {
  mpz_set_ui(totals->solutions, 0);
  mpz_set_ui(totals->unique_times_8, 0);
  mpz_set_ui(totals->nodes, 0);
  totals->units = 0;
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
