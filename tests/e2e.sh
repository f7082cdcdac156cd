#!/usr/bin/env bash
# End-to-end tests of the real nqueens-mpi binary, alone and under mpiexec.
#   e2e.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# Prints one line per failure and "N passed, M failed"; exits 1 on any
# failure.  (ctest sets OMPI_ALLOW_RUN_AS_ROOT* where needed.)
set -u

if [ "$#" -lt 2 ]; then
  echo "usage: $0 NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]" >&2
  exit 2
fi
binary=$1
mpiexec=$2
numproc_flag=${3:--n}

# Q(n), OEIS A000170, and U(n), OEIS A002562, n = 0..16.
known_all=(1 1 0 0 2 10 4 40 92 352 724 2680 14200 73712 365596 2279184 14772512)
known_unique=(1 1 0 0 1 2 1 6 12 46 92 341 1787 9233 45752 285053 1846955)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out
err=$work/err
passed=0
failed=0
skipped=0
status=0

pass() { passed=$((passed + 1)); }
# skip WHY: a check this machine cannot run, named in the summary.
skip() {
  skipped=$((skipped + 1))
  echo "SKIPPED: $*"
}
fail() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then pass; else fail "$what"; fi
}

# A hung run fails instead of stalling the suite.
limit=300

# run ARGS...: the binary alone (a singleton MPI process).
run() {
  timeout "$limit" "$binary" "$@" >"$out" 2>"$err"
  status=$?
}

# run_ranks RANKS ARGS...: the binary under mpiexec.
run_ranks() {
  local ranks=$1
  shift
  timeout "$limit" "$mpiexec" "$numproc_flag" "$ranks" -q --oversubscribe "$binary" "$@" \
    >"$out" 2>"$err"
  status=$?
}

json_solutions() { sed -n 's/.*"solutions":"\([0-9]*\)".*/\1/p' "$out"; }
json_unique() { sed -n 's/.*"unique":"\([0-9]*\)".*/\1/p' "$out"; }
is_empty() { [ ! -s "$1" ]; }
# Exactly one complete line.
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && [ -z "$(tail -c 1 "$1" | tr -d '\n')" ]; }

# ---- counting -------------------------------------------------------------

count_ok() { # LABEL N: status 0, nothing on stderr, Q(n) on stdout
  local label=$1 n=$2 got
  got=$(json_solutions)
  if [ "$status" -eq 0 ] && is_empty "$err" && [ "$got" = "${known_all[$n]}" ]; then
    pass
  else
    fail "$label: -n $n --format json: status $status, solutions '$got'," \
      "expected ${known_all[$n]}; stderr: $(head -c 200 "$err")"
  fi
}

for n in $(seq 0 16); do
  run -n "$n" --format json
  count_ok "1 rank" "$n"
done
for n in $(seq 0 16); do
  run_ranks 4 -n "$n" --format json
  count_ok "4 ranks" "$n"
done
for n in 1 5 8 12; do
  run_ranks 2 -n "$n" --unique --format json
  got=$(json_unique)
  if [ "$status" -eq 0 ] && [ "$got" = "${known_unique[$n]}" ]; then
    pass
  else
    fail "2 ranks: -n $n --unique: status $status, unique '$got', expected ${known_unique[$n]}"
  fi
  count_ok "2 ranks, --unique" "$n"
done

run -n 8
check "text count names Q(8) = 92" grep -q "92" "$out"

# ---- walks ------------------------------------------------------------------
# Each walk this CPU runs (as --version lists them) gives the same count and
# the same node count, and the output names it.

json_nodes() { sed -n 's/.*"nodes":"\([0-9]*\)".*/\1/p' "$out"; }
run --version
walks=(scalar)
if grep -q 'avx512' "$out"; then walks+=(avx512); fi
for n in 15 16; do
  nodes_seen=""
  for walk in "${walks[@]}"; do
    run_ranks 2 -n "$n" --walk "$walk" --format json
    count_ok "2 ranks, --walk $walk" "$n"
    check "-n $n --walk $walk: JSON does not name the walk" grep -qF "\"walk\":\"$walk\"" "$out"
    if [ -z "$nodes_seen" ]; then nodes_seen=$(json_nodes); fi
    check "-n $n --walk $walk: nodes $(json_nodes), scalar walk $nodes_seen" \
      [ "$(json_nodes)" = "$nodes_seen" ]
  done
done
run -n 10 --walk scalar
check "--walk scalar: the text does not name the walk" grep -q "scalar walk" "$out"
if [ "${#walks[@]}" -eq 1 ]; then
  # This CPU cannot run the lanes: asking for them is a usage error.
  run -n 10 --walk avx512
  check "--walk avx512 on a CPU without it: status $status, not 2" [ "$status" -eq 2 ]
