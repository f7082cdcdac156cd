/* Q(8) through the installed library's public API alone: one count over
 * MPI_COMM_WORLD, the total printed with GMP and compared with 92 (OEIS
 * A000170).  Exit status 0 when it matches. */
#include <gmp.h>
#include <mpi.h>
#include <stdio.h>

#include <nqueens/count.h>
#include <nqueens/error.h>

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "count_q8: MPI_Init failed\n");
    return 1;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  nq_count_options_t options = {.n = 8, .walk = NQ_WALK_AUTO};
  nq_count_result_t result;
  nq_count_result_init(&result);
  int code = nq_count_run(&result, &options, MPI_COMM_WORLD);
  if (code == NQ_EMPI)
    MPI_Abort(MPI_COMM_WORLD, 1);

  int status = 0;
  if (code != NQ_OK) {
    fprintf(stderr, "count_q8: nq_count_run: %s\n", nq_strerror(code));
    status = 1;
  } else if (rank == 0) {
    gmp_printf("Q(8) = %Zd\n", result.solutions);
    status = mpz_cmp_ui(result.solutions, 92) != 0;
  }
  nq_count_result_clear(&result);
  MPI_Finalize();
  return status;
}
