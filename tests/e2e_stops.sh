#!/usr/bin/env bash
# End-to-end: a signal stops a count cleanly.  Q(18) (tens of seconds, so
# it is still counting when the signal comes) starts in the background,
# alone or under mpiexec with 3 ranks; once its first progress line shows
# it counting, it gets a signal: SIGUSR1, SIGUSR2, SIGTERM or SIGINT when
# alone; under mpiexec, SIGUSR1 to mpiexec (which passes it to every
# rank), or a signal to one rank alone.  Each run must end with status 3,
# nothing on stdout, and on stderr, besides progress lines, exactly the
# line that says nothing was saved.  With --checkpoint, the line says how
# many units the journal holds, the journal holds exactly those, and the
# same command then finishes the count exactly.  The same for the join.
# Nothing here is timed (a loaded machine only keeps the count running
# longer), so it runs beside other tests; the stops on the clock, in every
# phase and the first moments, are e2e_signals.sh's.
#   e2e_stops.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

# The line a stop leaves on stderr, as an ERE.
unsaved_line='nqueens-mpi: stopped cleanly; nothing was saved \(no --checkpoint\): rerun to start over'
stopped_line=$unsaved_line
journal=$work/q18.journal
# The board of the counts below: Q(18), whose stops cost nothing, but
# whose resumes count the rest; those take Q(17) under the sanitizers
# (e2e_lib.sh, sized).
board=18
# progress_for UNITS: a progress line of a count of UNITS units, as an ERE.
progress_for() {
  echo "nqueens-mpi: [0-9]+/$1 units \\([0-9.]+%\\), [0-9]+ solutions so far, [0-9.e+]+ units/s, [0-9.]+ (s|min|h|d) elapsed, ETA ([0-9.]+ (s|min|h|d)|unknown)"
}
# The backtracker's units at its default depth: 8192 for Q(18), 6112 for Q(17).
backtrack_units() { if [ "$1" = 18 ]; then echo 8192; else echo 6112; fi; }
progress_line=$(progress_for 8192)
# Every wait is for a condition; this bound only turns a hang into a
# failure, and is far longer than a loaded machine needs.
patience=120

counting() { grep -qE -e "^$progress_line\$" "$err"; }

# The count every run here makes; count_args adds to it (--checkpoint).
# Q(18) alone would be counted by the join (--method auto): the
# backtracker's stops are the subject until the join's own section.
count_args=(--method backtrack)

# start_count RANKS [PREFIX...]: Q(18) in the background, a progress line
# every second, alone (RANKS 0) or under mpiexec; PREFIX runs it (env, to
# give it the default signal actions a background job of a script lacks).
# Sets `pid`: the binary's, or mpiexec's.
start_count() {
  local ranks=$1
  shift
  # Emptied here, not only by the job's own redirections, which may come
  # after the first look for a progress line.
  : >"$out"
  : >"$err"
  if [ "$ranks" -eq 0 ]; then
    "$@" "$binary" -n "$board" --progress 1 "${count_args[@]}" >"$out" 2>"$err" &
  else
    "$@" "$mpiexec" "$numproc_flag" "$ranks" -q --oversubscribe "$binary" -n "$board" --progress 1 \
      "${count_args[@]}" >"$out" 2>"$err" &
  fi
  pid=$!
}

# stopped_ok LABEL: the run ended with status 3, nothing on stdout, and
# only progress lines and the one stop line on stderr.
stopped_ok() {
  local label=$1
  awaited "$patience"
  local others
  others=$(grep -vxE -e "$progress_line" "$err")
  if [ "$status" -eq 3 ] && is_empty "$out" && [ "$(wc -l <<<"$others")" -eq 1 ] &&
    grep -qxE -e "$stopped_line" <<<"$others"; then
    pass
  else
    fail "$label: status $status (expected 3; 124: still running after ${patience} s)," \
      "stdout $(wc -c <"$out") bytes, stderr besides progress: $(head -c 300 <<<"$others" | tr '\n' '|')"
  fi
}

# signal_ok LABEL SIGNAL TARGET: once the count is counting, SIGNAL to
# TARGET (a pid, or "rank R" under mpiexec) stops it cleanly.
signal_ok() {
  local label=$1 signal=$2 target=$3
  if ! within "$patience" counting; then
    fail "$label: no progress line after ${patience} s: $(head -c 300 "$err" | tr '\n' '|')"
    end_hung_run
    return
  fi
  if [ "${target% *}" = rank ]; then
    target=$(rank_pid "${target#rank }")
  fi
  if [ -z "$target" ]; then
    fail "$label: no process of $3 under mpiexec (pid $pid)"
    end_hung_run
    return
  fi
  kill -s "$signal" "$target"
  stopped_ok "$label"
}

run --help
check "--help does not give exit status 3: $(grep -i 'exit status' -A 3 "$out" | tr '\n' '|')" \
  grep -q 'stopped cleanly by$' "$out"

# ---- alone -------------------------------------------------------------------

for signal in USR1 USR2 TERM INT; do
  start_count 0 "${with_default_signals[@]}"
  signal_ok "alone, SIG$signal" "$signal" "$pid"
done

