#include "nqueens/count.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "count_faults.h"
#include "journal_checks.h"
#include "run.h"
#include "totals.h"
#include "verify.h"

int nq_count_gpus(void) { return nq__gpu_device_count(); }

void nq_count_result_init(nq_count_result_t *result) {
  mpz_init(result->solutions);
  mpz_init(result->unique);
  mpz_init(result->nodes);
  result->units = 0;
  result->ranks = 0;
  result->threads = 0;
  result->depth = 0;
  result->memory = 0;
  result->slice_index = 0;
  result->slice_count = 1;
  result->method = NQ_COUNT_BACKTRACK;
  result->walk = NQ_WALK_AUTO;
  result->failed_rank = -1;
  result->disagreeing_rank = -1;
  result->gpu_ranks = 0;
  result->resumed_units = 0;
  result->restarts = 0;
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    result->solutions_mod[i] = 0;
  result->copies_sent = 0;
  result->copies_confirmed = 0;
  result->silent_ranks = 0;
  result->first_silent_rank = -1;
  result->verify_pending = NQ_VERIFY_DONE_OR_NONE;
  result->verified_batches = result->verified_units = result->verify_differing = 0;
  result->verified_by_other_ranks = 0;
  result->verify_first = result->verify_end = 0;
  result->message[0] = '\0';
  result->seconds = 0.0;
  result->count_seconds = 0.0;
  result->count_runs = 0;
}

void nq_count_result_clear(nq_count_result_t *result) {
  mpz_clear(result->solutions);
  mpz_clear(result->unique);
  mpz_clear(result->nodes);
}

static int finish_totals(nq_count_result_t *result, nq__totals_t *totals, int unique,
                         const nq_slice_t *slice) {
  if (nq__totals_check_residues(totals) != NQ_OK)
    return NQ_ECHECK; /* the big-integer sum and its residues disagree */
  nq__totals_residues(result->solutions_mod, totals);
  mpz_set(result->solutions, totals->solutions);
  mpz_set(result->nodes, totals->nodes);
  result->units = totals->units;
  if (unique && slice->count > 1)
    mpz_set(result->unique, totals->unique_times_8);
  return unique && slice->count == 1 ? nq__totals_unique(result->unique, totals) : NQ_OK;
}

static void take_master_outcome(nq_count_result_t *result, const nq__master_outcome_t *outcome) {
  result->failed_rank = outcome->failed_rank;
  result->disagreeing_rank = outcome->disagreeing_rank;
  result->copies_sent = outcome->copies_sent;
  result->copies_confirmed = outcome->copies_confirmed;
  result->silent_ranks = outcome->silent_ranks;
  result->first_silent_rank = outcome->first_silent_rank;
}

static int run_on(nq_count_result_t *result, const nq__run_t *run, MPI_Comm comm) {
  const nq_count_options_t *options = run->options;
  int rank = 0, size = 1, rc;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  NQ_MPI_CHECK(comm, MPI_Barrier(comm));
  double started = MPI_Wtime();
  if (rank != 0)
    return nq__worker_run(run, comm);
  nq__totals_t totals;
  nq__totals_init(&totals);
  nq__master_outcome_t outcome = {
      .failed_rank = -1, .disagreeing_rank = -1, .first_silent_rank = -1};
  rc = nq__master_run(&totals, &outcome, run, comm);
  take_master_outcome(result, &outcome);
  if (rc == NQ_OK)
    rc = finish_totals(result, &totals, options->unique, &run->slice);
  else if (rc == NQ_ESTOPPED)
    result->units = totals.units; /* what a resume will skip, with a journal */
  nq__totals_clear(&totals);
  result->ranks = size;
  result->threads = run->threads_total;
  result->depth = run->params.unit_param;
  result->memory =
      run->method->id == NQ_COUNT_JOIN ? nq_join_rank_bytes(run->options->memory) : 0;
  result->slice_index = run->slice.index;
  result->slice_count = run->slice.count;
  result->method = run->method->id;
  result->walk = nq_walk_resolve(options->walk, options->n);
  result->gpu_ranks = run->gpu_ranks;
  result->resumed_units = run->resumed.sums.units;
  result->seconds = MPI_Wtime() - started - outcome.silent_wait_seconds;
  const int solved_here = result->units > result->resumed_units;
  result->count_seconds = (double)run->resumed.counting_ms / 1000.0 +
                          (solved_here ? result->seconds : 0.0);
  result->count_runs = run->resumed.counting_runs + (uint64_t)solved_here;
  return rc;
}

static int slice_count(const nq_count_options_t *options) {
  return options->slice_count > 1 ? options->slice_count : 1;
}

static int slice_index(const nq_count_options_t *options) {
  return options->slice_count > 1 ? options->slice_index : 0;
}

