#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "nqueens/estimate.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bits.h"
#include "cpu_time.h"
#include "estimate_strata.h"
#include "join_units.h"
#include "method.h"
#include "mpi_check.h"
#include "nqueens/options.h"
#include "nqueens/error.h"
#include "nqueens/units.h"
#include "random.h"
#include "search.h"

/* ---- Random numbers: one stream per probe ------------------------------ */

typedef struct rng {
  uint64_t state;
} rng_t;

/* What every stream of a board's estimate starts from: (seed, n). */
static uint64_t board_stream(uint64_t seed, int n) {
  return nq__random_scramble(seed ^ nq__random_scramble((uint64_t)n + 0xbb67ae8584caa73bu));
}

/* Probe k's stream depends on (seed, n, k) alone, never on who runs it:
 * so the sample is the same on any number of ranks and threads.  n is in
 * it because with the same streams, boards of neighbouring sizes (whose
 * frames come in a similar order) drew similar paths, and their errors
 * came out alike: seed 1 was 1.1% high at both n = 26 and n = 27. */
static rng_t rng_for_probe(uint64_t seed, int n, uint64_t k) {
  rng_t rng = {nq__random_scramble(board_stream(seed, n) ^
                                   nq__random_scramble(k + 0x6a09e667f3bcc909u))};
  return rng;
}

/* The key of the order in which the join's stratum s draws its sets
 * without replacement: from (seed, n, s) alone, as the probes' streams. */
static uint64_t stratum_key(uint64_t seed, int n, uint64_t s) {
  return nq__random_scramble(board_stream(seed, n) ^ nq__random_scramble(s + 0x3c6ef372fe94f82bu));
}

static uint64_t rng_below(rng_t *rng, uint64_t bound) {
  return nq__random_below(&rng->state, bound);
}

/* ---- One probe --------------------------------------------------------- */

/* Up to this board size every probe counts its frame whole: a count takes
 * milliseconds there, and paths through a tiny board's few free rows take
 * so few values that a frame's probes often agree and measure no spread,
 * which made intervals of no width that missed Q(n). */
enum { WHOLE_FRAMES_UP_TO = 12 };

int nq_estimate_exact_rows(int n) {
  /* 14 rows: the exact counts are then large enough (tens of thousands of
   * nodes from n = 20 on) to run at a full count's speed, which is what
   * they measure, and still far below a frame's whole search.  Boards
   * from 13 to 19 keep n - 6 rows, so that their probes are not whole
   * searches.  docs/algorithm.md has the measurements. */
  if (n <= WHOLE_FRAMES_UP_TO)
    return n > 2 ? n : 2;
  int rows = n - 6;
  return rows > 14 ? 14 : rows;
}

/* The join's exact rows by default: its whole bottom half (the set
 * exactly) up to n = JOIN_WHOLE_SETS_UP_TO, where a set takes seconds;
 * above, JOIN_EXACT_ROWS rows under a random path, so that a probe takes
 * seconds and not the core-minute a Q(26) set or the half core-hour a
 * Q(28) set costs (--method auto counts those by the join).  Each probe's set is
 * listed once and sampled by JOIN_DESCENTS paths, which share the
 * listing's cost.  docs/algorithm.md has the measurements. */
enum { JOIN_WHOLE_SETS_UP_TO = 24, JOIN_EXACT_ROWS = 11, JOIN_DESCENTS = 8 };

int nq_estimate_join_exact_rows(int n) {
  return n <= JOIN_WHOLE_SETS_UP_TO ? (n > 2 ? n : 2) : JOIN_EXACT_ROWS;
}

/* What one probe says about its stratum, each quantity scaled to it. */
typedef struct probe_result {
  double of[NQ__QUANTITIES];
} probe_result_t;

enum { SUMS_WORDS = sizeof(nq__stratum_sums_t) / sizeof(double) };

