#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "app.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "output.h"
#include "progress.h"
#include "provenance.h"
#include "count_faults.h"
#include "run.h"
#include "stop_signals.h"
#include "status.h"
#include "nqueens/count.h"
#include "nqueens/estimate.h"
#include "nqueens/solutions.h"
#include "nqueens/units.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

static int started_by_launcher(void) {
  static const char *const launcher_variables[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                                   "PMI_RANK", "PMI_SIZE", "SLURM_STEP_ID"};
  for (size_t i = 0; i < sizeof launcher_variables / sizeof launcher_variables[0]; i++)
    if (getenv(launcher_variables[i]) != NULL)
      return 1;
  return 0;
}

/* Search threads when -t is not given: what Slurm gave each task; 1 per
 * rank under another launcher, which usually starts a rank per core;
 * alone, every core this process may run on. */
static int default_threads(void) {
  const char *slurm = getenv("SLURM_CPUS_PER_TASK");
  if (slurm != NULL) {
    char *end = NULL;
    long cpus = strtol(slurm, &end, 10);
    if (end != slurm && *end == '\0' && cpus >= 1 && cpus <= NQ_COUNT_MAX_THREADS)
      return (int)cpus;
  }
  if (started_by_launcher())
    return 1;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) >= 1)
    return CPU_COUNT(&allowed) < NQ_COUNT_MAX_THREADS ? CPU_COUNT(&allowed)
                                                      : NQ_COUNT_MAX_THREADS;
  return 1;
}

void nq__app_tune_singleton(void) {
  if (started_by_launcher())
    return;
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  setenv("OMPI_MCA_pml", "ob1", 0);
  setenv("OMPI_MCA_btl", "self", 0);
}

/* One line; a failed write adds the system's reason (write_errno, 0 when
 * there is none). */
static int runtime_failure(FILE *err, const char *what, int code, int write_errno) {
  if (write_errno != 0)
    fprintf(err, "nqueens-mpi: %s: %s: %s\n", what, nq_strerror(code), strerror(write_errno));
  else
    fprintf(err, "nqueens-mpi: %s: %s\n", what, nq_strerror(code));
  return code == NQ_EMPI ? NQ_EXIT_ABORT : NQ_EXIT_FAILURE;
}

/* Everything written must reach the stream: a full disk is a failure.
 * Help and version are printed straight to the stream, one call each,
 * with errno cleared before: it then holds the reason of a failed write,
 * whether the print or the flush made it. */
static int flushed(FILE *out, FILE *err, const char *what) {
  if (fflush(out) == 0 && !ferror(out))
    return NQ_EXIT_OK;
  return runtime_failure(err, what, NQ_EIO, errno);
}

/* Counts, boards and --first go through the output module's buffer,
 * opened here on `out` ... */
static int open_output(nq__output_t *output, FILE *out, FILE *err, const char *what) {
  int rc = nq__output_open(output, out, NQ_OUTPUT_CAPACITY);
  return rc == NQ_OK ? NQ_EXIT_OK : runtime_failure(err, what, rc, 0);
}

/* ... and after the writers (whose result is `rc`), flush what is left,
 * free the buffer and report a failure with the system's reason. */
static int close_output(nq__output_t *output, int rc, FILE *err, const char *what) {
  if (rc == NQ_OK)
    rc = nq__output_flush(output);
  int write_errno = rc == NQ_EIO ? output->write_errno : 0;
  nq__output_close(output);
  return rc == NQ_OK ? NQ_EXIT_OK : runtime_failure(err, what, rc, write_errno);
}

/* A failed unit is reported once, by rank 0, naming the rank that ran it;
 * an MPI failure by the rank that saw it (the job is then aborted). */
/* NQ_ENOTSUP from a count or an estimate: the walk asked for is refused on
 * every rank at once, before any work, so it is a usage error. */
static int walk_refused(FILE *err, int rank, const nq__cli_t *cli) {
  if (rank == 0)
    fprintf(err,
            "nqueens-mpi: --walk %s needs AVX-512 F, CD and VPOPCNTDQ on every rank's CPU "
            "and a build with the lane walk (see --version)\n",
            nq_walk_name(cli->walk));
  return NQ_EXIT_USAGE;
}

