#ifndef NQ_SRC_MERGE_H
#define NQ_SRC_MERGE_H

/* --merge: the journals of one count (its slices, reruns of them, other
 * sites' copies) combined into one result.  Every unit must be recorded
 * by some journal for a total; units recorded more than once are compared
 * wherever the records line up (the same ids in whole records on each
 * side), and any difference is a conflict that withholds the total.
 * Checks (--verify) are compared with the records of the same batch. */

#include <stddef.h>
#include <stdint.h>

#include <gmp.h>

#include "journal.h"
#include "nqueens/count.h"

typedef struct nq__merge_conflict {
  uint64_t first, end;    /* the units */
  int journal_a, journal_b; /* indexes into the paths; b is -1 when the units could
                               not be compared (records that do not line up) or a
                               check's own verdict was "differ" */
} nq__merge_conflict_t;

typedef struct nq__merge_result {
  nq__journal_header_t header; /* the first journal's (all share n, unique, depth,
                                  scheme and units) */
  int journals;
  uint64_t units_present, units_missing;
  nq__journal_range_t *missing; /* sorted, disjoint */
  size_t missing_count;
  uint64_t units_confirmed; /* recorded twice or more, lined up, all equal */
  uint64_t units_unchecked; /* recorded twice or more but not lined up with a whole record */
  uint64_t units_unresolved; /* in records that overlap but no journal holds whole: no total */
  uint64_t checks, checks_confirmed;
  nq__merge_conflict_t *conflicts;
  size_t conflict_count;
  mpz_t solutions, unique_times_8, nodes; /* over the units present, each once */
  mpz_t unique;                           /* U(n), when complete and counted --unique */
  uint32_t solutions_mod[NQ_COUNT_RESIDUES]; /* summed record by record, as a count's */
  /* When every journal is a slice of the same K (else 0): the slices no
   * journal holds, 0-based, sorted. */
  int slice_count;
  int *slices_missing;
  int slices_missing_count;
  char warning[NQ__JOURNAL_MESSAGE_SIZE]; /* the first journal's torn last line, or "" */
} nq__merge_result_t;

void nq__merge_result_init(nq__merge_result_t *result);
void nq__merge_result_clear(nq__merge_result_t *result);

/* Reads and combines the journals.  NQ_EJOURNAL (with `message`: one line)
 * when one cannot be read or does not belong to the same count as the
 * first; NQ_ENOMEM.  Missing units and conflicts are results, not
 * failures: the caller decides. */
int nq__merge_journals(nq__merge_result_t *result, char message[static NQ__JOURNAL_MESSAGE_SIZE],
                       char *const *paths, int count);

/* Whether the result is a total: every unit present and no conflict. */
int nq__merge_is_total(const nq__merge_result_t *result);

#endif
