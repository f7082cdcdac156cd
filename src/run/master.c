#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backups.h"
#include "messages.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "pool.h"
#include "run.h"

/* Each worker holds up to two batches: the one it solves and the next one,
 * so it never waits for a round trip to the master. */
enum { BATCHES_IN_FLIGHT = 2 };

/* The tags of this rank's own batches in its pool: units of its share, or
 * a copy of a late batch (copy_locally). */
enum { LOCAL_UNITS = 0, LOCAL_COPY = 1 };

typedef struct peer {
  uint64_t *slots[BATCHES_IN_FLIGHT]; /* each 1 + batch_units * NQ_UNIT_WORDS words */
  MPI_Request sends[BATCHES_IN_FLIGHT];
  nq__batch_t *batches[BATCHES_IN_FLIGHT]; /* what each slot holds, in the ledger */
  unsigned batches_sent, batches_answered; /* answers come in the order sent */
  int batch_units; /* what this peer takes per batch (GPU ranks: many) */
  int discarded;   /* told to drop the copies it holds: the run is done */
  int silent;      /* held a batch, or kept its last word, past the patience at the end:
                      stopped or hung */
  MPI_Request last_word; /* its NQ_TAG_ENDED, awaited once it was told to stop */
} peer_t;

typedef struct master {
  const nq__run_t *run;
  MPI_Comm comm;
  nq__totals_t *totals;
  void *listing; /* the method's units, in id order */
  int exhausted;
  int failure;     /* first unit failure; once set, no new work goes out */
  int failed_rank;
  int disagreeing_rank; /* after a conflict: the rank whose answer came first */
  int stopping;    /* a rank was asked to stop: no new work goes out, and
                      every worker was told to abandon its batches */
  int hook_failed; /* an MPI call made from the cancel hook failed */
  double last_poll; /* when the cancel hook last served the workers */
  int peer_count;
  peer_t *peers; /* peers[i] is rank i + 1 */
  int batches_out;
  nq__backups_t backups; /* the batches out, and copies of the last ones */
  /* Guided self-scheduling: a batch takes the peer's share of half the
   * units not yet handed out (its batch_units against all ranks'), so
   * batches shrink to single units as the run ends. */
  uint64_t units_left;  /* not yet handed out, journaled ones aside */
  uint64_t capacity;    /* the sum of every rank's batch_units */
  nq__run_solver_t *search; /* this thread's; its cancel hook serves the workers */
  nq__pool_t *pool;     /* this rank's search threads (no GPU) */
  int threads;
  /* Results arrive in a ring of receives posted for any source, tested at
   * its head alone: matching happens in posting order, so the head is the
   * oldest arrival, and looking costs the same at 10 or 10,000 peers
   * (MPI_Iprobe on any source scans every peer's queue). */
  uint64_t *inboxes; /* ring_size inboxes of inbox_words words */
  MPI_Request *receives;
  int ring_size, ring_head;
  int inbox_words; /* 2 + (the largest batch) * NQ_RESULT_WORDS */
  double started, last_progress;
  double silent_wait; /* seconds spent on patience that found ranks silent */
  double waiting_since; /* when the run began waiting only for answers it does not
                           need (only_waiting); 0 when it is not */
  int silent_count, first_silent;
  /* The checkpoint journal (run->journal, or NULL): units it holds are
   * skipped; finished ones are recorded as they come in, in runs of
   * consecutive ids (a worker's batch, the units a local step finished). */
  nq__journal_done_cursor_t done;
  nq__totals_t record;   /* the run of consecutive results being gathered */
  uint64_t record_first; /* its first id */
  int record_rank;
  nq__work_t *local_units; /* a GPU master's batch: local_batch units */
  nq_unit_result_t *local_results;
  size_t local_batch;
  /* A copy of a late batch on this rank's own threads, once they have
   * nothing else (copy_locally): with no other worker, a stopped one's
   * batch would hold the run. */
  nq__batch_t *local_copy;
  nq__work_t *copy_units; /* its units, unpacked */
  uint64_t *copy_answer;  /* its answer, packed as a worker's */
  size_t copy_capacity;   /* units: the largest batch a peer takes */
} master_t;

static void note_failure(master_t *m, int code, int rank) {
  if (m->failure != NQ_OK)
    return;
  m->failure = code;
  m->failed_rank = rank;
  m->exhausted = 1; /* hand out nothing more */
}

/* Hands out nothing more and tells every worker to abandon its batches;
 * their answers (results that were finished, or NQ_ESTOPPED) are still
 * collected before the stop. */
