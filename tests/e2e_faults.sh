#!/usr/bin/env bash
# End-to-end: what the program does when the machine fails under it, on
# the clock (a run alone: RUN_SERIAL).  Crash consistency at every file
# call, which has no clock in it, is e2e_crashes.sh's.
#  - A lone process killed every 0.3 s still finishes: it journals each
#    unit as it finishes.
#  - A complete journal that cannot be written still gives its result; an
#    incomplete one is refused, untouched, and so is --verify of a complete
#    one (its checks are written).  A full disk under a new journal or
#    --json is named, and fails the run.
#  - mpiexec killed (SIGKILL): its orphaned ranks let the journal go within
#    a second; a rerun that finds it still held exits 4 and is retried.
#  - A rank stopped (SIGSTOP) for good, holding work or after its last
#    answer: the count ends with the exact result, a warning, and status 0,
#    within the end's patience.  Rank 0 stopped, then the job killed:
#    nothing journaled is lost.
#   e2e_faults.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

need_fault_shim
q() { echo "${known_all[$1]}"; }
journal=$work/faults.journal

# ---- a lone process killed over and over ------------------------------------
rm -f "$journal"
tries=0
# (Up to 300 runs: under the sanitizers the start and the resume take most
# of the 0.3 s, and each run adds only what is left of it.  The suite's
# slow, exact unwinding on every malloc would leave nothing once the
# journal has a few thousand records: fast unwinding here, and no leak
# check, whose Open MPI suppressions need the exact stacks; the rest of
# the suite checks leaks.)
while [ "$tries" -lt 300 ]; do
  tries=$((tries + 1))
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=1:detect_leaks=0" \
    timeout -s KILL 0.3 "$binary" -n 16 --method backtrack -t 1 -q --checkpoint "$journal" \
    --format json >"$out" 2>"$err"
  status=$?
  [ "$status" -ne 137 ] && break
done
check "killed every 0.3 s, a lone process still finishes ($tries runs): status $status" \
  bash -c "[ $status -eq 0 ] && [ '$(json_solutions)' = $(q 16) ] && [ $tries -ge 2 ]"

# ---- a journal that cannot be written ---------------------------------------
rm -f "$journal"
run -n 12 -t 1 --checkpoint "$journal" -q
cp "$journal" "$work/before"
with_shim NQ_SHIM_READ_ONLY=1 "$binary" -n 12 -t 1 --checkpoint "$journal" >"$out" 2>"$err"
status=$?
check "a complete journal that cannot be written: its result, status 0, untouched" \
  bash -c "[ $status -eq 0 ] && grep -qx 'Q(12) = $(q 12) solutions on the 12x12 board' '$out' && cmp -s '$journal' '$work/before'"
# --verify writes its checks: refused before any is solved, the file as it was.
with_shim NQ_SHIM_READ_ONLY=1 "$binary" -n 12 -t 1 --checkpoint "$journal" --verify 1 >"$out" 2>"$err"
status=$?
usage_error_ok "--verify of a complete journal that cannot be written" "-n 12 --verify 1 (read-only)"
check "--verify of a complete journal that cannot be written: says why, untouched" \
  bash -c "grep -q 'cannot be written, and --verify records its checks' '$err' && cmp -s '$journal' '$work/before'"
# Its sample checked already (a writable run did), nothing is left to
# write: it answers.
run -n 12 -t 1 --checkpoint "$journal" --verify 1 -q
cp "$journal" "$work/before"
with_shim NQ_SHIM_READ_ONLY=1 "$binary" -n 12 -t 1 --checkpoint "$journal" --verify 1 >"$out" 2>"$err"
status=$?
check "--verify of a complete, checked journal that cannot be written: its result, status $status, untouched" \
  bash -c "[ $status -eq 0 ] && grep -qx 'Q(12) = $(q 12) solutions on the 12x12 board' '$out' && cmp -s '$journal' '$work/before'"
head -n 4 "$work/before" >"$journal"
cp "$journal" "$work/before"
with_shim NQ_SHIM_READ_ONLY=1 "$binary" -n 12 -t 1 --checkpoint "$journal" >"$out" 2>"$err"
status=$?
usage_error_ok "an incomplete journal that cannot be written" "-n 12 --checkpoint (read-only)"
check "an incomplete journal that cannot be written: says why, untouched" \
  bash -c "grep -q 'cannot be written (Read-only file system), and it holds' '$err' && cmp -s '$journal' '$work/before'"

# A new journal on a full disk: the run fails (status 1), naming the
# reason; the path given was good, so it is no usage error (status 2).
with_shim NQ_SHIM_FULL=1 "$binary" -n 8 --checkpoint "$work/new.journal" -q >"$out" 2>"$err"
status=$?
check "a new journal on a full disk: status $status (expected 1), the reason, no file: $(head -c 200 "$err")" \
  bash -c "[ $status -eq 1 ] && grep -q 'No space left on device' '$err' && [ ! -e '$work/new.journal' ] && ! ls '$work'/new.journal.* >/dev/null 2>&1"

# A disk that fills during the count: the run fails (status 1), naming the
# reason, and the line it could not finish is cut off again: the journal
# holds whole lines, and a rerun resumes from them with nothing to drop.
rm -f "$journal"
with_shim NQ_SHIM_FULL_AFTER=1000 "$binary" -n 12 -t 1 --method backtrack --checkpoint "$journal" -q \
  >"$out" 2>"$err"
status=$?
check "the disk full during the count: status $status (expected 1), the reason, whole lines ($(wc -c <"$journal") bytes)" \
  bash -c "[ $status -eq 1 ] && grep -q 'No space left on device' '$err' && [ -s '$journal' ] && [ -z \"\$(tail -c 1 '$journal' | tr -d '\n')\" ]"
