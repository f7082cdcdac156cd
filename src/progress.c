#define _POSIX_C_SOURCE 200809L /* fileno */

#include "progress.h"

#include <unistd.h>

/* "12 s", "4.2 min", "3.5 h", "2.1 d": what a person reads at a glance. */
static void print_duration(FILE *err, double seconds) {
  if (seconds < 120)
    fprintf(err, "%.0f s", seconds);
  else if (seconds < 7200)
    fprintf(err, "%.1f min", seconds / 60);
  else if (seconds < 172800)
    fprintf(err, "%.1f h", seconds / 3600);
  else
    fprintf(err, "%.1f d", seconds / 86400);
}

static void print_progress(const nq_count_progress_t *p, void *context) {
  const nq__progress_printer_t *printer = context;
  FILE *err = printer->err;
  if (p->final) {
    if (printer->terminal)
      fputs("\r\033[K", err); /* the result follows on stdout: leave no half line */
    fflush(err);
    return;
  }
  double share = p->units_total ? 100.0 * (double)p->units_done / (double)p->units_total : 0;
  double rate = p->seconds > 0 ? (double)p->units_done / p->seconds : 0;
  fputs(printer->terminal ? "\r\033[K" : "", err);
  gmp_fprintf(err, "nqueens-mpi: %llu/%llu units (%.1f%%), %Zd solutions so far, %.3g units/s, ",
              (unsigned long long)p->units_done, (unsigned long long)p->units_total, share,
              *p->solutions, rate);
  print_duration(err, p->seconds);
  fputs(" elapsed, ETA ", err);
  if (rate > 0 && p->units_done > 0)
    print_duration(err, (double)(p->units_total - p->units_done) / rate);
  else
    fputs("unknown", err);
  fputs(printer->terminal ? "" : "\n", err);
  fflush(err);
}

void nq__progress_attach(nq_count_options_t *options, nq__progress_printer_t *printer, FILE *err,
                         double interval) {
  if (interval <= 0)
    return;
  printer->err = err;
  printer->terminal = isatty(fileno(err));
  options->progress = print_progress;
  options->progress_context = printer;
  options->progress_seconds = printer->terminal ? 1.0 : interval;
}
