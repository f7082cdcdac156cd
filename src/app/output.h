#ifndef NQ_SRC_OUTPUT_H
#define NQ_SRC_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "merge.h"
#include "provenance.h"
#include "nqueens/count.h"
#include "nqueens/estimate.h"
#include "nqueens/solutions.h"
#include "nqueens/units.h"

/* An output stream behind a buffer of the module's own.  Writers append
 * whole pieces (a board, a line) to the buffer, which reaches the stream
 * in fwrite calls of up to `capacity` bytes: a listed board costs one
 * memcpy instead of a stdio call per square.  The first failed write ends
 * the output: later pieces are dropped, and its errno is kept so that the
 * message can name the system's reason. */
typedef struct nq__output {
  FILE *stream;
  char *buffer;
  size_t used, capacity;
  int status;      /* NQ_OK, or the first error (NQ_EIO: a write failed) */
  int write_errno; /* errno of the failed fwrite or fflush; 0 if none */
} nq__output_t;

/* Q(15)'s listing, 547 MB, then takes some 520 fwrite calls. */
#define NQ_OUTPUT_CAPACITY ((size_t)1 << 20)
/* Every piece must fit in the buffer: the largest, a JSON board of 64
 * rows, is 4,290 bytes. */
#define NQ_OUTPUT_MIN_CAPACITY ((size_t)8192)

/* NQ_OK; NQ_EINVAL for a capacity below NQ_OUTPUT_MIN_CAPACITY, or
 * NQ_ENOMEM (then there is nothing to close). */
int nq__output_open(nq__output_t *output, FILE *stream, size_t capacity);
/* Writes out everything appended and flushes the stream: NQ_OK, or the
 * output's error. */
int nq__output_flush(nq__output_t *output);
/* Frees the buffer; whatever was not flushed is lost. */
void nq__output_close(nq__output_t *output);

/* The writers append to `output` and return its status: NQ_OK, or the
 * first error.  Nothing reaches the stream before nq__output_flush, or
 * before the buffer fills. */

int nq__output_count(nq__output_t *output, nq__format_t format, int n, int unique,
                    const nq_count_result_t *result);

/* An estimate (--estimate): each value with its 95% interval, the time on
 * one core, on the run's threads and, when `cores` > 0, on that many. */
/* --merge's result: what the journals cover, what they confirm or dispute,
 * and the total only when it is one. */
int nq__output_merge(nq__output_t *output, nq__format_t format, char *const *paths,
                     const nq__merge_result_t *result);

/* --json FILE: the provenance record of a count (`journal_sha256` "" when
 * it ran without a journal), or of a merge (`sha256s`: each journal's). */
int nq__output_count_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq_count_result_t *result, const nq__provenance_t *p,
                            const char *journal_sha256);
int nq__output_merge_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq__merge_result_t *result, const nq__provenance_t *p,
                            char (*sha256s)[NQ_SHA256_HEX]);


int nq__output_estimate(nq__output_t *output, nq__format_t format, int n, uint64_t cores,
                        uint64_t seed, const nq_estimate_result_t *result);

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
