#!/usr/bin/env bash
# Installs what is missing, builds build/ and runs nqueens-mpi on every local
# logical CPU:
#   scripts/run.sh                   mpirun -np <logical CPUs> build/nqueens-mpi -n 16
#   scripts/run.sh -n 18 --unique    the arguments replace "-n 16"
# The build's output goes to build/build.log (shown if the build fails), so
# stdout and stderr carry only the program's own.
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

nq_install_deps
NQ_BUILD_TARGET=nqueens-mpi nq_build "$NQ_ROOT/build"

ranks=$(nq_cpus)
nq_mpirun_flags "$ranks"
if [ "$#" -eq 0 ]; then
  set -- -n 16
fi
exec mpirun "${NQ_MPIRUN_FLAGS[@]}" -np "$ranks" "$NQ_ROOT/build/nqueens-mpi" "$@"
