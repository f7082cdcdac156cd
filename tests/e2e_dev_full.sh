#!/usr/bin/env bash
# End-to-end: output that cannot be written (stdout on /dev/full) is a
# runtime failure: status 1 and one line on stderr naming the system's
# reason; a --json record is written all the same.  Status 77 (ctest:
# skipped), with the reason, where /dev/full is missing or not writable.
#   e2e_dev_full.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

if [ ! -w /dev/full ]; then
  skip "/dev/full is missing or not writable here"
fi

# Singletons only: under mpirun, output goes through Open MPI's forwarding,
# which does not report write errors back to the program (README).
"$binary" -n 8 --checkpoint "$work/full.journal" -q >/dev/null 2>&1
for case in "-n 8 --list|listing failed" "-n 8 --list --format json|listing failed" \
  "-n 8|writing the count failed" "-n 8 --format json|writing the count failed" \
  "-n 8 --first|--first failed" "--help|writing failed" "--version|writing failed" \
  "--status $work/full.journal|--status failed" \
  "--status $work/full.journal --format json|--status failed"; do
  args=${case%%|*}
  expected="nqueens-mpi: ${case#*|}: write to output failed: No space left on device"
  read -ra words <<<"$args"
  timeout "$limit" "$binary" "${words[@]}" >/dev/full 2>"$err"
  status=$?
  if [ "$status" -eq 1 ] && one_line "$err" && [ "$(cat "$err")" = "$expected" ]; then
    pass
  else
    fail "$args > /dev/full: status $status (expected 1), stderr: $(head -c 300 "$err" | tr '\n' '|')," \
      "expected '$expected'"
  fi
done

# The record is written all the same: without a journal it is all that
# keeps the count (and the merge's total).
for args in "-n 8" "--merge $work/full.journal"; do
  read -ra words <<<"$args"
  rm -f "$work/kept.json"
  timeout "$limit" "$binary" "${words[@]}" --json "$work/kept.json" >/dev/full 2>"$err"
  status=$?
  check "$args --json FILE > /dev/full: status $status (expected 1), no record" \
    bash -c "[ $status -eq 1 ] && grep -q '\"solutions\":\"92\"' '$work/kept.json'"
done

finish
