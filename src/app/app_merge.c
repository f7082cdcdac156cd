/* --merge: rank 0 alone reads the journals.  Status 0 only for a total;
 * 1 when units are missing or the journals disagree; 2 for a file that is
 * not a journal of the same count. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */

#include "app_modes.h"

#include <inttypes.h>
#include <stdlib.h>

#include "nqueens/error.h"
#include "output_merge.h"
#include "output_record.h"
#include "record_total.h"

typedef struct merge_record {
  const nq__cli_t *cli;
  const nq__merge_result_t *result;
  const nq__provenance_t *provenance;
  char (*sha256s)[NQ_SHA256_HEX];
} merge_record_t;

static int write_merge_record(nq__output_t *output, const void *context) {
  const merge_record_t *m = context;
  return nq__output_merge_record(output, m->cli, m->result, m->provenance, m->sha256s);
}

/* The merge's record, with every journal's hash: written whether or not
 * the merge is a total (it says which), unless it has none and the file
 * holds one (keeps_earlier_total). */
static int record_merge(const char *target, const nq__cli_t *cli,
                        const nq__merge_result_t *result, nq__provenance_t *provenance,
                        FILE *err) {
  char message[NQ__MESSAGE_SIZE];
  char(*sha256s)[NQ_SHA256_HEX] = calloc((size_t)cli->merge_count, sizeof *sha256s);
  int status = sha256s != NULL ? NQ_EXIT_OK : nq__app_runtime_failure(err, "--json", NQ_ENOMEM, 0);
  for (int i = 0; status == NQ_EXIT_OK && i < cli->merge_count; i++)
    if (nq__provenance_sha256(sha256s[i], cli->merge_files[i], message) != NQ_OK) {
      fprintf(err, "nqueens-mpi: --json: %s\n", message);
      status = NQ_EXIT_FAILURE;
    }
  if (status == NQ_EXIT_OK && nq__provenance_gather(provenance, MPI_COMM_SELF) != NQ_OK)
    status = nq__app_runtime_failure(err, "--json", NQ_EMPI, 0);
  merge_record_t record = {cli, result, provenance, sha256s};
  if (status == NQ_EXIT_OK)
    status = nq__app_write_record(target, write_merge_record, &record, err);
  free(sha256s);
  return status;
}

/* A merge with no total leaves a record that holds one where it is: the
 * report would replace the only record of a finished count, which the
 * journals can give again only if every one of them is still there. */
static int keeps_earlier_total(const char *target, const nq__cli_t *cli,
                               const nq__merge_result_t *result, FILE *err) {
  int n = 0;
  char solutions[NQ__RECORD_TOTAL_SIZE];
  if (nq__merge_is_total(result) || !nq__record_total_read(target, &n, solutions))
    return 0;
  fprintf(err, "nqueens-mpi: --json %s: kept as it was, since it holds Q(%d) = %s and this merge "
               "has no total (--format json prints its report)\n",
          cli->json_file, n, solutions);
  return 1;
}

/* Why a merge gave no total, in one line: the conflicts, or what is
 * missing, by slice where the journals are slices. */
static int say_no_total(FILE *err, const nq__merge_result_t *result) {
  if (result->conflict_count > 0) {
    fprintf(err, "nqueens-mpi: --merge: no total: the journals disagree or cannot be compared "
                 "(see the conflicts)\n");
    return NQ_EXIT_FAILURE;
  }
  if (result->slices_missing_count == 0) {
    fprintf(err, "nqueens-mpi: --merge: no total: %" PRIu64 " unit%s missing (see the "
                 "ranges)\n", result->units_missing, result->units_missing == 1 ? " is" : "s are");
    return NQ_EXIT_FAILURE;
  }
  fprintf(err, "nqueens-mpi: --merge: no total: %" PRIu64 " unit%s missing; run again ",
          result->units_missing, result->units_missing == 1 ? " is" : "s are");
  char runs[NQ__MERGE_SLICE_RUNS_SIZE];
  const int cut = nq__merge_slice_runs(runs, result);
  if (result->slices_missing_count == 1)
    fprintf(err, "slice %s of %d\n", runs, result->slice_count);
  else
    fprintf(err, "%d of the %d slices: %s%s\n", result->slices_missing_count,
            result->slice_count, runs, cut ? " (--format json lists them all)" : "");
  return NQ_EXIT_FAILURE;
}

int nq__app_run_merge(const nq__cli_t *cli, FILE *out, FILE *err) {
  static const char what[] = "writing the merge failed";
  char message[NQ__MESSAGE_SIZE], json_target[PATH_MAX] = "";
  for (int i = 0; i < cli->merge_count; i++)
    if (nq__app_journal_apart_from_output("--merge", cli->merge_files[i], err) != NQ_EXIT_OK)
      return NQ_EXIT_USAGE;
  int destination = nq__app_json_destination_ok(json_target, cli, (const char *const *)cli->merge_files,
                                        cli->merge_count, MPI_COMM_SELF, 0, err);
  if (destination != NQ_EXIT_OK)
    return destination;
  nq__provenance_t provenance;
  nq__provenance_start(&provenance);
  nq__merge_result_t result;
  nq__merge_result_init(&result);
  int rc = nq__merge_journals(&result, message, cli->merge_files, cli->merge_count);
  int status = NQ_EXIT_OK;
  if (rc == NQ_OK && result.warning[0] != '\0')
    fprintf(err, "nqueens-mpi: --merge: warning: %s\n", result.warning);
  if (rc != NQ_OK) {
    fprintf(err, "nqueens-mpi: --merge: %s\n", message);
    status = rc == NQ_EJOURNAL ? NQ_EXIT_USAGE : NQ_EXIT_FAILURE;
  } else {
    nq__output_t output;
    if (nq__app_open_output(&output, out, err, what) != NQ_EXIT_OK) {
      status = NQ_EXIT_FAILURE;
    } else {
      rc = nq__output_merge(&output, cli->format, cli->merge_files, &result);
      status = nq__app_close_output(&output, rc, err, what);
    }
    /* The record is written even where the output failed: it keeps the
     * total, and every journal's hash. */
    if (cli->json_file != NULL && !keeps_earlier_total(json_target, cli, &result, err)) {
      int recorded = record_merge(json_target, cli, &result, &provenance, err);
      status = status != NQ_EXIT_OK ? status : recorded;
    }
    if (status == NQ_EXIT_OK && !nq__merge_is_total(&result))
      status = say_no_total(err, &result);
  }
  nq__merge_result_clear(&result);
  nq__provenance_clear(&provenance);
  return status;
}
