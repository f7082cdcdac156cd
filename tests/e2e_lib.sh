# shellcheck shell=bash
# Shared by the end-to-end scripts (e2e.sh, e2e_avx512.sh, ...); each sources
# it with its own arguments:
#   . e2e_lib.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# and ends with `finish`, which prints "N passed, M failed" and exits 1 on any
# failure.  A script that cannot run on this machine calls `skip REASON`:
# status 77, which ctest shows as skipped (SKIP_RETURN_CODE), never as a pass.
# (ctest sets OMPI_ALLOW_RUN_AS_ROOT* where needed.)
set -u

if [ "$#" -lt 2 ]; then
  echo "usage: $0 NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]" >&2
  exit 2
fi
binary=$1
mpiexec=$2
numproc_flag=${3:--n}

# Q(n), OEIS A000170, and U(n), OEIS A002562, n = 0..18.
known_all=(1 1 0 0 2 10 4 40 92 352 724 2680 14200 73712 365596 2279184 14772512 95815104
  666090624)
known_unique=(1 1 0 0 1 2 1 6 12 46 92 341 1787 9233 45752 285053 1846955 11977939
  83263591)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out
err=$work/err
status=0
# shellcheck source=tests/test_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

# A hung run fails instead of stalling the suite.
limit=300

# The sanitizer build's tests (they set ASAN_OPTIONS) start each process in
# tenths of a second and count several times slower.  What they look for,
# memory errors and undefined behaviour, one case of a kind shows as well
# as twenty: there, loops over many cases of one kind take a sample.
# The join's memory follows a Slurm job's (SLURM_MEM_PER_CPU or
# SLURM_MEM_PER_NODE) unless --memory is given: a test sets them itself.
unset SLURM_MEM_PER_CPU SLURM_MEM_PER_NODE
sanitized=0
[ -n "${ASAN_OPTIONS:-}" ] && sanitized=1
# Each process's leak check at exit matches Open MPI's few thousand blocks
# against the suppression file, and symbolizes their frames to do it: two
# fifths of a lone run's time (docs/performance.md, "The suite's time").  The
# suppressions name libraries, which need no symbols, so these runs go
# without: a finding still fails its check, its stack as module+offset
# (ASAN_OPTIONS=symbolize=1 on the command the failure prints, or
# addr2line -e MODULE OFFSET, gives names and lines).
if [ "$sanitized" -eq 1 ]; then
  export ASAN_OPTIONS="$ASAN_OPTIONS:symbolize=0"
