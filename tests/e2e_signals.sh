#!/usr/bin/env bash
# End-to-end: a signal stops a run cleanly, on the clock (a run alone:
# RUN_SERIAL).  A --verify stopped keeps its verdicts and the same command
# checks only the rest; before a large board's run its units are counted,
# and --estimate probes: a signal stops either within a second; a signal
# in the first moments, while MPI starts, waits for the run to take it.
# The stops of a count at its progress, alone, under mpiexec and with a
# journal, are e2e_stops.sh's.
#   e2e_signals.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

journal=$work/signals.journal
# Every wait is for a condition; this bound only turns a hang into a
# failure, and is far longer than a loaded machine needs.
patience=120

# ---- --verify: stopped, its verdicts kept, then finished --------------------
# The verification obeys a stop as the count does (status 3, the line says
# where it stands); the check lines written before stay, and the same
# command then checks only the batches without one.

# Q(17), Q(16) under the sanitizers (e2e_lib.sh, sized).
verified_n=$(sized 17)
rm -f "$journal"
run_ranks 3 -n "$verified_n" --method backtrack --checkpoint "$journal" -t 1 -q
checks_at_least() { [ "$(lines_matching '^check ' "$journal")" -ge "$1" ]; }
"${with_default_signals[@]}" "$mpiexec" "$numproc_flag" 3 -q --oversubscribe "$binary" -n "$verified_n" \
  --method backtrack --checkpoint "$journal" --verify 1 -t 1 -q >"$out" 2>"$err" &
pid=$!
within "$patience" checks_at_least 20
kill -s USR1 "$pid"
signalled=$(date +%s%N)
within "$patience" ended
took=$((($(date +%s%N) - signalled) / 1000000))
wait "$pid"
status=$?
kept=$(grep -c '^check ' "$journal")
# (mpiexec's own start and end take a second or more on a loaded machine:
# the bound is for a stop, not for mpiexec.)
check "--verify, SIGUSR1 to mpiexec: status 3 within 5 s ($took ms), a stop line, $kept checks kept: $(head -c 200 "$err")" \
  bash -c "[ $status -eq 3 ] && [ $took -le 5000 ] && [ ! -s '$out' ] && grep -q 'stopped cleanly during --verify: the count is complete' '$err' && [ $kept -ge 20 ]"
run_ranks 3 -n "$verified_n" --method backtrack --checkpoint "$journal" --verify 1 -t 1 -q --format json
batches=$(sed -n 's/.*"verified_batches":\([0-9]*\).*/\1/p' "$out")
records=$(grep -c '^[0-9]' "$journal")
distinct=$(grep '^check ' "$journal" | cut -d' ' -f2,3 | sort -u | wc -l)
check "--verify resumed: status 0, every one of the $records batches checked once ($batches, $distinct)" \
  bash -c "[ $status -eq 0 ] && [ '$batches' = $records ] && [ $distinct -eq $records ] && [ \$(grep -c '^check ' '$journal') -eq $records ]"

# Alone, the same.
rm -f "$journal"
run -n "$verified_n" --method backtrack --checkpoint "$journal" -t 1 -q
"${with_default_signals[@]}" "$binary" -n "$verified_n" --method backtrack --checkpoint "$journal" \
  --verify 1 -t 1 -q >"$out" 2>"$err" &
pid=$!
within "$patience" checks_at_least 20
kill -s INT "$pid"
within "$patience" ended
wait "$pid"
status=$?
kept=$(grep -c '^check ' "$journal")
check "--verify alone, SIGINT: status 3, $kept checks kept" \
  bash -c "[ $status -eq 3 ] && [ $kept -ge 20 ] && grep -q 'during --verify' '$err'"
run -n "$verified_n" --method backtrack --checkpoint "$journal" --verify 1 -t 1 -q --format json
check "--verify alone, resumed: status 0, each batch checked once" \
  bash -c "[ $status -eq 0 ] && [ \$(grep '^check ' '$journal' | cut -d' ' -f2,3 | sort -u | wc -l) -eq \$(grep -c '^check ' '$journal') ]"

# ---- every phase and the first moments ---------------------------------------
# Before a large board's run its units are counted (n = 64: seconds), and
# --estimate probes for as long as it is told: a signal stops either within
# a second (status 3).  A signal in the first moments, while MPI starts,
# waits for the run to take it; one just after the result changes nothing:
# a short count signalled at any moment ends with 0 and its whole result,
# or 3, never killed by the signal.

