/* How much a rank's join may hold: what --memory says, else what Slurm
 * gave the task (a job's memory is a hard limit there: a rank past it is
 * killed, and a record run restarted on the same node would be killed
 * again), else the library's default.  Checked against what the join
 * needs, and against what walks fastest: from n = 25 a thread's part
 * far under the fastest size costs time (docs/performance.md, "Parts"),
 * and many threads on a small bound give such parts without a word. */

#define _POSIX_C_SOURCE 200809L /* PATH_MAX, through app_modes.h */

#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "app_modes.h"
#include "nqueens/error.h"
#include "nqueens/join.h"

enum { MEGABYTE_SHIFT = 20, FASTEST_PART_SHORTFALL = 4 };

/* The share of Slurm's memory the join takes: the rest is the process's
 * own (MPI's buffers, the libraries, the batches). */
#define SLURM_SHARE_NUMERATOR 7
#define SLURM_SHARE_DENOMINATOR 8

/* The ranks of this job on this process's node. */
static int ranks_on_node(MPI_Comm comm, int *ranks) {
  MPI_Comm node;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return NQ_EMPI;
  int rc = MPI_Comm_size(node, ranks) == MPI_SUCCESS ? NQ_OK : NQ_EMPI;
  MPI_Comm_free(&node);
  return rc;
}

/* Slurm's memory for this task, seven eighths of it, in bytes: per CPU
 * times the task's CPUs, or per node over the ranks on the node; 0 where
 * the job states none.  Collective (the node's ranks are counted). */
static int slurm_task_bytes(size_t *bytes, MPI_Comm comm) {
  int ranks = 1;
  if (ranks_on_node(comm, &ranks) != NQ_OK)
    return NQ_EMPI;
  const size_t most = NQ_CLI_MOST_MEMORY >> MEGABYTE_SHIFT;
  size_t megabytes = nq__app_slurm_number("SLURM_MEM_PER_CPU");
  if (megabytes != 0) {
    size_t cpus = nq__app_slurm_number("SLURM_CPUS_PER_TASK");
    cpus = cpus != 0 ? cpus : 1;
    megabytes = megabytes <= most / cpus ? megabytes * cpus : most; /* no wrap */
  } else {
    megabytes = nq__app_slurm_number("SLURM_MEM_PER_NODE") / (size_t)(ranks > 0 ? ranks : 1);
  }
  megabytes = megabytes < most ? megabytes : most;
  *bytes = (megabytes << MEGABYTE_SHIFT) / SLURM_SHARE_DENOMINATOR * SLURM_SHARE_NUMERATOR;
  return NQ_OK;
}

static void say_too_small(FILE *err, const nq__cli_t *cli, int threads, size_t memory,
                          size_t least) {
  if (cli->memory != 0)
    fprintf(err,
            "nqueens-mpi: --memory %zu bytes is less than the join needs for n = %d on %d "
            "thread%s a rank: at least %zu (its table of completions and the smallest parts)\n",
            cli->memory, cli->n, threads, threads == 1 ? "" : "s", least);
  else
    fprintf(err,
            "nqueens-mpi: the Slurm task's memory (%zu bytes to the join: 7/8 of "
            "SLURM_MEM_PER_CPU times its CPUs, or of SLURM_MEM_PER_NODE over the node's ranks) "
            "is less than the join needs for n = %d on %d thread%s a rank: at least %zu; give "
            "the job more memory or --memory\n",
            memory, cli->n, threads, threads == 1 ? "" : "s", least);
}

/* Rank 0: a thread's parts under a quarter of those that walk fastest. */
static void note_small_parts(FILE *err, const nq__cli_t *cli, int threads, size_t memory) {
  const size_t fastest = nq_join_fastest_part_tops(cli->n);
  if (fastest == 0)
    return;
  const size_t within = nq_join_part_tops_within(cli->n, threads, memory);
  if (within >= fastest / FASTEST_PART_SHORTFALL)
    return;
  const size_t gigabyte = (size_t)1 << 30;
  const size_t wanted = nq_join_memory_for_parts(cli->n, threads, fastest);
  fprintf(err,
          "nqueens-mpi: note: at n = %d a thread's part holds at most %zu tops (%zu bytes a "
          "rank over %d thread%s), where parts of %zu walk fastest: --memory %zuG, or fewer "
          "threads a rank, would hold them (docs/record-attempt.md)\n",
          cli->n, within, nq_join_rank_bytes(memory), threads,
          threads == 1 ? "" : "s", fastest, (wanted + gigabyte - 1) / gigabyte);
}

/* The memory of this process's node, in bytes; 0 where it cannot be told. */
static size_t node_bytes(void) {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0 || (size_t)pages > SIZE_MAX / (size_t)page_size)
    return 0;
  return (size_t)pages * (size_t)page_size;
}

/* An explicit --memory that rank 0's node cannot hold for its ranks bounds
 * nothing: a set that needs that much fails for want of memory (or the
 * kernel ends the rank) before the join splits it into parts.  Said, not
 * refused: swap, or sets far below the bound, may still let the run end.
 * Collective (the node's ranks are counted). */
static int note_memory_past_node(FILE *err, const nq__cli_t *cli, MPI_Comm comm, int rank) {
  int ranks = 1;
  if (ranks_on_node(comm, &ranks) != NQ_OK)
    return NQ_EMPI;
  const size_t node = node_bytes();
  if (rank == 0 && node != 0 && cli->memory > node / (size_t)ranks)
    fprintf(err,
            "nqueens-mpi: note: --memory %zu bytes a rank, times this node's %d rank%s, is "
            "more than its %zu bytes of memory: a set that needs that much runs out of memory "
            "before the join splits it into parts\n",
            cli->memory, ranks, ranks == 1 ? "" : "s", node);
  return NQ_OK;
}

int nq__app_join_memory(size_t *memory, const nq__cli_t *cli, int threads, MPI_Comm comm,
                        int rank, FILE *err) {
  *memory = cli->memory;
  if (nq__app_count_method(cli) != NQ_COUNT_JOIN)
    return NQ_EXIT_OK;
  if (*memory == 0 && slurm_task_bytes(memory, comm) != NQ_OK)
    return nq__app_runtime_failure(err, "counting the ranks on this node", NQ_EMPI, 0);
  const size_t least = nq_join_least_memory(cli->n, threads);
  int too_small = *memory != 0 && *memory < least, anywhere = too_small;
  if (MPI_Allreduce(&too_small, &anywhere, 1, MPI_INT, MPI_LOR, comm) != MPI_SUCCESS)
    return nq__app_runtime_failure(err, "checking the join's memory", NQ_EMPI, 0);
  if (anywhere && rank == 0) {
    if (too_small)
      say_too_small(err, cli, threads, *memory, least);
    else
      fprintf(err,
              "nqueens-mpi: another rank's Slurm memory is less than the join needs for n = %d\n",
              cli->n);
  }
  if (anywhere)
    return NQ_EXIT_USAGE;
  if (cli->memory != 0 && note_memory_past_node(err, cli, comm, rank) != NQ_OK)
    return nq__app_runtime_failure(err, "counting the ranks on this node", NQ_EMPI, 0);
  if (rank == 0)
    note_small_parts(err, cli, threads, *memory);
  return NQ_EXIT_OK;
}
