#!/usr/bin/env bash
# End-to-end: --checkpoint journals on real runs.  A run killed with
# SIGKILL (the process, mpirun, or one rank) at any moment and rerun with
# the same command gives the exact count and node count of an uninterrupted
# run; journals that cannot serve are refused with status 2 and left byte
# for byte as they were; a torn last record is dropped with a warning.
# Waits are for conditions (records in the journal), never for time alone.
#   e2e_checkpoint.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

journal=$work/q17.journal
reference_nodes=""
# Q(17) here, Q(16) under the sanitizers (e2e_lib.sh, sized); its units
# and their depth come from the reference run.
board=$(sized 17)

# records FILE: the records a journal holds (lines after the header).
records() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }

# wait_records FILE COUNT PID: until FILE holds COUNT records or PID ended.
wait_records() {
  local deadline=$((SECONDS + limit))
  while [ "$(records "$1")" -lt "$2" ] && kill -0 "$3" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.05
  done
}

# exact_q17 LABEL: the JSON in $out is Q($board) with the reference nodes.
exact_q17() {
  local got nodes
  got=$(json_solutions)
  nodes=$(json_nodes)
  if [ "$status" -eq 0 ] && [ "$got" = "${known_all[$board]}" ] && [ "$nodes" = "$reference_nodes" ]; then
    pass
  else
    fail "$1: status $status, solutions '$got', nodes '$nodes' (expected ${known_all[$board]}," \
      "$reference_nodes); stderr: $(head -c 300 "$err")"
  fi
}

run -n "$board" --format json -q
reference_nodes=$(json_nodes)
units=$(sed -n 's/.*"units":\([0-9]*\).*/\1/p' "$out")
depth=$(sed -n 's/.*"depth":\([0-9]*\).*/\1/p' "$out")
count_ok "reference run" "$board"

# kill_and_resume LABEL RANKS VICTIM RECORDS: starts a count with a fresh
# journal, kills VICTIM (run: the launched process; rank: one rank's
# process) once RECORDS records are in, reruns the same command.
kill_and_resume() {
  local label=$1 ranks=$2 victim=$3 wanted=$4 pid
  rm -f "$journal"
  if [ "$ranks" = 1 ]; then
    "$binary" -n "$board" --checkpoint "$journal" --format json -q >"$out" 2>"$err" &
  else
    "$mpiexec" "$numproc_flag" "$ranks" -q --oversubscribe "$binary" -n "$board" \
      --checkpoint "$journal" --format json -q >"$out" 2>"$err" &
  fi
  pid=$!
  wait_records "$journal" "$wanted" "$pid"
  if [ "$victim" = rank ]; then
    pkill -KILL -f -n "nqueens-mpi -n $board --checkpoint $journal" || true
  else
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null
  pkill -KILL -f "nqueens-mpi -n $board --checkpoint $journal" 2>/dev/null
  local kept
  kept=$(records "$journal")
  if [ "$ranks" = 1 ]; then
    run -n "$board" --checkpoint "$journal" --format json -q
  else
    run_ranks "$ranks" -n "$board" --checkpoint "$journal" --format json -q
  fi
  exact_q17 "$label, resumed from $kept records"
}

kill_and_resume "1 rank, process killed" 1 run 1
kill_and_resume "3 ranks, mpirun killed early" 3 run 2
kill_and_resume "3 ranks, mpirun killed later" 3 run 60
kill_and_resume "3 ranks, one rank killed" 3 rank 20