fi

# ---- listing --------------------------------------------------------------

run -n 4 --list
check "-n 4 --list: status $status" [ "$status" -eq 0 ]
printf '.Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n' >"$work/expected"
check "-n 4 --list is not the two expected boards" cmp -s "$out" "$work/expected"

run -n 4 --list --format json
printf '[[".Q..","...Q","Q...","..Q."],["..Q.","Q...","...Q",".Q.."]]\n' >"$work/expected"
check "-n 4 --list --format json is not the expected array" cmp -s "$out" "$work/expected"

run -n 8 --list
cp "$out" "$work/list1"
check "-n 8 --list at 1 rank: status $status" [ "$status" -eq 0 ]
# 92 boards of 8 rows, a blank line between two.
if [ "$(grep -c '^$' "$work/list1")" -eq 91 ] && [ "$(grep -c 'Q' "$work/list1")" -eq 736 ] &&
  [ "$(wc -l <"$work/list1")" -eq 827 ]; then
  pass
else
  fail "-n 8 --list: not 92 boards of 8 rows"
fi
run_ranks 3 -n 8 --list
check "-n 8 --list at 3 ranks: status $status" [ "$status" -eq 0 ]
check "-n 8 --list differs between 1 and 3 ranks" cmp -s "$out" "$work/list1"

run -n 8 --list --limit 5
check "--list --limit 5: status $status" [ "$status" -eq 0 ]
if [ "$(grep -c '^$' "$out")" -eq 4 ] && [ "$(wc -l <"$out")" -eq 44 ]; then
  pass
else
  fail "--list --limit 5 does not give 5 boards"
fi
head -n 44 "$work/list1" >"$work/expected"
check "--list --limit 5 is not the first 5 boards of the full list" cmp -s "$out" "$work/expected"

# ---- one solution -----------------------------------------------------------

run -n 8 --first --format json
check "--first -n 8: status $status" [ "$status" -eq 0 ]
check "--first -n 8 JSON lacks \"columns\":[0,4,7,5,2,6,1,3]" \
  grep -qF '"columns":[0,4,7,5,2,6,1,3]' "$out"

run --first -n 40
check "--first -n 40: status $status" [ "$status" -eq 0 ]
check "--first -n 40 does not say constructed" grep -qi 'constructed' "$out"
cp "$out" "$work/first40"
run_ranks 3 --first -n 40
check "--first -n 40 differs between 1 and 3 ranks" cmp -s "$out" "$work/first40"

run -n 3 --first
check "--first -n 3: status $status" [ "$status" -eq 0 ]

# ---- help and version -------------------------------------------------------

run --help
check "--help: status $status" [ "$status" -eq 0 ]
check "--help wrote to stderr" is_empty "$err"
for option in -n --size -u --unique -l --list --limit -f --first --format -h --help \
  -V --version --walk; do
  check "--help does not mention $option" grep -qF -e "$option" "$out"
done

run --version
check "--version: status $status" [ "$status" -eq 0 ]
check "--version does not print 'nqueens-mpi X.Y.Z'" grep -qE '^nqueens-mpi [0-9]+\.[0-9]+' "$out"
check "--version is not one line" one_line "$out"

# ---- bad command lines ------------------------------------------------------

bad_lines=(
  ""
  "-n abc"
  "-n -1"
  "-n 65"
  "-n 99999999999999999999999"
  "-n 8 -x"
  "-n 8 --bogus"
  "-n"
  "-n 8 -n 8"
  "-n 8 --list --list"
  "-n 8 --list --first"
  "-n 8 --limit 3"
  "-n 8 --list --limit 0"
  "-n 8 --list --limit -3"
  "-n 8 --list --limit abc"
  "-n 8 --format xml"
  "-n 8 --unique --list"
  "-n 8 stray"
  "-n 8x"
  "-n 8 --list --limit 99999999999999999999999"
  "-n 8 --format"
  "-n 8 --format json --format text"
  "-n 8 --first --limit 2"
  "-n 8 --first --list"
  "-n 8 --walk simd"
  "-n 8 --walk"
  "-n 40 --walk avx512"
  "-n 8 --list --walk scalar"
)

usage_error_ok() { # LABEL LINE
  local label=$1 line=$2
  if [ "$status" -eq 2 ] && is_empty "$out" && one_line "$err" &&
    [ "$(head -c 12 "$err")" = "nqueens-mpi:" ]; then
    pass
  else
    fail "$label: '$line': status $status (expected 2), stdout $(wc -c <"$out") bytes," \
      "stderr $(wc -l <"$err") lines: $(head -c 300 "$err" | tr '\n' '|')"
  fi
}