fi
# sized N: the board N, or N - 1 under the sanitizers, for a count sized to
# take seconds there too (a board costs 5x to 8x the one below it).
sized() { echo $(($1 - sanitized)); }
# thinned STEP ITEM...: the items, one a line; under the sanitizers only
# every STEP-th of them from the first, and the last.
thinned() {
  local step=$1 i=0 item
  shift
  [ "$sanitized" -eq 1 ] || step=1
  for item in "$@"; do
    if [ $((i % step)) -eq 0 ] || [ "$i" -eq $(($# - 1)) ]; then
      printf '%s\n' "$item"
    fi
    i=$((i + 1))
  done
}

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

# run_ranks_counting_wrong RANKS WRONG_RANK ARGS...: run_ranks with the
# test build's binary (NQ_E2E_FAULTS_BINARY, from ctest), rank WRONG_RANK
# reporting one solution too many for every unit (NQ_TEST_WRONG_COUNT).
run_ranks_counting_wrong() {
  local ranks=$1 wrong=$2
  shift 2
  NQ_TEST_WRONG_COUNT=$wrong binary=${NQ_E2E_FAULTS_BINARY:?set by ctest to the test build binary} \
    run_ranks "$ranks" "$@"
}
# run_counting_wrong ARGS...: the same alone, where no backup copy can
# catch it.
run_counting_wrong() {
  NQ_TEST_WRONG_COUNT=0 binary=${NQ_E2E_FAULTS_BINARY:?set by ctest to the test build binary} \
    run "$@"
}

# need_fault_shim: the fault shim of e2e_crashes.sh and e2e_faults.sh
# (tests/fault_shim.c, LD_PRELOAD; NQ_E2E_FAULT_SHIM names the library
# CMake builds) in `shim`, or the test skipped.
need_fault_shim() {
  shim=${NQ_E2E_FAULT_SHIM:-}
  if [ -z "$shim" ] || [ ! -f "$shim" ]; then
    skip "no fault shim (NQ_E2E_FAULT_SHIM names the library CMake builds)"
  fi
}
# bounded COMMAND...: COMMAND, killed after the suite's limit for one run,
# so that a run that hangs fails its check instead of the whole test.
bounded() { timeout -k 10 "$limit" "$@"; }
# with_shim [VAR=VALUE...] COMMAND...: COMMAND with the shim watching $work,
# bounded.  (In the sanitizer build the shim must come before ASan's
# runtime.)
with_shim() {
  bounded env LD_PRELOAD="$shim" NQ_SHIM_PATH="$work/" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

# Jobs in the background: `pid` is the binary's, or mpiexec's.
# A background job of a script ignores SIGINT; this gives the stop signals
# their default actions back (env, before the binary or mpiexec).
with_default_signals=(env --default-signal=INT,TERM,USR1,USR2)
ended() { ! kill -0 "$pid" 2>/dev/null; }
# signal_bit MASK SIGNAL: /proc/PID/status's hexadecimal MASK (SigIgn,
# SigBlk, SigCgt) holds the signal numbered SIGNAL (bit SIGNAL - 1).
signal_bit() { (((0x$1 >> ($2 - 1)) & 1)); }
# rank_pid RANK: the process of that rank among mpiexec's children.
rank_pid() {
  local child
  for child in $(pgrep -P "$pid"); do
    if tr '\0' '\n' <"/proc/$child/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$child"
      return
    fi
  done
}

# report_hung_run: what a job that did not end was doing, into the test's
# log, before end_hung_run: mpiexec's and each rank's state and, where gdb
# is installed (test.sh installs it), every thread's stack; then the run's
# last lines on stderr.  A hang that comes once in many CI runs cannot be
# found again afterwards: this is all there will be to read.
report_hung_run() {
  local process
  echo "the job (mpiexec pid $pid) did not end; its processes:"
  for process in "$pid" $(pgrep -P "$pid"); do
    echo "-- pid $process" \
      "$(tr '\0' '\n' <"/proc/$process/environ" 2>/dev/null | grep -m 1 '^OMPI_COMM_WORLD_RANK=')" \
      "$(grep -m 1 '^State:' "/proc/$process/status" 2>/dev/null)"
    if command -v gdb >/dev/null 2>&1; then
      timeout 30 gdb -p "$process" -batch -ex 'thread apply all bt 12' 2>/dev/null |
        grep -E '^(Thread|#)' | cut -c 1-160
    fi
  done
  echo "-- its stderr's last lines:"
  tail -n 5 "$err" | cut -c 1-300
}

# end_hung_run: the job killed, mpiexec's ranks first (stopped ones too),
# and reaped: what a failed stop left running, or a job a test ends.
end_hung_run() {
  local child
  for child in $(pgrep -P "$pid"); do kill -KILL "$child" 2>/dev/null; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
# awaited SECONDS: the background job's end and status within SECONDS; a
# job still running then is reported and ended, status 124 (timeout's).
# ended_in says how many seconds it took.
awaited() {
  local started=$SECONDS
  if within "$1" ended; then
    wait "$pid"
    status=$?
  else
    report_hung_run
    end_hung_run
    status=124
  fi
  # shellcheck disable=SC2034 # for the caller's checks
  ended_in=$((SECONDS - started))
}

json_solutions() { sed -n 's/.*"solutions":"\([0-9]*\)".*/\1/p' "$out"; }
json_unique() { sed -n 's/.*"unique":"\([0-9]*\)".*/\1/p' "$out"; }
json_nodes() { sed -n 's/.*"nodes":"\([0-9]*\)".*/\1/p' "$out"; }
# The count's JSON line with the fields that vary between runs and builds
# (time, rate, how the work was cut, node count, version) replaced by '#',
# and the backup copies left out (there when the end of a run sent some,
# which is timing), so that the rest can be compared whole.
json_count_shape() {
  sed -E -e 's/"(seconds|nodes_per_second|threads|units|depth)":[0-9.e+-]+/"\1":#/g' \
    -e 's/,"copies":[0-9]+,"copies_confirmed":[0-9]+//' \
    -e 's/"solutions_mod":\{[^}]*\}/"solutions_mod":#/' \
    -e 's/"(nodes|version)":"[^"]*"/"\1":"#"/g' "$out"
}
is_empty() { [ ! -s "$1" ]; }
# lines_matching ERE FILE: how many lines of FILE match, 0 when none or
# when there is no FILE yet (grep -c prints 0 and fails when none match).
lines_matching() { grep -cE -e "$1" "$2" 2>/dev/null || [ -f "$2" ] || echo 0; }
# within SECONDS COMMAND...: COMMAND succeeds before SECONDS have passed
# (polled every NQ_E2E_POLL seconds, 0.1 unless set).  Waits are for
# conditions; the bound only turns a hang into a failure.
within() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep "${NQ_E2E_POLL:-0.1}"
  done
}
# Exactly one complete line.
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && [ -z "$(tail -c 1 "$1" | tr -d '\n')" ]; }
# line_matches FILE LINE_NUMBER ERE: that whole line matches the pattern.
line_matches() { sed -n "$2p" "$1" | grep -qxE -e "$3"; }
# text_count_ok N RANKS WALK [unique]: the text count of Q(N) (and U(N)),
# whole: status 0, nothing on stderr, the count lines exactly and the
# figures line by pattern (times vary; WALK is an ERE).
text_count_ok() {
  local n=$1 ranks=$2 walk=$3 plural=s rank_plural=s expected
  if [ "${known_all[$n]}" = 1 ]; then plural=""; fi
  if [ "$ranks" = 1 ]; then rank_plural=""; fi
  expected="Q($n) = ${known_all[$n]} solution$plural on the ${n}x$n board"
  if [ "${4:-}" = unique ]; then
    expected+=$'\n'"U($n) = ${known_unique[$n]} up to rotation and reflection"
  fi
  local count_lines
  count_lines=$(wc -l <<<"$expected")
  [ "$status" -eq 0 ] && is_empty "$err" && [ "$(wc -l <"$out")" -eq $((count_lines + 1)) ] &&
    [ "$(head -n "$count_lines" "$out")" = "$expected" ] &&
    line_matches "$out" $((count_lines + 1)) \
      "[0-9]+\.[0-9]{3} s on $ranks rank$rank_plural, [0-9]+ threads?, [0-9]+ work units?, [0-9][0-9.e+-]* nodes/s, $walk walk(, [0-9]+ backup cop(y|ies) \([0-9]+ confirmed\))?"
}

# The oracle for boards, independent of the program: queens attack along
# rows, columns and diagonals, nothing more.
# columns_are_solution N "C0 C1 ...": N columns, no two queens attacking.
columns_are_solution() {
  awk -v n="$1" -v columns="$2" 'BEGIN {
    rows = split(columns, col, " ")
    ok = rows == n
    for (a = 1; a <= rows; a++) {
      if (col[a] !~ /^[0-9]+$/ || col[a] + 0 >= n) ok = 0
      for (b = a + 1; b <= rows; b++) {
        gap = col[a] - col[b]
        if (gap < 0) gap = -gap
        if (gap == 0 || gap == b - a) ok = 0
      }
    }
    exit !ok
  }'
}
# boards_columns N < BOARDS: boards of N rows of N squares ('Q' or '.', one
# 'Q' a row), a blank line between two, to one line of columns per board;
# fails on anything else.
boards_columns() {
  awk -v n="$1" '
    function board_end() {
      if (rows != n) bad = 1
      print line
      line = ""
      rows = 0
    }
    /^$/ { board_end(); next }
    {
      q = index($0, "Q")
      if (length($0) != n || $0 !~ /^[.Q]+$/ || q == 0 || index(substr($0, q + 1), "Q")) bad = 1
      line = line (rows ? " " : "") (q - 1)
      rows++
    }
    END {
      if (rows) board_end()
      exit bad
    }'
}
# boards_ok N COUNT FILE: FILE holds COUNT different boards of N (as
# boards_columns reads them), each a solution.
boards_ok() {
  local n=$1 count=$2 file=$3 columns board
  columns=$(boards_columns "$n" <"$file") || return 1
  [ "$(sort -u <<<"$columns" | wc -l)" -eq "$count" ] &&
    [ "$(wc -l <<<"$columns")" -eq "$count" ] || return 1
  while read -r board; do
    columns_are_solution "$n" "$board" || return 1
  done <<<"$columns"
}

# count_ok LABEL N: status 0, nothing on stderr, Q(n) on stdout (JSON).
count_ok() {
  local label=$1 n=$2 got
  got=$(json_solutions)
  if [ "$status" -eq 0 ] && is_empty "$err" && [ "$got" = "${known_all[$n]}" ]; then
    pass
  else
    fail "$label: -n $n --format json: status $status, solutions '$got'," \
      "expected ${known_all[$n]}; stderr: $(head -c 200 "$err")"
  fi
}

# usage_error_ok LABEL LINE: status 2, nothing on stdout, one line on stderr.
usage_error_ok() {
  local label=$1 line=$2
  if [ "$status" -eq 2 ] && is_empty "$out" && one_line "$err" &&
    [ "$(head -c 12 "$err")" = "nqueens-mpi:" ]; then
    pass
  else
    fail "$label: '$line': status $status (expected 2), stdout $(wc -c <"$out") bytes," \
      "stderr $(wc -l <"$err") lines: $(head -c 300 "$err" | tr '\n' '|')"
  fi
}

# ---- the lane walk: does this build, on this CPU, run it? ------------------
# --version lists the walks; the build (NQ_E2E_LANES_BUILT, from CMake) and
# the CPU's flags (/proc/cpuinfo) say what it should list.  A disagreement
# fails, so a walk that wrongly vanishes cannot turn its tests into skips.
# Sets lanes_listed (yes/no) and lanes_missing (why not, when no).
lanes_probe() {
  run --version
  lanes_listed=no
  lanes_missing=""
  if [ "$status" -ne 0 ] ||
    ! line_matches "$out" 1 'nqueens-mpi [0-9]+\.[0-9]+\.[0-9]+ \(walks: scalar(, avx512)?\)'; then
    fail "--version: status $status, output: $(head -c 200 "$out")"
    return
  fi
  if grep -qF ', avx512)' "$out"; then lanes_listed=yes; fi
  local expected=yes flags
  if [ "${NQ_E2E_LANES_BUILT:-unknown}" = 0 ]; then
    expected=no
    lanes_missing="the lane walk is not built (NQ_LANES=OFF, or the compiler cannot target AVX-512)"
  elif [ "${NQ_E2E_LANES_BUILT:-unknown}" != 1 ] || [ ! -r /proc/cpuinfo ]; then
    # Nothing to check --version against: it alone decides.
    expected=$lanes_listed
    lanes_missing="--version does not list avx512"
  else
    flags=$(grep -m 1 '^flags' /proc/cpuinfo)
    for flag in avx512f avx512cd avx512_vpopcntdq; do
      if ! grep -qw -e "$flag" <<<"$flags"; then
        expected=no
        lanes_missing="this CPU lacks AVX-512 F, CD or VPOPCNTDQ (/proc/cpuinfo: no $flag)"
      fi
    done
  fi
  check "--version lists avx512: $lanes_listed, but the build and /proc/cpuinfo say $expected" \
    [ "$lanes_listed" = "$expected" ]
}

# crc_line FILE LINE: line LINE of journal FILE, edited, gets the CRC-32
# of its new text in place of its old one, so that no checksum can tell.
# (gzip's trailer holds the CRC-32 of its input, low byte first: the
# journal's CRC, from zlib, is the same.)
crc_line() {
  local file=$1 line=$2 text body crc
  text=$(sed -n "${line}p" "$file")
  body=${text% *}
  crc=$(printf '%s' "$body" | gzip -c | tail -c 8 | head -c 4 | od -An -tx1 |
    awk '{ print $4 $3 $2 $1 }')
  # awk, not sed: a header's slice (slice=1/4) holds a slash.
  awk -v at="$line" -v text="$body $crc" 'NR == at { $0 = text } { print }' "$file" >"$file.crc"
  mv "$file.crc" "$file"
}

# record_field FILE K FIELD: field FIELD (0: the first id, 1: the units,
# 2: the solutions) of the K-th record of journal FILE.
record_line() { grep -n '^[0-9]' "$1" | sed -n "${2}s/:.*//p"; }
record_field() {
  local fields
  read -r -a fields <<<"$(sed -n "$(record_line "$1" "$2")p" "$1")"
  echo "${fields[$3]}"
}
# set_record_field FILE K FIELD VALUE: that field set to VALUE under a
# valid CRC: a forgery only the counts' checks can catch.
set_record_field() {
  local line fields
  line=$(record_line "$1" "$2")
  read -r -a fields <<<"$(sed -n "${line}p" "$1")"
  fields[$3]=$4
  sed -i "${line}s/.*/${fields[*]}/" "$1"
  crc_line "$1" "$line"
}
# forge_record FILE [K]: the K-th record (default 1) of journal FILE with
# one solution more under a valid CRC: what --verify and --merge must
# catch.
forge_record() {
  set_record_field "$1" "${2:-1}" 2 $(($(record_field "$1" "${2:-1}" 2) + 1))
}
