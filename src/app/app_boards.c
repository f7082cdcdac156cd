/* The boards: --list (every solution) and --first (one), rank 0 alone. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */

#include "app_modes.h"

#include <mpi.h>

#include "nqueens/error.h"
#include "output_boards.h"

static int write_board(const uint8_t *columns, int n, void *writer) {
  return nq__output_board(writer, columns, n);
}

/* Rank 0 alone: the boards leave in lexicographic order through one
 * stream, with nothing to gather from other ranks.  Standard output
 * carries boards only, so that a size has none is said on stderr and
 * `--list | wc -l` counts 0. */
int nq__app_run_list(const nq__cli_t *cli, FILE *out, FILE *err) {
  static const char what[] = "listing failed";
  nq__output_t output;
  nq__board_writer_t writer;
  if (nq__app_open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  int rc = nq__output_boards_begin(&writer, &output, cli->format, cli->n);
  if (rc == NQ_OK)
    rc = cli->unique ? nq_solutions_each_least(cli->n, cli->limit, write_board, &writer)
                     : nq_solutions_each(cli->n, cli->limit, write_board, &writer);
  if (rc == NQ_OK)
    rc = nq__output_boards_end(&writer);
  int status = nq__app_close_output(&output, rc, err, what);
  if (status == NQ_EXIT_OK && writer.boards == 0 && cli->format == NQ_FORMAT_TEXT)
    fprintf(err, "nqueens-mpi: no solution exists for n = %d\n", cli->n);
  return status;
}

int nq__app_run_first(const nq__cli_t *cli, FILE *out, FILE *err) {
  static const char what[] = "--first failed";
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind;
  nq__output_t output;
  double started = MPI_Wtime();
  int rc = nq_solutions_first(columns, &kind, cli->n);
  if (rc != NQ_OK)
    return nq__app_runtime_failure(err, what, rc, 0);
  double seconds = MPI_Wtime() - started;
  if (nq__app_open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  rc = nq__output_first(&output, cli->format, cli->n, columns, kind, seconds);
  return nq__app_close_output(&output, rc, err, what);
}
