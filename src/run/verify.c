/* --verify: once a count with a journal is complete, a random share of the
 * journal's batches is solved again, each on another rank than the one
 * that solved it, and compared with the record.  Every rank takes part:
 * rank 0 draws the sample from the journal and deals it out, each rank
 * solves its part with the CPU kernel and sends each batch's sums as soon
 * as it has them, and rank 0 writes each verdict into the journal as a
 * check line (docs/design.md) as it comes in, so that a later resume
 * (which checks only the batches without a check line) or merge sees it.
 * A stop on any rank reaches all: rank 0 cancels, every rank abandons its
 * batch in hand, and the run ends with NQ_ESTOPPED. */

#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include "verify.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "journal_checks.h"
#include "messages.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "random.h"

enum { SAMPLE_WORDS = 3, ANSWER_WORDS = 7 }; /* first, count, rank; index, 3 sums x 2 words */

/* How long a stopping verification waits for a rank's last word before it
 * ends without it (a stopped or hung process, as the count's end). */
#define PATIENCE_SECONDS 10.0

/* A journaled batch drawn for checking, and its record's sums. */
typedef struct sample {
  uint64_t first, count;
  int recorded_by, checked_by;
  unsigned __int128 sums[3];
} sample_t;

/* A check line an earlier run wrote: its batch, and the rank that checked
 * it.  Its sums are held to the record by nq__journal_checks_confirm once
 * the journal is closed (count.c), for every check, drawn or not. */
typedef struct checked {
  uint64_t first, count;
  int rank;
} checked_t;

typedef struct drawing {
  sample_t *items;
  size_t count, capacity;
  checked_t *checked;
  size_t checked_count, checked_capacity;
  uint64_t state; /* splitmix64 */
  double share;
} drawing_t;


/* Check lines are kept; each record is drawn with probability `share`,
 * independently. */
static int draw_record(const nq__journal_line_t *line, void *context) {
  drawing_t *d = context;
  if (line->is_check) {
    if (nq__grow((void **)&d->checked, &d->checked_capacity, d->checked_count + 1,
                 sizeof *d->checked) != NQ_OK)
      return NQ_ENOMEM;
    checked_t *c = &d->checked[d->checked_count++];
    *c = (checked_t){line->first, line->count, line->rank};
    return NQ_OK;
  }
  if ((double)(nq__random_next(&d->state) >> 11) * 0x1p-53 >= d->share)
    return NQ_OK;
  if (nq__grow((void **)&d->items, &d->capacity, d->count + 1, sizeof *d->items) != NQ_OK)
    return NQ_ENOMEM;
  sample_t *s = &d->items[d->count++];
  *s = (sample_t){.first = line->first, .count = line->count, .recorded_by = line->rank};
  return nq__journal_line_sums(s->sums, line);
}

/* The first record alone (and the check lines). */
static int draw_first(const nq__journal_line_t *line, void *context) {
  drawing_t *d = context;
  if (line->is_check)
    return draw_record(line, context);
  return d->count == 0 ? draw_record(line, context) : NQ_OK;
}

/* The rank to check a batch `own` solved: the k-th batch tries the ranks
 * after `own` from the k-th on, round the communicator, and takes the
 * first on another node; with every rank on one node, the first other
 * rank; alone, itself. */
static int checker(int own, size_t k, int size, const int *node_of) {
  if (size == 1)
    return 0;
  const int start = (int)(k % (size_t)(size - 1));
  for (int step = 0; step < size - 1; step++) {
    int rank = (own + 1 + (start + step) % (size - 1)) % size;
    if (node_of[rank] != node_of[own])
      return rank;
  }
  return (own + 1 + start) % size;
}