static int begin_stop(master_t *m) {
  if (m->stopping)
    return NQ_OK;
  m->stopping = 1;
  m->exhausted = 1;
  if (m->pool != NULL)
    nq__pool_cancel(m->pool);
  for (int rank = 1; rank <= m->peer_count; rank++)
    NQ_MPI_CHECK(m->comm, MPI_Send(NULL, 0, MPI_UINT64_T, rank, NQ_TAG_CANCEL, m->comm));
  return NQ_OK;
}

/* This rank's own stop flag, looked at between any two steps of the loop. */
static int check_stop(master_t *m) {
  return !m->stopping && nq__run_stop_asked(m->run) ? begin_stop(m) : NQ_OK;
}

/* Whether this unit is done already, or another slice's. */
static int skipped(master_t *m, const nq__work_t *unit) {
  return !nq_slice_holds(&m->run->slice, unit->id) ||
         (m->run->journal != NULL && nq__journal_done_cursor_next(&m->done, unit->id));
}

/* Units skipped between two looks at the stop flag: a resume of a large
 * board or a thin slice passes billions of them. */
enum { SKIPS_BETWEEN_LOOKS = 1 << 16 };

/* The next unit no journal holds yet (none once a stop is asked while
 * skipping: the run is stopping). */
static int next_unit(master_t *m, nq__work_t *unit) {
  if (m->exhausted)
    return 0;
  int rc;
  uint64_t skips = 0;
  while ((rc = m->run->method->units_next(m->listing, unit)) > 0 && skipped(m, unit))
    if (++skips % SKIPS_BETWEEN_LOOKS == 0 && nq__run_stop_asked(m->run)) {
      if (begin_stop(m) != NQ_OK)
        m->hook_failed = 1;
      return 0;
    }
  if (rc <= 0)
    m->exhausted = 1;
  else if (m->units_left > 0)
    m->units_left--;
  return rc > 0;
}

/* ---- the journal: finished work in runs of consecutive ids ---- */

static void record_failed(master_t *m) { note_failure(m, NQ_EIO, 0); }

/* Appends the gathered run, if any. */
static void flush_record(master_t *m) {
  if (m->run->journal == NULL || m->record.units == 0)
    return;
  if (nq__journal_append(m->run->journal, m->record_first, &m->record, m->record_rank,
                         nq__journal_now_ms()) != NQ_OK)
    record_failed(m);
  nq__totals_reset(&m->record);
}

/* Adds a finished unit to the totals and to the run being gathered for the
 * journal, which is appended first when the unit does not continue it. */
static void finish_unit(master_t *m, const nq_unit_result_t *result, int rank) {
  nq__totals_add(m->totals, result);
  if (m->run->journal == NULL)
    return;
  if (m->record.units > 0 &&
      (result->id != m->record_first + m->record.units || rank != m->record_rank))
    flush_record(m);
  if (m->record.units == 0) {
    m->record_first = result->id;
    m->record_rank = rank;
  }
  nq__totals_add(&m->record, result);
}

/* Appended lines reach the disk every few seconds. */
static void sync_journal_if_due(master_t *m) {
  if (m->run->journal == NULL)
    return;
  if (nq__journal_sync_if_due(m->run->journal) != NQ_OK)
    record_failed(m);
}

/* How many units a rank taking up to `most` per batch gets now. */
static uint64_t guided_batch(const master_t *m, int most) {
  uint64_t share = m->units_left * (uint64_t)most / (2 * (m->capacity ? m->capacity : 1));
  return share < 1 ? 1 : share > (uint64_t)most ? (uint64_t)most : share;
}

/* Sends what `peer`'s slot for its next batch holds, recorded as `batch`. */
static int send_slot(master_t *m, int rank, nq__batch_t *batch) {
  peer_t *peer = &m->peers[rank - 1];
  int slot = (int)(peer->batches_sent % BATCHES_IN_FLIGHT);
  uint64_t *packed = peer->slots[slot];
  peer->batches[slot] = batch;
  NQ_MPI_CHECK(m->comm, MPI_Isend(packed, (int)(1 + packed[0] * NQ_UNIT_WORDS), MPI_UINT64_T,
                                  rank, NQ_TAG_WORK, m->comm, &peer->sends[slot]));
  peer->batches_sent++;
  m->batches_out++;
  return NQ_OK;
}

/* The peer's slot for its next batch, once its last send from there is done. */
static int next_slot(master_t *m, peer_t *peer, uint64_t **packed) {
  int slot = (int)(peer->batches_sent % BATCHES_IN_FLIGHT);
  NQ_MPI_CHECK(m->comm, MPI_Wait(&peer->sends[slot], MPI_STATUS_IGNORE));
  *packed = peer->slots[slot];
  return NQ_OK;
}