static int count_failure(FILE *err, int rank, int code, const nq_count_result_t *result) {
  if (code == NQ_EMPI)
    return runtime_failure(err, "counting failed", code, 0);
  if (rank == 0 && result->failed_rank >= 0)
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
  if (open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  int rc = nq__output_count(&output, cli->format, cli->n, cli->unique, result);
  return close_output(&output, rc, err, what);
}

/* Every rank counts with the stop signals caught (nq__app_main), so that
 * a signal to any of them ends the whole count cleanly (NQ_ESTOPPED
 * everywhere). */
static int count_until_stopped(nq_count_result_t *result, nq_count_options_t *options,
                               MPI_Comm comm) {
  /* For tests only (docs/record-attempt.md): NQ_TEST_WRONG_COUNT=R makes
   * rank R report one solution too many for every unit it solves, the
   * fault --verify and --merge are there to catch. */
  nq__faults_t faults = NQ_NO_FAULTS;
  const char *wrong = getenv("NQ_TEST_WRONG_COUNT");
  if (wrong != NULL && wrong[0] != '\0')
    faults.wrong_count_rank = atoi(wrong);
  return nq__count_run_with_faults(result, options, faults, comm);
}

/* What a stop kept: with a checkpoint, every finished batch is in the
 * journal and the same command resumes; without one, nothing. */
static void report_stop(FILE *err, const nq__cli_t *cli, const nq_count_result_t *result) {
  if (result->verify_pending) {
    fprintf(err,
            "nqueens-mpi: stopped %s: the count is complete in %s, with %" PRIu64
            " batch%s verified so far: rerun the same command to finish the verification\n",
            result->silent_ranks > 0 ? "before --verify (it needs every rank)"
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
  fprintf(err,
          "nqueens-mpi: stopped cleanly, resumable with the same command: %" PRIu64
          " units done are in %s\n",
          result->units, cli->checkpoint);
}

/* --json FILE: the record written durably (rank 0), by `write` into a
 * temporary file beside `path` (FILE, or its link's target) that replaces
 * it once whole. */
typedef int (*record_writer_fn)(nq__output_t *output, const void *context);

static int write_record(const char *path, record_writer_fn write, const void *context,
                        FILE *err) {
  char temp[PATH_MAX], message[NQ__MESSAGE_SIZE];
  FILE *file = nq__provenance_open_temp(path, temp, message);
  if (file == NULL) {
    fprintf(err, "nqueens-mpi: --json: %s\n", message);
    return NQ_EXIT_FAILURE;
  }
  nq__output_t output;
  int rc = nq__output_open(&output, file, NQ_OUTPUT_CAPACITY);
  if (rc == NQ_OK)
    rc = write(&output, context);
  if (rc == NQ_OK)
    rc = nq__output_flush(&output);
  int write_errno = output.write_errno;
  nq__output_close(&output);
  if (rc != NQ_OK) {
    fclose(file);
    unlink(temp);
    fprintf(err, "nqueens-mpi: --json %s: writing the record failed: %s%s%s\n", path,
            nq_strerror(rc), write_errno ? ": " : "", write_errno ? strerror(write_errno) : "");
    return NQ_EXIT_FAILURE;
  }
  if (nq__provenance_commit(file, temp, path, message) != NQ_OK) {
    fprintf(err, "nqueens-mpi: --json: %s\n", message);
    return NQ_EXIT_FAILURE;
  }
  return NQ_EXIT_OK;
}

/* Bad input found before any work: every rank learns rank 0's verdict on
 * --json's destination, which must not be any of the journals `keep`.
 * Rank 0's `target` is the path to write. */
static int json_destination_ok(char target[PATH_MAX], const nq__cli_t *cli,
                               const char *const *keep, int keep_count, MPI_Comm comm, int rank,
                               FILE *err) {
  if (cli->json_file == NULL)
    return NQ_EXIT_OK;
  char message[NQ__MESSAGE_SIZE];
  int rc = rank == 0 ? nq__provenance_check_destination(target, cli->json_file, keep, keep_count,
                                                        message)
                     : NQ_OK;
  if ((rc = nq__agree_with_rank0(rc, comm)) == NQ_EMPI)
    return runtime_failure(err, "checking --json", NQ_EMPI, 0);
  if (rc != NQ_OK && rank == 0)
    fprintf(err, "nqueens-mpi: %s\n", message);
  return rc == NQ_OK ? NQ_EXIT_OK : NQ_EXIT_USAGE;
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
  return write_record(target, write_count_record, &record, err);
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

/* The library's method for what the command line chose (auto resolved). */
static nq_count_method_t count_method(const nq__cli_t *cli) {
  return nq__cli_method(cli) == NQ_METHOD_JOIN ? NQ_COUNT_JOIN : NQ_COUNT_BACKTRACK;
}

/* Rank 0: a rank fell silent; the job must end without it. */
static int without_silent_ranks(FILE *err, const nq_count_result_t *result, int status) {
  fprintf(err,
          "nqueens-mpi: warning: rank %d%s held work past the end's patience without an answer "
          "(stopped or hung): the run ended without %s, everything above is complete without "
          "%s, and the job is ended for %s\n",
          result->first_silent_rank,
          result->silent_ranks > 1 ? " and others" : "",
          result->silent_ranks > 1 ? "them" : "it", result->silent_ranks > 1 ? "them" : "it",
          result->silent_ranks > 1 ? "them" : "it");
  return status | NQ_EXIT_WITHOUT_SILENT_RANKS;
}

static int run_count(const nq__cli_t *cli, volatile sig_atomic_t *stop, MPI_Comm comm, int rank,
                     FILE *out, FILE *err) {
  char json_target[PATH_MAX] = "";
  const char *journals[1] = {cli->checkpoint};
  int destination = json_destination_ok(json_target, cli, journals, cli->checkpoint ? 1 : 0,
                                        comm, rank, err);
  if (destination != NQ_EXIT_OK)
    return destination;
  nq__provenance_t provenance;
  nq__provenance_start(&provenance);
  nq_count_options_t options = {.n = cli->n,
                                .method = count_method(cli),
                                .unique = cli->unique,
                                .walk = cli->walk,
                                .gpu = cli->gpu,
                                .threads = cli->threads ? cli->threads : default_threads(),
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
    fprintf(err, "nqueens-mpi: warning: --checkpoint %s: %s\n", cli->checkpoint, result.message);
  if (rc == NQ_ESTOPPED) {
    if (rank == 0)
      report_stop(err, cli, &result);
    status = NQ_EXIT_STOPPED;
  } else if (rc == NQ_ENOTSUP) {
    status = walk_refused(err, rank, cli);
  } else if (rc == NQ_EJOURNAL || rc == NQ_EBUSY) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: --checkpoint %s: %s\n", cli->checkpoint, result.message);
    status = rc == NQ_EBUSY ? NQ_EXIT_BUSY : NQ_EXIT_USAGE;
  } else if (rc == NQ_ENOGPU) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: --gpu: no rank found a usable CUDA GPU (rank 0 drives one "
                   "only when alone; see --version)\n");
    status = NQ_EXIT_USAGE;
  } else if (rc == NQ_ECHECK && result.verify_differing > 0) {
    if (rank == 0)
      fprintf(err,
              "nqueens-mpi: --checkpoint %s: %" PRIu64 " batch%s solved again differed from the "
              "journal, the first units %" PRIu64 "..%" PRIu64 "; the total is not trusted\n",
              cli->checkpoint, result.verify_differing, result.verify_differing == 1 ? "" : "es",
              result.verify_first, result.verify_end - 1);
    status = NQ_EXIT_FAILURE;
  } else if (rc == NQ_EIO && result.message[0] != '\0') {
    fprintf(err, "nqueens-mpi: %s\n", result.message); /* rank 0's journal */
    status = NQ_EXIT_FAILURE;
  } else if (rc != NQ_OK) {
    status = count_failure(err, rank, rc, &result);
  } else if (rank == 0) {
    status = write_count(cli, &result, out, err);
    if (status == NQ_EXIT_OK && cli->json_file != NULL)
      status = record_count(json_target, cli, &result, &provenance, err);
  }
  if (rank == 0 && result.silent_ranks > 0 && rc != NQ_EMPI)
    status = without_silent_ranks(err, &result, status);
  nq__provenance_clear(&provenance);
  nq_count_result_clear(&result);
  return status;
}

/* --merge: rank 0 alone reads the journals.  Status 0 only for a total;
 * 1 when units are missing or the journals disagree; 2 for a file that is
 * not a journal of the same count. */
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
 * the merge is a total (it says which). */
static int record_merge(const char *target, const nq__cli_t *cli,
                        const nq__merge_result_t *result, nq__provenance_t *provenance,
                        FILE *err) {
  char message[NQ__MESSAGE_SIZE];
  char(*sha256s)[NQ_SHA256_HEX] = calloc((size_t)cli->merge_count, sizeof *sha256s);
  int status = sha256s != NULL ? NQ_EXIT_OK : runtime_failure(err, "--json", NQ_ENOMEM, 0);
  for (int i = 0; status == NQ_EXIT_OK && i < cli->merge_count; i++)
    if (nq__provenance_sha256(sha256s[i], cli->merge_files[i], message) != NQ_OK) {
      fprintf(err, "nqueens-mpi: --json: %s\n", message);
      status = NQ_EXIT_FAILURE;
    }
  if (status == NQ_EXIT_OK && nq__provenance_gather(provenance, MPI_COMM_SELF) != NQ_OK)
    status = runtime_failure(err, "--json", NQ_EMPI, 0);
  merge_record_t record = {cli, result, provenance, sha256s};
  if (status == NQ_EXIT_OK)
    status = write_record(target, write_merge_record, &record, err);
  free(sha256s);
  return status;
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
    fprintf(err, "nqueens-mpi: --merge: no total: %" PRIu64 " units are missing (see the "
                 "ranges)\n", result->units_missing);
    return NQ_EXIT_FAILURE;
  }
  fprintf(err, "nqueens-mpi: --merge: no total: %" PRIu64 " units are missing; run again slice%s",
          result->units_missing, result->slices_missing_count == 1 ? "" : "s");
  for (int i = 0; i < result->slices_missing_count; i++)
    fprintf(err, "%s %d/%d", i == 0 ? "" : ",", result->slices_missing[i] + 1,
            result->slice_count);
  fputc('\n', err);
  return NQ_EXIT_FAILURE;
}

static int run_merge(const nq__cli_t *cli, FILE *out, FILE *err) {
  static const char what[] = "writing the merge failed";
  char message[NQ__MESSAGE_SIZE], json_target[PATH_MAX] = "";
  int destination = json_destination_ok(json_target, cli, (const char *const *)cli->merge_files,
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
    if (open_output(&output, out, err, what) != NQ_EXIT_OK) {
      status = NQ_EXIT_FAILURE;
    } else {
      rc = nq__output_merge(&output, cli->format, cli->merge_files, &result);
      status = close_output(&output, rc, err, what);
    }
    if (status == NQ_EXIT_OK && cli->json_file != NULL)
      status = record_merge(json_target, cli, &result, &provenance, err);
    if (status == NQ_EXIT_OK && !nq__merge_is_total(&result))
      status = say_no_total(err, &result);
  }
  nq__merge_result_clear(&result);
  nq__provenance_clear(&provenance);
  return status;
}

static int write_estimate(const nq__cli_t *cli, const nq_estimate_result_t *result, FILE *out,
                          FILE *err) {
  static const char what[] = "writing the estimate failed";
  nq__output_t output;
  if (open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  int rc = nq__output_estimate(&output, cli->format, cli->n, cli->estimate_ranks, cli->seed,
                               result);
  return close_output(&output, rc, err, what);
}

/* --estimate: every rank and thread probes; rank 0 writes the result. */
static int run_estimate(const nq__cli_t *cli, volatile sig_atomic_t *stop, MPI_Comm comm,
                        int rank, FILE *out, FILE *err) {
  nq_estimate_options_t options = {.n = cli->n,
                                   .method = count_method(cli),
                                   .probes = cli->estimate_samples,
                                   .strata = cli->estimate_strata,
                                   .seconds = cli->estimate_seconds,
                                   .seed = cli->seed,
                                   .threads = cli->threads ? cli->threads : default_threads(),
                                   .walk = cli->walk,
                                   .stop = stop};
  nq_estimate_result_t result;
  int rc = nq_estimate_run(&result, &options, comm);
  if (rc == NQ_ENOTSUP)
    return walk_refused(err, rank, cli);
  if (rc == NQ_EMPI)
    return runtime_failure(err, "estimating failed", rc, 0);
  if (rc == NQ_ESTOPPED) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: stopped cleanly; nothing was saved (an estimate keeps "
                   "nothing): rerun to start over\n");
    return NQ_EXIT_STOPPED;
  }
  if (rc != NQ_OK) {
    if (rank == 0)
      fprintf(err, "nqueens-mpi: estimating failed: %s\n", nq_strerror(rc));
    return NQ_EXIT_FAILURE;
  }
  return rank == 0 ? write_estimate(cli, &result, out, err) : NQ_EXIT_OK;
}

/* One line: the version, the walks this CPU can run, and the CUDA GPUs
 * this process sees when there are any. */
static void print_version(FILE *out) {
  int gpus = nq_count_gpus();
  fprintf(out, "nqueens-mpi %s (walks: scalar%s", NQ_VERSION,
          nq_walk_supported(NQ_WALK_AVX512, 1) ? ", avx512" : "");
  if (gpus > 0)
    fprintf(out, "; CUDA GPUs: %d", gpus);
  fputs(")\n", out);
}

static int write_board(const uint8_t *columns, int n, void *writer) {
  return nq__output_board(writer, columns, n);
}

/* Rank 0 alone: the boards leave in lexicographic order through one
 * stream, with nothing to gather from other ranks.  Standard output
 * carries boards only, so that a size has none is said on stderr and
 * `--list | wc -l` counts 0. */
static int run_list(const nq__cli_t *cli, FILE *out, FILE *err) {
  static const char what[] = "listing failed";
  nq__output_t output;
  nq__board_writer_t writer;
  if (open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  int rc = nq__output_boards_begin(&writer, &output, cli->format, cli->n);
  if (rc == NQ_OK)
    rc = nq_solutions_each(cli->n, cli->limit, write_board, &writer);
  if (rc == NQ_OK)
    rc = nq__output_boards_end(&writer);
  int status = close_output(&output, rc, err, what);
  if (status == NQ_EXIT_OK && writer.boards == 0 && cli->format == NQ_FORMAT_TEXT)
    fprintf(err, "nqueens-mpi: no solution exists for n = %d\n", cli->n);
  return status;
}

static int run_first(const nq__cli_t *cli, FILE *out, FILE *err) {
  static const char what[] = "--first failed";
  uint8_t columns[NQ_MAX_N];
  nq_first_kind_t kind;
  nq__output_t output;
  double started = MPI_Wtime();
  int rc = nq_solutions_first(columns, &kind, cli->n);
  if (rc != NQ_OK)
    return runtime_failure(err, what, rc, 0);
  double seconds = MPI_Wtime() - started;
  if (open_output(&output, out, err, what) != NQ_EXIT_OK)
    return NQ_EXIT_FAILURE;
  rc = nq__output_first(&output, cli->format, cli->n, columns, kind, seconds);
  return close_output(&output, rc, err, what);
}

/* The parsed options as numbers: ranks that read the same command line
 * encode the same words. */
enum { CLI_WORDS = 19 };
static void encode_cli(long long words[CLI_WORDS], const nq__cli_t *cli) {
  words[0] = cli->mode;
  words[1] = cli->n;
  words[2] = cli->format;
  words[3] = (long long)cli->limit; /* parsed by strtoll: at most LLONG_MAX */
  words[4] = cli->unique;
  words[5] = cli->walk;
  words[6] = cli->gpu;
  words[7] = (long long)cli->progress;
  words[8] = cli->quiet;
  words[9] = cli->threads; /* as given: the default may differ between nodes */
  long long seconds_bits = 0; /* compared bit for bit */
  memcpy(&seconds_bits, &cli->estimate_seconds, sizeof seconds_bits);
  words[10] = seconds_bits;
  words[11] = (long long)cli->estimate_samples; /* parsed by strtoll, as above */
  words[12] = (long long)cli->estimate_ranks;
  words[13] = (long long)cli->seed;
  words[14] = cli->slice_index;
  words[15] = cli->slice_count;
  long long verify_bits = 0;
  memcpy(&verify_bits, &cli->verify, sizeof verify_bits);
  words[16] = verify_bits;
  words[17] = cli->method;
  words[18] = (long long)cli->estimate_strata;
}

static int agreement_failed(FILE *err, int rank, int mpi_code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(mpi_code, text, &length) != MPI_SUCCESS)
    snprintf(text, sizeof text, "MPI error %d", mpi_code);
  fprintf(err, "nqueens-mpi: rank %d: comparing the ranks' command lines failed: %s\n", rank,
          text);
  return NQ_EXIT_ABORT;
}

/* A launcher can start ranks with different command lines (mpirun -np 1
 * nqueens-mpi -n 12 : -np 1 nqueens-mpi -n abc); ranks that act on
 * different options wait for each other forever.  So all ranks settle
 * together, in one reduction, before any acts: the first rank whose parse
 * failed (MIN of rank, or of size where it parsed) and, for each option
 * word, its MIN and the MIN of its negation (the MAX).  Any failure or
 * difference ends every rank with NQ_EXIT_USAGE, and rank 0 alone says
 * why, in one line.  `message` holds this rank's parse error, if any.
 * Returns NQ_EXIT_OK when all ranks hold the same options. */
static int ranks_agree(const nq__cli_t *cli, int parse_rc, char message[static NQ__MESSAGE_SIZE],
                       MPI_Comm comm, int rank, FILE *err) {
  int size = 1, code;
  if ((code = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
    return agreement_failed(err, rank, code);
  long long words[CLI_WORDS] = {0}, mine[1 + 2 * CLI_WORDS], all[1 + 2 * CLI_WORDS];
  if (parse_rc == NQ_OK)
    encode_cli(words, cli);
  mine[0] = parse_rc == NQ_OK ? size : rank;
  for (int i = 0; i < CLI_WORDS; i++) {
    mine[1 + i] = words[i];
    mine[1 + CLI_WORDS + i] = -words[i];
  }
  if ((code = MPI_Allreduce(mine, all, 1 + 2 * CLI_WORDS, MPI_LONG_LONG, MPI_MIN, comm)) !=
      MPI_SUCCESS)
    return agreement_failed(err, rank, code);
  int first_failed = (int)all[0];
  if (first_failed < size) {
    /* Rank 0 reports the first failed parse, its own or another rank's. */
    if (first_failed != 0 &&
        (code = MPI_Bcast(message, NQ__MESSAGE_SIZE, MPI_CHAR, first_failed, comm)) != MPI_SUCCESS)
      return agreement_failed(err, rank, code);
    if (rank == 0 && first_failed == 0)
      fprintf(err, "nqueens-mpi: %s (see --help)\n", message);
    else if (rank == 0)
      fprintf(err, "nqueens-mpi: ranks were started with different arguments; rank %d: %s\n",
              first_failed, message);
    return NQ_EXIT_USAGE;
  }
  for (int i = 0; i < CLI_WORDS; i++)
    if (all[1 + i] != -all[1 + CLI_WORDS + i]) {
      if (rank == 0)
        fprintf(err, "nqueens-mpi: ranks were started with different arguments\n");
      return NQ_EXIT_USAGE;
    }
  return NQ_EXIT_OK;
}

int nq__app_main(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *err) {
  nq__cli_t cli;
  char message[NQ__MESSAGE_SIZE];
  int rank = 0;
  /* Errors come back as codes (reported with their place by NQ_MPI_CHECK)
   * rather than killing the job without a word. */
  if (MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
      MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) {
    fprintf(err, "nqueens-mpi: cannot query the MPI communicator\n");
    return NQ_EXIT_ABORT;
  }
  /* Every rank parses its own argv; bad input, or argv that differ between
   * ranks, end all ranks together with one message from rank 0. */
  int parse_rc = nq__cli_parse(&cli, message, argc, argv);
  int agreed = ranks_agree(&cli, parse_rc, message, comm, rank, err);
  if (agreed != NQ_EXIT_OK)
    return agreed;
  /* Counts and estimates stop cleanly on a signal (exit 3); the other
   * modes end by it, as any filter does. */
  if (cli.mode != NQ_MODE_COUNT && cli.mode != NQ_MODE_ESTIMATE) {
    nq__stop_signals_default();
  } else {
    volatile sig_atomic_t *stop = nq__stop_signals_catch(started_by_launcher());
    if (cli.mode == NQ_MODE_ESTIMATE)
      return run_estimate(&cli, stop, comm, rank, out, err);
    return run_count(&cli, stop, comm, rank, out, err);
  }
  if (rank != 0)
    return NQ_EXIT_OK;
  errno = 0; /* see flushed() */
  switch (cli.mode) {
  case NQ_MODE_HELP: nq__cli_print_help(out); break;
  case NQ_MODE_VERSION: print_version(out); break;
  case NQ_MODE_LIST: return run_list(&cli, out, err);
  case NQ_MODE_STATUS: return nq__status_print(out, err, cli.status, cli.format);
  case NQ_MODE_MERGE: return run_merge(&cli, out, err);
  default: return run_first(&cli, out, err);
  }
  return flushed(out, err, "writing failed");
}
