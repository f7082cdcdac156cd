#ifndef NQ_SRC_MERGE_H
#define NQ_SRC_MERGE_H

/* --merge: the journals of one count (its slices, reruns of them, other
 * sites' copies) combined into one result.  Every unit must be recorded
 * by some journal for a total.  Units recorded more than once are
 * compared over the coarsest ranges on which the records involved share
 * their ends (at worst a whole group of overlapping records): every
 * record says "the units first..end-1 sum to S", and any two ways of
 * summing the same range through the records must agree.  A difference
 * is a conflict that withholds the total; a group of overlapping records
 * whose ends no chain of records joins cannot be summed at all and is a
 * conflict too.  Checks (--verify) are compared with the records the
 * same way. */

#include <stddef.h>
#include <stdint.h>

#include <gmp.h>

#include "journal.h"
#include "nqueens/options.h"

typedef enum nq__merge_conflict_kind {
  NQ__MERGE_DIFFER,     /* two ways of summing units first..end-1 disagree: `journal`'s
                           record against the records of `others` (and its own) */
  NQ__MERGE_UNRESOLVED, /* records overlap in first..end-1 but no chain of them spans it:
                           the sum cannot be told */
  NQ__MERGE_CHECK,      /* `journal` holds a check of first..end-1 whose verdict was "differ" */
  NQ__MERGE_SUMS        /* the merged sums fail their own checks (residues, 8 x U) */
} nq__merge_conflict_kind_t;

typedef struct nq__merge_conflict {
  nq__merge_conflict_kind_t kind;
  uint64_t first, end; /* the units */
  int journal;         /* index into the paths, or -1 (NQ__MERGE_SUMS) */
  int *others;         /* NQ__MERGE_DIFFER: the other journals whose records sum the range */
  int other_count;
} nq__merge_conflict_t;

typedef struct nq__merge_result {
  nq__journal_header_t header; /* the first journal's (all share n, unique, depth,
                                  scheme and units) */
  int journals;
  uint64_t units_present, units_missing;
  nq__journal_range_t *missing; /* sorted, disjoint */
  size_t missing_count;
  uint64_t units_confirmed;  /* recorded twice or more, each record compared (on a cycle of
                                records whose sums agree), no conflict there */
  uint64_t units_uncompared; /* recorded twice or more, but some record there spanned by no
                                other chain of records: summed once only */
  uint64_t units_unresolved; /* in groups no chain of records spans: no total */
  uint64_t checks, checks_confirmed;
  uint64_t lines_copied; /* records and checks a journal before held too: one run's work
                            copied, kept once */
  nq__merge_conflict_t *conflicts; /* the first NQ__MERGE_CONFLICTS_KEPT, in the order found */
  size_t conflict_count;           /* all of them */
  mpz_t solutions, unique_times_8, nodes; /* over the units present, each once */
  mpz_t unique;                           /* U(n), when complete and counted --unique */
  uint32_t solutions_mod[NQ_COUNT_RESIDUES]; /* summed group by group, as a count's */
  /* When every journal is a slice of the same K (else 0): the slices to
   * run again, 0-based, sorted: those no journal holds and those whose
   * units are missing. */
  int slice_count;
  int *slices_missing;
  int slices_missing_count;
  char warning[NQ__MESSAGE_SIZE]; /* the first journal's torn last line, or "" */
} nq__merge_result_t;

/* Conflicts kept with their ranges; more are counted only. */
#define NQ__MERGE_CONFLICTS_KEPT 1000

void nq__merge_result_init(nq__merge_result_t *result);
void nq__merge_result_clear(nq__merge_result_t *result);

/* Reads and combines the journals.  NQ_EJOURNAL (with `message`: one line)
 * when one cannot be read, is not a regular file, is named twice (by any
 * path: files are told apart by device and inode), or does not belong to
 * the same count as the first; NQ_ENOMEM.  Missing units and conflicts
 * are results, not failures: the caller decides. */
int nq__merge_journals(nq__merge_result_t *result, char message[static NQ__MESSAGE_SIZE],
                       char *const *paths, int count);

/* Whether the result is a total: every unit present and no conflict. */
int nq__merge_is_total(const nq__merge_result_t *result);

#endif
