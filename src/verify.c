/* --verify: once a count with a journal is complete, a random share of the
 * journal's batches is solved again, each on another rank than the one
 * that solved it, and compared with the record.  Every rank takes part:
 * rank 0 draws the sample from the journal and deals it out, each rank
 * solves its part with the CPU kernel, and rank 0 writes the verdicts
 * into the journal as check lines (docs/design.md), so that a later
 * resume or merge sees them. */

#include "verify.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "nqueens/units.h"
#include "random.h"

enum { SAMPLE_WORDS = 3, ANSWER_WORDS = 7 }; /* first, count, rank; index, 3 sums x 2 words */

/* A journaled batch drawn for checking, and its record's sums. */
typedef struct sample {
  uint64_t first, count;
  int recorded_by, checked_by;
  unsigned __int128 sums[3];
} sample_t;

typedef struct drawing {
  sample_t *items;
  size_t count, capacity;
  uint64_t state; /* splitmix64 */
  double share;
} drawing_t;



/* Each record is drawn with probability `share`, independently. */
static int draw_record(const nq__journal_line_t *line, void *context) {
  drawing_t *d = context;
  if (line->is_check || (double)(nq__random_next(&d->state) >> 11) * 0x1p-53 >= d->share)
    return NQ_OK;
  if (nq__grow((void **)&d->items, &d->capacity, d->count + 1, sizeof *d->items) != NQ_OK)
    return NQ_ENOMEM;
  sample_t *s = &d->items[d->count++];
  *s = (sample_t){.first = line->first, .count = line->count, .recorded_by = line->rank};
  const mpz_srcptr sums[3] = {line->sums->solutions, line->sums->unique_times_8,
                              line->sums->nodes};
  for (int i = 0; i < 3; i++)
    if (nq__totals_to_u128(&s->sums[i], sums[i]) != NQ_OK)
      return NQ_EOVERFLOW;
  return NQ_OK;
}

/* The first record alone. */
static int draw_first(const nq__journal_line_t *line, void *context) {
  drawing_t *d = context;
  return d->count == 0 && !line->is_check ? draw_record(line, context) : NQ_OK;
}

/* Rank 0: the sample, each batch dealt to a rank other than its own
 * (the next ones round the communicator in turn). */
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