# The final stretch: once the journal holds all but the last units, every
# unit has been handed out; the kill (of mpirun) lands while the last
# batches are out, or after the last record while the master forms the
# totals and ends the workers.  Either way nothing finished may be lost.
# The kill races the run's end; a run that ends first is reported, and its
# rerun must still print the exact count.
# (The units of the unit records alone: a run line's second field is its
# start in ms, which summed made a float that no test could compare.)
# No journal yet is 0 (mawk skips END on a missing file, gawk runs it).
units_recorded() {
  [ -f "$1" ] || { echo 0; return; }
  awk '$1 ~ /^[0-9]+$/ { done += $2 } END { printf "%d\n", done }' "$1"
}
final_stretch_kill() {
  local ranks=$1 pid
  rm -f "$journal"
  "$mpiexec" "$numproc_flag" "$ranks" -q --oversubscribe "$binary" -n "$board" \
    --checkpoint "$journal" --format json -q >"$out" 2>"$err" &
  pid=$!
  # At most 2 batches of 16 out per worker and 1 at the master.
  local tail_start=$((units - 2 * 16 * (ranks - 1) - 1))
  local deadline=$((SECONDS + limit))
  while [ "$(units_recorded "$journal")" -lt "$tail_start" ] && kill -0 "$pid" 2>/dev/null &&
    [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.01
  done
  if kill -KILL "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null
    pkill -KILL -f "nqueens-mpi -n $board --checkpoint $journal" 2>/dev/null
  else
    wait "$pid" 2>/dev/null
    echo "note: the $ranks-rank run ended before the final-stretch kill"
  fi
  local kept
  kept=$(units_recorded "$journal")
  run_ranks "$ranks" -n "$board" --checkpoint "$journal" --format json -q
  exact_q17 "$ranks ranks, mpirun killed in the final stretch ($kept units recorded)"
}
final_stretch_kill 3
final_stretch_kill 2

# A finished journal answers at once: every unit from the journal.
run -n "$board" --checkpoint "$journal" --format json -q
exact_q17 "finished journal"
check "finished journal: not every unit came from it: $(head -c 300 "$out")" \
  grep -q "\"units\":$units,.*\"resumed_units\":$units," "$out"

# --status reads a journal alone: a finished one, then a partial one.
run --status "$journal"
status_complete() {
  [ "$status" -eq 0 ] && [ "$(wc -l <"$out")" -eq 2 ] &&
    line_matches "$out" 2 'complete: rerun the same command to print the result'
}
check "--status of a finished journal: status $status, stdout: $(head -c 300 "$out")" \
  status_complete
check "--status: first line is not the summary: $(head -n 1 "$out")" \
  line_matches "$out" 1 ".*: n = $board, $units/$units units \(100\.0%\), ${known_all[$board]} solutions so far"
run --status "$journal" --format json
check "--status --format json: $(head -c 300 "$out")" line_matches "$out" 1 \
  "\{\"journal\":\"[^\"]*\",\"n\":$board,\"unique\":false,\"depth\":$depth,\"units_done\":$units,\"units_total\":$units,\"solutions\":\"${known_all[$board]}\",\"nodes\":\"$reference_nodes\",\"records\":[0-9]+,\"complete\":true,\"method\":\"(backtrack|join)\",\"checks\":0,\"checks_differing\":0,\"checks_confirmed\":0,\"checks_contradicted\":0,\"trusted\":true,\"counting_seconds\":[0-9.]+,\"counting_runs\":[0-9]+(,\"units_per_second\":[0-9.e+]+,\"eta_seconds\":[0-9]+)?\}"
{ head -n 1 "$journal"; sed -n '2,3p' "$journal"; } >"$work/partial"
run --status "$work/partial" --format json
check "--status of a partial journal: $(head -c 300 "$out")" grep -q "\"units_total\":$units,.*\"complete\":false" "$out"
run --status "$work/missing.journal"
usage_error_ok "--status of a missing file" "--status missing.journal"

# A torn last record (a crash mid-write) is dropped, with one warning line.
cp "$journal" "$work/whole"
head -n 1 "$journal" >"$work/header"
{ cat "$work/header"; sed -n '2,5p' "$work/whole"; printf '3000 16 123'; } >"$journal"
run -n "$board" --checkpoint "$journal" --format json -q
exact_q17 "torn last record"
check "torn last record: not one warning line: $(head -c 300 "$err")" one_line "$err"
check "torn last record: the warning is not one: $(head -c 300 "$err")" \
  grep -q '^nqueens-mpi: warning: --checkpoint ' "$err"

# refused_untouched LABEL ARGS...: status 2, one line on stderr naming the
# journal, nothing on stdout, the file byte for byte as before.
refused_untouched() {
  local label=$1
  shift
  cp "$journal" "$work/before"
  run "$@" --checkpoint "$journal"
  usage_error_ok "$label" "$*"
  check "$label: the journal changed" cmp -s "$journal" "$work/before"
}

refused_untouched "journal of another n" -n $((board - 1))
refused_untouched "journal without --unique's sums" -n "$board" --unique
sed '3s/^\(.\)/\1\1/' "$work/whole" >"$journal" # damage in a middle record
refused_untouched "damaged middle record" -n "$board"
printf 'Q(17) = 95815104\n' >"$journal"
refused_untouched "not a journal" -n "$board"
check "not a journal: the line names the journal once: $(cat "$err")" \
  [ "$(cat "$err")" = "nqueens-mpi: --checkpoint $journal: not a checkpoint journal (no \"nqueens-journal\" header line)" ]
: >"$journal"
refused_untouched "empty file" -n "$board"

# A journal where the run prints, alone or under mpirun (whose stream it
# is then), would be damaged by its lines: refused, the journal as it
# was, the line on stderr unless stderr is the journal.
printed=$work/printed.journal
"$binary" -n 10 --checkpoint "$printed" -q >/dev/null
cp "$printed" "$work/printed.before"
refused_saying() { [ "$status" -eq 2 ] && [ "$(wc -l <"$err")" -eq "$1" ]; }
printed_refused() {
  local label=$1 expected_lines=$2
  check "$label: status $status (expected 2), stderr: $(head -c 300 "$err" | tr '\n' '|')" \
    refused_saying "$expected_lines"
  check "$label: the journal changed" cmp -s "$printed" "$work/printed.before"
}
for args in "-n 10 --checkpoint" "--status" "--merge"; do
  read -ra words <<<"$args"
  timeout "$limit" "$binary" "${words[@]}" "$printed" >>"$printed" 2>"$err"
  status=$?
  printed_refused "$args JOURNAL >> JOURNAL" 1
  check "$args JOURNAL >> JOURNAL: not named: $(head -c 300 "$err")" \
    grep -q "is this run's standard output, whose lines would damage the journal" "$err"
  : >"$err" # stderr is the journal: whatever is printed shows there
  timeout "$limit" "$binary" "${words[@]}" "$printed" >"$out" 2>>"$printed"
  status=$?
  printed_refused "$args JOURNAL 2>> JOURNAL" 0
done
timeout "$limit" "$mpiexec" "$numproc_flag" 2 -q --oversubscribe "$binary" -n 10 \
  --checkpoint "$printed" >>"$printed" 2>"$err"
status=$?
printed_refused "2 ranks: -n 10 --checkpoint JOURNAL >> JOURNAL" 1

run -n 12 --list --checkpoint "$journal"
usage_error_ok "--checkpoint with --list" "-n 12 --list --checkpoint"

# A second live run on the same journal is refused while the first holds
# it, with its own status (4: in use, retry later), one line, nothing
# changed; the first then finishes exactly.
rm -f "$journal"
"$mpiexec" "$numproc_flag" 2 -q --oversubscribe "$binary" -n "$board" --checkpoint "$journal" \
  --format json -q >"$work/first_out" 2>"$work/first_err" &
first=$!
wait_records "$journal" 1 "$first"
# The first run is held (SIGSTOP) while the second asks: a stopped process
# keeps its lock, and the first cannot end meanwhile (under the sanitizers
# the second's start took longer than the rest of the first count).  Held
# with units still to record, it holds the lock.
held="nqueens-mpi -n $board --checkpoint $journal"
if pkill -STOP -f -- "$held" && [ "$(units_recorded "$journal")" -lt "$units" ]; then
  run -n "$board" --checkpoint "$journal"
  pkill -CONT -f -- "$held"
  check "second live run: status 4, one line naming the holder, nothing on stdout: status $status, $(head -c 200 "$err")" \
    bash -c "[ $status -eq 4 ] && [ ! -s '$out' ] && [ \$(wc -l <'$err') -eq 1 ] && grep -q 'in use by another run (process [0-9]* holds its lock)' '$err'"
else
  pkill -CONT -f -- "$held"
  skip_line="the first run ended before the second could start"
  echo "note: $skip_line; the lock is tested in check_journal"
fi
wait "$first"
status=$?
cp "$work/first_out" "$out"
: >"$err"
exact_q17 "first run, after a second was refused"

# The rate --status gives is over the time the runs counted, not the time
# between them (a job waiting to be requeued): two runs of about a second,
# 4 s apart, count about 2 s.
rm -f "$journal"
for run_number in 1 2; do
  timeout -s USR1 1 "$binary" -n 17 --method backtrack -t 1 -q --checkpoint "$journal" \
    >/dev/null 2>&1
  [ "$run_number" -eq 1 ] && sleep 4
done
run --status "$journal" --format json
counting=$(sed -n 's/.*"counting_seconds":\([0-9.]*\).*/\1/p' "$out")
check "--status counts the runs' counting time ($counting s), not the 4 s between them: $(head -c 300 "$out")" \
  bash -c "grep -q '\"counting_runs\":2' '$out' && awk -v c='$counting' 'BEGIN { exit !(c > 0.5 && c < 3.5) }'"
finish
