#ifndef NQ_SRC_OUTPUT_BOARDS_H
#define NQ_SRC_OUTPUT_BOARDS_H

#include "cli.h"
#include "nqueens/solutions.h"
#include "nqueens/units.h"
#include "output.h"

/* The text of the board written last, kept between boards: the next one
 * only moves the queens of the rows that changed (6 of 15 on average for
 * n = 15), then goes out whole with one copy.  `text` starts with the
 * separator written before every board but the first. */
typedef struct nq__board_writer {
  nq__output_t *output;
  nq__format_t format;
  int n;
  uint64_t boards;
  size_t text_size;
  uint8_t shown[NQ_MAX_N];          /* the queen's column in each row of `text` */
  size_t row_squares[NQ_MAX_N];     /* where each row's first square is in `text` */
  char text[1 + NQ_MAX_N * (NQ_MAX_N + 3) + 1];
} nq__board_writer_t;

/* Streams boards: begin, one call per board, end.  Text boards are
 * separated by blank lines and the empty board (n = 0) is written as
 * "(the empty board)"; a board size without solutions writes nothing.
 * JSON is one array of boards on one line ("[]" without solutions). */
int nq__output_boards_begin(nq__board_writer_t *writer, nq__output_t *output, nq__format_t format,
                            int n);
int nq__output_board(nq__board_writer_t *writer, const uint8_t *columns, int n);
int nq__output_boards_end(nq__board_writer_t *writer);

int nq__output_first(nq__output_t *output, nq__format_t format, int n, const uint8_t *columns,
                    nq_first_kind_t kind, double seconds);

#endif
