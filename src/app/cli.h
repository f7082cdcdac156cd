#ifndef NQ_SRC_CLI_H
#define NQ_SRC_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "message.h"

#include "nqueens/kernel.h"

typedef enum nq__mode {
  NQ_MODE_COUNT = 0,
  NQ_MODE_LIST,
  NQ_MODE_FIRST,
  NQ_MODE_HELP,
  NQ_MODE_VERSION,
  NQ_MODE_STATUS,
  NQ_MODE_ESTIMATE,
  NQ_MODE_MERGE
} nq__mode_t;

typedef enum nq__format { NQ_FORMAT_TEXT = 0, NQ_FORMAT_JSON } nq__format_t;

/* --method: how a count is made.  JOIN is the method of
 * include/nqueens/join.h, for Q(n) and U(n); AUTO takes it where it measured
 * faster (NQ_CLI_JOIN_FROM_N..TO_N) for a count that asks for nothing
 * only the backtracker gives (nq__cli_method).  Both count through the
 * same run engine (nq_count_run). */
typedef enum nq__method_choice { NQ_METHOD_AUTO = 0, NQ_METHOD_BACKTRACK, NQ_METHOD_JOIN } nq__method_choice_t;

/* The boards on which the join counts faster than the backtracker's
 * fastest walk: side by side from n = 14 (docs/performance.md, "Where
 * auto switches"; at 13 and below the process's start is most of either
 * run) to 20 (docs/research.md, "Against the quadrant counter", on a Zen
 * 4), and by both methods' --estimate from n = 22 to 28, where its memory
 * stays within --memory; beyond 28 nothing was measured.  Plain numbers:
 * --help states them (nq__cli_print_help). */
#define NQ_CLI_JOIN_FROM_N 14
#define NQ_CLI_JOIN_TO_N 28
/* --memory's least: less would not hold a bucket's quarters at n = 20. */
#define NQ_CLI_LEAST_MEMORY ((size_t)1 << 20)
/* and its most, 1 PiB: room enough, and far from wrapping any size. */
#define NQ_CLI_MOST_MEMORY ((size_t)1 << 50)

typedef struct nq__cli {
  int n;
  nq__mode_t mode;
  nq__format_t format;
  uint64_t limit; /* --list only; 0 = no limit */
  int unique;
  nq_walk_t walk; /* --walk: counting only; AUTO unless given */
  nq__method_choice_t method; /* --method: counting only; AUTO unless given */
  int gpu;        /* --gpu: counting only */
  int threads;    /* -t, --threads T: counting only; 0 unless given */
  size_t memory;  /* --memory SIZE: counting and --estimate; 0 unless given */
  double progress; /* --progress SECS: counting only; 0 = off */
  int quiet;       /* -q, --quiet: no progress */
  const char *checkpoint; /* --checkpoint FILE: counting only; NULL unless given */
  const char *status;     /* --status FILE: the journal to report on */
  /* --estimate [SECS]: probe for SECS seconds (NQ_CLI_ESTIMATE_SECONDS
   * unless given), or with --estimate-samples K, K probes on each frame */
  double estimate_seconds;
  uint64_t estimate_samples; /* 0 unless given */
  uint64_t estimate_ranks;   /* --estimate-ranks P: 0 unless given */
  uint64_t estimate_strata;  /* --estimate-strata K: the join's; 0 unless given */
  uint64_t seed;             /* --seed S: NQ_CLI_ESTIMATE_SEED unless given */
  int seed_given;
  int slice_index, slice_count; /* --slice I/K: I - 1 and K; 0 and 0 unless given */
  double verify;                /* --verify FRACTION: counting with --checkpoint; 0 = off */
  const char *json_file;        /* --json FILE: counting or --merge; NULL unless given */
  char **merge_files;           /* --merge FILE...: the journals */
  int merge_count;
} nq__cli_t;

#define NQ_CLI_ESTIMATE_SECONDS 20.0
#define NQ_CLI_ESTIMATE_SEED 1
/* --estimate-samples at most: times the most strata (under 2^25 frames at
 * n = 64, at most half the join's sets of 32 columns) it stays within the
 * estimator's 64-bit count of probes. */
#define NQ_CLI_MOST_ESTIMATE_SAMPLES ((uint64_t)1 << 32)

/* Parses argv.  On a usage error returns NQ_EINVAL and writes one line
 * (without newline) naming the problem into `message`. */
int nq__cli_parse(nq__cli_t *cli, char message[static NQ__MESSAGE_SIZE], int argc, char **argv);

void nq__cli_print_help(FILE *out);

/* The method a count made with these options uses: --method's, or for
 * AUTO the join on the boards where it measured faster, unless an option
 * asks for what only the backtracker gives (--walk, --gpu).  The
 * journal, slices, verification and --json serve both. */
nq__method_choice_t nq__cli_method(const nq__cli_t *cli);

/* Whether the join could count with these options, as --method join
 * would accept them: a board up to NQ_JOIN_MAX_N and no option only the
 * backtracker gives. */
int nq__cli_join_possible(const nq__cli_t *cli);

#endif
