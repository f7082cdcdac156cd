#!/usr/bin/env bash
# End-to-end: output that cannot be written (stdout on /dev/full) is a
# runtime failure: status 1 and one line on stderr.  Status 77 (ctest:
# skipped), with the reason, where /dev/full is missing or not writable.
#   e2e_dev_full.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

if [ ! -w /dev/full ]; then
  skip "/dev/full is missing or not writable here"
fi

# Singletons only: under mpirun, output goes through Open MPI's forwarding,
# which does not report write errors back to the program (README).
for args in "-n 8" "-n 8 --first" "-n 8 --list" "-n 8 --format json" "--help" "--version"; do
  read -ra words <<<"$args"
  timeout "$limit" "$binary" "${words[@]}" >/dev/full 2>"$err"
  status=$?
  if [ "$status" -eq 1 ] && one_line "$err" && [ "$(head -c 12 "$err")" = "nqueens-mpi:" ]; then
    pass
  else
    fail "$args > /dev/full: status $status (expected 1), stderr: $(head -c 300 "$err" | tr '\n' '|')"
  fi
done

finish