run -n 12 -t 1 --method backtrack --checkpoint "$journal" -q --format json
check "the disk full during the count, then a rerun: exact Q(12), no torn line: $(head -c 200 "$err")" \
  bash -c "[ $status -eq 0 ] && [ '$(json_solutions)' = $(q 12) ] && ! grep -q torn '$err'"

with_shim NQ_SHIM_FULL=1 "$binary" -n 8 --json "$work/full.json" -q >"$out" 2>"$err"
status=$?
check "--json on a full disk: status 1, the system's reason, no file: $(head -c 200 "$err")" \
  bash -c "[ $status -eq 1 ] && grep -q 'No space left on device' '$err' && [ ! -e '$work/full.json' ] && ! ls '$work'/full.json.* >/dev/null 2>&1"

# ---- mpiexec killed: the journal let go -------------------------------------
# launched COUNT_ARGS...: a 2-rank count in the background; `pid` is
# mpiexec's.
launched() {
  "$mpiexec" "$numproc_flag" 2 -q --oversubscribe "$binary" "$@" >"$out" 2>"$err" &
  pid=$!
}
records_at_least() { [ "$(lines_matching '^[0-9]' "$journal")" -ge "$1" ]; }
rm -f "$journal"
launched -n 17 --method backtrack -t 1 -q --checkpoint "$journal"
within 60 records_at_least 2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
orphans_gone() { ! pgrep -f -- "--checkpoint $journal" >/dev/null; }
check "mpiexec killed: its ranks are gone within 2 s" within 2 orphans_gone
retries=0
while :; do
  run -n 17 --method backtrack -q --checkpoint "$journal" --format json
  [ "$status" -ne 4 ] || [ "$retries" -ge 20 ] && break
  retries=$((retries + 1))
  sleep 0.2
done
check "a rerun after mpiexec was killed: exact Q(17) ($retries retries on status 4)" \
  bash -c "[ $status -eq 0 ] && [ '$(json_solutions)' = $(q 17) ]"
pkill -KILL -f -- "--checkpoint $journal" 2>/dev/null

# ---- a rank stopped for good ------------------------------------------------
# Its batches are copied to whoever is idle: at 3 ranks the other worker,
# at 2 the master's own threads (before, the count waited for a signal).
for ranks in 2 3; do
  rm -f "$journal"
  "$mpiexec" "$numproc_flag" "$ranks" -q --oversubscribe "$binary" -n 17 --method backtrack -t 1 \
    -q --checkpoint "$journal" --format json >"$out" 2>"$err" &
  pid=$!
  within 60 records_at_least 2
  stopped=$(rank_pid 1)
  [ -n "$stopped" ] && kill -STOP "$stopped"
  awaited 120
  check "rank 1 of $ranks stopped for good: status 0, exact Q(17), a warning naming it, in ${ended_in} s" \
    bash -c "[ -n '$stopped' ] && [ $status -eq 0 ] && [ '$(json_solutions)' = $(q 17) ] && grep -q 'warning: rank 1 ' '$err'"
  [ -n "$stopped" ] && kill -KILL "$stopped" 2>/dev/null
  run --status "$journal"
  check "rank 1 of $ranks stopped for good: the journal is complete" grep -q '^complete' "$out"
done

# ---- a rank stopped after its last answer ------------------------------------
# It holds nothing, so no batch makes it silent; the end's collective steps
# would wait for it for ever, the count unprinted.  The test build's rank 2
# stops itself as its stop arrives (NQ_TEST_STALL_AT_END).
NQ_TEST_STALL_AT_END=2 "$mpiexec" "$numproc_flag" 3 -q --oversubscribe \
  "${NQ_E2E_FAULTS_BINARY:?set by ctest to the test build binary}" -n 12 -t 1 --format json \
  >"$out" 2>"$err" &
pid=$!
awaited 60
check "rank 2 stopped after its last answer: status 0, exact Q(12), a warning naming it, in ${ended_in} s" \
  bash -c "[ $status -eq 0 ] && [ '$(json_solutions)' = $(q 12) ] && grep -q 'warning: rank 2 ' '$err'"
# The 10 s of patience that found it silent are not the count's time.
seconds=$(sed -n 's/.*"seconds":\([0-9.e+-]*\).*/\1/p' "$out")
check "rank 2 stopped after its last answer: the count's seconds '$seconds' hold the patience" \
  awk -v s="$seconds" 'BEGIN { exit !(s != "" && s < 5) }'

rm -f "$journal"
"$mpiexec" "$numproc_flag" 3 -q --oversubscribe "$binary" -n 17 --method backtrack -t 1 -q \
  --checkpoint "$journal" >"$out" 2>"$err" &
pid=$!
within 60 records_at_least 3
leader=$(rank_pid 0)
kept=$(grep -c '^[0-9]' "$journal")
[ -n "$leader" ] && kill -STOP "$leader"
sleep 1
end_hung_run
run --status "$journal" --format json
done_units=$(sed -n 's/.*"units_done":\([0-9]*\).*/\1/p' "$out")
check "rank 0 stopped, then the job killed: the $kept records journaled before are kept" \
  bash -c "[ -n '$leader' ] && [ \$(grep -c '^[0-9]' '$journal') -ge $kept ] && [ -n '$done_units' ]"
run -n 17 --method backtrack -q --checkpoint "$journal" --format json
check "rank 0 stopped, then the job killed: the rerun gives exact Q(17)" \
  bash -c "[ $status -eq 0 ] && [ '$(json_solutions)' = $(q 17) ]"
finish