/* What all probes share, read-only. */
typedef struct plan {
  const nq_estimate_options_t *options;
  const nq_unit_t *frames; /* the backtracker: one unit of depth 1 (or 0) per frame */
  uint64_t frame_count;    /* the strata: frames, or the join's blocks of sets */
  /* The join: its canonical column sets in increasing order, cut into
   * frame_count blocks of consecutive sets. */
  const uint64_t *sets;
  uint64_t set_count;
  /* The join's sets solved whole: each stratum draws its sets without
   * replacement, and no more than it has, so that one drawn whole is
   * counted exactly; probes from draws_end on draw nothing (0: no end).
   * Sets sampled by paths are drawn with replacement: their own values
   * vary, and a set drawn twice adds its paths' spread. */
  int without_replacement;
  uint64_t draws_end;
  int top_rows;
  int descents;            /* the join: paths down each sampled set's bottom walk */
  int count_depth;         /* the rows a real count's units pre-place */
  int exact_rows;
  uint64_t first_probe, probe_stride; /* this thread's probes: first, first + stride... */
  uint64_t probes_fixed;   /* probes in all, or 0: by time (the minimum where
                              every probe counts its frame whole) */
  uint64_t probes_minimum; /* by time: run at least these */
  struct timespec deadline;
} plan_t;

typedef struct prober {
  plan_t plan;
  nq_search_t *search;         /* the backtracker's */
  nq_join_scratch_t *scratch;  /* the join's */
  nq__stratum_sums_t *sums; /* frame_count entries */
  uint64_t exact_nodes;
  double exact_seconds;
  int rc;
} prober_t;

/* The first walk step a real count's unit starts at: the rows above it
 * are the unit's prefix, which the count does not count as nodes. */
static int first_counted_step(const nq_search_t *search, int count_depth) {
  int step = 0;
  while (step < search->walk_rows && search->walk_row[step] < count_depth)
    step++;
  return step;
}

/* The real kernel's count below `start`, with its nodes and CPU time
 * added to the prober's measure of the kernel's speed. */
static int count_exactly(nq_unit_result_t *below, prober_t *prober,
                         const nq__walk_start_t *start) {
  double started = nq__thread_seconds();
  int rc = nq__kernel_count_from(below, prober->search, start);
  prober->exact_seconds += nq__thread_seconds() - started;
  prober->exact_nodes += below->nodes;
  return rc;
}

/* Knuth's probe from the frame's first free row: each step takes one of
 * its free squares uniformly, so the path's probability is 1 / weight,
 * the product of the branchings, and weight x (what lies under the path)
 * is unbiased for the frame's total.  Nodes of a step: weight so far x
 * its free squares.  From `exact_rows` walked rows above the bottom the
 * real kernel counts the rest exactly, which removes their variance. */
static int probe(probe_result_t *out, prober_t *prober, const nq_unit_t *frame, rng_t *rng) {
  nq__walk_start_t at;
  int rc = nq__kernel_walk_start(&at, prober->search, frame);
  if (rc != NQ_OK)
    return rc;
  const nq_search_t *search = prober->search;
  const int walk_end = search->walk_rows - 3; /* the last row whose queens are nodes */
  const int counted = first_counted_step(search, prober->plan.count_depth);
  int stop = search->walk_rows - prober->plan.exact_rows;
  if (stop < counted)
    stop = counted;
  if (stop < at.step)
    stop = at.step;
  double weight = 1.0, nodes = 0.0;
  for (; at.step < stop; at.step++) {
    const uint64_t free_squares =
        search->walk_mask[at.step] & ~(at.cols | at.diag_left | at.diag_right);
    const int branching = bit_count(free_squares);
    if (at.step >= counted && at.step <= walk_end)
      nodes += weight * branching;
    if (branching == 0) {
      *out = (probe_result_t){{0.0, nodes, 0.0}};
      return NQ_OK;
    }
    const uint64_t queen = nth_lowest_bit(free_squares, rng_below(rng, (uint64_t)branching));
    weight *= branching;
    const int gap = at.step + 1 < search->walk_rows ? search->walk_gap[at.step] : 0;
    at.cols |= queen;
    at.diag_left = (at.diag_left | queen) << gap;
    at.diag_right = (at.diag_right | queen) >> gap;
  }
  nq_unit_result_t below;
  rc = count_exactly(&below, prober, &at);
  if (rc != NQ_OK)
    return rc;
  *out = (probe_result_t){{weight * (double)below.solutions * frame->frame.weight,
                           nodes + weight * (double)below.nodes, 0.0}};
  return NQ_OK;
}

