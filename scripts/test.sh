#!/usr/bin/env bash
# Installs what is missing, builds and runs the whole test suite:
#   1. build/ (Release): every test but the "long" ones
#   2. build-sanitize/ (Debug, NQ_SANITIZE=ON: ASan + UBSan, assertions on):
#      the same tests again
#   3. build/: the "long" ones (n = 17, 18)
# NQ_TEST_QUICK=1 skips step 3, NQ_TEST_SANITIZE=0 step 2 (CI runs all);
# NQ_TEST_JOBS=N runs N tests at once (default: one a core).
# With CI set (CI=true), warnings are errors (-DNQ_WERROR=ON).  Each step's
# wall time is printed at the end.
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

nq_install_deps "${NQ_TEST_PACKAGES[@]}"

werror=OFF
if [ -n "${CI:-}" ] && [ "${CI}" != false ]; then
  werror=ON
fi

# The tests start mpirun through ctest, where no flag can be added: as root,
# Open MPI needs these two variables instead.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

timings=()
# step NAME COMMAND...: runs COMMAND and records its wall time.
# A step that fails ends the script with its status, after the times of
# the steps so far.
step() {
  local name=$1 started=$SECONDS status=0
  shift
  echo "== test.sh: $name" >&2
  "$@" || status=$?
  timings+=("$(printf '%-28s %4d s' "$name" $((SECONDS - started)))")
  if [ "$status" -ne 0 ]; then
    printf 'test.sh: %s\n' "${timings[@]}" >&2
    echo "test.sh: $name failed (status $status)" >&2
    exit "$status"
  fi
}

# One test a core at once (NQ_TEST_JOBS overrides): most tests are one
# process that waits on its own start or on MPI's more than it computes;
# those that time a run's answer to a signal or a fault run alone
# (RUN_SERIAL, tests/CMakeLists.txt).
jobs=${NQ_TEST_JOBS:-$(nq_cpus)}

# suite DIR CTEST_ARGS...: ctest in DIR; then, for each test it skipped
# (status 77: this machine or build cannot run it), the line where that test
# said why (the last one naming a skip, else its last line).
suite() {
  local dir=$1 summary name status=0
  shift
  summary=$(mktemp)
  ctest --test-dir "$dir" --output-on-failure --parallel "$jobs" "$@" | tee "$summary" ||
    status=$?
  for name in $(sed -n 's/^\t *[0-9]* - \(.*\) (Skipped)$/\1/p' "$summary"); do
    awk -v name="$name" '
      $0 ~ "^[0-9]+/[0-9]+ Test: " { this = $3 }
      this == name && /^<end of output>/ {
        print "test.sh: skipped " name ": " (why != "" ? why : last)
        this = ""
      }
      this == name && tolower($0) ~ /skip/ { why = $0 }
      this == name && !/^-+$/ { last = $0 }' "$dir/Testing/Temporary/LastTest.log"
  done
  rm -f "$summary"
  return "$status"
}

NQ_BUILD_VERBOSE=1 # read by nq_build: the build log goes to the CI log
step "build (Release)" nq_build "$NQ_ROOT/build" -DNQ_WERROR="$werror" -DNQ_TESTS=ON
step "tests (Release)" suite "$NQ_ROOT/build" -LE long
if [ "${NQ_TEST_SANITIZE:-1}" != 0 ]; then
  # nq_build's -DCMAKE_BUILD_TYPE=Release comes first: this one wins.
  step "build (sanitize)" nq_build "$NQ_ROOT/build-sanitize" -DCMAKE_BUILD_TYPE=Debug \
    -DNQ_SANITIZE=ON -DNQ_WERROR="$werror" -DNQ_TESTS=ON
  step "tests (sanitize)" suite "$NQ_ROOT/build-sanitize" -LE long
fi
if [ "${NQ_TEST_QUICK:-0}" != 1 ]; then
  step "long tests (Release)" suite "$NQ_ROOT/build" -L long
fi
printf 'test.sh: %s\n' "${timings[@]}" >&2
