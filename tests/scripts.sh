#!/usr/bin/env bash
# The developer scripts that time commands, on commands that take no time:
# scripts/pairs.sh's report (each pair, then the A/B medians) and its
# answers to bad arguments and to a command that fails; the benchmark
# scripts' refusals of what the program would refuse.  No timing is
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

for bad in "--pairs 0 -- true true" "--pairs x -- true true" "-- true" "--what -- true true" \
  "--cpu 9999 -- true true"; do
  # shellcheck disable=SC2086 # the words of each case are the arguments
  stdout=$("$pairs" $bad 2>/dev/null)
  rc=$?
  check "pairs.sh $bad exits 2" [ "$rc" -eq 2 ]
  check "pairs.sh $bad prints nothing on stdout" [ -z "$stdout" ]
done

# The benchmark scripts refuse what the program would refuse before they
# build or print a header: status 2, nothing on stdout, no file.  Their
# limits are the program's constants.
limits=$(bash -c ". '$source_dir/scripts/setup.sh' && echo \$NQ_MOST_THREADS \$NQ_MOST_N \$NQ_JOIN_MOST_N")
read -r most_threads most_n join_most_n <<<"$limits"
check "setup.sh's limits ($limits) are the program's" bash -c \
  "grep -qx '#define NQ_COUNT_MAX_THREADS $most_threads' '$source_dir/include/nqueens/options.h' &&
   grep -qx '#define NQ_MAX_N $most_n' '$source_dir/include/nqueens/frame.h' &&
   grep -qx '#define NQ_JOIN_MAX_N $join_most_n' '$source_dir/include/nqueens/join.h'"
scripts=$source_dir/scripts
for bad in "join.sh 33" "join.sh -t 5000 12" "versus.sh 65" \
  "versus.sh -t 5000 12" "versus.sh 33" "bench.sh --walk bogus 12" "bench.sh 65"; do
  read -ra words <<<"$bad"
  stdout=$(cd "$work" && "$scripts/${words[0]}" "${words[@]:1}" 2>/dev/null)
  rc=$?
  check "$bad exits 2 before any build ($rc)" [ "$rc" -eq 2 ]
  check "$bad prints nothing on stdout" [ -z "$stdout" ]
done
stdout=$(cd "$work" && "$scripts/versus.sh" --methods '' 12 2>"$work/err")
rc=$?
check "versus.sh --methods '' exits 2 ($rc), naming it" \
  bash -c "[ $rc -eq 2 ] && [ -z '$stdout' ] && grep -q \"names none of ours\" '$work/err'"
rm -f "$work/err"
check "the refused scripts wrote no file" [ -z "$(ls -A "$work")" ]

# The batch scripts outside Slurm, on a stand-in for the program that
# makes its journal and stops (status 3) on SIGUSR2, as the program does.
# A setting that is not a number: status 2, naming it, no directory made.
# SIGTERM to the batch shell (scancel, the time limit): passed on as the
# stop for good, the job's part file removed, status 3.
fake=$work/fake-nqueens
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
[ "${1:-}" = --help ] && { echo "--slice --merge"; exit 0; }
while [ "$#" -gt 0 ]; do [ "$1" = --checkpoint ] && journal=$2; shift; done
trap 'echo "stand-in: stopped" >&2; exit 3' USR2
echo journal >"$journal"
while :; do sleep 0.1; done
FAKE
chmod +x "$fake"
job_env=(env NQ_N=12 NQ_ROOT="$source_dir" NQ_BINARY="$fake" NQ_RUNS="$work/runs" NQ_LAUNCHER=mpirun)
"${job_env[@]}" NQ_SIGNAL_HOLD=abc bash "$source_dir/jobs/nqueens.sbatch" >/dev/null 2>"$work/job.err"
rc=$?
check "a job with NQ_SIGNAL_HOLD=abc exits 2 ($rc)" [ "$rc" -eq 2 ]
check "a job with NQ_SIGNAL_HOLD=abc names it" grep -q "NQ_SIGNAL_HOLD is 'abc'" "$work/job.err"
check "a job with NQ_SIGNAL_HOLD=abc makes no directory" [ ! -e "$work/runs" ]
if command -v mpirun >/dev/null 2>&1; then
  "${job_env[@]}" bash "$source_dir/jobs/nqueens.sbatch" >/dev/null 2>"$work/job.err" &
  job=$!
  for _ in $(seq 300); do [ -s "$work/runs/q12/journal" ] && break; sleep 0.1; done
  kill -TERM "$job"
  wait "$job"
  rc=$?
  check "a job sent SIGTERM stops with status 3 ($rc): $(tail -n 3 "$work/job.err" | tr '\n' '|')" \
    [ "$rc" -eq 3 ]
  check "a job sent SIGTERM says so" grep -q "SIGTERM received" "$work/job.err"
  check "a job sent SIGTERM leaves no part file" \
    bash -c "! ls '$work'/runs/q12/*.part >/dev/null 2>&1 && [ -e '$work/runs/q12/journal' ]"
else
  echo "scripts.sh: no mpirun here: the SIGTERM check of the batch script is left out"
fi
rm -rf "$work/runs" "$fake" "$work/job.err"

err=$("$pairs" --pairs 1 -- 'true' 'exit 3' 2>&1 >/dev/null)
rc=$?
check "pairs.sh exits 1 when a run fails" [ "$rc" -eq 1 ]
check "pairs.sh names the run that failed" grep -q 'this run failed: exit 3' <<<"$err"

finish