/* Rank 0 opens the journal (creating it, or loading what it holds) and
 * every rank learns the verdict before any work: a refused journal ends
 * every rank at once, the file untouched. */
static int open_journal(nq_count_result_t *result, nq__run_t *run, MPI_Comm comm) {
  const nq_count_options_t *options = run->options;
  int rank = 0, rc = NQ_OK;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  if (rank == 0 && options->checkpoint != NULL) {
    char message[NQ__MESSAGE_SIZE];
    nq__journal_header_t header;
    nq__journal_header_init(&header, options->n, options->unique, run->params.unit_param,
                            run->units_total);
    nq__journal_header_set_method(&header, run->method->name,
                                  run->method->scheme(options->n, run->params.unit_param));
    header.slice_index = run->slice.index;
    header.slice_count = run->slice.count;
    rc = nq__journal_open(&run->journal, &run->resumed, message, options->checkpoint, &header);
    snprintf(result->message, sizeof result->message, "%s", message);
  }
  return nq__agree_with_rank0(rc, comm);
}

/* Rank 0 marks this count's start in the journal: restarts are the runs
 * it held before.  A complete journal is only read (its result, and
 * --verify's checks), by a run that counts nothing: it gets no run line,
 * so that printing it again changes nothing in it, and its restarts are
 * the count's, whose last run wrote the last run line. */
static int note_run(nq_count_result_t *result, const nq__run_t *run, MPI_Comm comm) {
  int size = 1, rc = NQ_OK;
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  if (run->journal != NULL) {
    const uint64_t runs = run->resumed.runs;
    /* Only an incomplete run appends: a journal that cannot be written
     * serves complete counts alone. */
    const int complete = run->resumed.sums.units == run->slice_units;
    result->restarts = complete && runs > 0 ? runs - 1 : runs;
    if (!complete)
      rc = nq__journal_append_run(run->journal, nq__journal_now_ms(), size);
  }
  rc = nq__agree_with_rank0(rc, comm);
  return rc == NQ_OK || rc == NQ_EMPI ? rc : NQ_EIO;
}

/* The final sync: a run whose finished work may not be on the disk has
 * not succeeded. */
static int close_journal(nq_count_result_t *result, nq__run_t *run, int rc) {
  if (run->journal == NULL)
    return rc;
  int errno_seen = nq__journal_errno(run->journal);
  int closed = nq__journal_close(run->journal);
  run->journal = NULL;
  if (closed != NQ_OK || errno_seen != 0) {
    snprintf(result->message, sizeof result->message, "writing the checkpoint journal %s failed: %s",
             run->options->checkpoint, strerror(errno_seen ? errno_seen : EIO));
    if (rc == NQ_OK)
      rc = NQ_EIO;
  }
  return rc;
}

/* CPUs can differ between nodes: an explicit walk must run on every rank,
 * and every rank must learn it before any work starts. */
static int walk_runs_everywhere(const nq__run_t *run, MPI_Comm comm) {
  const nq_count_options_t *options = run->options;
  if (options->walk == NQ_WALK_AUTO || run->method->id != NQ_COUNT_BACKTRACK)
    return NQ_OK;
  int rank = 0;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  int here = nq_walk_supported(options->walk, options->n);
  if (rank == run->faults.walk_refusing_rank)
    here = 0;
  return nq__agree_worst(here ? NQ_OK : NQ_ENOTSUP, comm);
}

/* Every rank learns how many units each rank takes per batch (GPU ranks
 * far more than CPU ranks, threaded ranks one share per thread), rank 0
 * how many search threads the run has, and all whether any rank's stop
 * flag is already up: then none starts (NQ_ESTOPPED everywhere).  Heard
 * later, through the run's messages, a slow rank's early stop could come
 * after the others had finished every unit. */
static int share_batch_sizes(nq__run_t *run, MPI_Comm comm) {
  int size = 1;
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  run->batch_units = malloc((size_t)size * sizeof *run->batch_units);
  int *all = malloc(3 * (size_t)size * sizeof *all);
  if (run->batch_units == NULL || all == NULL) {
    free(all);
    return NQ_ENOMEM;
  }
  volatile sig_atomic_t *stop = run->options->stop;
  int mine[3] = {run->options->batch_units > 0 ? run->options->batch_units : NQ_BATCH_DEFAULT,
                 nq__run_threads(run), stop != NULL && *stop};
  if (mine[0] > NQ_BATCH_MAX)
    mine[0] = NQ_BATCH_MAX;
  mine[0] = run->gpu != NULL ? NQ_GPU_BATCH_UNITS : mine[0] * mine[1];
  int rc = MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm), stopping = 0;
  run->threads_total = 0;
  for (int rank = 0; rc == MPI_SUCCESS && rank < size; rank++) {
    run->batch_units[rank] = all[3 * rank];
    run->threads_total += all[3 * rank + 1];
    stopping |= all[3 * rank + 2];
  }
  free(all);
  NQ_MPI_CHECK(comm, rc);
  return stopping ? NQ_ESTOPPED : NQ_OK;
}

