#ifndef NQ_SRC_APP_MODES_H
#define NQ_SRC_APP_MODES_H

/* The modes of the command line, which nq__app_main (app.c) dispatches to
 * once every rank holds the same options, one file each: app_count.c,
 * app_estimate.c, app_merge.c, app_boards.c; and what they share
 * (app_support.c).  Each returns the exit status (NQ_EXIT_*, app.h). */

#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include <mpi.h>

#include "app.h"
#include "cli.h"
#include "nqueens/options.h"
#include "output.h"

/* Counting and estimating, collective over `comm`; `stop` is raised by
 * the stop signals. */
int nq__app_run_count(const nq__cli_t *cli, volatile sig_atomic_t *stop, MPI_Comm comm, int rank,
                      FILE *out, FILE *err);
int nq__app_run_estimate(const nq__cli_t *cli, volatile sig_atomic_t *stop, MPI_Comm comm,
                         int rank, FILE *out, FILE *err);
/* Rank 0 alone. */
int nq__app_run_merge(const nq__cli_t *cli, FILE *out, FILE *err);
int nq__app_run_list(const nq__cli_t *cli, FILE *out, FILE *err);
int nq__app_run_first(const nq__cli_t *cli, FILE *out, FILE *err);

/* ---- Shared by the modes (app_support.c) ---- */

/* Whether a launcher (mpirun, srun) started this process. */
int nq__app_started_by_launcher(void);
/* A Slurm variable's whole decimal number (SLURM_CPUS_PER_TASK,
 * SLURM_MEM_PER_CPU, ...), or 0 where it is unset or anything else. */
size_t nq__app_slurm_number(const char *name);
/* Search threads when -t is not given. */
int nq__app_default_threads(void);
/* The library's method for what the command line chose (auto resolved). */
nq_count_method_t nq__app_count_method(const nq__cli_t *cli);

/* The join's memory a rank (app_memory.c), into *memory: --memory, else
 * under Slurm the task's share of the job's memory, else 0 (the
 * library's default).  Too small for the join on some rank: NQ_EXIT_USAGE
 * on every rank (rank 0 says why).  Rank 0 notes on `err` when a
 * thread's share holds parts far smaller than those that walk fastest. */
int nq__app_join_memory(size_t *memory, const nq__cli_t *cli, int threads, MPI_Comm comm,
                        int rank, FILE *err);

/* One line "nqueens-mpi: WHAT: the code's message[: the system's reason]";
 * returns NQ_EXIT_ABORT for NQ_EMPI, else NQ_EXIT_FAILURE. */
int nq__app_runtime_failure(FILE *err, const char *what, int code, int write_errno);
/* `message` past its leading "PATH: ", which a line that names the
 * journal already says ("--checkpoint j: j: damaged" otherwise). */
const char *nq__app_after_path(const char *message, const char *path);
/* A journal the run reads or writes must not be where it prints, whose
 * lines would damage it (`--checkpoint j >> j`): NQ_EXIT_USAGE, said on
 * `err` as OPTION PATH (unless the journal is standard error), where it
 * is; else NQ_EXIT_OK. */
int nq__app_journal_apart_from_output(const char *option, const char *path, FILE *err);
/* The output module's buffer on `out`, and its flush and release after
 * the writers (whose result is `rc`), each failure reported as WHAT. */
int nq__app_open_output(nq__output_t *output, FILE *out, FILE *err, const char *what);
int nq__app_close_output(nq__output_t *output, int rc, FILE *err, const char *what);
/* NQ_ENOTSUP from a count or an estimate: a usage error, said by rank 0. */
int nq__app_walk_refused(FILE *err, int rank, const nq__cli_t *cli);

/* --json FILE: the record written durably (rank 0), by `write` into a
 * temporary file beside `path` (FILE, or its link's target) that replaces
 * it once whole. */
typedef int (*nq__app_record_writer_fn)(nq__output_t *output, const void *context);
int nq__app_write_record(const char *path, nq__app_record_writer_fn write, const void *context,
                         FILE *err);
/* Bad input found before any work: every rank learns rank 0's verdict on
 * --json's destination, which must not be any of the journals `keep`, nor,
 * for a slice's count, a record that holds a total.  Rank 0's `target` is
 * the path to write. */
int nq__app_json_destination_ok(char target[PATH_MAX], const nq__cli_t *cli,
                                const char *const *keep, int keep_count, MPI_Comm comm, int rank,
                                FILE *err);

#endif