# exposure PID SIGNUM: sets `state` to what signal SIGNUM does to that process
# now, from one reading of its status: "held" (main has blocked or caught
# it), "before-main" (one thread, neither: the loader is still at work,
# the README's first moments, where the signal ends the process as usual)
# or "exposed" (neither, with threads running: MPI_Init has started them,
# so main did not block the signal first thing, the bug the short counts
# below look for); "gone" once it has ended.  Builtins only, so that the
# reading comes as close to a delay as it can.
exposure() {
  local signal=$2 field value blocked=0 caught=0 threads=1
  state=gone
  [ -r "/proc/$1/status" ] || return 0
  while read -r field value; do
    case $field in
    SigBlk:) blocked=$value ;;
    SigCgt:) caught=$value ;;
    Threads:) threads=$value ;;
    esac
  done <"/proc/$1/status" 2>/dev/null
  if signal_bit "$blocked" "$signal" || signal_bit "$caught" "$signal"; then
    state=held
  elif [ "$threads" -le 1 ]; then
    state=before-main
  else
    state=exposed
  fi
}
# blocked PID SIGNAL: that process no longer takes SIGNAL's default action.
blocked() { exposure "$1" "$(kill -l "$2")" && [ "$state" = held ]; }
# The ranks mpiexec PID started, each past that point for SIGUSR1.
ranks_blocked() {
  local ranks rank
  ranks=$(pgrep -P "$1" -x nqueens-mpi) || return 1
  [ "$(wc -w <<<"$ranks")" -ge 3 ] || return 1
  for rank in $ranks; do blocked "$rank" USR1 || return 1; done
}
# stopped_within LABEL SECONDS ARGS...: the binary alone, SIGINT once it
# has run SECONDS (or as soon after as main has blocked the signal: a
# loaded machine can take longer to get there, CI saw 10 ms pass before
# main, and before main the signal ends the process as usual, which is
# not what these checks are about), ends with status 3 within a second.
stopped_within() {
  local label=$1 delay=$2
  shift 2
  "${with_default_signals[@]}" "$binary" "$@" >"$out" 2>"$err" &
  pid=$!
  sleep "$delay"
  within 5 blocked "$pid" INT
  kill -s INT "$pid"
  local signalled took
  signalled=$(date +%s%N)
  awaited 5
  took=$((($(date +%s%N) - signalled) / 1000000))
  check "$label: SIGINT after $delay s: status $status (expected 3) in $took ms" \
    bash -c "[ $status -eq 3 ] && [ $took -le 1000 ]"
}
stopped_within "-n 64 while its units are counted" 0.5 -n 64 -t 1 -q
"${with_default_signals[@]}" "$mpiexec" "$numproc_flag" 3 -q --oversubscribe "$binary" -n 64 -q \
  >"$out" 2>"$err" &
pid=$!
sleep 1
kill -s USR1 "$pid"
signalled=$(date +%s%N)
awaited "$patience"
took=$((($(date +%s%N) - signalled) / 1000000))
check "3 ranks, -n 64 while rank 0 counts the units: SIGUSR1 to mpiexec, status $status (expected 3) in $took ms" \
  bash -c "[ $status -eq 3 ] && [ $took -le 5000 ]"
stopped_within "--estimate 60" 1 -n 20 --estimate 60 -t 1
# An estimate of a large board lists its frames first (n = 64: seconds).
stopped_within "-n 64 --estimate while its frames are listed" 0.5 -n 64 --estimate 20 -t 1 -q
# The join's estimate at n = 24 solves whole sets, and --memory 16M cuts
# each into parts that walk the bottoms again, tens of seconds a set
# (without it two sets take under 2 s since the join got faster, and the
# count ended before the signal): the stop comes inside one, which is
# abandoned.
stopped_within "the join's --estimate inside a set" 2 \
  -n 24 --method join --estimate --estimate-strata 1 --estimate-samples 2 -t 1 --memory 16M
# Under the sanitizers their runtime starts before main (tens of ms on a
# loaded machine): that is the README's few milliseconds in which a
# signal ends the program as usual, so the first moments tested come later.
early=0
[ -n "${ASAN_OPTIONS:-}" ] && early=0.06
later_than_early() { awk -v d="$1" -v e="$early" 'BEGIN { exit !(d >= e) }'; }
stopped_within "-n 16 in its first moments" "$(later_than_early 0.01 && echo 0.01 || echo "$early")" \
  -n 16 --method backtrack -t 1 -q

"${with_default_signals[@]}" "$mpiexec" "$numproc_flag" 3 -q --oversubscribe "$binary" -n 18 \
  --method backtrack -q >"$out" 2>"$err" &
pid=$!
# 0.15 s, or as soon after as every rank has reached main (on a loaded
# machine, and under the sanitizers, they can take longer: CI saw a rank
# still before main at 0.15 s, status 138).
sleep 0.15
within 5 ranks_blocked "$pid"
kill -s USR1 "$pid"
awaited "$patience"
check "3 ranks, SIGUSR1 to mpiexec 0.15 s after the start or once its ranks reach main: status 3: $status, $(head -c 200 "$err")" \
  bash -c "[ $status -eq 3 ] && [ ! -s '$out' ]"

# Whether a kill by the signal (128 + 10) was the first moments' is read
# from the process itself, not from the delay: a loaded machine takes tens
# of milliseconds to reach main (CI saw 40 ms once).
outcomes="" states="" usr1=$(kill -l USR1)
for delay in 0.005 0.01 0.015 0.02 0.025 0.03 0.035 0.04 0.05 0.06 0.08 0.1; do
  later_than_early "$delay" || continue
  "${with_default_signals[@]}" "$binary" -n 13 --method backtrack -t 1 >"$out" 2>"$err" &
  pid=$!
  sleep "$delay"
  exposure "$pid" "$usr1"
  kill -s USR1 "$pid" 2>/dev/null
  wait "$pid"
  status=$?
  if [ "$status" -eq 0 ] && ! grep -qx "Q(13) = ${known_all[13]} solutions on the 13x13 board" "$out"; then
    status=0-without-the-result
  fi
  [ "$status" = 138 ] && [ "$state" = before-main ] && status=before-main
  outcomes+=" $status"
  states+=" $state"
done
check "a short count signalled at up to 12 moments ends with 0 or 3 each time (killed only before main):$outcomes" \
  bash -c "! grep -qvE '^( (0|3|before-main))+\$' <<<'$outcomes'"
check "a short count signalled at up to 12 moments: at least one inside main:$states" \
  bash -c "grep -qw held <<<'$states'"

finish