static int by_first(const void *a, const void *b) {
  const sample_t *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

static int checked_by_first(const void *a, const void *b) {
  const checked_t *x = a, *y = b;
  if (x->first != y->first)
    return (x->first > y->first) - (x->first < y->first);
  return (x->count > y->count) - (x->count < y->count);
}

/* A batch whose sums differ from its record's: the first one is named. */
static void note_differing(nq__verify_outcome_t *outcome, const sample_t *s) {
  if (outcome->differing++ == 0) {
    outcome->first = s->first;
    outcome->end = s->first + s->count;
  }
}

/* The sample less the batches an earlier run checked, which count as
 * verified: their verdicts are the journal's, a "differ" one fails the
 * run all the same, and an "agree" whose record changed since fails it
 * once the journal is closed (count.c, refuse_marked_journal). */
static void drop_checked(drawing_t *d, nq__verify_outcome_t *outcome) {
  if (d->count == 0) /* qsort takes no NULL, even for nothing */
    return;
  qsort(d->items, d->count, sizeof *d->items, by_first);
  if (d->checked_count > 0)
    qsort(d->checked, d->checked_count, sizeof *d->checked, checked_by_first);
  size_t kept = 0;
  for (size_t i = 0; i < d->count; i++) {
    checked_t key = {.first = d->items[i].first, .count = d->items[i].count};
    const checked_t *found = d->checked_count > 0 ? bsearch(&key, d->checked, d->checked_count,
                                                            sizeof key, checked_by_first)
                                                  : NULL;
    if (found != NULL) {
      outcome->batches++;
      outcome->units += d->items[i].count;
      outcome->by_other_ranks += found->rank != d->items[i].recorded_by;
      continue;
    }
    d->items[kept++] = d->items[i];
  }
  d->count = kept;
}

/* Rank 0: the sample, each batch dealt to a rank other than its own, in
 * file order (so that a rerun deals it alike), then sorted by first id. */
static int draw_sample(drawing_t *d, nq__verify_outcome_t *outcome,
                       char message[static NQ__MESSAGE_SIZE], const nq__run_t *run,
                       int size, const int *node_of) {
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  d->state = run->options->verify_seed;
  d->share = run->options->verify;
  int rc = nq__journal_visit(&state, message, run->options->checkpoint, draw_record, d);
  if (rc == NQ_OK && d->count == 0 && state.records > 0) {
    d->share = 1; /* a share that drew nothing still checks one batch: the first */
    d->checked_count = 0;
    nq__journal_state_clear(&state);
    nq__journal_state_init(&state);
    d->state = ~run->options->verify_seed;
    rc = nq__journal_visit(&state, message, run->options->checkpoint, draw_first, d);
  }
  nq__journal_state_clear(&state);
  for (size_t k = 0; rc == NQ_OK && k < d->count; k++) {
    int own = d->items[k].recorded_by;
    d->items[k].checked_by = checker(own < size ? own : 0, k, size, node_of);
  }
  if (rc == NQ_OK)
    drop_checked(d, outcome);
  return rc;
}

/* Rank 0: each rank's node, as the lowest rank sharing its memory. */
static int gather_nodes(int **node_of, int rank, int size, MPI_Comm comm) {
  MPI_Comm node;
  int leader = rank;
  NQ_MPI_CHECK(comm, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int mpi_rc = MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node);
  NQ_MPI_CHECK(comm, MPI_Comm_free(&node)); /* before the check, or a failure leaks it */
  NQ_MPI_CHECK(comm, mpi_rc); /* reported on comm: node is MPI_COMM_NULL now */
  *node_of = rank == 0 ? malloc((size_t)size * sizeof **node_of) : NULL;
  int rc = nq__agree_with_rank0(rank != 0 || *node_of != NULL ? NQ_OK : NQ_ENOMEM, comm);
  if (rc != NQ_OK)
    return rc; /* on every rank */
  NQ_MPI_CHECK(comm, MPI_Gather(&leader, 1, MPI_INT, *node_of, 1, MPI_INT, 0, comm));
  return NQ_OK;
}

/* Every rank learns the sample: its batches, sorted, and who checks each. */
static int deal(nq__verify_t *v, const drawing_t *d, int rank, MPI_Comm comm) {
  if (rank == 0)
    v->count = d->count;
  NQ_MPI_CHECK(comm, MPI_Bcast(&v->count, 1, MPI_UINT64_T, 0, comm));
  v->dealt = malloc((v->count ? v->count : 1) * SAMPLE_WORDS * sizeof *v->dealt);
  int rc = nq__agree_worst(v->dealt == NULL ? NQ_ENOMEM : NQ_OK, comm); /* all go on, or none */
  if (rc != NQ_OK)
    return rc;
  for (uint64_t k = 0; rank == 0 && k < v->count; k++) {
    v->dealt[k * SAMPLE_WORDS] = d->items[k].first;
    v->dealt[k * SAMPLE_WORDS + 1] = d->items[k].count;
    v->dealt[k * SAMPLE_WORDS + 2] = (uint64_t)d->items[k].checked_by;
  }
  /* In pieces: an MPI count is an int, and a sample may pass 2^31 words. */
  const uint64_t words = v->count * SAMPLE_WORDS, piece = (uint64_t)1 << 30;
  for (uint64_t at = 0; at < words; at += piece) {
    const int length = (int)(words - at < piece ? words - at : piece);
    NQ_MPI_CHECK(comm, MPI_Bcast(v->dealt + at, length, MPI_UINT64_T, 0, comm));
  }
  return NQ_OK;
}

int nq__verify_draw(nq__verify_t *v, char message[static NQ__MESSAGE_SIZE],
                    const nq__run_t *run, MPI_Comm comm) {
  int rank = 0, size = 1, rc = NQ_OK;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  memset(v, 0, sizeof *v);
  v->outcome.first_silent_rank = -1;
  drawing_t *d = calloc(1, sizeof *d);
  v->drawing = d;
  int *node_of = NULL;
  rc = gather_nodes(&node_of, rank, size, comm);
  if (rank == 0)
    v->done = calloc((size_t)size, sizeof *v->done);
  if (d == NULL || (rank == 0 && v->done == NULL))
    rc = NQ_ENOMEM;
  else if (rank == 0 && rc == NQ_OK)
    rc = draw_sample(d, &v->outcome, message, run, size, node_of);
  free(node_of);
  rc = nq__agree_worst(rc, comm);
  return rc == NQ_OK ? deal(v, d, rank, comm) : rc;
}

/* ---- solving and judging, answer by answer ---- */

typedef struct verifier {
  const nq__run_t *run;
  MPI_Comm comm;
  int rank, size;
  const nq__verify_t *v;
  nq__verify_outcome_t *outcome; /* rank 0 */
  int status;   /* rank 0: the first failure (a unit's, the journal's), a stop, or OK */
  int stopping; /* rank 0: cancel sent; a worker: cancel received or its own stop */
  int *done;    /* rank 0: the workers whose last word came in */
  int done_count;
  int mpi_failed;
  double last_poll, stopping_since;
} verifier_t;

static int stop_asked(const verifier_t *w) { return nq__run_stop_asked(w->run); }

/* Rank 0: no more checking anywhere; the workers abandon theirs. */
static void begin_cancel(verifier_t *w, int why) {
  if (w->status == NQ_OK)
    w->status = why;
  if (w->stopping)
    return;
  w->stopping = 1;
  w->stopping_since = MPI_Wtime();
  for (int rank = 1; rank < w->size; rank++)
    if (!w->done[rank] &&
        MPI_Send(NULL, 0, MPI_UINT64_T, rank, NQ_TAG_VERIFY_CANCEL, w->comm) != MPI_SUCCESS)
      w->mpi_failed = 1;
}

/* Rank 0: an answer's verdict, into the outcome and a check line. */
static void judge(verifier_t *w, const uint64_t *answer) {
  const drawing_t *d = w->v->drawing;
  nq__verify_outcome_t *outcome = w->outcome;
  const sample_t *s = &d->items[answer[0]];
  unsigned __int128 found[3];
  for (int i = 0; i < 3; i++)
    found[i] = (unsigned __int128)answer[2 + 2 * i] << 64 | answer[1 + 2 * i];
  int agrees = nq__journal_sums_agree(found, s->sums, w->run->method->nodes_are_fixed);
  outcome->batches++;
  outcome->units += s->count;
  outcome->by_other_ranks += s->checked_by != s->recorded_by;
  if (!agrees)
    note_differing(outcome, s);
  nq__totals_t sums;
  nq__totals_init(&sums);
  mpz_ptr fields[3] = {sums.solutions, sums.unique_times_8, sums.nodes};
  for (int i = 0; i < 3; i++)
    nq__totals_from_u128(fields[i], found[i]);
  sums.units = s->count;
  if (nq__journal_append_check(w->run->journal, s->first, &sums, s->checked_by,
                               nq__journal_now_ms(), agrees) != NQ_OK)
    begin_cancel(w, NQ_EIO);
  nq__totals_clear(&sums);
}

/* Rank 0: every answer and last word that has come in. */
static void take_answers(verifier_t *w) {
  for (;;) {
    int answer = 0, last = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, NQ_TAG_VERIFY_ANSWER, w->comm, &answer, &status) !=
            MPI_SUCCESS ||
        (!answer &&
         MPI_Iprobe(MPI_ANY_SOURCE, NQ_TAG_VERIFY_DONE, w->comm, &last, &status) != MPI_SUCCESS)) {
      w->mpi_failed = 1;
      return;
    }
    if (!answer && !last)
      return;
    uint64_t words[ANSWER_WORDS] = {0};
    int tag = status.MPI_TAG, source = status.MPI_SOURCE;
    if (MPI_Recv(words, ANSWER_WORDS, MPI_UINT64_T, source, tag, w->comm, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS) {
      w->mpi_failed = 1;
      return;
    }
    if (tag == NQ_TAG_VERIFY_ANSWER && words[0] < w->v->count) {
      judge(w, words);
      continue;
    }
    int said = (int)(int64_t)words[0];
    w->done[source] = 1;
    w->done_count++;
    if (said != NQ_OK)
      begin_cancel(w, said);
  }
}