/* The join's probe: one column set drawn uniformly from stratum s, its
 * tops listed and its bottom walk sampled by Knuth's descents (or walked
 * whole), timed.  The block's size x the set's estimate is unbiased for
 * the block's total (its solutions, work and time). */
static uint64_t block_first(const plan_t *plan, uint64_t s) {
  return nq__stratum_first(plan->set_count, plan->frame_count, s);
}

static uint64_t block_size(const plan_t *plan, uint64_t s) {
  return nq__stratum_size(plan->set_count, plan->frame_count, s);
}

/* Whether draw j of stratum s takes a set: without replacement, a
 * stratum has as many draws as sets. */
static int stratum_draws(const plan_t *plan, uint64_t s, uint64_t j) {
  return !plan->without_replacement || j < block_size(plan, s);
}

/* Draw j of stratum s: a set drawn uniformly, or without replacement the
 * j-th of the stratum's own order. */
static int probe_join(probe_result_t *out, prober_t *prober, uint64_t s, uint64_t j,
                      rng_t *rng) {
  const plan_t *plan = &prober->plan;
  const uint64_t first = block_first(plan, s), size = block_size(plan, s);
  *out = (probe_result_t){{0, 0, 0}};
  if (size == 0)
    return NQ_OK;
  const uint64_t pick =
      plan->without_replacement
          ? nq__random_permuted(j, size, stratum_key(plan->options->seed, plan->options->n, s))
          : rng_below(rng, size);
  const uint64_t set = plan->sets[first + pick];
  if (plan->options->n < 2) {
    out->of[NQ__OF_SOLUTIONS] = (double)size; /* the empty board, or n = 1's one queen */
    return NQ_OK;
  }
  nq__join_sample_t estimate, walked;
  int rc = nq__join_sample_unit(&estimate, &walked, prober->scratch, plan->options->n,
                                plan->top_rows, set, plan->exact_rows, plan->descents,
                                &rng->state);
  prober->exact_seconds += walked.seconds;
  prober->exact_nodes += (uint64_t)walked.bottom_nodes;
  *out = (probe_result_t){{(double)size * estimate.solutions,
                           (double)size * estimate.bottom_nodes, (double)size * estimate.seconds}};
  return rc;
}

/* ---- The probing threads ---------------------------------------------- */

