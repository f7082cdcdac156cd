#ifndef NQ_SRC_STATUS_H
#define NQ_SRC_STATUS_H

/* --status FILE: where a run stands, read from its checkpoint journal alone
 * (also while the run writes it, from any machine that sees the file). */

#include <stdio.h>

#include "cli.h"

/* Prints the journal's state on `out`, a warning or refusal on `err`.
 * Returns the exit status: NQ_EXIT_USAGE for a file that is not a usable
 * journal, NQ_EXIT_FAILURE when writing fails. */
int nq__status_print(FILE *out, FILE *err, const char *path, nq__format_t format);

#endif
