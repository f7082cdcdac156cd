#ifndef NQ_SRC_OUTPUT_H
#define NQ_SRC_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* The pieces the formatters append (each mode's own file:
 * output_count.h, output_merge.h, output_record.h, output_estimate.h,
 * output_boards.h).  The formatters return the output's status: NQ_OK, or
 * the first error.  Nothing reaches the stream before nq__output_flush,
 * or before the buffer fills. */
void nq__output_append(nq__output_t *output, const char *bytes, size_t size);
void nq__output_text(nq__output_t *output, const char *text);
void nq__output_char(nq__output_t *output, char c);
/* printf's conversions plus GMP's %Zd for the big counts (so no printf
 * format attribute: the compiler would refuse %Zd). */
/* A size of memory for people: MiB below 1 GiB, GiB from there. */
void nq__output_bytes(nq__output_t *output, size_t bytes);

void nq__output_format(nq__output_t *output, const char *format, ...);
/* A JSON string: quotes, backslashes and control characters escaped, a
 * byte that starts no UTF-8 character written as U+FFFD. */
void nq__output_json_string(nq__output_t *output, const char *text);
/* ,"slice":"I/K" for slice index (0-based) of count, as --slice spells it;
 * nothing for a whole count (count 0 or 1).  Counts, records and --status
 * write it alike. */
void nq__output_json_slice(nq__output_t *output, int index, int count);
/* Room for `size` bytes at the end of the buffer (the caller adds what it
 * wrote to output->used), or NULL once the output has failed. */
char *nq__output_room(nq__output_t *output, size_t size);

#endif
