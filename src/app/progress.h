#ifndef NQ_SRC_PROGRESS_H
#define NQ_SRC_PROGRESS_H

/* Where a count stands, on stderr (rank 0): one line refreshed in place on
 * a terminal, a plain line every interval elsewhere (Slurm logs, pipes). */

#include <stdio.h>

#include "nqueens/options.h"

typedef struct nq__progress_printer {
  FILE *err;
  int terminal; /* err is a terminal: refresh one line in place */
} nq__progress_printer_t;

/* Sets up `options` to report through `printer` every `interval` seconds
 * (a terminal: every second); interval 0 leaves progress off. */
void nq__progress_attach(nq_count_options_t *options, nq__progress_printer_t *printer, FILE *err,
                         double interval);

#endif