static int send_batch(master_t *m, int rank) {
  peer_t *peer = &m->peers[rank - 1];
  uint64_t *batch = NULL;
  if (next_slot(m, peer, &batch) != NQ_OK)
    return NQ_EMPI;
  uint64_t count = 0, wanted = guided_batch(m, peer->batch_units);
  nq__work_t unit;
  while (count < wanted && next_unit(m, &unit))
    nq__work_pack(batch + 1 + count++ * NQ_UNIT_WORDS, &unit);
  if (count == 0)
    return NQ_OK;
  batch[0] = count;
  nq__batch_t *record = nq__backups_sent(&m->backups, batch);
  if (record == NULL)
    note_failure(m, NQ_ENOMEM, 0); /* sent all the same: its answer must be taken */
  return send_slot(m, rank, record);
}

/* Once every unit is out, a peer with nothing to do gets a copy of the
 * oldest batch still unanswered, if one has no copy yet. */
static int send_copy(master_t *m, int rank) {
  peer_t *peer = &m->peers[rank - 1];
  if (!m->exhausted || m->failure != NQ_OK || m->stopping ||
      peer->batches_sent != peer->batches_answered)
    return NQ_OK;
  nq__batch_t *batch = nq__backups_pick(&m->backups, (uint64_t)peer->batch_units);
  if (batch == NULL)
    return NQ_OK;
  uint64_t *packed = NULL;
  if (next_slot(m, peer, &packed) != NQ_OK)
    return NQ_EMPI;
  const uint64_t *original = nq__batch_packed(batch);
  memcpy(packed, original, (1 + original[0] * NQ_UNIT_WORDS) * sizeof *packed);
  return send_slot(m, rank, batch);
}

/* Whether this rank's threads solve a copy that every batch's answer has
 * made useless: they abandon it (a copy is the only thing in their pool). */
static int local_copy_useless(const master_t *m) {
  return m->local_copy != NULL && m->backups.unanswered == 0;
}

/* Once every batch has its answer, the copies still out are useless: their
 * holders drop them (and answer at once) instead of finishing them. */
static int discard_copies(master_t *m) {
  if (local_copy_useless(m))
    nq__pool_cancel(m->pool);
  if (!m->exhausted || m->backups.unanswered > 0 || m->batches_out == 0)
    return NQ_OK;
  for (int rank = 1; rank <= m->peer_count; rank++) {
    peer_t *peer = &m->peers[rank - 1];
    if (peer->discarded || peer->batches_sent == peer->batches_answered)
      continue;
    peer->discarded = 1;
    NQ_MPI_CHECK(m->comm, MPI_Send(NULL, 0, MPI_UINT64_T, rank, NQ_TAG_DISCARD, m->comm));
  }
  return NQ_OK;
}

static uint64_t *inbox(master_t *m, int index) {
  return m->inboxes + (size_t)index * (size_t)m->inbox_words;
}

static int post_receive(master_t *m, int index) {
  NQ_MPI_CHECK(m->comm, MPI_Irecv(inbox(m, index), m->inbox_words, MPI_UINT64_T, MPI_ANY_SOURCE,
                                  NQ_TAG_RESULT, m->comm, &m->receives[index]));
  return NQ_OK;
}

static int post_ring(master_t *m) {
  for (int i = 0; i < m->ring_size; i++)
    if (post_receive(m, i) != NQ_OK)
      return NQ_EMPI;
  return NQ_OK;
}

/* Every receive still posted goes: nothing more will come. */
static int cancel_ring(master_t *m) {
  for (int i = 0; i < m->ring_size; i++) {
    if (m->receives[i] == MPI_REQUEST_NULL)
      continue;
    NQ_MPI_CHECK(m->comm, MPI_Cancel(&m->receives[i]));
    NQ_MPI_CHECK(m->comm, MPI_Wait(&m->receives[i], MPI_STATUS_IGNORE));
  }
  return NQ_OK;
}

/* A batch's first answer: its results join the totals, or its failure is
 * the run's. */
static int take_first_answer(master_t *m, int rank, int status, const uint64_t *results,
                             uint64_t count) {
  if (status == NQ_ESTOPPED) /* that batch is not done; nor is the run */
    return begin_stop(m);
  if (status != NQ_OK) {
    note_failure(m, status, rank);
    return NQ_OK;
  }
  for (uint64_t i = 0; i < count; i++) {
    nq_unit_result_t result;
    nq__result_unpack(&result, results + i * NQ_RESULT_WORDS);
    finish_unit(m, &result, rank);
  }
  flush_record(m);
  return NQ_OK;
}

