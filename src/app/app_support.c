/* What the modes of the command line share: the environment's defaults,
 * the walk's refusal, and --json's destination and durable record (the
 * output stream's opening and closing: app_output.c). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include "app_modes.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_check.h"
#include "nqueens/error.h"
#include "nqueens/join.h"
#include "provenance.h"
#include "record_total.h"

int nq__app_started_by_launcher(void) {
  static const char *const launcher_variables[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                                   "PMI_RANK", "PMI_SIZE", "SLURM_STEP_ID"};
  for (size_t i = 0; i < sizeof launcher_variables / sizeof launcher_variables[0]; i++)
    if (getenv(launcher_variables[i]) != NULL)
      return 1;
  return 0;
}

size_t nq__app_slurm_number(const char *name) {
  const char *text = getenv(name);
  if (text == NULL || *text == '\0' || *text == '-')
    return 0;
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  return end != text && *end == '\0' && value <= SIZE_MAX ? (size_t)value : 0;
}

/* Search threads when -t is not given: what Slurm gave each task; 1 per
 * rank under another launcher, which usually starts a rank per core;
 * alone, every core this process may run on. */
int nq__app_default_threads(void) {
  const size_t cpus = nq__app_slurm_number("SLURM_CPUS_PER_TASK");
  if (cpus >= 1 && cpus <= NQ_COUNT_MAX_THREADS)
    return (int)cpus;
  if (nq__app_started_by_launcher())
    return 1;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) >= 1)
    return CPU_COUNT(&allowed) < NQ_COUNT_MAX_THREADS ? CPU_COUNT(&allowed)
                                                      : NQ_COUNT_MAX_THREADS;
  return 1;
}

/* The library's method for what the command line chose (auto resolved). */
nq_count_method_t nq__app_count_method(const nq__cli_t *cli) {
  return nq__cli_method(cli) == NQ_METHOD_JOIN ? NQ_COUNT_JOIN : NQ_COUNT_BACKTRACK;
}

/* NQ_ENOTSUP from a count or an estimate: the walk asked for is refused on
 * every rank at once, before any work, so it is a usage error. */
int nq__app_walk_refused(FILE *err, int rank, const nq__cli_t *cli) {
  if (rank == 0)
    fprintf(err,
            "nqueens-mpi: --walk %s needs AVX-512 F, CD and VPOPCNTDQ on every rank's CPU "
            "and a build with the lane walk (see --version)\n",
            nq_walk_name(cli->walk));
  return NQ_EXIT_USAGE;
}

int nq__app_write_record(const char *path, nq__app_record_writer_fn write, const void *context,
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

/* A slice's record would replace a total at `target` with a part of it:
 * refused before the count, so that nothing is spent for a record that
 * could not be kept (the total's journals may be gone). */
static int slice_spares_total(const char *target, const nq__cli_t *cli,
                              char message[static NQ__MESSAGE_SIZE]) {
  int n = 0;
  char solutions[NQ__RECORD_TOTAL_SIZE];
  if (cli->slice_count <= 1 || !nq__record_total_read(target, &n, solutions))
    return NQ_OK;
  nq__message(message,
              "--json %s: holds Q(%d) = %s, which slice %d/%d's record would replace: name "
              "another file",
              cli->json_file, n, solutions, cli->slice_index + 1, cli->slice_count);
  return NQ_EINVAL;
}

int nq__app_json_destination_ok(char target[PATH_MAX], const nq__cli_t *cli,
                               const char *const *keep, int keep_count, MPI_Comm comm, int rank,
                               FILE *err) {
  if (cli->json_file == NULL)
    return NQ_EXIT_OK;
  char message[NQ__MESSAGE_SIZE];
  int rc = rank == 0 ? nq__provenance_check_destination(target, cli->json_file, keep, keep_count,
                                                        message)
                     : NQ_OK;
  if (rank == 0 && rc == NQ_OK)
    rc = slice_spares_total(target, cli, message);
  if ((rc = nq__agree_with_rank0(rc, comm)) == NQ_EMPI)
    return nq__app_runtime_failure(err, "checking --json", NQ_EMPI, 0);
  if (rc != NQ_OK && rank == 0)
    fprintf(err, "nqueens-mpi: %s\n", message);
  return rc == NQ_OK ? NQ_EXIT_OK : NQ_EXIT_USAGE;
}