/* The units' total (the guided batch sizes, progress, the slice and the
 * journal's header need it), counted on rank 0 (seconds for the largest
 * boards: a stop is heard meanwhile); every rank learns the verdict. */
static int count_units(nq__run_t *run, MPI_Comm comm) {
  const nq_count_options_t *options = run->options;
  int rank = 0, rc = NQ_OK;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  if (rank == 0)
    rc = run->method->units_total(&run->units_total, &run->params, options->stop);
  if (rank == 0 && rc == NQ_OK)
    rc = nq_slice_init(&run->slice, slice_index(options), slice_count(options),
                       run->units_total);
  if (rank == 0 && rc == NQ_OK)
    run->slice_units = nq_slice_units(&run->slice);
  return nq__agree_with_rank0(rc, comm);
}

/* Rank 0, the journal closed (reading it through a second descriptor
 * would drop the lock): the earlier runs' "agree" checks against their
 * batches' records.  A record changed since its check, under a valid CRC,
 * kept the verdict and changed the total: it fails the run as a "differ"
 * check does. */
static int refuse_contradicted_checks(nq_count_result_t *result, const nq__run_t *run) {
  if (run->resumed.checks == 0)
    return NQ_OK;
  nq__journal_checks_t checks;
  char message[NQ__MESSAGE_SIZE];
  int rc = nq__journal_checks_confirm(&checks, message, run->options->checkpoint);
  if (rc == NQ_EJOURNAL)
    snprintf(result->message, sizeof result->message, "%s", message);
  if (rc != NQ_OK || checks.contradicted == 0)
    return rc;
  result->verify_differing = checks.contradicted;
  result->verify_first = checks.contradicted_first;
  result->verify_end = checks.contradicted_end;
  return NQ_ECHECK;
}

/* A journal that records a failed check gives no trusted total, with or
 * without --verify this time (rank 0 alone has it). */
static int refuse_marked_journal(nq_count_result_t *result, const nq__run_t *run) {
  if (run->resumed.checks_differing == 0)
    return refuse_contradicted_checks(result, run);
  result->verify_differing = run->resumed.checks_differing;
  result->verify_first = run->resumed.differing_first;
  result->verify_end = run->resumed.differing_end;
  return NQ_ECHECK;
}

/* What the verification learned, into the public result; silent ranks
 * add to the master's. */
static void take_verify_outcome(nq_count_result_t *result, const nq__verify_outcome_t *outcome) {
  result->verified_batches = outcome->batches;
  result->verified_units = outcome->units;
  result->verified_by_other_ranks = outcome->by_other_ranks;
  result->verify_differing = outcome->differing;
  result->verify_first = outcome->first;
  result->verify_end = outcome->end;
  if (result->silent_ranks == 0)
    result->first_silent_rank = outcome->first_silent_rank;
  result->silent_ranks += outcome->silent_ranks;
}

/* A complete journal that cannot be written still answers a count, but
 * not a --verify with batches left to check: their verdicts are written
 * as they come.  Refused before any is solved, as a journal that cannot
 * serve the run (rank 0 holds the journal; every rank learns). */
static int journal_takes_checks(nq_count_result_t *result, const nq__run_t *run,
                                uint64_t batches, MPI_Comm comm) {
  int rc = NQ_OK;
  if (run->journal != NULL && batches > 0 && nq__journal_read_only(run->journal)) {
    snprintf(result->message, sizeof result->message,
             "%s: cannot be written, and --verify records its checks of %" PRIu64
             " batch%s in it: make it writable, or count without --verify",
             run->options->checkpoint, batches, batches == 1 ? "" : "es");
    rc = NQ_EJOURNAL;
  }
  return nq__agree_with_rank0(rc, comm);
}

/* --verify, once the count is complete and its journal closed: the sample
 * drawn, then the journal opened again for the verdicts, written as they
 * come.  A journal that records a difference (now or in an earlier run)
 * fails the run: its total is not to be trusted. */