/* A later answer that differs from a batch's first: the journal marks
 * the batch with this answer's sums as a check that differs, so that no
 * later run trusts the journal's total (count.c refuses a marked
 * journal), whichever of the two answers was wrong. */
static void mark_conflict(master_t *m, int rank, const uint64_t *results, uint64_t count) {
  if (m->run->journal == NULL || count == 0)
    return;
  nq__totals_t sums;
  nq__totals_init(&sums);
  uint64_t first = 0;
  for (uint64_t i = 0; i < count; i++) {
    nq_unit_result_t result;
    nq__result_unpack(&result, results + i * NQ_RESULT_WORDS);
    if (i == 0)
      first = result.id;
    nq__totals_add(&sums, &result);
  }
  flush_record(m); /* the first answer's record goes before its check */
  if (nq__journal_append_check(m->run->journal, first, &sums, rank, nq__journal_now_ms(), 0) !=
      NQ_OK)
    record_failed(m);
  nq__totals_clear(&sums);
}

/* Two ranks counted the same units differently: the run fails naming
 * both (which one is wrong cannot be told), and the journal marks them. */
static void note_conflict(master_t *m, int rank, int first_rank, const uint64_t *results,
                          uint64_t count) {
  mark_conflict(m, rank, results, count);
  if (m->failure == NQ_OK)
    m->disagreeing_rank = first_rank;
  note_failure(m, NQ_ECHECK, rank);
}

/* Adds one worker's results, or records its failure; either way the reply
 * (more work, a copy of a late batch, or none) keeps the worker moving. */
static int take_result(master_t *m, const uint64_t *message, const MPI_Status *status) {
  int words = 0, rank = status->MPI_SOURCE, rc = NQ_OK;
  NQ_MPI_CHECK(m->comm, MPI_Get_count(status, MPI_UINT64_T, &words));
  peer_t *peer = &m->peers[rank - 1];
  nq__batch_t *batch = peer->batches[peer->batches_answered++ % BATCHES_IN_FLIGHT];
  m->batches_out--;
  int worker_status = words >= 2 ? (int)(int64_t)message[0] : NQ_EPROTO;
  uint64_t count = words >= 2 ? message[1] : 0;
  if (worker_status == NQ_OK && (count > (uint64_t)peer->batch_units ||
                                 (uint64_t)words != 2 + count * NQ_RESULT_WORDS))
    worker_status = NQ_EPROTO;
  int first_rank = rank;
  nq__answer_t answer = batch == NULL
                            ? NQ_ANSWER_FIRST
                            : nq__backups_answer(&m->backups, batch, rank, worker_status,
                                                 message + 2, count, &first_rank);
  if (answer == NQ_ANSWER_FIRST)
    rc = take_first_answer(m, rank, worker_status, message + 2, count);
  else if (answer == NQ_ANSWER_CONFLICT)
    note_conflict(m, rank, first_rank, message + 2, count);
  if (rc == NQ_OK)
    rc = send_batch(m, rank);
  if (rc == NQ_OK)
    rc = send_copy(m, rank);
  return rc == NQ_OK ? discard_copies(m) : rc;
}

/* How long the end of a run waits for answers it does not need before it
 * goes on without their holders: a CPU rank answers a discard or a stop
 * within milliseconds, a GPU rank once its launch is over. */
#define PATIENCE_SECONDS 10.0
#define PATIENCE_SECONDS_WITH_GPUS 120.0

/* Whether the run waits only for answers it does not need to count: every
 * unit is in (or the run is stopping or failed) and no local work is
 * left, but batches are still out. */
static size_t local_batches(master_t *m);

static int only_waiting(master_t *m) {
  return m->exhausted && local_batches(m) == 0 && m->batches_out > 0 &&
         (m->backups.unanswered == 0 || m->stopping || m->failure != NQ_OK);
}

static double patience_seconds(const master_t *m) {
  return m->run->gpu_ranks > 0 ? PATIENCE_SECONDS_WITH_GPUS : PATIENCE_SECONDS;
}

/* The run goes on without this peer (a stopped or hung process). */
static void mark_silent(master_t *m, int rank) {
  m->peers[rank - 1].silent = 1;
  if (m->silent_count++ == 0 || rank < m->first_silent)
    m->first_silent = rank;
}

/* 1 once the run has waited only for such answers for the patience: the
 * peers still holding batches are silent, and the run ends without them. */
