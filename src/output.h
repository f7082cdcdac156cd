#ifndef NQ_SRC_OUTPUT_H
#define NQ_SRC_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "nqueens/count.h"
#include "nqueens/solutions.h"

/* All writers return NQ_OK or NQ_EIO when the stream reports an error. */

int nq__output_count(FILE *out, nq_format_t format, int n, int unique,
                    const nq_count_result_t *result);

/* Streams boards: begin, one call per board, end. */
typedef struct nq_board_writer {
  FILE *out;
  nq_format_t format;
  int n;
  uint64_t boards;
} nq_board_writer_t;

/* Text boards are separated by blank lines; the empty board (n = 0) is
 * written as "(the empty board)", and a board size without solutions as
 * one line saying so.  JSON is one array of boards on one line. */
int nq__output_boards_begin(nq_board_writer_t *writer, FILE *out, nq_format_t format, int n);
int nq__output_board(nq_board_writer_t *writer, const uint8_t *columns, int n);
int nq__output_boards_end(nq_board_writer_t *writer);

int nq__output_first(FILE *out, nq_format_t format, int n, const uint8_t *columns,
                    nq_first_kind_t kind, double seconds);

#endif
