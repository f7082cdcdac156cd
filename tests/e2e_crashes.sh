#!/usr/bin/env bash
# End-to-end crash consistency: a fault shim (tests/fault_shim.c,
# LD_PRELOAD) kills the process at each call that changes the journal of
# a short count and its verification in turn, a write left half done; each
# time the same command, run again, ends with the exact count, every batch
# verified.  Alone at every such call, and under mpiexec with 3 ranks at
# every fifteenth (where rank 0 makes fewer calls, some of those come after
# its last one: no crash, and the rerun answers from the journal).  Nothing
# here is timed, so it runs beside other tests; the faults on the clock are
# e2e_faults.sh's.
#   e2e_crashes.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

need_fault_shim
q() { echo "${known_all[$1]}"; }

# ---- crash consistency ------------------------------------------------------
n=10
journal=$work/crash.journal
count_args=(-n $n -t 1 --checkpoint "$journal" --verify 0.5 --seed 3 --format json -q)
verified() { sed -n 's/.*"verified_batches":\([0-9]*\).*/\1/p' "$out"; }

rm -f "$journal"
with_shim NQ_SHIM_COUNT="$work/.calls" "$binary" "${count_args[@]}" >"$out" 2>"$err"
points=$(wc -l <"$work/.calls" 2>/dev/null || echo 0)
batches=$(verified)
check "a whole run under the shim: status 0, Q($n), verified, 50 or more file calls ($points)" \
  bash -c "[ $status -eq 0 ] && [ '$(json_solutions)' = $(q $n) ] && [ -n '$batches' ] && [ $points -ge 50 ]"

# crash_at K [LAUNCH...]: the count killed at the K-th file call, then run
# again without the shim: the exact count, the same batches verified.
crash_at() {
  local k=$1 crashed
  shift
  rm -f "$journal" "$journal".tmp.*
  with_shim NQ_SHIM_CRASH_AT="$k" "$@" "$binary" "${count_args[@]}" >"$out" 2>"$err"
  crashed=$?
  bounded "$@" "$binary" "${count_args[@]}" >"$out" 2>"$err"
  status=$?
  [ "$crashed" -ne 0 ] && [ "$status" -eq 0 ] && [ "$(json_solutions)" = "$(q $n)" ] &&
    [ "$(verified)" = "$batches" ]
}
failures=""
tried=0
for k in $(thinned 3 $(seq 1 "$points")); do
  tried=$((tried + 1))
  crash_at "$k" || failures+=" $k(status $status: $(head -c 120 "$err" | tr '\n' '|'))"
done
check "killed at $tried of the $points file calls alone, then rerun: exact and verified;$failures" \
  [ -z "$failures" ]

mpi_shim=("$mpiexec" "$numproc_flag" 3 -q --oversubscribe -x LD_PRELOAD -x NQ_SHIM_PATH
  -x NQ_SHIM_CRASH_AT -x ASAN_OPTIONS)
# crash_at under mpiexec (the shim's variables reach the ranks with -x): a
# crash or not, the rerun's count is exact.
crash_at_ranks() {
  rm -f "$journal" "$journal".tmp.*
  with_shim NQ_SHIM_CRASH_AT="$1" "${mpi_shim[@]}" "$binary" "${count_args[@]}" >"$out" 2>"$err"
  [ "$?" -ne 0 ] && crashes=$((crashes + 1))
  bounded "$mpiexec" "$numproc_flag" 3 -q --oversubscribe "$binary" "${count_args[@]}" >"$out" 2>"$err"
  status=$?
  [ "$status" -eq 0 ] && [ "$(json_solutions)" = "$(q $n)" ]
}
failures=""
crashes=0
# (Under the sanitizers every 30th: half the runs, and at least 2 crashes
# instead of 3.)
for k in $(thinned 2 $(seq 1 15 "$points")); do
  crash_at_ranks "$k" || failures+=" $k(status $status: $(head -c 120 "$err" | tr '\n' '|'))"
done
check "3 ranks killed at every 15th file call ($crashes crashed), then rerun: exact;$failures" \
  bash -c "[ -z '$failures' ] && [ $crashes -ge $((3 - sanitized)) ]"

finish