static int draw_sample(drawing_t *d, const nq__run_t *run, int size, const int *node_of,
                       char *message) {
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  d->state = run->options->verify_seed;
  d->share = run->options->verify;
  int rc = nq__journal_visit(&state, message, run->options->checkpoint, draw_record, d);
  if (rc == NQ_OK && d->count == 0 && state.records > 0) {
    d->share = 1; /* a share that drew nothing still checks one batch: the first */
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
  return rc;
}

/* Rank 0: each rank's node, as the lowest rank sharing its memory. */
static int gather_nodes(int **node_of, int rank, int size, MPI_Comm comm) {
  MPI_Comm node;
  int leader = rank;
  NQ_MPI_CHECK(comm, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  NQ_MPI_CHECK(node, MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node));
  NQ_MPI_CHECK(comm, MPI_Comm_free(&node));
  *node_of = rank == 0 ? malloc((size_t)size * sizeof **node_of) : NULL;
  int allocated = rank != 0 || *node_of != NULL;
  NQ_MPI_CHECK(comm, MPI_Bcast(&allocated, 1, MPI_INT, 0, comm));
  if (!allocated)
    return NQ_ENOMEM; /* on every rank */
  NQ_MPI_CHECK(comm, MPI_Gather(&leader, 1, MPI_INT, *node_of, 1, MPI_INT, 0, comm));
  return NQ_OK;
}

/* This rank's share: the batches dealt to it, solved unit by unit in one
 * pass of the generator, their sums packed for rank 0. */
static int solve_mine(uint64_t *answers, size_t *answered, const uint64_t *dealt, size_t count,
                      const nq__run_t *run) {
  const nq_count_options_t *options = run->options;
  nq_unit_gen_t *gen = NULL;
  nq_search_t *search = NULL;
  int rc = nq_unit_gen_create(&gen, options->n, options->depth);
  if (rc == NQ_OK)
    rc = nq_kernel_create(&search, options->n, options->walk);
  *answered = 0;
  for (size_t k = 0; rc == NQ_OK && k < count; k++) {
    const uint64_t *batch = dealt + k * SAMPLE_WORDS;
    if ((int)batch[2] != run->rank)
      continue;
    const uint64_t first = batch[0], end = batch[0] + batch[1];
    unsigned __int128 sums[3] = {0, 0, 0};
    nq_unit_t unit;
    /* Batches come sorted by first id: the generator only moves forward. */
    for (;;) {
      int got = nq_unit_gen_next(gen, &unit);
      if (got <= 0) {
        rc = got < 0 ? got : NQ_EUNIT; /* the journal named a unit past the last */
        break;
      }
      if (unit.id < first)
        continue;
      nq_unit_result_t result;
      if ((rc = nq__run_solve(&result, search, run, &unit)) != NQ_OK)
        break;
      sums[0] += (unsigned __int128)result.weight * result.solutions;
      sums[1] += (unsigned __int128)result.weight * result.stabilizer_sum;
      sums[2] += result.nodes;
      if (unit.id + 1 >= end)
        break;
    }
    uint64_t *answer = answers + (*answered)++ * ANSWER_WORDS;
    answer[0] = k;
    for (int i = 0; i < 3; i++) {
      answer[1 + 2 * i] = (uint64_t)sums[i];
      answer[2 + 2 * i] = (uint64_t)(sums[i] >> 64);
    }
  }
  nq_kernel_destroy(search);
  if (gen != NULL)
    nq_unit_gen_destroy(gen);
  return rc;
}

static int by_first(const void *a, const void *b) {
  const sample_t *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

/* Every rank learns the sample: its batches, sorted, and who checks each. */
static int deal(uint64_t **dealt, uint64_t *count, drawing_t *d, int rank, MPI_Comm comm) {
  if (rank == 0) {
    qsort(d->items, d->count, sizeof *d->items, by_first);
    *count = d->count;
  }
  NQ_MPI_CHECK(comm, MPI_Bcast(count, 1, MPI_UINT64_T, 0, comm));
  *dealt = malloc((*count ? *count : 1) * SAMPLE_WORDS * sizeof **dealt);
  int failed = *dealt == NULL, any_failed = 0; /* every rank goes on, or none */
  NQ_MPI_CHECK(comm, MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm));
  if (any_failed)
    return NQ_ENOMEM;
  for (uint64_t k = 0; rank == 0 && k < *count; k++) {
    (*dealt)[k * SAMPLE_WORDS] = d->items[k].first;
    (*dealt)[k * SAMPLE_WORDS + 1] = d->items[k].count;
    (*dealt)[k * SAMPLE_WORDS + 2] = (uint64_t)d->items[k].checked_by;
  }
  NQ_MPI_CHECK(comm, MPI_Bcast(*dealt, (int)(*count * SAMPLE_WORDS), MPI_UINT64_T, 0, comm));
  return NQ_OK;
}

/* Rank 0: the verdicts, into the result and the journal. */
static int judge(nq_count_result_t *result, nq__journal_t *journal, const drawing_t *d,
                 const uint64_t *answers, size_t count) {
  nq__totals_t sums;
  nq__totals_init(&sums);
  int rc = NQ_OK;
  for (size_t a = 0; rc == NQ_OK && a < count; a++) {
    const uint64_t *answer = answers + a * ANSWER_WORDS;
    const sample_t *s = &d->items[answer[0]];
    unsigned __int128 found[3];
    for (int i = 0; i < 3; i++)
      found[i] = (unsigned __int128)answer[2 + 2 * i] << 64 | answer[1 + 2 * i];
    int agrees = found[0] == s->sums[0] && found[1] == s->sums[1] && found[2] == s->sums[2];
    result->verified_batches++;
    result->verified_units += s->count;
    if (!agrees && result->verify_differing++ == 0) {
      result->verify_first = s->first;
      result->verify_end = s->first + s->count;
    }
    mpz_ptr fields[3] = {sums.solutions, sums.unique_times_8, sums.nodes};
    for (int i = 0; i < 3; i++)
      nq__totals_from_u128(fields[i], found[i]);
    sums.units = s->count;
    rc = nq__journal_append_check(journal, s->first, &sums, s->checked_by,
                                  nq__journal_now_ms(), agrees);
  }
  nq__totals_clear(&sums);
  return rc != NQ_OK ? NQ_EIO : result->verify_differing > 0 ? NQ_ECHECK : NQ_OK;
}

static int gather_answers(uint64_t **all, size_t *all_count, const uint64_t *mine,
                          size_t mine_count, int rank, int size, MPI_Comm comm) {
  int words = (int)(mine_count * ANSWER_WORDS), *counts = NULL, *offsets = NULL;
  if (rank == 0) {
    counts = malloc((size_t)size * sizeof *counts);
    offsets = malloc((size_t)size * sizeof *offsets);
  }
  int ready = rank != 0 || (counts != NULL && offsets != NULL);
  NQ_MPI_CHECK(comm, MPI_Bcast(&ready, 1, MPI_INT, 0, comm));
  int total = 0;
  if (ready)
    NQ_MPI_CHECK(comm, MPI_Gather(&words, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  for (int r = 0; ready && rank == 0 && r < size; r++) {
    offsets[r] = total;
    total += counts[r];
  }
  *all = rank == 0 && ready ? malloc(((size_t)total + 1) * sizeof **all) : NULL;
  ready = ready && (rank != 0 || *all != NULL);
  NQ_MPI_CHECK(comm, MPI_Bcast(&ready, 1, MPI_INT, 0, comm));
  if (ready)
    NQ_MPI_CHECK(comm, MPI_Gatherv(mine, words, MPI_UINT64_T, *all, counts, offsets,
                                   MPI_UINT64_T, 0, comm));
  *all_count = (size_t)total / ANSWER_WORDS;
  free(counts);
  free(offsets);
  return ready ? NQ_OK : NQ_ENOMEM; /* on every rank */
}

int nq__verify_solve(nq__verify_t *v, nq_count_result_t *result, const nq__run_t *run,
                     MPI_Comm comm) {
  int rank = 0, size = 1, rc = NQ_OK;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  memset(v, 0, sizeof *v);
  drawing_t *d = calloc(1, sizeof *d);
  v->drawing = d;
  int *node_of = NULL;
  rc = gather_nodes(&node_of, rank, size, comm);
  if (d == NULL)
    rc = NQ_ENOMEM;
  else if (rank == 0 && rc == NQ_OK)
    rc = draw_sample(d, run, size, node_of, result->message);
  free(node_of);
  NQ_MPI_CHECK(comm, MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm));
  uint64_t *dealt = NULL, count = 0, *answers = NULL;
  size_t answered = 0;
  if (rc == NQ_OK)
    rc = deal(&dealt, &count, d, rank, comm);
  if (rc == NQ_OK) {
    size_t mine = 0; /* room for this rank's batches alone */
    for (uint64_t k = 0; k < count; k++)
      mine += (int)dealt[k * SAMPLE_WORDS + 2] == run->rank;
    answers = malloc((mine ? mine : 1) * ANSWER_WORDS * sizeof *answers);
    rc = answers != NULL ? solve_mine(answers, &answered, dealt, count, run) : NQ_ENOMEM;
  }
  int failed = rc != NQ_OK, any_failed = 0;
  NQ_MPI_CHECK(comm, MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm));
  if (!any_failed)
    rc = gather_answers(&v->answers, &v->answer_count, answers, answered, rank, size, comm);
  else if (rc == NQ_OK)
    rc = NQ_EUNIT;
  free(dealt);
  free(answers);
  return rc;
}

int nq__verify_judge(nq_count_result_t *result, nq__journal_t *journal, const nq__verify_t *v) {
  return judge(result, journal, v->drawing, v->answers, v->answer_count);
}

void nq__verify_clear(nq__verify_t *v) {
  drawing_t *d = v->drawing;
  if (d != NULL)
    free(d->items);
  free(d);
  free(v->answers);
  memset(v, 0, sizeof *v);
}
