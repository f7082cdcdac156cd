/* The count mode (nqueens-mpi -n N): the run on every rank, its stops
 * and failures in one line each, the result and the --json record. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */

#include "app_modes.h"

#include <inttypes.h>
#include <stdlib.h>

#include "app_faults.h"
#include "count_faults.h"
#include "journal.h"
#include "method.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "output_count.h"
#include "output_record.h"
#include "progress.h"
#include "run.h"

/* A failed unit is reported once, by rank 0, naming the rank that ran it
 * (two ranks, where their counts of the same units differ: which one is
 * wrong cannot be told); an MPI failure by the rank that saw it (the job
 * is then aborted). */
static int count_failure(FILE *err, int rank, int code, const nq_count_result_t *result) {
  if (code == NQ_EMPI)
    return nq__app_runtime_failure(err, "counting failed", code, 0);
  if (rank == 0 && result->disagreeing_rank >= 0)
    fprintf(err,
            "nqueens-mpi: counting failed: ranks %d and %d counted the same units differently, "
            "a bug or a faulty node (never a result)\n",
            result->disagreeing_rank, result->failed_rank);
  else if (rank == 0 && result->failed_rank >= 0)
    fprintf(err, "nqueens-mpi: counting failed on rank %d: %s\n", result->failed_rank,
            nq_strerror(code));
  else if (rank == 0)
    fprintf(err, "nqueens-mpi: counting failed: %s\n", nq_strerror(code));
  return NQ_EXIT_FAILURE;
}

