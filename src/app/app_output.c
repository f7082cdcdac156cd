#define _POSIX_C_SOURCE 200809L /* PATH_MAX, in app_modes.h */

/* The output stream of every mode, opened and closed with one failure
 * line each: apart from app_support.c, which --json's record ties to MPI
 * and nettle, so that --status (and the journal's fuzz target, which
 * builds it) take it alone. */
#include "app_modes.h"

#include <string.h>
#include <unistd.h>

#include "nqueens/error.h"
#include "standard_stream.h"

/* One line; a failed write adds the system's reason (write_errno, 0 when
 * there is none). */
int nq__app_runtime_failure(FILE *err, const char *what, int code, int write_errno) {
  if (write_errno != 0)
    fprintf(err, "nqueens-mpi: %s: %s: %s\n", what, nq_strerror(code), strerror(write_errno));
  else
    fprintf(err, "nqueens-mpi: %s: %s\n", what, nq_strerror(code));
  return code == NQ_EMPI ? NQ_EXIT_ABORT : NQ_EXIT_FAILURE;
}

const char *nq__app_after_path(const char *message, const char *path) {
  size_t length = strlen(path);
  if (strncmp(message, path, length) == 0 && strncmp(message + length, ": ", 2) == 0)
    return message + length + 2;
  return message;
}

int nq__app_journal_apart_from_output(const char *option, const char *path, FILE *err) {
  int stream = nq__standard_stream_at(path);
  if (stream == 0)
    return NQ_EXIT_OK;
  /* Where it is standard error, the line saying so would be the damage:
   * the status alone tells. */
  if (stream != STDERR_FILENO)
    fprintf(err, "nqueens-mpi: %s %s: is this run's %s, whose lines would damage the journal\n",
            option, path, nq__standard_stream_name(stream));
  return NQ_EXIT_USAGE;
}

/* Counts, boards and --first go through the output module's buffer,
 * opened here on `out` ... */
int nq__app_open_output(nq__output_t *output, FILE *out, FILE *err, const char *what) {
  int rc = nq__output_open(output, out, NQ_OUTPUT_CAPACITY);
  return rc == NQ_OK ? NQ_EXIT_OK : nq__app_runtime_failure(err, what, rc, 0);
}

/* ... and after the writers (whose result is `rc`), flush what is left,
 * free the buffer and report a failure with the system's reason. */
int nq__app_close_output(nq__output_t *output, int rc, FILE *err, const char *what) {
  if (rc == NQ_OK)
    rc = nq__output_flush(output);
  int write_errno = rc == NQ_EIO ? output->write_errno : 0;
  nq__output_close(output);
  return rc == NQ_OK ? NQ_EXIT_OK : nq__app_runtime_failure(err, what, rc, write_errno);
}
