#!/usr/bin/env bash
# End-to-end: where this build or CPU cannot run the AVX-512 lane walk,
# asking for it is a usage error (status 2, one line, nothing on stdout) on
# every rank, and auto counts with the scalar walk.  Status 77 (ctest:
# skipped), with the reason, where the lanes run; e2e_avx512.sh covers that
# side.  A build with -DNQ_LANES=OFF runs it on any CPU.
#   e2e_without_avx512.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

lanes_probe
if [ "$lanes_listed" = yes ]; then
  skip "this build and CPU run the lane walk (--version lists avx512): nothing to refuse"
fi

expected="nqueens-mpi: --walk avx512 needs AVX-512 F, CD and VPOPCNTDQ on every rank's CPU and a build with the lane walk (see --version)"
run -n 10 --walk avx512
usage_error_ok "1 rank" "-n 10 --walk avx512"
check "-n 10 --walk avx512: '$(cat "$err")', expected '$expected'" [ "$(cat "$err")" = "$expected" ]
run_ranks 3 -n 10 --walk avx512
usage_error_ok "3 ranks" "-n 10 --walk avx512"
check "3 ranks: -n 10 --walk avx512: '$(cat "$err")', expected '$expected'" \
  [ "$(cat "$err")" = "$expected" ]
run -n 16 --method backtrack
check "-n 16 (--walk auto): the text count does not end 'scalar walk': $(tail -n 1 "$out")" \
  text_count_ok 16 1 scalar

finish