static int write_count(const nq__cli_t *cli, const nq_count_result_t *result, FILE *out,
                       FILE *err) {
  static const char what[] = "writing the count failed";
  nq__output_t output;
  if (nq__app_open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  int rc = nq__output_count(&output, cli->format, cli->n, cli->unique, cli->checkpoint != NULL,
                            result);
  return nq__app_close_output(&output, rc, err, what);
}

/* The faults a count injects: none, but in the test build's binary. */
static nq__faults_t injected_faults;
static int faults_injected;

void nq__app_inject_faults(const nq__faults_t *faults) {
  injected_faults = *faults;
  faults_injected = 1;
}

/* Every rank counts with the stop signals caught (nq__app_main), so that
 * a signal to any of them ends the whole count cleanly (NQ_ESTOPPED
 * everywhere). */
static int count_until_stopped(nq_count_result_t *result, nq_count_options_t *options,
                               MPI_Comm comm) {
  nq__faults_t faults = faults_injected ? injected_faults : NQ_NO_FAULTS;
  return nq__count_run_with_faults(result, options, faults, comm);
}

/* What a stop kept: with a checkpoint, every finished batch is in the
 * journal and the same command resumes; without one, nothing. */
static void report_stop(FILE *err, const nq__cli_t *cli, const nq_count_result_t *result) {
  if (result->verify_pending != NQ_VERIFY_DONE_OR_NONE) {
    fprintf(err,
            "nqueens-mpi: stopped %s: the count is complete in %s, with %" PRIu64
            " batch%s verified so far: rerun the same command to finish the verification\n",
            result->verify_pending == NQ_VERIFY_NOT_RUN ? "before --verify (it needs every rank)"
                                                        : "cleanly during --verify",
            cli->checkpoint, result->verified_batches,
            result->verified_batches == 1 ? "" : "es");
    return;
  }
  if (cli->checkpoint == NULL) {
    fprintf(err, "nqueens-mpi: stopped cleanly; nothing was saved (no --checkpoint): "
                 "rerun to start over\n");
    return;
  }
  /* A stop during the set-up, before the journal is made or loaded, leaves
   * units 0 whatever the journal holds, if it exists: reading a record
   * count's gigabytes again to say how much would hold up a stop that a
   * time limit may follow closely. */
  if (result->units == 0) {
    fprintf(err, "nqueens-mpi: stopped cleanly before any unit was done; %s, if made, keeps "
                 "what it held: rerun the same command\n",
            cli->checkpoint);
    return;
  }
  fprintf(err,
          "nqueens-mpi: stopped cleanly, resumable with the same command: %" PRIu64
          " units done are in %s\n",
          result->units, cli->checkpoint);
}

typedef struct count_record {
  const nq__cli_t *cli;
  const nq_count_result_t *result;
  const nq__provenance_t *provenance;
  char journal_sha256[NQ_SHA256_HEX];
} count_record_t;

static int write_count_record(nq__output_t *output, const void *context) {
  const count_record_t *c = context;
  return nq__output_count_record(output, c->cli, c->result, c->provenance, c->journal_sha256);
}

/* Rank 0, after a complete count: the record, with the journal's hash,
 * into `target` (--json's file resolved). */
static int record_count(const char *target, const nq__cli_t *cli, const nq_count_result_t *result,
                        const nq__provenance_t *provenance, FILE *err) {
  count_record_t record = {cli, result, provenance, ""};
  char message[NQ__MESSAGE_SIZE];
  if (cli->checkpoint != NULL &&
      nq__provenance_sha256(record.journal_sha256, cli->checkpoint, message) != NQ_OK) {
    fprintf(err, "nqueens-mpi: --json: %s\n", message);
    return NQ_EXIT_FAILURE;
  }
  return nq__app_write_record(target, write_count_record, &record, err);
}

/* The provenance's collective part, when rank 0's count succeeded (the
 * only case it writes a record): every rank follows rank 0's verdict. */
static int gather_provenance(nq__provenance_t *provenance, int rc,
                             const nq_count_result_t *result, MPI_Comm comm) {
  /* Without a silent rank, which would never join: rank 0's own alone. */
  int silent = result->silent_ranks > 0, everyone = rc == NQ_OK && !silent ? NQ_OK : NQ_ESTOPPED;
  if ((everyone = nq__agree_with_rank0(everyone, comm)) == NQ_EMPI)
    return NQ_EMPI;
  if (rc == NQ_OK && silent)
    return nq__provenance_gather(provenance, MPI_COMM_SELF);
  return everyone == NQ_OK ? nq__provenance_gather(provenance, comm) : NQ_OK;
}

/* Rank 0: a rank fell silent; the job must end without it. */
static int without_silent_ranks(FILE *err, const nq_count_result_t *result, int status) {
  fprintf(err,
          "nqueens-mpi: warning: rank %d%s did not answer within the end's patience (stopped or "
          "hung): the run ended without %s, everything above is complete without "
          "%s, and the job is ended for %s\n",
          result->first_silent_rank,
          result->silent_ranks > 1 ? " and others" : "",
          result->silent_ranks > 1 ? "them" : "it", result->silent_ranks > 1 ? "them" : "it",
          result->silent_ranks > 1 ? "them" : "it");
  return status | NQ_EXIT_WITHOUT_SILENT_RANKS;
}

/* Whether the journal is of this run's board, --unique and slice: another
 * is refused whatever the method, and a note that it resumes would be
 * wrong. */
static int journal_fits_run(const nq__journal_header_t *header, const nq__cli_t *cli) {
  const int whole = header->slice_count < 2 && cli->slice_count < 2;
  return header->n == cli->n && header->unique == cli->unique &&
         (whole ||
          (header->slice_count == cli->slice_count && header->slice_index == cli->slice_index));
}

/* Rank 0: the method that wrote the journal at cli->checkpoint, where it
 * is not auto's and the options allow it (with a note on `err`), else
 * auto's.  A journal it cannot read leaves auto's: the count then refuses
 * it and says why. */
static nq__method_choice_t journals_method(const nq__cli_t *cli, FILE *err) {
  const nq__method_choice_t choice = nq__cli_method(cli);
  nq__journal_header_t header;
  char message[NQ__MESSAGE_SIZE];
  if (nq__journal_read_header(&header, message, cli->checkpoint) != NQ_OK ||
      !journal_fits_run(&header, cli))
    return choice;
  const nq__method_t *written = nq__method_named(header.method);
  const nq__method_t *chosen = nq__method_of(nq__app_count_method(cli));
  if (written == NULL || written == chosen ||
      (written->id == NQ_COUNT_JOIN && !nq__cli_join_possible(cli)))
    return choice;
  fprintf(err,
          "nqueens-mpi: note: --checkpoint %s was written by --method %s: resuming with it "
          "(auto would take --method %s)\n",
          cli->checkpoint, written->name, chosen->name);
  return written->id == NQ_COUNT_JOIN ? NQ_METHOD_JOIN : NQ_METHOD_BACKTRACK;
}

/* --method auto resuming a journal takes the method that wrote it: a
 * journal resumes only with its own method, auto's choice can change
 * between releases (the join took over --unique), and rerunning the same
 * command must still resume a count of weeks.  Rank 0 reads the header
 * (the journal is rank 0's) and tells every rank.  `resolved` is `cli`
 * with the method made explicit where it changed. */
static int resume_with_journals_method(nq__cli_t *resolved, MPI_Comm comm, int rank, FILE *err) {
  if (resolved->method != NQ_METHOD_AUTO || resolved->checkpoint == NULL)
    return NQ_EXIT_OK;
  int choice = rank == 0 ? (int)journals_method(resolved, err) : NQ_METHOD_AUTO;
  if (MPI_Bcast(&choice, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
    return nq__app_runtime_failure(err, "sharing the journal's method", NQ_EMPI, 0);
  resolved->method = (nq__method_choice_t)choice;
  return NQ_EXIT_OK;
}

/* Every rank learns rank 0's verdict: the journal is not where the run
 * prints (app_output.c). */
static int journal_apart_from_output(const nq__cli_t *cli, MPI_Comm comm, int rank, FILE *err) {
  if (cli->checkpoint == NULL)
    return NQ_EXIT_OK;
  int apart = rank == 0 ? nq__app_journal_apart_from_output("--checkpoint", cli->checkpoint, err)
                        : NQ_EXIT_OK;
  int rc = nq__agree_with_rank0(apart == NQ_EXIT_OK ? NQ_OK : NQ_EINVAL, comm);
  if (rc == NQ_EMPI)
    return nq__app_runtime_failure(err, "checking --checkpoint", NQ_EMPI, 0);
  return rc == NQ_OK ? NQ_EXIT_OK : NQ_EXIT_USAGE;
}

/* What a count that did not succeed says on stderr (rank 0 alone, but for
 * an MPI failure), and its exit status. */
static int unfinished_count(int rc, const nq__cli_t *cli, const nq_count_result_t *result,
                            int rank, FILE *err) {
  if (rc == NQ_ESTOPPED) {
    if (rank == 0)
      report_stop(err, cli, result);
    return NQ_EXIT_STOPPED;
  }
  if (rc == NQ_ENOTSUP)
    return nq__app_walk_refused(err, rank, cli);
  if (rc == NQ_EJOURNAL || rc == NQ_EBUSY) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: --checkpoint %s: %s\n", cli->checkpoint,
              nq__app_after_path(result->message, cli->checkpoint));
    return rc == NQ_EBUSY ? NQ_EXIT_BUSY : NQ_EXIT_USAGE;
  }
  if (rc == NQ_ENOGPU) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: --gpu: no rank found a usable CUDA GPU (rank 0 drives one "
                   "only when alone; see --version)\n");
    return NQ_EXIT_USAGE;
  }
  if (rc == NQ_ECHECK && result->verify_differing > 0) {
    if (rank == 0)
      fprintf(err,
              "nqueens-mpi: --checkpoint %s: %" PRIu64 " batch%s solved again differed from the "
              "journal, the first units %" PRIu64 "..%" PRIu64 "; the total is not trusted\n",
              cli->checkpoint, result->verify_differing, result->verify_differing == 1 ? "" : "es",
              result->verify_first, result->verify_end - 1);
    return NQ_EXIT_FAILURE;
  }
  if (rc == NQ_EIO && result->message[0] != '\0') {
    fprintf(err, "nqueens-mpi: %s\n", result->message); /* rank 0's journal */
    return NQ_EXIT_FAILURE;
  }
  return count_failure(err, rank, rc, result);
}