static int patience_over(master_t *m) {
  if (!only_waiting(m)) {
    m->waiting_since = 0;
    return 0;
  }
  double now = MPI_Wtime();
  if (m->waiting_since == 0)
    m->waiting_since = now;
  if (now - m->waiting_since < patience_seconds(m))
    return 0;
  m->silent_wait += now - m->waiting_since;
  for (int rank = 1; rank <= m->peer_count; rank++) {
    peer_t *peer = &m->peers[rank - 1];
    if (peer->batches_sent != peer->batches_answered && !peer->silent)
      mark_silent(m, rank);
  }
  return 1;
}

/* The oldest arrival, if it is here: taken, answered, its receive posted
 * again at the ring's tail.  *arrived says whether there was one. */
static int receive_result(master_t *m, int *arrived) {
  MPI_Status status;
  int head = m->ring_head;
  NQ_MPI_CHECK(m->comm, MPI_Test(&m->receives[head], arrived, &status));
  if (!*arrived)
    return NQ_OK;
  m->ring_head = (head + 1) % m->ring_size;
  int rc = take_result(m, inbox(m, head), &status);
  return rc == NQ_OK ? post_receive(m, head) : rc;
}

/* Answers every worker whose result has arrived; with `wait`, first waits
 * until at least one has.  The wait polls, as MPI_Probe does, but between
 * polls it hears this rank's own stop, which must reach workers deep in
 * long units without waiting for their results. */
static int serve_workers(master_t *m, int wait) {
  if (m->peer_count == 0)
    return NQ_OK;
  for (;;) {
    int arrived = 0, rc = receive_result(m, &arrived);
    if (rc != NQ_OK)
      return rc;
    if (!arrived && wait) {
      if ((rc = check_stop(m)) != NQ_OK || patience_over(m))
        return rc;
      continue;
    }
    if (!arrived)
      return NQ_OK;
    wait = 0;
  }
}

/* ---- this rank's own threads ---- */

/* The local copy's answer, taken as a worker's is (take_result). */
static void answer_local_copy(master_t *m, const nq__pool_batch_t *done) {
  uint64_t count = done->status == NQ_OK ? done->count : 0;
  for (uint64_t i = 0; i < count; i++)
    nq__result_pack(m->copy_answer + i * NQ_RESULT_WORDS, &done->results[i]);
  nq__batch_t *copy = m->local_copy;
  m->local_copy = NULL;
  int first_rank = 0;
  nq__answer_t answer = nq__backups_answer(&m->backups, copy, 0, done->status, m->copy_answer,
                                           count, &first_rank);
  if (answer == NQ_ANSWER_FIRST &&
      take_first_answer(m, 0, done->status, m->copy_answer, count) != NQ_OK)
    m->hook_failed = 1; /* an MPI call of its stop failed */
  if (answer == NQ_ANSWER_CONFLICT)
    note_conflict(m, 0, first_rank, m->copy_answer, count);
  if (discard_copies(m) != NQ_OK)
    m->hook_failed = 1;
}

/* Finished local units join the totals, and the journal as rank 0's at
 * once (consecutive ones in one record): a lone process killed at any
 * moment loses only the units in flight. */
static void collect_local(master_t *m) {
  nq__pool_batch_t batch;
  while (m->pool != NULL && nq__pool_collect(m->pool, &batch)) {
    if (batch.tag == LOCAL_COPY) {
      answer_local_copy(m, &batch);
    } else {
      for (size_t i = 0; batch.status == NQ_OK && i < batch.count; i++)
        finish_unit(m, &batch.results[i], 0);
      if (batch.status != NQ_OK && batch.status != NQ_ESTOPPED) /* abandoned: not done */
        note_failure(m, batch.status, 0);
    }
    nq__pool_release(m->pool);
  }
  flush_record(m);
}

/* This rank's threads, left with nothing to do once every unit is out, take
 * a copy of the oldest late batch, as an idle worker does (send_copy). */
static void copy_locally(master_t *m) {
  if (m->pool == NULL || m->local_copy != NULL || !m->exhausted || m->stopping ||
      m->failure != NQ_OK || local_batches(m) > 0 || m->batches_out == 0)
    return;
  nq__batch_t *batch = nq__backups_pick(&m->backups, m->copy_capacity);
  if (batch == NULL)
    return;
  const uint64_t *packed = nq__batch_packed(batch);
  for (uint64_t i = 0; i < packed[0]; i++)
    nq__work_unpack(&m->copy_units[i], packed + 1 + i * NQ_UNIT_WORDS);
  m->local_copy = batch;
  if (nq__pool_submit(m->pool, LOCAL_COPY, m->copy_units, packed[0], NQ_OK) != NQ_OK) {
    note_failure(m, NQ_ENOMEM, 0);
    m->local_copy = NULL;
    nq__backups_answer(&m->backups, batch, 0, NQ_ENOMEM, NULL, 0, NULL); /* frees its share */
  }
}

