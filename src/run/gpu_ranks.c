/* Which ranks of a run drive a GPU.  On each node the ranks other than the
 * master take devices 0, 1, ... in rank order, one each: the master serves
 * every worker and must not block in a launch, so it drives one only when
 * it is alone.  A rank past the node's last device counts on its CPU. */

#include <stdio.h>

#include "mpi_check.h"
#include "nqueens/error.h"
#include "run.h"

/* Among the ranks of one node that may drive a GPU, this rank's place
 * (-1 if it may not): the nth candidate takes the nth device. */
static int index_among(int *index, int candidate, int rank, MPI_Comm node) {
  MPI_Comm candidates;
  *index = -1;
  NQ_MPI_CHECK(node, MPI_Comm_split(node, candidate ? 0 : MPI_UNDEFINED, rank, &candidates));
  if (candidates == MPI_COMM_NULL)
    return NQ_OK;
  int mpi_rc = MPI_Comm_rank(candidates, index);
  NQ_MPI_CHECK(node, MPI_Comm_free(&candidates));
  NQ_MPI_CHECK(node, mpi_rc);
  return NQ_OK;
}

/* This rank's place among the node's GPU candidates, or -1 (the master of
 * a run with workers). */
static int candidate_index(int *index, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm node;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  NQ_MPI_CHECK(comm, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int rc = index_among(index, rank != 0 || size == 1, rank, node);
  NQ_MPI_CHECK(comm, MPI_Comm_free(&node));
  return rc;
}

/* The solver this rank walks with: on its device, on the host for the
 * stand-in of tests, or none. */
static int open_solver(nq__run_t *run, int index, int rank) {
  const nq_count_options_t *options = run->options;
  int stand_in = rank == run->faults.gpu_stand_in_rank;
  int devices = run->faults.hide_gpus ? 0 : nq__gpu_device_count();
  if (!stand_in && (index < 0 || index >= devices))
    return NQ_OK;
  if (!stand_in) {
    int rc = nq__gpu_device_open(&run->gpu_device, index);
    if (rc != NQ_OK) {
      fprintf(stderr, "nqueens-mpi: rank %d: GPU %d cannot be used (%s); counting on the CPU\n",
              rank, index, nq_strerror(rc));
      return NQ_OK;
    }
  }
  int rc = nq__gpu_solver_create(&run->gpu, options->n, options->walk, run->gpu_device);
  if (rc != NQ_OK)
    nq__gpu_ranks_close(run);
  return rc;
}

/* How many ranks drive a GPU and how many failed to open theirs. */
static int tally(nq__run_t *run, int failed, int *failures, MPI_Comm comm) {
  int here = run->gpu != NULL;
  NQ_MPI_CHECK(comm, MPI_Allreduce(&here, &run->gpu_ranks, 1, MPI_INT, MPI_SUM, comm));
  NQ_MPI_CHECK(comm, MPI_Allreduce(&failed, failures, 1, MPI_INT, MPI_SUM, comm));
  return NQ_OK;
}

int nq__gpu_ranks_open(nq__run_t *run, MPI_Comm comm) {
  run->gpu_device = NULL;
  run->gpu = NULL;
  run->gpu_ranks = 0;
  if (!run->options->gpu)
    return NQ_OK;
  int rank = 0, index = -1;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  int rc = candidate_index(&index, comm);
  if (rc != NQ_OK)
    return rc;
  rc = open_solver(run, index, rank);
  int failures = 0;
  int tally_rc = tally(run, rc != NQ_OK, &failures, comm);
  if (tally_rc != NQ_OK || failures > 0 || run->gpu_ranks == 0) {
    nq__gpu_ranks_close(run); /* this rank's device too: the run will not use it */
    return tally_rc != NQ_OK ? tally_rc : failures > 0 ? NQ_ENOMEM : NQ_ENOGPU;
  }
  return NQ_OK;
}

void nq__gpu_ranks_close(nq__run_t *run) {
  nq__gpu_solver_destroy(run->gpu);
  nq__gpu_device_close(run->gpu_device);
  run->gpu = NULL;
  run->gpu_device = NULL;
}
