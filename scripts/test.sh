#!/usr/bin/env bash
# Installs what is missing, builds build/ (Release) and runs the whole test
# suite (about 75 s on 2 cores once installed):
#   scripts/test.sh                   every test, the "long" ones (n = 17, 18) last
#   NQ_TEST_QUICK=1 scripts/test.sh   all but the "long" ones
# With CI set (CI=true), warnings are errors (-DNQ_WERROR=ON).
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

nq_install_deps

werror=OFF
if [ -n "${CI:-}" ] && [ "${CI}" != false ]; then
  werror=ON
fi
NQ_BUILD_VERBOSE=1 nq_build "$NQ_ROOT/build" -DNQ_WERROR="$werror" -DNQ_TESTS=ON

# The tests start mpirun through ctest, where no flag can be added: as root,
# Open MPI needs these two variables instead.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

cd "$NQ_ROOT/build"
ctest --output-on-failure -LE long
if [ "${NQ_TEST_QUICK:-0}" != 1 ]; then
  ctest --output-on-failure -L long
fi