/* Keeps a unit waiting for each local thread, one unit a batch, so the
 * master's threads never hold more than they are about to solve. */
static void feed_local(master_t *m) {
  nq__work_t unit;
  while (m->pool != NULL && nq__pool_untaken(m->pool) < (size_t)m->threads && next_unit(m, &unit))
    if (nq__pool_submit(m->pool, 0, &unit, 1, NQ_OK) != NQ_OK)
      note_failure(m, NQ_ENOMEM, 0);
}

static size_t local_batches(master_t *m) {
  return m->pool != NULL ? nq__pool_batches(m->pool) : 0;
}

/* Tells the caller where the run stands, at most every progress_seconds
 * (and always when `final`). */
static void report_progress(master_t *m, int final) {
  const nq_count_options_t *options = m->run->options;
  if (options->progress == NULL)
    return;
  double now = MPI_Wtime();
  if (!final && now - m->last_progress < options->progress_seconds)
    return;
  m->last_progress = now;
  const nq_count_progress_t progress = {m->totals->units, m->run->slice_units,
                                        m->run->resumed.sums.units,
                                        (const mpz_t *)&m->totals->solutions, now - m->started,
                                        final};
  options->progress(&progress, options->progress_context);
}

/* The master's searcher asks this at coarse points of its unit: its own
 * stop flag, and every NQ_POLL_SECONDS the workers' results, answered at
 * once, and its other threads' needs, so that nobody waits for a long
 * unit to end and a worker's stop reaches the master inside one; the
 * journal's sync and the progress lines fall due inside one too (a unit
 * of a large board can take minutes).  Non-zero abandons the unit. */
static int master_cancelled(void *context) {
  master_t *m = context;
  int rc = check_stop(m);
  if (rc == NQ_OK && nq__run_poll_due(&m->last_poll)) {
    rc = serve_workers(m, 0);
    collect_local(m);
    feed_local(m);
    sync_journal_if_due(m);
    report_progress(m, 0);
  }
  if (rc != NQ_OK)
    m->hook_failed = 1;
  return m->stopping || m->hook_failed || local_copy_useless(m);
}

/* A master that drives a GPU (only when alone) solves a whole batch at a
 * time. */
static void solve_gpu_batch(master_t *m) {
  nq__work_t *units = m->local_units;
  nq_unit_result_t *results = m->local_results;
  size_t count = 0;
  while (count < m->local_batch && next_unit(m, &units[count]))
    count++;
  if (count == 0)
    return;
  int rc = nq__run_solve_batch(results, m->run, units, count);
  for (size_t i = 0; rc == NQ_OK && i < count; i++)
    finish_unit(m, &results[i], 0);
  flush_record(m);
  if (rc != NQ_OK)
    note_failure(m, rc, 0);
}

/* One step of this thread's own share: a unit of the local queue, or,
 * with nothing to take, a short wait for results or for the other
 * threads. */
static int solve_locally(master_t *m) {
  if (m->run->gpu != NULL) {
    if (!m->exhausted)
      solve_gpu_batch(m);
    else if (m->batches_out > 0)
      return serve_workers(m, 1);
    return NQ_OK;
  }
  collect_local(m);
  feed_local(m);
  copy_locally(m);
  if (m->pool != NULL && nq__pool_solve_one(m->pool, m->search)) {
    collect_local(m);
    return NQ_OK;
  }
  if (local_batches(m) > 0)
    nq__pool_wait(m->pool, NQ_POLL_SECONDS);
  else if (m->batches_out > 0)
    return serve_workers(m, 1);
  return NQ_OK;
}

/* *all: whether every peer that is not silent gave its last word. */
static int last_words_in(master_t *m, int *all) {
  *all = 1;
  for (int rank = 1; rank <= m->peer_count; rank++) {
    int in = 1;
    NQ_MPI_CHECK(m->comm, MPI_Test(&m->peers[rank - 1].last_word, &in, MPI_STATUS_IGNORE));
    *all = *all && in;
  }
  return NQ_OK;
}

/* Every rank's last word after its stop, within the patience: what
 * follows the count (the record's provenance, MPI_Finalize) waits for
 * every rank, and a rank stopped or hung after its last answer, holding
 * nothing, would hold the job for ever with its count unwritten.  A peer
 * that keeps it is silent. */
