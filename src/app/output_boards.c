/* Boards: --list's stream of them, and --first's one. */
#include "output_boards.h"

#include <string.h>

#include "nqueens/error.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

/* One row of a board: a Q in the queen's column, dots elsewhere. */
static void board_row(nq__output_t *output, int n, int queen_col) {
  char *room = nq__output_room(output, (size_t)n);
  if (room == NULL)
    return;
  memset(room, '.', (size_t)n);
  room[queen_col] = 'Q';
  output->used += (size_t)n;
}

/* ---- Listing ---------------------------------------------------------- */

/* A row of the kept board with its queen in column 0, where `shown`
 * says it is until the first board moves it. */
static char *lay_out_row(nq__board_writer_t *writer, int row, char *at) {
  writer->row_squares[row] = (size_t)(at - writer->text);
  writer->shown[row] = 0;
  memset(at, '.', (size_t)writer->n);
  at[0] = 'Q';
  return at + writer->n;
}

static const char empty_board[] = "(the empty board)\n";

/* A blank line before the board, then its rows. */
static size_t lay_out_text_board(nq__board_writer_t *writer) {
  char *at = writer->text;
  *at++ = '\n';
  if (writer->n == 0) {
    memcpy(at, empty_board, sizeof empty_board - 1);
    at += sizeof empty_board - 1;
  }
  for (int row = 0; row < writer->n; row++) {
    at = lay_out_row(writer, row, at);
    *at++ = '\n';
  }
  return (size_t)(at - writer->text);
}

/* A comma before the board, then an array of row strings. */
static size_t lay_out_json_board(nq__board_writer_t *writer) {
  char *at = writer->text;
  *at++ = ',';
  *at++ = '[';
  for (int row = 0; row < writer->n; row++) {
    if (row > 0)
      *at++ = ',';
    *at++ = '"';
    at = lay_out_row(writer, row, at);
    *at++ = '"';
  }
  *at++ = ']';
  return (size_t)(at - writer->text);
}

int nq__output_boards_begin(nq__board_writer_t *writer, nq__output_t *output, nq__format_t format,
                            int n) {
  if (n < 0 || n > NQ_MAX_N)
    return NQ_EINVAL;
  writer->output = output;
  writer->format = format;
  writer->n = n;
  writer->boards = 0;
  if (format == NQ_FORMAT_JSON) {
    writer->text_size = lay_out_json_board(writer);
    nq__output_char(output, '[');
  } else {
    writer->text_size = lay_out_text_board(writer);
  }
  return output->status;
}

static void move_queen(nq__board_writer_t *writer, int row, int col) {
  char *squares = writer->text + writer->row_squares[row];
  squares[writer->shown[row]] = '.';
  squares[col] = 'Q';
  writer->shown[row] = (uint8_t)col;
}

int nq__output_board(nq__board_writer_t *writer, const uint8_t *columns, int n) {
  if (n != writer->n)
    return NQ_EINVAL;
  for (int row = 0; row < n; row++) {
    if (columns[row] == writer->shown[row])
      continue;
    if (columns[row] >= n)
      return NQ_EINVAL;
    move_queen(writer, row, columns[row]);
  }
  size_t separator = writer->boards == 0 ? 1 : 0; /* none before the first board */
  nq__output_append(writer->output, writer->text + separator, writer->text_size - separator);
  writer->boards++;
  return writer->output->status;
}

int nq__output_boards_end(nq__board_writer_t *writer) {
  if (writer->format == NQ_FORMAT_JSON)
    nq__output_text(writer->output, "]\n");
  return writer->output->status;
}

/* ---- One solution ----------------------------------------------------- */

static const char *kind_name(nq_first_kind_t kind) {
  switch (kind) {
  case NQ_FIRST_LEXICOGRAPHIC: return "lexicographically-first";
  case NQ_FIRST_CONSTRUCTED: return "constructed";
  default: return "none";
  }
}

static void board_as_json(nq__output_t *output, const uint8_t *columns, int n) {
  nq__output_char(output, '[');
  for (int row = 0; row < n; row++) {
    nq__output_text(output, row ? ",\"" : "\"");
    board_row(output, n, columns[row]);
    nq__output_char(output, '"');
  }
  nq__output_char(output, ']');
}

static void first_as_json(nq__output_t *output, int n, const uint8_t *columns,
                          nq_first_kind_t kind, double seconds) {
  nq__output_format(output, "{\"n\":%d,\"board\":", n);
  if (kind == NQ_FIRST_NONE) {
    nq__output_text(output, "null,\"columns\":null");
  } else {
    board_as_json(output, columns, n);
    nq__output_text(output, ",\"columns\":[");
    for (int row = 0; row < n; row++)
      nq__output_format(output, row ? ",%d" : "%d", columns[row]);
    nq__output_char(output, ']');
  }
  nq__output_format(output, ",\"kind\":\"%s\",\"seconds\":%.6f,\"version\":\"%s\"}\n",
                kind_name(kind), seconds, NQ_VERSION);
}

static void first_as_text(nq__output_t *output, int n, const uint8_t *columns,
                          nq_first_kind_t kind) {
  if (kind == NQ_FIRST_NONE) {
    nq__output_format(output, "No solution exists for n = %d.\n", n);
    return;
  }
  nq__output_format(output, "%s solution for n = %d:\n",
                kind == NQ_FIRST_LEXICOGRAPHIC ? "Lexicographically first"
                                               : "Constructed (not the lexicographically first)",
                n);
  if (n == 0) { /* as --list prints it: no row, no column */
    nq__output_text(output, empty_board);
    return;
  }
  for (int row = 0; row < n; row++) {
    board_row(output, n, columns[row]);
    nq__output_char(output, '\n');
  }
  nq__output_text(output, "columns:");
  for (int row = 0; row < n; row++)
    nq__output_format(output, " %d", columns[row]);
  nq__output_char(output, '\n');
}

int nq__output_first(nq__output_t *output, nq__format_t format, int n, const uint8_t *columns,
                    nq_first_kind_t kind, double seconds) {
  if (format == NQ_FORMAT_JSON)
    first_as_json(output, n, columns, kind, seconds);
  else
    first_as_text(output, n, columns, kind);
  return output->status;
}