# Started with SIGINT ignored (as a script's background job is), the count
# leaves it ignored and catches the other three.
start_count 0 env --default-signal=TERM,USR1,USR2
if within "$patience" counting; then
  ignored=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$pid/status")
  caught=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status")
  check "SIGINT, ignored at the start, is no longer ignored (SigIgn $ignored)" \
    signal_bit "$ignored" "$(kill -l INT)"
  for signal in TERM USR1 USR2; do
    check "SIG$signal is not caught while counting (SigCgt $caught)" \
      signal_bit "$caught" "$(kill -l "$signal")"
  done
  kill -s USR1 "$pid"
  stopped_ok "alone, SIGINT ignored, then SIGUSR1"
else
  fail "alone, SIGINT ignored: no progress line after ${patience} s"
  end_hung_run
fi

# ---- under mpiexec, 3 ranks --------------------------------------------------
# mpiexec passes SIGUSR1 and SIGUSR2 on to every rank; a signal to one rank
# alone (Slurm signals each task; a person may signal one process) reaches
# the others through rank 0.

start_count 3 "${with_default_signals[@]}"
signal_ok "3 ranks, SIGUSR1 to mpiexec" USR1 "$pid"
start_count 3 "${with_default_signals[@]}"
signal_ok "3 ranks, SIGUSR2 to mpiexec" USR2 "$pid"
start_count 3 "${with_default_signals[@]}"
signal_ok "3 ranks, SIGUSR1 to rank 0 alone" USR1 "rank 0"
start_count 3 "${with_default_signals[@]}"
signal_ok "3 ranks, SIGUSR1 to rank 2 alone" USR1 "rank 2"
start_count 3 "${with_default_signals[@]}"
signal_ok "3 ranks, SIGTERM to rank 1 alone" TERM "rank 1"

# ---- with --checkpoint: stopped, then resumed -------------------------------
# The stop line names the units kept; the journal (read by --status) holds
# exactly those; the same command then counts the rest, and the total is
# exact.
board=$(sized 18)
progress_line=$(progress_for "$(backtrack_units "$board")")

journal_units_done() {
  "$binary" --status "$journal" --format json 2>/dev/null |
    sed -n 's/.*"units_done":\([0-9]*\).*/\1/p'
}

# stop_and_resume LABEL RANKS SIGNAL TARGET
stop_and_resume() {
  local label=$1 ranks=$2 signal=$3 target=$4
  rm -f "$journal"
  count_args=(--method backtrack --checkpoint "$journal")
  stopped_line="nqueens-mpi: stopped cleanly, resumable with the same command: [0-9]+ units done are in $journal"
  start_count "$ranks" "${with_default_signals[@]}"
  [ "$target" = self ] && target=$pid
  local before=$failed
  signal_ok "$label" "$signal" "$target"
  [ "$failed" -eq "$before" ] || return
  local said kept
  said=$(grep -vxE -e "$progress_line" "$err" | sed -E 's/.*command: ([0-9]+) units.*/\1/')
  kept=$(journal_units_done)
  check "$label: the stop line says $said units, the journal holds '$kept'" [ "$said" = "$kept" ]
  check "$label: no unit was finished before the stop" [ "${kept:-0}" -gt 0 ]
  if [ "$ranks" -eq 0 ]; then
    run -n "$board" "${count_args[@]}" --format json -q
  else
    run_ranks "$ranks" -n "$board" "${count_args[@]}" --format json -q
  fi
  count_ok "$label, resumed" "$board"
  check "$label, resumed: the $kept units kept were not all taken from the journal: $(head -c 300 "$out")" \
    grep -q "\"resumed_units\":$kept[,}]" "$out"
}

stop_and_resume "alone, --checkpoint, SIGUSR1" 0 USR1 self
stop_and_resume "3 ranks, --checkpoint, SIGUSR1 to mpiexec" 3 USR1 self
stop_and_resume "3 ranks, --checkpoint, SIGTERM to rank 2 alone" 3 TERM "rank 2"

# ---- the join -------------------------------------------------------------------
# The same engine: the same stops, its finished units in the journal.  (That
# auto takes the join for Q(18) with a checkpoint is e2e_join.sh's to check.)

count_args=(--method join --checkpoint "$journal")
# (A join's first units can take longer than the first progress line: a
# stop before any is done says so.)
stopped_line="nqueens-mpi: stopped cleanly(, resumable with the same command: [0-9]+ units done are in $journal| before any unit was done; $journal, if made, keeps what it held: rerun the same command)"
progress_line='nqueens-mpi: [0-9]+/[0-9]+ units \([0-9.]+%\), [0-9]+ solutions so far, [0-9.e+]+ units/s, [0-9.]+ (s|min|h|d) elapsed, ETA ([0-9.]+ (s|min|h|d)|unknown)'
for signal in INT TERM; do
  rm -f "$journal"
  start_count 0 "${with_default_signals[@]}"
  signal_ok "the join alone, SIG$signal" "$signal" "$pid"
done
rm -f "$journal"
start_count 3 "${with_default_signals[@]}"
signal_ok "the join on 3 ranks, SIGUSR1 to mpiexec" USR1 "$pid"
check "the join on 3 ranks: a join journal" grep -q ' method=join' "$journal"

finish