static int await_last_words(master_t *m) {
  const struct timespec pause = {0, 1000000L};
  const double since = MPI_Wtime();
  int all = 0;
  for (;;) {
    if (last_words_in(m, &all) != NQ_OK)
      return NQ_EMPI;
    if (all || MPI_Wtime() - since >= patience_seconds(m))
      break;
    nanosleep(&pause, NULL);
  }
  for (int rank = 1; !all && rank <= m->peer_count; rank++) {
    peer_t *peer = &m->peers[rank - 1];
    if (peer->last_word == MPI_REQUEST_NULL)
      continue;
    NQ_MPI_CHECK(m->comm, MPI_Cancel(&peer->last_word));
    NQ_MPI_CHECK(m->comm, MPI_Wait(&peer->last_word, MPI_STATUS_IGNORE));
    mark_silent(m, rank);
  }
  if (!all)
    m->silent_wait += MPI_Wtime() - since;
  return NQ_OK;
}

/* A silent peer may never take what was sent to it: nothing waits on it. */
static int stop_workers(master_t *m) {
  for (int rank = 1; rank <= m->peer_count; rank++) {
    peer_t *peer = &m->peers[rank - 1];
    if (!peer->silent) {
      NQ_MPI_CHECK(m->comm, MPI_Waitall(BATCHES_IN_FLIGHT, peer->sends, MPI_STATUSES_IGNORE));
      NQ_MPI_CHECK(m->comm, MPI_Irecv(NULL, 0, MPI_UINT64_T, rank, NQ_TAG_ENDED, m->comm,
                                      &peer->last_word));
    }
    NQ_MPI_CHECK(m->comm, MPI_Send(NULL, 0, MPI_UINT64_T, rank, NQ_TAG_STOP, m->comm));
  }
  return await_last_words(m);
}

/* The master's threads compute units themselves whenever no worker is
 * waiting for an answer, so one thread per core keeps every core busy.  After a failure or
 * a stop it hands out nothing more but still collects every batch in
 * flight before the stop, so no rank is left blocked.  Only an MPI error
 * leaves at once (main then aborts the job). */
static int distribute(master_t *m) {
  int rc = check_stop(m);
  if (rc == NQ_OK && m->peer_count > 0)
    rc = post_ring(m);
  for (int round = 0; rc == NQ_OK && round < BATCHES_IN_FLIGHT; round++)
    for (int rank = 1; rc == NQ_OK && rank <= m->peer_count; rank++)
      rc = send_batch(m, rank);
  while (rc == NQ_OK && (!m->exhausted || m->batches_out > 0 || local_batches(m) > 0) &&
         m->silent_count == 0) {
    rc = serve_workers(m, 0);
    if (rc == NQ_OK)
      rc = check_stop(m);
    if (rc == NQ_OK)
      rc = solve_locally(m);
    if (rc == NQ_OK && m->hook_failed)
      rc = NQ_EMPI;
    sync_journal_if_due(m);
    report_progress(m, 0);
  }
  flush_record(m);
  if (rc == NQ_OK && m->failure == NQ_OK)
    report_progress(m, 1);
  if (rc == NQ_OK && m->peer_count > 0)
    rc = cancel_ring(m);
  if (rc == NQ_OK)
    rc = stop_workers(m);
  return rc;
}

/* Receives posted at once: enough for a burst of answers from many peers,
 * within RING_BYTES however large a GPU rank's answers are. */
enum { RING_MAX = 64 };
#define RING_BYTES (16u << 20)
static int ring_size(const master_t *m) {
  size_t fit = RING_BYTES / ((size_t)m->inbox_words * sizeof(uint64_t));
  int size = m->peer_count < RING_MAX ? m->peer_count : RING_MAX;
  if ((size_t)size > fit)
    size = (int)fit;
  return size > 0 ? size : 1;
}

/* Buffers sized from what each peer takes per batch: a CPU rank's few
 * units or a GPU rank's thousands. */
