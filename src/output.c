#include "output.h"

#include <stdlib.h>

#include "nqueens/error.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

static int stream_status(FILE *out) { return ferror(out) ? NQ_EIO : NQ_OK; }

static void print_mpz(FILE *out, const mpz_t value) { mpz_out_str(out, 10, value); }

static double per_second(const mpz_t count, double seconds) {
  return seconds > 0 ? mpz_get_d(count) / seconds : 0.0;
}

static void count_as_text(FILE *out, int n, int unique, const nq_count_result_t *r) {
  fprintf(out, "Q(%d) = ", n);
  print_mpz(out, r->solutions);
  fprintf(out, " solution%s on the %dx%d board\n", mpz_cmp_ui(r->solutions, 1) == 0 ? "" : "s", n,
          n);
  if (unique) {
    fprintf(out, "U(%d) = ", n);
    print_mpz(out, r->unique);
    fputs(" up to rotation and reflection\n", out);
  }
  fprintf(out, "%.3f s on %d rank%s, %llu work unit%s, %.3g nodes/s, %s walk\n", r->seconds,
          r->ranks, r->ranks == 1 ? "" : "s", (unsigned long long)r->units,
          r->units == 1 ? "" : "s", per_second(r->nodes, r->seconds), nq_walk_name(r->walk));
}

/* Big counts are JSON strings: parsers round numbers beyond 2^53. */
static void count_as_json(FILE *out, int n, int unique, const nq_count_result_t *r) {
  fprintf(out, "{\"n\":%d,\"solutions\":\"", n);
  print_mpz(out, r->solutions);
  fputc('"', out);
  if (unique) {
    fputs(",\"unique\":\"", out);
    print_mpz(out, r->unique);
    fputc('"', out);
  }
  fprintf(out, ",\"seconds\":%.6f,\"ranks\":%d,\"units\":%llu,\"depth\":%d,\"nodes\":\"",
          r->seconds, r->ranks, (unsigned long long)r->units, r->depth);
  print_mpz(out, r->nodes);
  fprintf(out, "\",\"nodes_per_second\":%.0f,\"walk\":\"%s\",\"version\":\"%s\"}\n",
          per_second(r->nodes, r->seconds), nq_walk_name(r->walk), NQ_VERSION);
}

int nq__output_count(FILE *out, nq_format_t format, int n, int unique,
                    const nq_count_result_t *result) {
  if (format == NQ_FORMAT_JSON)
    count_as_json(out, n, unique, result);
  else
    count_as_text(out, n, unique, result);
  return stream_status(out);
}

/* One row of a board: a Q in the queen's column, dots elsewhere. */
static void print_row(FILE *out, int n, int queen_col) {
  for (int col = 0; col < n; col++)
    fputc(col == queen_col ? 'Q' : '.', out);
}

static void board_as_json(FILE *out, const uint8_t *columns, int n) {
  fputc('[', out);
  for (int row = 0; row < n; row++) {
    fputs(row ? ",\"" : "\"", out);
    print_row(out, n, columns[row]);
    fputc('"', out);
  }
  fputc(']', out);
}

int nq__output_boards_begin(nq_board_writer_t *writer, FILE *out, nq_format_t format, int n) {
  writer->out = out;
  writer->format = format;
  writer->n = n;
  writer->boards = 0;
  if (format == NQ_FORMAT_JSON)
    fputc('[', out);
  return stream_status(out);
}

int nq__output_board(nq_board_writer_t *writer, const uint8_t *columns, int n) {
  FILE *out = writer->out;
  if (writer->format == NQ_FORMAT_JSON) {
    if (writer->boards)
      fputc(',', out);
    board_as_json(out, columns, n);
  } else {
    if (writer->boards)
      fputc('\n', out); /* a blank line between boards */
    if (n == 0)
      fputs("(the empty board)\n", out);
    for (int row = 0; row < n; row++) {
      print_row(out, n, columns[row]);
      fputc('\n', out);
    }
  }
  writer->boards++;
  return stream_status(out);
}

int nq__output_boards_end(nq_board_writer_t *writer) {
  if (writer->format == NQ_FORMAT_JSON)
    fputs("]\n", writer->out);
  else if (writer->boards == 0)
    fprintf(writer->out, "No solution exists for n = %d.\n", writer->n);
  return stream_status(writer->out);
}

static const char *kind_name(nq_first_kind_t kind) {
  switch (kind) {
  case NQ_FIRST_LEXICOGRAPHIC: return "lexicographically-first";
  case NQ_FIRST_CONSTRUCTED: return "constructed";
  default: return "none";
  }
}

static void first_as_json(FILE *out, int n, const uint8_t *columns, nq_first_kind_t kind,
                          double seconds) {
  fprintf(out, "{\"n\":%d,\"board\":", n);
  if (kind == NQ_FIRST_NONE) {
    fputs("null,\"columns\":null", out);
  } else {
    board_as_json(out, columns, n);
    fputs(",\"columns\":[", out);
    for (int row = 0; row < n; row++)
      fprintf(out, row ? ",%d" : "%d", columns[row]);
    fputc(']', out);
  }
  fprintf(out, ",\"kind\":\"%s\",\"seconds\":%.6f,\"version\":\"%s\"}\n", kind_name(kind),
          seconds, NQ_VERSION);
}

static void first_as_text(FILE *out, int n, const uint8_t *columns, nq_first_kind_t kind) {
  if (kind == NQ_FIRST_NONE) {
    fprintf(out, "No solution exists for n = %d.\n", n);
    return;
  }
  fprintf(out, "%s solution for n = %d:\n",
          kind == NQ_FIRST_LEXICOGRAPHIC ? "Lexicographically first"
                                         : "Constructed (not the lexicographically first)",
          n);
  for (int row = 0; row < n; row++) {
    print_row(out, n, columns[row]);
    fputc('\n', out);
  }
  fputs("columns:", out);
  for (int row = 0; row < n; row++)
    fprintf(out, " %d", columns[row]);
  fputc('\n', out);
}

int nq__output_first(FILE *out, nq_format_t format, int n, const uint8_t *columns,
                    nq_first_kind_t kind, double seconds) {
  if (format == NQ_FORMAT_JSON)
    first_as_json(out, n, columns, kind, seconds);
  else
    first_as_text(out, n, columns, kind);
  return stream_status(out);
}