for line in "${bad_lines[@]}"; do
  read -ra words <<<"$line"
  run ${words[@]+"${words[@]}"}
  usage_error_ok "1 rank" "$line"
  run_ranks 3 ${words[@]+"${words[@]}"}
  usage_error_ok "3 ranks" "$line"
done

# The empty string as the board size: an argument array, not a split line.
run -n ""
usage_error_ok "1 rank" "-n ''"

# ---- runtime failures: status 1 and one message -----------------------------

runtime_error_ok() { # LABEL
  if [ "$status" -eq 1 ] && one_line "$err" && [ "$(head -c 12 "$err")" = "nqueens-mpi:" ]; then
    pass
  else
    fail "$1: status $status (expected 1), stderr: $(head -c 300 "$err" | tr '\n' '|')"
  fi
}

# A full disk: the message names the system's reason.
full_disk_message() { # WHAT
  echo "nqueens-mpi: $1: write to output failed: No space left on device"
}
if [ -w /dev/full ]; then
  for case in "-n 8 --list|listing failed" "-n 8 --list --format json|listing failed" \
    "-n 8|writing the count failed" "-n 8 --format json|writing the count failed" \
    "-n 8 --first|--first failed" "--help|writing failed" "--version|writing failed"; do
    args=${case%%|*}
    what=${case#*|}
    read -ra words <<<"$args"
    timeout "$limit" "$binary" "${words[@]}" >/dev/full 2>"$err"
    status=$?
    runtime_error_ok "$args > /dev/full"
    full_disk_message "$what" >"$work/expected"
    check "$args > /dev/full: stderr is not '$(cat "$work/expected")'" \
      cmp -s "$err" "$work/expected"
  done
else
  skip "writes to a full disk: /dev/full is missing or not writable here"
fi

# ---- a reader that stops early ---------------------------------------------
# Like any filter, the listing ends quietly when its reader goes: killed by
# SIGPIPE (status 141) or exiting 0, nothing on stderr.  The binary runs
# with SIGPIPE's default action even where the test's caller ignores it.

env --default-signal=PIPE "$binary" -n 12 --list 2>"$err" | head -n 1 >"$out"
status=${PIPESTATUS[0]}
ended_quietly() { [ "$1" -eq 141 ] || [ "$1" -eq 0 ]; }
check "--list | head -n 1: status $status, not 141 or 0" ended_quietly "$status"
check "--list | head -n 1 wrote to stderr: $(head -c 200 "$err")" is_empty "$err"
printf 'Q...........\n' >"$work/expected"
check "--list | head -n 1 is not the first row of the first board" cmp -s "$out" "$work/expected"

# ---- more output checks ------------------------------------------------------

run_ranks 1 -n 8 --list --format json
cp "$out" "$work/json1"
run_ranks 3 -n 8 --list --format json
check "-n 8 --list --format json differs between 1 and 3 ranks" cmp -s "$out" "$work/json1"
check "-n 8 --list --format json does not hold 92 boards" \
  [ "$(grep -o '\["[.Q]*"' "$out" | wc -l)" -eq 92 ]

for n in 33 64; do
  run -n "$n" --first --format json
  check "--first -n $n --format json: status $status" [ "$status" -eq 0 ]
  check "--first -n $n --format json is not kind constructed" grep -q '"kind":"constructed"' "$out"
  check "--first -n $n --format json has not $n columns" \
    [ "$(sed 's/.*"columns":\[\([^]]*\)\].*/\1/' "$out" | tr ',' '\n' | wc -l)" -eq "$n" ]
done

run -n 0 --list
printf '(the empty board)\n' >"$work/expected"
check "-n 0 --list is not '(the empty board)'" cmp -s "$out" "$work/expected"

# No board: stdout stays empty (so --list | wc -l counts 0 lines), the
# reason goes to stderr, and the status is 0.  JSON's empty array says it.
for n in 2 3; do
  run -n "$n" --list
  check "-n $n --list: status $status" [ "$status" -eq 0 ]
  check "-n $n --list wrote $(wc -c <"$out") bytes to stdout" is_empty "$out"
  echo "nqueens-mpi: no solution exists for n = $n" >"$work/expected"
  check "-n $n --list: stderr is not '$(cat "$work/expected")'" cmp -s "$err" "$work/expected"
  run -n "$n" --list --format json
  check "-n $n --list --format json: status $status" [ "$status" -eq 0 ]
  printf '[]\n' >"$work/expected"
  check "-n $n --list --format json is not []" cmp -s "$out" "$work/expected"
  check "-n $n --list --format json wrote to stderr" is_empty "$err"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