/* Asked at coarse points of rank 0's own units: the stop, the answers. */
static int judge_cancelled(void *context) {
  verifier_t *w = context;
  if (stop_asked(w))
    begin_cancel(w, NQ_ESTOPPED);
  if (nq__run_poll_due(&w->last_poll))
    take_answers(w);
  return w->stopping || w->mpi_failed;
}

/* Asked at coarse points of a worker's units: its stop, rank 0's cancel. */
static int worker_cancelled(void *context) {
  verifier_t *w = context;
  if (!w->stopping && stop_asked(w))
    w->stopping = 1;
  if (!w->stopping && nq__run_poll_due(&w->last_poll)) {
    int arrived = 0;
    if (MPI_Iprobe(0, NQ_TAG_VERIFY_CANCEL, w->comm, &arrived, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      w->mpi_failed = 1;
    w->stopping = arrived;
  }
  return w->stopping || w->mpi_failed;
}

/* Solves batch k (units first..first+count-1, the listing moving only
 * forward) into answer's sums. */
static int solve_batch(uint64_t answer[ANSWER_WORDS], void *listing, nq__run_solver_t *search,
                       const verifier_t *w, uint64_t k) {
  const uint64_t *batch = w->v->dealt + k * SAMPLE_WORDS;
  const uint64_t first = batch[0], end = batch[0] + batch[1];
  unsigned __int128 sums[3] = {0, 0, 0};
  nq__work_t unit;
  int rc = NQ_OK;
  for (;;) {
    int got = w->run->method->units_next(listing, &unit);
    if (got <= 0) {
      rc = got < 0 ? got : NQ_EUNIT; /* the journal named a unit past the last */
      break;
    }
    if (unit.id < first)
      continue;
    nq_unit_result_t result;
    if ((rc = nq__run_solve(&result, search, w->run, &unit)) != NQ_OK)
      break;
    sums[0] += (unsigned __int128)result.weight * result.solutions;
    sums[1] += (unsigned __int128)result.weight * result.stabilizer_sum;
    sums[2] += result.nodes;
    if (unit.id + 1 >= end)
      break;
  }
  answer[0] = k;
  for (int i = 0; i < 3; i++) {
    answer[1 + 2 * i] = (uint64_t)sums[i];
    answer[2 + 2 * i] = (uint64_t)(sums[i] >> 64);
  }
  return rc;
}

/* This rank's share, batch by batch: rank 0 judges its own answers, a
 * worker sends each to rank 0.  Stops at the first failure or stop. */
static int solve_share(verifier_t *w) {
  const nq__run_t *run = w->run;
  void *listing = NULL;
  nq__run_solver_t *search = NULL;
  int rc = run->method->units_open(&listing, &run->params, run->options->stop);
  if (rc == NQ_OK)
    rc = nq__run_solver_open(&search, run);
  if (rc == NQ_OK)
    nq__run_solver_set_cancel(run, search, w->rank == 0 ? judge_cancelled : worker_cancelled, w);
  for (uint64_t k = 0; rc == NQ_OK && k < w->v->count; k++) {
    if ((int)w->v->dealt[k * SAMPLE_WORDS + 2] != w->rank)
      continue;
    uint64_t answer[ANSWER_WORDS];
    if (w->rank == 0 ? judge_cancelled(w) : worker_cancelled(w))
      rc = NQ_ESTOPPED;
    if (rc == NQ_OK)
      rc = solve_batch(answer, listing, search, w, k);
    if (rc == NQ_OK && w->rank == 0)
      judge(w, answer);
    else if (rc == NQ_OK && MPI_Send(answer, ANSWER_WORDS, MPI_UINT64_T, 0,
                                     NQ_TAG_VERIFY_ANSWER, w->comm) != MPI_SUCCESS)
      rc = NQ_EMPI;
  }
  if (w->mpi_failed)
    rc = NQ_EMPI;
  nq__run_solver_close(run, search);
  if (listing != NULL)
    run->method->units_close(listing);
  return rc;
}

/* Rank 0, its own share done: the workers' answers and last words, until
 * every worker has spoken, or a stopping run's patience runs out. */
static void wait_for_workers(verifier_t *w) {
  const struct timespec pause = {0, 1000000L};
  while (!w->mpi_failed && w->done_count < w->size - 1) {
    if (stop_asked(w))
      begin_cancel(w, NQ_ESTOPPED);
    take_answers(w);
    if (w->stopping && MPI_Wtime() - w->stopping_since >= PATIENCE_SECONDS)
      break;
    nanosleep(&pause, NULL);
  }
  for (int rank = 1; rank < w->size; rank++)
    if (!w->done[rank] && w->outcome->silent_ranks++ == 0)
      w->outcome->first_silent_rank = rank;
}

/* The run's verdict on rank 0: a failure, a difference, a stop, or OK. */
static int verdict(const verifier_t *w) {
  if (w->status != NQ_OK && w->status != NQ_ESTOPPED)
    return w->status;
  if (w->outcome->differing > 0)
    return NQ_ECHECK;
  return w->status;
}

/* Rank 0: the final word to each worker that gave its last (a cancel sent
 * meanwhile reaches it first: messages between two ranks keep their
 * order). */
static int tell_workers(verifier_t *w, int rc) {
  int64_t word = rc;
  for (int rank = 1; rank < w->size; rank++)
    if (w->done[rank])
      NQ_MPI_CHECK(w->comm, MPI_Send(&word, 1, MPI_INT64_T, rank, NQ_TAG_VERIFY_VERDICT, w->comm));
  return rc;
}

/* A worker: its last word, then rank 0's verdict (a cancel may come
 * first). */
static int hear_verdict(verifier_t *w, int rc) {
  uint64_t said[ANSWER_WORDS] = {(uint64_t)(int64_t)rc};
  NQ_MPI_CHECK(w->comm, MPI_Send(said, 1, MPI_UINT64_T, 0, NQ_TAG_VERIFY_DONE, w->comm));
  for (;;) {
    int64_t word = 0;
    MPI_Status status;
    NQ_MPI_CHECK(w->comm, MPI_Recv(&word, 1, MPI_INT64_T, 0, MPI_ANY_TAG, w->comm, &status));
    if (status.MPI_TAG == NQ_TAG_VERIFY_VERDICT)
      return (int)word;
  }
}

int nq__verify_solve(nq__verify_t *v, const nq__run_t *run, MPI_Comm comm) {
  verifier_t w = {.run = run, .comm = comm, .v = v, .outcome = &v->outcome};
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &w.rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &w.size));
  w.last_poll = MPI_Wtime();
  if (w.rank != 0) {
    int rc = solve_share(&w);
    return rc == NQ_EMPI ? rc : hear_verdict(&w, rc);
  }
  w.done = v->done;
  int rc = solve_share(&w);
  if (rc != NQ_OK && rc != NQ_EMPI)
    begin_cancel(&w, rc);
  if (rc != NQ_EMPI)
    wait_for_workers(&w);
  return rc == NQ_EMPI || w.mpi_failed ? NQ_EMPI : tell_workers(&w, verdict(&w));
}

void nq__verify_clear(nq__verify_t *v) {
  drawing_t *d = v->drawing;
  if (d != NULL) {
    free(d->items);
    free(d->checked);
  }
  free(d);
  free(v->dealt);
  free(v->done);
  memset(v, 0, sizeof *v);
  v->outcome.first_silent_rank = -1;
}
