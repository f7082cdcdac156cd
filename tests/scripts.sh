#!/usr/bin/env bash
# The developer scripts that time commands, on commands that take no time:
# scripts/pairs.sh's report (each pair, then the A/B medians) and its
# answers to bad arguments and to a command that fails.  No timing is
# asserted, only what the report says and how.
#   scripts.sh
set -u
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/test_lib.sh
. "$source_dir/tests/test_lib.sh"
pairs=$source_dir/scripts/pairs.sh

[ -x /usr/bin/time ] || skip "/usr/bin/time (GNU time) is missing"

# Run from an empty folder, which must stay empty: the report is printed,
# never written anywhere.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$(cd "$work" && "$pairs" --pairs 3 -- 'true' 'exit 0' 2>&1)
rc=$?
check "pairs.sh writes no file" [ -z "$(ls -A "$work")" ]
check "pairs.sh succeeds on two commands that succeed" [ "$rc" -eq 0 ]
check "pairs.sh prints a line per pair" [ "$(grep -c '^pair [1-3]: A ' <<<"$out")" -eq 3 ]
check "pairs.sh prints the wall median over 3 pairs" \
  grep -Eq '^A/B wall: median [0-9]+\.[0-9]{3} \([0-9.]+ to [0-9.]+, 3 pairs\)$' <<<"$out"
check "pairs.sh prints the cpu median over 3 pairs" \
  grep -Eq '^A/B cpu: median [0-9]+\.[0-9]{3} \([0-9.]+ to [0-9.]+, 3 pairs\)$' <<<"$out"

for bad in "--pairs 0 -- true true" "--pairs x -- true true" "-- true" "--what -- true true"; do
  # shellcheck disable=SC2086 # the words of each case are the arguments
  stdout=$("$pairs" $bad 2>/dev/null)
  rc=$?
  check "pairs.sh $bad exits 2" [ "$rc" -eq 2 ]
  check "pairs.sh $bad prints nothing on stdout" [ -z "$stdout" ]
done

err=$("$pairs" --pairs 1 -- 'true' 'exit 3' 2>&1 >/dev/null)
rc=$?
check "pairs.sh exits 1 when a run fails" [ "$rc" -eq 1 ]
check "pairs.sh names the run that failed" grep -q 'this run failed: exit 3' <<<"$err"

finish
