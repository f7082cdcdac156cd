#ifndef NQUEENS_ESTIMATE_H
#define NQUEENS_ESTIMATE_H

/* Estimates of what a count would find and cost, long before it could
 * finish: Knuth's random probes (1975) down the search tree of every
 * frame, stratified by frame, with the bottom rows under each probe
 * counted exactly by the real kernel.  docs/algorithm.md, "Estimating a
 * count", gives the method and why it is unbiased. */

#include <mpi.h>
#include <signal.h>
#include <stdint.h>

#include "nqueens/options.h"
#include "nqueens/kernel.h"

/* Probes per frame at least: fewer leave no variance to measure. */
#define NQ_ESTIMATE_MIN_PROBES 2
/* The join's strata unless asked otherwise. */
#define NQ_ESTIMATE_JOIN_STRATA 64

typedef struct nq_estimate_options {
  int n;
  /* The count to predict: the backtracker's (Knuth's probes, below), or
   * the join's: its canonical column sets in increasing order cut into up
   * to `strata` strata of consecutive sets, each probe drawing one set of
   * a stratum uniformly, listing its tops and sampling its bottom walk by
   * Knuth's paths down to `exact_rows` rows above the end, the rest
   * walked exactly, timed (walk does not apply).  Sets solved whole are
   * drawn without replacement: a stratum's draws end when all its sets
   * are solved, and where the probes sure to run could solve every set
   * the strata are cut so that they do (the estimate is then the count,
   * with no error). */
  nq_count_method_t method;
  /* The join's strata: 0 for up to NQ_ESTIMATE_JOIN_STRATA; never more
   * than half its sets, unless cut to solve every set (above).  The
   * backtracker's are its frames: 0 only. */
  uint64_t strata;
  /* How many probes.  probes > 0: exactly that many on each frame (at
   * least NQ_ESTIMATE_MIN_PROBES; a join stratum of fewer sets solved
   * whole: each of its sets once), whatever the time, so that a fixed
   * seed gives a fixed result.  probes == 0: rounds of one probe per
   * frame until `seconds` have passed on each rank (at least
   * NQ_ESTIMATE_MIN_PROBES rounds, however long they take). */
  uint64_t probes;
  double seconds;
  uint64_t seed;   /* probe k of the run is drawn from (seed, k) alone */
  int exact_rows;  /* walked rows left to the exact count under a probe;
                      0: nq_estimate_exact_rows(n), for the join
                      nq_estimate_join_exact_rows(n); at least 2 */
  int threads;     /* probing threads on each rank; 0 or 1: one.  More than
                      one needs MPI_THREAD_FUNNELED at least */
  nq_walk_t walk;  /* the walk the exact counts (and so the rate) use */
  size_t memory;   /* the join: a rank's tables bound, as a count's
                      (nq_count_options.memory; 0: the default), so the
                      probes cost what the count's parts will */
  /* When set, each rank's threads start no more probes once *stop is not
   * 0 (a signal handler sets it), and the run returns NQ_ESTOPPED on every
   * rank without a result.  NULL: only the budget ends it. */
  volatile sig_atomic_t *stop;
} nq_estimate_options_t;

/* An estimate and its standard error (the square root of the estimated
 * variance of the estimate, from the probes' sample variance), and the
 * degrees of freedom of that error: Welch and Satterthwaite's effective
 * count for a sum of strata's sample variances, from the fewest probes
 * any stratum with a spread has, less one, to all probes less one a
 * stratum.  A 95% interval is value +- t(0.975, degrees) * error (Student's
 * t): 1.96 instead makes intervals that hold the truth too rarely when
 * the degrees are few, as in a join estimate of a few strata of 2 sets
 * (docs/algorithm.md).  INFINITY where no stratum has a spread. */
typedef struct nq_estimate_value {
  double value, error, degrees;
} nq_estimate_value_t;

/* The estimate of a quantity divided by a constant (nodes by a rate, one
 * core's time by cores): its error alike, its degrees the same. */
static inline nq_estimate_value_t nq_estimate_divided(nq_estimate_value_t estimate, double by) {
  return (nq_estimate_value_t){estimate.value / by, estimate.error / by, estimate.degrees};
}

/* What the probes predict, valid on rank 0 of the communicator. */
typedef struct nq_estimate_result {
  nq_estimate_value_t solutions; /* Q(n) */
  nq_estimate_value_t nodes;     /* queens a full count's search places: the
                                    count's "nodes", with the units of
                                    nq_units_depth(n) */
  /* Nodes per second of one thread of the real kernel, measured on the
   * exact counts under the probes (their CPU time); 0 when they were too
   * small to time. */
  double nodes_per_second;
  uint64_t exact_nodes;    /* nodes those exact counts placed */
  double exact_seconds;    /* their CPU time, all threads and ranks */
  nq_estimate_value_t core_seconds; /* nodes / nodes_per_second; the join: its
                                       sets' CPU time, estimated as the counts */
  nq_count_method_t method;
  /* Every stratum solved whole, nothing drawn at random (the join's sets
   * all drawn, or the backtracker's every frame counted): the solutions
   * and nodes are the count's, exact, with no error. */
  int counted;
  uint64_t units;          /* the join: its canonical column sets (0: the backtracker) */
  uint64_t frames;         /* strata: one per canonical frame; the join's blocks of sets */
  uint64_t probes;         /* probes in all */
  uint64_t min_probes;     /* the fewest any frame got */
  int exact_rows;          /* as used, at most n */
  int descents;            /* the join: paths down each sampled set's bottom
                              walk; 0: each set solved whole */
  size_t memory;           /* the join: its tables' bound on a rank (options.memory
                              resolved), which the probes kept as a count will */
  int depth;               /* the units' depth the node count refers to */
  int ranks;
  int threads;             /* probing threads over all ranks */
  nq_walk_t walk;          /* rank 0's, resolved */
  double seconds;          /* the whole estimate, wall time */
} nq_estimate_result_t;

/* The exact rows nq_estimate_run takes by default for board size n: the
 * backtracker's (the whole board up to n = 12, where every probe then
 * counts its frame and the estimate is the count), and the join's (rows
 * of its bottom half walked exactly under a random path through the rest;
 * n or more: each sampled set whole). */
int nq_estimate_exact_rows(int n);
int nq_estimate_join_exact_rows(int n);

/* Collective over `comm`.  The probes of the run depend on the seed, n,
 * exact_rows and the probe budget only, never on the ranks and threads
 * that share them (with probes > 0 the result is the same on any number
 * of ranks, up to the rounding of the sums).  Returns 0, or on every rank
 * NQ_EINVAL for options no rank can run (n outside 0..NQ_MAX_N, probes 1,
 * probes times the strata past 2^64 - 1, seconds <= 0 without probes,
 * exact_rows 1 or below 0, strata for the backtracker) and NQ_ENOTSUP
 * when an explicit walk cannot run on some rank; NQ_EOVERFLOW if an exact
 * count wrapped; NQ_ENOMEM; NQ_ESTOPPED when options.stop was raised on
 * any rank; NQ_EMPI on the rank whose MPI call failed. */
int nq_estimate_run(nq_estimate_result_t *result, const nq_estimate_options_t *options,
                    MPI_Comm comm);

#endif