static int verify(nq_count_result_t *result, nq__run_t *run, MPI_Comm comm) {
  nq__verify_t v = {.outcome = {.first_silent_rank = -1}};
  int rc = nq__verify_draw(&v, result->message, run, comm);
  nq__journal_state_clear(&run->resumed);
  nq__journal_state_init(&run->resumed);
  if (rc == NQ_OK)
    rc = open_journal(result, run, comm);
  if (rc == NQ_OK)
    rc = journal_takes_checks(result, run, v.count, comm);
  if (rc == NQ_OK)
    rc = nq__verify_solve(&v, run, comm);
  take_verify_outcome(result, &v.outcome);
  if (rc == NQ_ESTOPPED)
    result->verify_pending = NQ_VERIFY_STOPPED;
  nq__verify_clear(&v);
  rc = close_journal(result, run, rc);
  return rc == NQ_OK ? refuse_marked_journal(result, run) : rc;
}

/* The run's per-rank set-up, the roles, the tear-down. */
static int set_up_and_run(nq_count_result_t *result, nq__run_t *run, MPI_Comm comm) {
  int rc = walk_runs_everywhere(run, comm);
  if (rc == NQ_OK)
    rc = count_units(run, comm);
  if (rc != NQ_OK)
    return rc;
  /* The GPUs before the journal: a --gpu that finds none is refused with
   * the journal neither created nor marked with a run. */
  rc = nq__gpu_ranks_open(run, comm);
  if (rc == NQ_OK)
    rc = open_journal(result, run, comm);
  if (rc == NQ_OK)
    rc = note_run(result, run, comm);
  if (rc != NQ_OK) {
    nq__gpu_ranks_close(run);
    return close_journal(result, run, rc);
  }
  rc = share_batch_sizes(run, comm);
  if (rc == NQ_OK)
    rc = run_on(result, run, comm);
  rc = close_journal(result, run, rc);
  /* Workers do not learn every failure rank 0 saw (a journal write, a
   * backup copy that differed): they follow its verdict into the
   * collective verification, or not at all.  A silent rank could not
   * take part in it: the run then stops, its count complete in the
   * journal, for a rerun to verify. */
  int wants_verify = run->options->verify > 0 && run->options->checkpoint != NULL;
  if (rc == NQ_OK && wants_verify && result->silent_ranks > 0) {
    result->verify_pending = NQ_VERIFY_NOT_RUN;
    rc = NQ_ESTOPPED;
  }
  int verdict = rc;
  if (rc != NQ_EMPI && (verdict = nq__agree_with_rank0(rc, comm)) == NQ_EMPI)
    rc = NQ_EMPI;
  /* A worker stopped after its last batch was in: rank 0 holds the whole
   * count and prints it, and the job must not end as stopped (status 3
   * with the result on stdout). */
  if (verdict == NQ_OK && rc == NQ_ESTOPPED)
    rc = NQ_OK;
  if (verdict == NQ_OK && wants_verify)
    rc = verify(result, run, comm);
  else if (rc == NQ_OK)
    rc = refuse_marked_journal(result, run);
  nq__gpu_ranks_close(run);
  free(run->batch_units);
  run->batch_units = NULL;
  return rc;
}

/* More than one thread needs an MPI that lets them live beside the one
 * that calls it (FUNNELED). */
static int threads_usable(int threads) {
  int provided = MPI_THREAD_SINGLE;
  if (threads < 0 || threads > NQ_COUNT_MAX_THREADS)
    return 0;
  return threads <= 1 || (MPI_Query_thread(&provided) == MPI_SUCCESS &&
                          provided >= MPI_THREAD_FUNNELED);
}

int nq__count_run_with_faults(nq_count_result_t *result, const nq_count_options_t *options,
                              nq__faults_t faults, MPI_Comm comm) {
  _Atomic uint64_t units_started = 0;
  nq__run_t run = {.options = options, .faults = faults, .units_started = &units_started};
  /* Every rank checks the same options and agrees without a message, so a
   * bad request never leaves workers waiting for a master that gave up. */
  if (nq__run_choose_method(&run) != NQ_OK || options->batch_units < 0 ||
      nq_walk_name(options->walk) == NULL || !threads_usable(options->threads) ||
      (options->slice_count > 1 &&
       (options->slice_count > NQ_SLICE_MAX || options->slice_index < 0 ||
        options->slice_index >= options->slice_count)))
    return NQ_EINVAL;
  MPI_Comm own;
  int rc = nq__private_comm(&own, comm);
  if (rc != NQ_OK)
    return rc;
  NQ_MPI_CHECK(own, MPI_Comm_rank(own, &run.rank));
  nq__journal_state_init(&run.resumed);
  rc = set_up_and_run(result, &run, own);
  nq__journal_state_clear(&run.resumed);
  /* After NQ_EMPI another rank may never come to free it with us. */
  if (rc != NQ_EMPI && nq__private_comm_free(&own) != NQ_OK)
    rc = NQ_EMPI;
  return rc;
}

int nq_count_run(nq_count_result_t *result, const nq_count_options_t *options, MPI_Comm comm) {
  return nq__count_run_with_faults(result, options, NQ_NO_FAULTS, comm);
}