/* Rank 0's output of a finished count.  The record is written even where
 * the output failed (a full disk under stdout): without a journal it is
 * all that keeps the count. */
static int finished_count(const char *json_target, const nq__cli_t *cli,
                          const nq_count_result_t *result, const nq__provenance_t *provenance,
                          FILE *out, FILE *err) {
  int status = write_count(cli, result, out, err);
  if (cli->json_file != NULL) {
    int recorded = record_count(json_target, cli, result, provenance, err);
    status = status != NQ_EXIT_OK ? status : recorded;
  }
  return status;
}

int nq__app_run_count(const nq__cli_t *given, volatile sig_atomic_t *stop, MPI_Comm comm, int rank,
                      FILE *out, FILE *err) {
  nq__cli_t resolved = *given;
  const nq__cli_t *cli = &resolved;
  int apart = journal_apart_from_output(cli, comm, rank, err);
  if (apart != NQ_EXIT_OK)
    return apart;
  int resumed = resume_with_journals_method(&resolved, comm, rank, err);
  if (resumed != NQ_EXIT_OK)
    return resumed;
  char json_target[PATH_MAX] = "";
  const char *journals[1] = {cli->checkpoint};
  int destination = nq__app_json_destination_ok(json_target, cli, journals, cli->checkpoint ? 1 : 0,
                                        comm, rank, err);
  if (destination != NQ_EXIT_OK)
    return destination;
  const int threads = cli->threads ? cli->threads : nq__app_default_threads();
  size_t memory = 0;
  int refused = nq__app_join_memory(&memory, cli, threads, comm, rank, err);
  if (refused != NQ_EXIT_OK)
    return refused;
  nq__provenance_t provenance;
  nq__provenance_start(&provenance);
  nq_count_options_t options = {.n = cli->n,
                                .method = nq__app_count_method(cli),
                                .unique = cli->unique,
                                .walk = cli->walk,
                                .gpu = cli->gpu,
                                .threads = threads,
                                .memory = memory,
                                .checkpoint = cli->checkpoint,
                                .slice_index = cli->slice_index,
                                .slice_count = cli->slice_count,
                                .verify = cli->verify,
                                .verify_seed = cli->seed,
                                .stop = stop};
  nq__progress_printer_t printer;
  if (rank == 0 && !cli->quiet)
    nq__progress_attach(&options, &printer, err, cli->progress);
  nq_count_result_t result;
  nq_count_result_init(&result);
  int rc = count_until_stopped(&result, &options, comm), status = NQ_EXIT_OK;
  if (cli->json_file != NULL && rc != NQ_EMPI &&
      gather_provenance(&provenance, rc, &result, comm) != NQ_OK)
    rc = NQ_EMPI;
  /* The journal's warning (a torn last line dropped), whatever came after:
   * result.message holds the refusal or write failure instead for those. */
  if (rank == 0 && result.message[0] != '\0' && rc != NQ_EJOURNAL && rc != NQ_EBUSY &&
      rc != NQ_EIO)
    fprintf(err, "nqueens-mpi: warning: --checkpoint %s: %s\n", cli->checkpoint,
            nq__app_after_path(result.message, cli->checkpoint));
  if (rc != NQ_OK)
    status = unfinished_count(rc, cli, &result, rank, err);
  else if (rank == 0)
    status = finished_count(json_target, cli, &result, &provenance, out, err);
  if (rank == 0 && result.silent_ranks > 0 && rc != NQ_EMPI)
    status = without_silent_ranks(err, &result, status);
  nq__provenance_clear(&provenance);
  nq_count_result_clear(&result);
  return status;
}
