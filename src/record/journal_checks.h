#ifndef NQ_SRC_JOURNAL_CHECKS_H
#define NQ_SRC_JOURNAL_CHECKS_H

/* A journal's "agree" check lines held against its records of the same
 * batches.  A check line keeps the sums --verify found solving a batch
 * again; its verdict was right when written.  A record changed since,
 * under a valid CRC (a forgery, or a CRC that passed damage), keeps the
 * verdict and changes the total: only the sums tell. */

#include <stdint.h>

#include "journal.h"
#include "message.h"

typedef struct nq__journal_checks {
  uint64_t agreeing;     /* "agree" check lines */
  uint64_t confirmed;    /* their batch recorded with the same sums */
  uint64_t contradicted; /* their batch recorded with other sums */
  uint64_t contradicted_first, contradicted_end; /* the first such batch's units */
} nq__journal_checks_t;

/* A line's solutions, unique_times_8 and nodes; NQ_EOVERFLOW past 128
 * bits. */
int nq__journal_line_sums(unsigned __int128 sums[3], const nq__journal_line_t *line);

/* Whether a batch's sums agree with another's: the counts, and the nodes
 * where the method fixes them (its nodes_are_fixed). */
int nq__journal_sums_agree(const unsigned __int128 a[3], const unsigned __int128 b[3],
                           int nodes_compared);

/* Reads the journal at `path` (without locking it: a caller holding the
 * journal open must close it first, or its lock goes with the second
 * descriptor) once for its "agree" checks and, when it has any, once more
 * for the records of their batches.  A check with no record of exactly
 * its batch is neither confirmed nor contradicted.  Nodes are compared
 * where the header's method fixes them (an unknown method's too, as
 * --merge compares them).  NQ_OK, NQ_EJOURNAL (with `message`) or
 * NQ_ENOMEM. */
int nq__journal_checks_confirm(nq__journal_checks_t *out, char message[static NQ__MESSAGE_SIZE],
                               const char *path);

#endif
