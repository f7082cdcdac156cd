#define _POSIX_C_SOURCE 200809L /* PATH_MAX, in app_modes.h */

/* The command line on every rank: the options parsed and agreed between
 * the ranks, then the mode (app_modes.h) run. */
#include "app.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "app_modes.h"
#include "cli.h"
#include "nqueens/count.h"
#include "nqueens/error.h"
#include "status.h"
#include "stop_signals.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

/* Everything written must reach the stream: a full disk is a failure.
 * Help and version are printed straight to the stream, one call each,
 * with errno cleared before: it then holds the reason of a failed write,
 * whether the print or the flush made it. */
static int flushed(FILE *out, FILE *err, const char *what) {
  if (fflush(out) == 0 && !ferror(out))
    return NQ_EXIT_OK;
  return nq__app_runtime_failure(err, what, NQ_EIO, errno);
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

/* The file names as one word: whether each is given and what it says
 * (NUL included, so that "ab" + "c" differs from "a" + "bc").  Ranks given
 * other journals or records would act on different files, and one given
 * --checkpoint where another is not waits forever for the others. */
static long long names_digest(const nq__cli_t *cli) {
  const char *names[] = {cli->checkpoint, cli->status, cli->json_file};
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const unsigned char given = names[i] != NULL;
    crc = crc32(crc, &given, 1);
    if (given)
      crc = crc32(crc, (const Bytef *)names[i], (uInt)strlen(names[i]) + 1);
  }
  for (int i = 0; i < cli->merge_count; i++)
    crc = crc32(crc, (const Bytef *)cli->merge_files[i], (uInt)strlen(cli->merge_files[i]) + 1);
  return (long long)crc;
}

/* The parsed options as numbers: ranks that read the same command line
 * encode the same words. */
enum { CLI_WORDS = 22 };
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
  words[19] = (long long)cli->memory; /* at most NQ_CLI_MOST_MEMORY */
  words[20] = cli->merge_count;
  words[21] = names_digest(cli);
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
    volatile sig_atomic_t *stop = nq__stop_signals_catch(nq__app_started_by_launcher());
    if (cli.mode == NQ_MODE_ESTIMATE)
      return nq__app_run_estimate(&cli, stop, comm, rank, out, err);
    return nq__app_run_count(&cli, stop, comm, rank, out, err);
  }
  if (rank != 0)
    return NQ_EXIT_OK;
  errno = 0; /* see flushed() */
  switch (cli.mode) {
  case NQ_MODE_HELP: nq__cli_print_help(out); break;
  case NQ_MODE_VERSION: print_version(out); break;
  case NQ_MODE_LIST: return nq__app_run_list(&cli, out, err);
  case NQ_MODE_STATUS: return nq__status_print(out, err, cli.status, cli.format);
  case NQ_MODE_MERGE: return nq__app_run_merge(&cli, out, err);
  default: return nq__app_run_first(&cli, out, err);
  }
  return flushed(out, err, "writing failed");
}