static int allocate_buffers(master_t *m, const nq__run_t *run) {
  int largest = 1;
  for (int i = 0; i < m->peer_count; i++) {
    for (int slot = 0; slot < BATCHES_IN_FLIGHT; slot++)
      m->peers[i].sends[slot] = MPI_REQUEST_NULL;
    m->peers[i].last_word = MPI_REQUEST_NULL;
  }
  for (int i = 0; i < m->peer_count; i++) {
    peer_t *peer = &m->peers[i];
    peer->batch_units = run->batch_units[i + 1];
    if (peer->batch_units > largest)
      largest = peer->batch_units;
    for (int slot = 0; slot < BATCHES_IN_FLIGHT; slot++) {
      peer->slots[slot] = malloc((1 + (size_t)peer->batch_units * NQ_UNIT_WORDS) * sizeof(uint64_t));
      if (peer->slots[slot] == NULL)
        return NQ_ENOMEM;
    }
  }
  m->inbox_words = 2 + largest * NQ_RESULT_WORDS;
  m->ring_size = ring_size(m);
  m->inboxes = malloc((size_t)m->ring_size * (size_t)m->inbox_words * sizeof *m->inboxes);
  m->receives = malloc((size_t)m->ring_size * sizeof *m->receives);
  for (int i = 0; m->receives != NULL && i < m->ring_size; i++)
    m->receives[i] = MPI_REQUEST_NULL;
  m->local_batch = run->gpu ? (size_t)run->batch_units[0] : 1;
  m->local_units = malloc(m->local_batch * sizeof *m->local_units);
  m->local_results = malloc(m->local_batch * sizeof *m->local_results);
  m->copy_capacity = (size_t)largest;
  m->copy_units = malloc(m->copy_capacity * sizeof *m->copy_units);
  m->copy_answer = malloc(m->copy_capacity * NQ_RESULT_WORDS * sizeof *m->copy_answer);
  return m->inboxes && m->receives && m->local_units && m->local_results && m->copy_units &&
                 m->copy_answer
             ? NQ_OK
             : NQ_ENOMEM;
}

static void free_buffers(master_t *m) {
  for (int i = 0; i < m->peer_count; i++)
    for (int slot = 0; slot < BATCHES_IN_FLIGHT; slot++)
      free(m->peers[i].slots[slot]);
  free(m->inboxes);
  free(m->receives);
  free(m->local_units);
  free(m->local_results);
  free(m->copy_units);
  free(m->copy_answer);
}

int nq__master_run(nq__totals_t *totals, nq__master_outcome_t *outcome, const nq__run_t *run,
                   MPI_Comm comm) {
  int size = 1;
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  master_t *m = calloc(1, sizeof *m);
  peer_t *peers = calloc((size_t)size, sizeof *peers);
  if (m == NULL || peers == NULL) {
    free(m);
    free(peers);
    return NQ_ENOMEM;
  }
  m->run = run;
  m->comm = comm;
  m->totals = totals;
  m->peer_count = size - 1;
  m->peers = peers;
  m->started = m->last_progress = MPI_Wtime();
  m->threads = nq__run_threads(run);
  for (int rank = 0; rank < size; rank++)
    m->capacity += (uint64_t)run->batch_units[rank];
  m->units_left = run->slice_units - run->resumed.sums.units;
  nq__totals_init(&m->record);
  nq__backups_init(&m->backups, m->run->method->nodes_are_fixed);
  if (run->journal != NULL) {
    nq__totals_merge(totals, &run->resumed.sums);
    nq__journal_done_cursor_init(&m->done, &run->resumed);
  }
  int rc = allocate_buffers(m, run);
  if (rc == NQ_OK)
    rc = run->method->units_open(&m->listing, &run->params, run->options->stop);
  if (rc == NQ_ESTOPPED) /* the listing empty; the loop hears the stop at once */
    rc = NQ_OK;
  if (rc == NQ_OK)
    rc = nq__run_solver_open(&m->search, run);
  if (rc == NQ_OK)
    nq__run_solver_set_cancel(run, m->search, master_cancelled, m);
  if (rc == NQ_OK && run->gpu == NULL)
    rc = nq__pool_create(&m->pool, run, m->threads - 1);
  if (rc != NQ_OK)
    note_failure(m, rc, 0);
  rc = distribute(m);
  if (rc == NQ_OK)
    rc = m->failure != NQ_OK ? m->failure : m->stopping ? NQ_ESTOPPED : NQ_OK;
  /* A complete run has every unit of its slice: anything else is a bug
   * that must not pass for a total. */
  if (rc == NQ_OK && totals->units != run->slice_units)
    rc = NQ_ECHECK;
  *outcome = (nq__master_outcome_t){
      .failed_rank = m->failure != NQ_OK ? m->failed_rank : -1,
      .disagreeing_rank = m->failure == NQ_ECHECK ? m->disagreeing_rank : -1,
      .copies_sent = m->backups.copies_sent,
      .copies_confirmed = m->backups.copies_confirmed,
      .silent_ranks = m->silent_count,
      .first_silent_rank = m->silent_count > 0 ? m->first_silent : -1,
      .silent_wait_seconds = m->silent_wait};
  nq__pool_destroy(m->pool);
  if (m->listing != NULL)
    run->method->units_close(m->listing);
  nq__run_solver_close(run, m->search);
  nq__totals_clear(&m->record);
  nq__backups_clear(&m->backups);
  free_buffers(m);
  free(m->peers);
  free(m);
  return rc;
}