static int past(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec ||
         (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static int stop_asked(const plan_t *plan) {
  return plan->options->stop != NULL && *plan->options->stop != 0;
}

static int more_probes(const plan_t *plan, uint64_t k) {
  if (stop_asked(plan) || (plan->draws_end > 0 && k >= plan->draws_end))
    return 0;
  if (plan->probes_fixed > 0)
    return k < plan->probes_fixed;
  return k < plan->probes_minimum || !past(&plan->deadline);
}

/* Probe k goes to frame k mod frames: rounds of one probe per frame, so
 * every frame gets its share whenever a timed run stops. */
static void *run_prober(void *argument) {
  prober_t *prober = argument;
  const plan_t *plan = &prober->plan;
  for (uint64_t k = plan->first_probe; prober->rc == NQ_OK && more_probes(plan, k);
       k += plan->probe_stride) {
    uint64_t frame = k % plan->frame_count, draw = k / plan->frame_count;
    if (!stratum_draws(plan, frame, draw))
      continue;
    rng_t rng = rng_for_probe(plan->options->seed, plan->options->n, k);
    probe_result_t found = {{0, 0, 0}};
    prober->rc = plan->sets != NULL ? probe_join(&found, prober, frame, draw, &rng)
                                    : probe(&found, prober, &plan->frames[frame], &rng);
    if (prober->rc != NQ_OK)
      break;
    nq__stratum_sums_t *sums = &prober->sums[frame];
    sums->probes += 1.0;
    for (int q = 0; q < NQ__QUANTITIES; q++) {
      sums->sum[q] += found.of[q];
      sums->squares[q] += found.of[q] * found.of[q];
    }
  }
  return NULL;
}

/* The join's cancel hook: a set in hand is abandoned on a stop, which at
 * record sizes would otherwise wait minutes for it. */
static int stop_raised(void *options) {
  const volatile sig_atomic_t *stop = ((const nq_estimate_options_t *)options)->stop;
  return stop != NULL && *stop != 0;
}

static int prober_init(prober_t *prober, const plan_t *plan, uint64_t first_probe) {
  memset(prober, 0, sizeof *prober);
  prober->plan = *plan;
  prober->plan.first_probe = first_probe;
  prober->sums = calloc(plan->frame_count, sizeof *prober->sums);
  if (prober->sums == NULL)
    return NQ_ENOMEM;
  int rc = plan->sets != NULL
               ? nq_join_scratch_create(&prober->scratch)
               : nq_kernel_create(&prober->search, plan->options->n, plan->options->walk);
  if (rc != NQ_OK) {
    free(prober->sums);
    prober->sums = NULL;
  } else if (prober->scratch != NULL) {
    nq__join_set_cancel(prober->scratch, stop_raised, (void *)plan->options);
    nq_join_scratch_limit(
        prober->scratch,
        nq_join_thread_bytes(plan->options->n, plan->options->threads, plan->options->memory));
  }
  return rc;
}

static void prober_clear(prober_t *prober) {
  free(prober->sums);
  nq_kernel_destroy(prober->search);
  nq_join_scratch_destroy(prober->scratch);
}

/* This rank's threads (the calling one among them) probe; their sums are
 * added in thread order into `sums`, so a fixed run adds them alike. */
static int probe_on_threads(double *sums, uint64_t *exact_nodes, double *exact_seconds,
                            const plan_t *plan, uint64_t first_probe, int threads) {
  prober_t *probers = calloc((size_t)threads, sizeof *probers);
  pthread_t *ids = calloc((size_t)threads, sizeof *ids);
  int rc = probers != NULL && ids != NULL ? NQ_OK : NQ_ENOMEM, ready = 0, started = 1;
  for (; rc == NQ_OK && ready < threads; ready++)
    rc = prober_init(&probers[ready], plan, first_probe + (uint64_t)ready);
  for (; rc == NQ_OK && started < threads; started++)
    if (pthread_create(&ids[started], NULL, run_prober, &probers[started]) != 0) {
      rc = NQ_ENOMEM;
      break;
    }
  if (rc == NQ_OK)
    run_prober(&probers[0]);
  for (int t = 1; t < started; t++)
    pthread_join(ids[t], NULL);
  for (int t = 0; t < ready; t++) {
    if (rc == NQ_OK)
      rc = probers[t].rc;
    const double *words = (const double *)probers[t].sums;
    for (uint64_t i = 0; i < plan->frame_count * SUMS_WORDS; i++)
      sums[i] += words[i];
    *exact_nodes += probers[t].exact_nodes;
    *exact_seconds += probers[t].exact_seconds;
    prober_clear(&probers[t]);
  }
  free(ids);
  free(probers);
  return rc;
}

/* ---- Frames, sums, the result ----------------------------------------- */

/* Whether every backtracker probe counts its whole frame, with no random
 * step: its exact rows cover the board and a count's units are the frames
 * (their rows above would be drawn).  More probes than the minimum would
 * only repeat the same counts, so a run, timed or fixed, stops there. */
static int probes_all_exact(const plan_t *plan) {
  return plan->exact_rows >= plan->options->n && plan->count_depth <= 1;
}

/* Every frame as a unit of depth 1 (the top queen placed): the strata. */
static int list_frames(nq_unit_t **out_frames, uint64_t *out_count, int n,
                       volatile sig_atomic_t *stop) {
  int depth = nq_units_depth(n) < 1 ? nq_units_depth(n) : 1;
  uint64_t count = 0;
  int rc = nq_units_total_until(&count, n, depth, stop); /* seconds at n = 64: it hears a stop */
  if (rc != NQ_OK)
    return rc;
  nq_unit_t *frames = malloc((size_t)count * sizeof *frames);
  nq_unit_gen_t *gen = NULL;
  if (frames == NULL || (rc = nq_unit_gen_create(&gen, n, depth)) != NQ_OK) {
    free(frames);
    return rc != NQ_OK ? rc : NQ_ENOMEM;
  }
  for (uint64_t i = 0; rc == NQ_OK && i < count && nq_unit_gen_next(gen, &frames[i]) == 1; i++)
    if (stop != NULL && *stop)
      rc = NQ_ESTOPPED;
  nq_unit_gen_destroy(gen);
  if (rc != NQ_OK) {
    free(frames);
    return rc;
  }
  *out_frames = frames;
  *out_count = count;
  return NQ_OK;
}

/* The share of a stratum's variance left by drawing m of its items
 * without replacement; 1 with replacement (population 0). */
static double unsampled_share(uint64_t population, uint64_t strata, uint64_t f, double m) {
  if (population == 0)
    return 1.0;
  double size = (double)nq__stratum_size(population, strata, f);
  return m < size ? 1.0 - m / size : 0.0;
}

nq_estimate_value_t nq__estimate_stratified(const nq__stratum_sums_t *sums, uint64_t strata,
                                            int of, uint64_t population) {
  double total = 0.0, variance = 0.0, shares_squared = 0.0;
  for (uint64_t f = 0; f < strata; f++) {
    const double m = sums[f].probes;
    const double sum = sums[f].sum[of], squares = sums[f].squares[of];
    if (m < 1.0)
      continue;
    total += sum / m;
    if (m >= 2.0) {
      double spread = (squares - sum * sum / m) / (m - 1.0);
      double share = spread > 0.0 ? spread / m * unsampled_share(population, strata, f, m) : 0.0;
      variance += share;
      shares_squared += share * share / (m - 1.0);
    }
  }
  double degrees = shares_squared > 0.0 ? variance * variance / shares_squared : INFINITY;
  /* Shares so large that their squares overflow leave inf / inf: no
   * bound known, as with no spread. */
  return (nq_estimate_value_t){total, sqrt(variance), isnan(degrees) ? INFINITY : degrees};
}

static void fill_result(nq_estimate_result_t *result, const nq__stratum_sums_t *sums,
                        const plan_t *plan, uint64_t exact_nodes, double exact_seconds) {
  const uint64_t population = plan->without_replacement ? plan->set_count : 0;
  result->solutions =
      nq__estimate_stratified(sums, plan->frame_count, NQ__OF_SOLUTIONS, population);
  result->nodes = nq__estimate_stratified(sums, plan->frame_count, NQ__OF_NODES, population);
  result->frames = plan->frame_count;
  result->probes = 0;
  result->min_probes = UINT64_MAX;
  for (uint64_t f = 0; f < plan->frame_count; f++) {
    uint64_t m = (uint64_t)sums[f].probes;
    result->probes += m;
    if (m < result->min_probes)
      result->min_probes = m;
  }
  result->exact_nodes = exact_nodes;
  result->exact_seconds = exact_seconds;
  result->nodes_per_second = exact_seconds > 0.0 ? (double)exact_nodes / exact_seconds : 0.0;
  /* The join's time: the sets' own CPU time, estimated as the counts are
   * (its nodes cost more or less as the words behind them vary); the
   * backtracker's: its nodes at the rate its exact counts ran. */
  if (plan->sets != NULL)
    result->core_seconds =
        nq__estimate_stratified(sums, plan->frame_count, NQ__OF_SECONDS, population);
  else if (result->nodes_per_second > 0.0)
    result->core_seconds = nq_estimate_divided(result->nodes, result->nodes_per_second);
  result->method = plan->sets != NULL ? NQ_COUNT_JOIN : NQ_COUNT_BACKTRACK;
  result->counted = plan->sets != NULL
                        ? plan->without_replacement && result->probes == plan->set_count
                        : probes_all_exact(plan);
  result->units = plan->sets != NULL ? plan->set_count : 0;
  /* Rows past the board's (at least 2 are asked for, on boards of 0 and 1
   * too) are not rows the probes counted. */
  result->exact_rows = plan->exact_rows < plan->options->n ? plan->exact_rows : plan->options->n;
  result->descents = plan->sets != NULL ? plan->descents : 0;
  result->memory = plan->sets != NULL ? nq_join_rank_bytes(plan->options->memory) : 0;
  result->depth = plan->count_depth;
  result->walk = nq_walk_resolve(plan->options->walk, plan->options->n);
}

/* ---- The collective run ----------------------------------------------- */

static int options_valid(const nq_estimate_options_t *options) {
  int provided = MPI_THREAD_SINGLE;
  if (options->n < 0 || options->n > NQ_MAX_N || nq_walk_name(options->walk) == NULL)
    return 0;
  if (options->method != NQ_COUNT_BACKTRACK &&
      (options->method != NQ_COUNT_JOIN || options->n > NQ_JOIN_MAX_N ||
       options->walk != NQ_WALK_AUTO))
    return 0;
  if (options->exact_rows < 0 || options->exact_rows == 1)
    return 0;
  if (options->strata > 0 && options->method != NQ_COUNT_JOIN)
    return 0;
  if (options->probes == 0 ? !(options->seconds > 0.0) : options->probes < NQ_ESTIMATE_MIN_PROBES)
    return 0;
  if (options->threads < 0 || options->threads > NQ_COUNT_MAX_THREADS)
    return 0;
  return options->threads <= 1 ||
         (MPI_Query_thread(&provided) == MPI_SUCCESS && provided >= MPI_THREAD_FUNNELED);
}

static int walk_runs_everywhere(const nq_estimate_options_t *options, MPI_Comm comm) {
  return nq__agree_worst(nq_walk_supported(options->walk, options->n) ? NQ_OK : NQ_ENOTSUP,
                         comm);
}

static void set_deadline(struct timespec *deadline, double seconds) {
  clock_gettime(CLOCK_MONOTONIC, deadline);
  double whole = floor(seconds);
  deadline->tv_sec += (time_t)whole;
  deadline->tv_nsec += (long)((seconds - whole) * 1e9);
  if (deadline->tv_nsec >= 1000000000L) {
    deadline->tv_sec++;
    deadline->tv_nsec -= 1000000000L;
  }
}

/* The probes' sums: this rank's and, on rank 0, everyone's (NULL where
 * the allocation failed: the rank still takes part in every collective). */
typedef struct probe_sums {
  double *mine, *all;
  size_t words;
} probe_sums_t;

/* Collective: this rank's probes, then every rank learns whether any
 * failed (the worst code), then rank 0 the sums.  It owns no memory, so
 * that NQ_MPI_CHECK's early return leaks nothing. */
static int probe_and_sum(nq_estimate_result_t *result, plan_t *plan, const probe_sums_t *sums,
                         int threads, int before, int total, MPI_Comm comm) {
  int rank = 0, size = 1;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  uint64_t exact_nodes = 0, all_exact_nodes = 0;
  const size_t words = sums->words;
  int rc = sums->mine != NULL && sums->all != NULL ? NQ_OK : NQ_ENOMEM;
  NQ_MPI_CHECK(comm, MPI_Barrier(comm));
  double started = MPI_Wtime();
  set_deadline(&plan->deadline, plan->options->seconds);
  if (rc == NQ_OK)
    rc = probe_on_threads(sums->mine, &exact_nodes, &sums->mine[words - 1], plan,
                          (uint64_t)before, threads);
  if (rc == NQ_OK && stop_asked(plan))
    rc = NQ_ESTOPPED; /* the probes so far are no estimate of the budget asked */
  if ((rc = nq__agree_worst(rc, comm)) != NQ_OK)
    return rc;
  NQ_MPI_CHECK(comm, MPI_Reduce(sums->mine, sums->all, (int)words, MPI_DOUBLE, MPI_SUM, 0, comm));
  NQ_MPI_CHECK(comm, MPI_Reduce(&exact_nodes, &all_exact_nodes, 1, MPI_UINT64_T, MPI_SUM, 0, comm));
  if (rank == 0) {
    fill_result(result, (const nq__stratum_sums_t *)sums->all, plan, all_exact_nodes,
                sums->all[words - 1]);
    result->ranks = size;
    result->threads = total;
    result->seconds = MPI_Wtime() - started;
  }
  return NQ_OK;
}

/* Probes on every thread of every rank, then the sums on rank 0.  Thread
 * t of rank r takes probes g, g + G, g + 2G... where g is its place among
 * all G threads. */
static int probe_everywhere(nq_estimate_result_t *result, plan_t *plan, int threads,
                            MPI_Comm comm) {
  int rank = 0, before = 0, total = threads;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Exscan(&threads, &before, 1, MPI_INT, MPI_SUM, comm));
  NQ_MPI_CHECK(comm, MPI_Allreduce(&threads, &total, 1, MPI_INT, MPI_SUM, comm));
  if (rank == 0)
    before = 0; /* MPI_Exscan leaves rank 0's undefined */
  plan->probe_stride = (uint64_t)total;
  probe_sums_t sums = {.words = (size_t)plan->frame_count * SUMS_WORDS + 1};
  sums.mine = calloc(sums.words, sizeof *sums.mine);
  sums.all = calloc(sums.words, sizeof *sums.all);
  int rc = probe_and_sum(result, plan, &sums, threads, before, total, comm);
  free(sums.mine);
  free(sums.all);
  return rc;
}

static uint64_t divided_up(uint64_t items, uint64_t by) {
  return items / by + (items % by != 0);
}

/* The join's strata: blocks of consecutive sets in increasing order
 * (their cost varies along it), as many as asked (by default
 * NQ_ESTIMATE_JOIN_STRATA) but at least 2 sets a block, so that each has
 * a spread to measure.  Where sets are drawn without replacement and the
 * draws every stratum is sure of (its fixed probes, or a timed run's
 * first rounds) could take all the sets, the blocks are cut that small
 * instead: every set is solved once, and the estimate is the count. */
static uint64_t join_strata(const nq_estimate_options_t *options, uint64_t sets,
                            int without_replacement) {
  uint64_t strata = options->strata > 0 ? options->strata : NQ_ESTIMATE_JOIN_STRATA;
  uint64_t sure = options->probes > 0 ? options->probes : NQ_ESTIMATE_MIN_PROBES;
  uint64_t whole = divided_up(sets, sure); /* blocks of at most `sure` sets */
  if (without_replacement && whole <= strata)
    return whole > 0 ? whole : 1;
  if (strata > sets / 2)
    strata = sets / 2;
  return strata > 0 ? strata : 1;
}

/* Without replacement, the probes past every stratum's last set draw
 * nothing: rounds of one a stratum, as many as the largest block's sets
 * (blocks differ by one set at most). */
static uint64_t join_draws_end(const plan_t *plan) {
  const uint64_t strata = plan->frame_count;
  uint64_t largest = divided_up(plan->set_count, strata), end = 0;
  if (!plan->without_replacement || __builtin_mul_overflow(largest, strata, &end))
    return 0;
  return end;
}

/* The probes in all, fixed or at least: a product past 64 bits would wrap
 * to fewer probes than frames and leave frames unprobed, an estimate
 * silently too low.  Every rank computes the same, so all agree. */
static int set_probe_budget(plan_t *plan) {
  if (__builtin_mul_overflow(plan->options->probes, plan->frame_count, &plan->probes_fixed) ||
      __builtin_mul_overflow((uint64_t)NQ_ESTIMATE_MIN_PROBES, plan->frame_count,
                             &plan->probes_minimum))
    return NQ_EINVAL;
  return NQ_OK;
}

static int estimate_join(nq_estimate_result_t *result, const nq_estimate_options_t *options,
                         MPI_Comm comm) {
  plan_t plan = {.options = options,
                 .top_rows = nq__method_join.default_unit_param(options->n),
                 .exact_rows = options->exact_rows > 0 ? options->exact_rows
                                                       : nq_estimate_join_exact_rows(options->n),
                 .descents = JOIN_DESCENTS};
  if (plan.exact_rows >= options->n - plan.top_rows)
    plan.descents = 0; /* no row left to draw: each set whole */
  /* Strata along the sets' increasing order, which their cost follows. */
  uint64_t *sets = NULL;
  int rc = nq__join_list_sets(&sets, &plan.set_count, options->n, plan.top_rows, options->stop);
  if ((rc = nq__agree_worst(rc, comm)) != NQ_OK) {
    free(sets);
    return rc;
  }
  plan.sets = sets;
  plan.without_replacement = plan.descents == 0;
  plan.frame_count = join_strata(options, plan.set_count, plan.without_replacement);
  plan.draws_end = join_draws_end(&plan);
  rc = set_probe_budget(&plan);
  if (rc == NQ_OK)
    rc = probe_everywhere(result, &plan, options->threads > 1 ? options->threads : 1, comm);
  free(sets);
  return rc;
}

static int estimate_on(nq_estimate_result_t *result, const nq_estimate_options_t *options,
                       MPI_Comm comm) {
  if (options->method == NQ_COUNT_JOIN)
    return estimate_join(result, options, comm);
  int rc = walk_runs_everywhere(options, comm);
  if (rc != NQ_OK)
    return rc;
  plan_t plan = {.options = options,
                 .count_depth = nq_units_depth(options->n),
                 .exact_rows = options->exact_rows > 0 ? options->exact_rows
                                                       : nq_estimate_exact_rows(options->n)};
  nq_unit_t *frames = NULL;
  rc = list_frames(&frames, &plan.frame_count, options->n, options->stop);
  if ((rc = nq__agree_worst(rc, comm)) != NQ_OK) {
    free(frames);
    return rc;
  }
  plan.frames = frames;
  rc = set_probe_budget(&plan);
  if (rc == NQ_OK && probes_all_exact(&plan))
    plan.probes_fixed = plan.probes_minimum;
  if (rc == NQ_OK)
    rc = probe_everywhere(result, &plan, options->threads > 1 ? options->threads : 1, comm);
  free(frames);
  return rc;
}

int nq_estimate_run(nq_estimate_result_t *result, const nq_estimate_options_t *options,
                    MPI_Comm comm) {
  memset(result, 0, sizeof *result);
  if (!options_valid(options))
    return NQ_EINVAL;
  MPI_Comm own;
  int rc = nq__private_comm(&own, comm);
  if (rc != NQ_OK)
    return rc;
  rc = estimate_on(result, options, own);
  /* After NQ_EMPI another rank may never come to free it with us. */
  if (rc != NQ_EMPI && nq__private_comm_free(&own) != NQ_OK)
    rc = NQ_EMPI;
  return rc;
}
