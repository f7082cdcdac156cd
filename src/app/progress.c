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

/* The end of a run: on a terminal, the result follows on stdout, so no
 * half line is left behind.  Returns 1 when it was the end. */
static int finish_line(const nq__progress_printer_t *printer, int final) {
  if (final) {
    if (printer->terminal)
      fputs("\r\033[K", printer->err);
    fflush(printer->err);
    return 1;
  }
  fputs(printer->terminal ? "\r\033[K" : "", printer->err);
  return 0;
}

/* "..., 12 s elapsed, ETA 3.5 min" and the line's end, at `rate` (work a
 * second, 0 unknown) for the `left` still to do. */
static void print_times(const nq__progress_printer_t *printer, double rate, uint64_t left,
                        double seconds) {
  FILE *err = printer->err;
  print_duration(err, seconds);
  fputs(" elapsed, ETA ", err);
  if (rate > 0)
    print_duration(err, (double)left / rate);
  else
    fputs("unknown", err);
  fputs(printer->terminal ? "" : "\n", err);
  fflush(err);
}

static double percent(uint64_t done, uint64_t total) {
  return total ? 100.0 * (double)done / (double)total : 0;
}

static void print_progress(const nq_count_progress_t *p, void *context) {
  const nq__progress_printer_t *printer = context;
  if (finish_line(printer, p->final))
    return;
  /* The pace of this run's own units: those resumed took no time now. */
  uint64_t solved = p->units_done - p->units_resumed;
  double rate = p->seconds > 0 ? (double)solved / p->seconds : 0;
  gmp_fprintf(printer->err,
              "nqueens-mpi: %llu/%llu units (%.1f%%), %Zd solutions so far, %.3g units/s, ",
              (unsigned long long)p->units_done, (unsigned long long)p->units_total,
              percent(p->units_done, p->units_total), *p->solutions, rate);
  print_times(printer, rate, p->units_total - p->units_done, p->seconds);
}

/* The printer's stream, and how often it prints: every second on a
 * terminal, which it refreshes in place. */
static double start_printer(nq__progress_printer_t *printer, FILE *err, double interval) {
  printer->err = err;
  printer->terminal = isatty(fileno(err));
  return printer->terminal ? 1.0 : interval;
}

void nq__progress_attach(nq_count_options_t *options, nq__progress_printer_t *printer, FILE *err,
                         double interval) {
  if (interval <= 0)
    return;
  options->progress_seconds = start_printer(printer, err, interval);
  options->progress = print_progress;
  options->progress_context = printer;
}
