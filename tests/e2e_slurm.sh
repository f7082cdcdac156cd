#!/usr/bin/env bash
# End-to-end: the batch scripts of jobs/ under a real Slurm.  It starts one
# of its own for the test (munged, slurmctld and slurmd, all on this host,
# everything under a temporary directory, on free ports) and stops them
# after, whatever happened.  Then it submits:
#   - counts that finish (srun --mpi=pmix or mpirun, chosen by NQ_LAUNCHER):
#     COMPLETED, exit code 0, the exact total in runs/q<N>.../result.json;
#     the same count again answers from its finished journal, with the
#     count's own figures, marked as from the journal;
#   - a bad board size: FAILED, exit code 2, no run directory left; a
#     launch that ends 0 with nothing printed: FAILED 1, nothing published;
#     mpirun as root without Open MPI's variables: FAILED 2, saying why;
#   - the job array with a slice that fails: the merge, submitted afterany,
#     runs anyway, exits 1, leaves merge-report.json (no result.json) and
#     names the slice's task and the command to run it again; that slice
#     alone again (NQ_SLICES, --array=1), then the merge: the exact total;
#     a merge with the wrong NQ_SLICES: FAILED 2, saying which there are;
#   - a count stopped by SIGUSR2 to the batch shell: FAILED, exit code 3,
#     not requeued;
#   - a count with a time limit of one minute and the default signal lead
#     of 300 s: the script warns and holds the signal until half the limit,
#     which then stops it (exit 3), the job requeues itself, the next run
#     resumes from the journal and the total is exact; a second job of the
#     same count meanwhile ends with status 4 and spoils nothing.
# Needs root (the daemons run as root) and Debian's slurm-wlm and munge,
# which scripts/test.sh installs; skipped (77) where either is missing or
# Slurm does not start.
#   e2e_slurm.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")

if [ "$(id -u)" -ne 0 ]; then
  skip "runs its own slurmd, which must be root to start jobs: run as root (CI does)"
fi
missing=()
for command in munged mungekey munge unmunge slurmctld slurmd sbatch scontrol squeue \
  sinfo scancel srun; do
  command -v "$command" >/dev/null 2>&1 || missing+=("$command")
done
if [ "${#missing[@]}" -ne 0 ]; then
  skip "no ${missing[*]}: install Debian's slurm-wlm and munge (scripts/test.sh does)"
fi
node=$(hostname -s)
# Half the machine's memory in MB: a job may then ask for memory
# (--mem-per-cpu), which the node's default of 1 MB would refuse, and
# slurmd finds at least that much, so the node is not drained.
real_memory=$(awk '/^MemTotal:/ { print int($2 / 2048) }' /proc/meminfo)
if [ -z "$node" ] || ! getent hosts "$node" >/dev/null; then
  skip "this host's name '$node' (hostname -s) does not resolve: slurmd cannot register"
fi

# Every wait is for a condition; the bound only turns a hang into a
# failure, and is far longer than a loaded machine needs.
patience=240

# Slurm's state changes slowly: look twice a second (within, e2e_lib.sh).
NQ_E2E_POLL=0.5

# ---- a Slurm of our own ------------------------------------------------------
# munged refuses a socket in a directory others cannot search: $work (0700
# from mktemp) opens to 0755; the key stays in a 0700 directory.

chmod 755 "$work"
mkdir -p "$work/munge" "$work/socket" "$work/slurm/state" "$work/slurm/spool" "$work/slurm/tmp" \
  "$work/submit"
chmod 700 "$work/munge"
socket=$work/socket/munge.socket
munged_pid=""
slurmctld_pid=""
slurmd_pid=""

# stop_pid PID: ends that daemon of ours, KILL if TERM does not do it.
stop_pid() {
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null
  within 30 eval "! kill -0 $1 2>/dev/null" || kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}
no_jobs_left() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }
# On any exit: our jobs first (their steps are not slurmd's children), then
# the daemons, by PID, then the files.
stop_slurm() {
  if [ -n "$slurmctld_pid" ] && kill -0 "$slurmctld_pid" 2>/dev/null; then
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null
    within 60 no_jobs_left || echo "e2e_slurm: jobs still listed at the end: $(squeue 2>&1)"
  fi
  stop_pid "$slurmd_pid"
  stop_pid "$slurmctld_pid"
  stop_pid "$munged_pid"
  rm -rf "$work"
}
trap stop_slurm EXIT
trap 'exit 1' INT TERM

# free_port [TAKEN]: a TCP port on which nothing here answers, not TAKEN.
free_port() {
  local port tries
  for ((tries = 0; tries < 100; tries++)); do
    port=$((20000 + RANDOM % 40000))
    if [ "$port" != "${1:-}" ] && ! (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  return 1
}

mungekey --create --keyfile="$work/munge/munge.key" ||
  skip "mungekey could not create a key"
munged --foreground --socket="$socket" --key-file="$work/munge/munge.key" \
  --log-file="$work/munge/munged.log" --pid-file="$work/munge/munged.pid" \
  --seed-file="$work/munge/munged.seed" >"$work/munge/munged.out" 2>&1 &
munged_pid=$!
munge_works() { munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1; }
within 30 munge_works ||
  skip "munged did not start: $(tail -n 3 "$work/munge/munged.out" | tr '\n' '|')"

if ! ctld_port=$(free_port) || ! slurmd_port=$(free_port "$ctld_port"); then
  skip "found no free TCP port for slurmctld and slurmd"
fi
export SLURM_CONF=$work/slurm/slurm.conf
# cred_expire is also how long a requeued job waits before it may start
# again (120 s by default; 5 is the least Slurm takes); sched_interval how
# often the scheduler looks for jobs whose wait is over (60 s by default).
# MinJobAge: how long an ended job stays for `scontrol show job` to read
# (there is no accounting database for sacct).
# TmpFS: where srun's PMIx plugin makes each step's directory
# (spmix_appdir_<uid>_<job>.<step>); under /tmp, one that a killed run of
# this test left behind made the step of the same number fail to launch
# in every later run, this Slurm's job numbers starting at 1 again.
cat >"$SLURM_CONF" <<EOF
ClusterName=nqtest
SlurmctldHost=$node
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket,cred_expire=10
StateSaveLocation=$work/slurm/state
SlurmdSpoolDir=$work/slurm/spool
TmpFS=$work/slurm/tmp
SlurmctldPidFile=$work/slurm/slurmctld.pid
SlurmdPidFile=$work/slurm/slurmd.pid
SlurmctldLogFile=$work/slurm/slurmctld.log
SlurmdLogFile=$work/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=5
MpiDefault=none
JobRequeue=1
MinJobAge=120
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$node CPUs=$(nproc) RealMemory=$real_memory State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -c -f "$SLURM_CONF" >"$work/slurm/slurmctld.out" 2>&1 &
slurmctld_pid=$!
slurmd -D -f "$SLURM_CONF" >"$work/slurm/slurmd.out" 2>&1 &
slurmd_pid=$!
node_idle() { [ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ]; }
if ! within 60 node_idle; then
  skip "Slurm did not start (node state '$(sinfo -h -n "$node" -o %t 2>&1)');" \
    "slurmctld: $(tail -n 2 "$work/slurm/slurmctld.out" | tr '\n' '|')" \
    "slurmd: $(tail -n 2 "$work/slurm/slurmd.out" | tr '\n' '|')"
fi
echo "e2e_slurm: Slurm $(sinfo -V | cut -d' ' -f2) up on $node, ports $ctld_port and $slurmd_port"

# ---- jobs ----------------------------------------------------------------------

# submit VAR_ASSIGNMENTS... -- SBATCH_ARGS...: sbatch from $work/submit with
# those variables set (env's -u NAME unsets one; NQ_ROOT and NQ_BINARY
# point at this tree and build, or job_binary); sets `job` to the job id.
submit() {
  local variables=()
  while [ "$1" != -- ]; do
    variables+=("$1")
    shift
  done
  shift
  submitted=$SECONDS
  job=$(cd "$work/submit" && env "${variables[@]}" NQ_ROOT="$repo" \
    NQ_BINARY="${job_binary:-$binary}" sbatch --parsable "$@" 2>"$err")
  if [ -z "$job" ]; then
    fail "sbatch $*: $(head -c 300 "$err")"
    return 1
  fi
}
# job_field FIELD [TASK]: FIELD of `scontrol show job` for $job (of its
# array task TASK).
job_field() {
  local id=$job
  [ -z "${2:-}" ] || id=${job}_$2
  scontrol show job -o "$id" 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}
# job_ended [TASK]
# shellcheck disable=SC2120 # TASK is optional
job_ended() {
  case $(job_field JobState "$@") in
    COMPLETED | FAILED | TIMEOUT | CANCELLED | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
      return 0
      ;;
  esac
  return 1
}
# ended_as LABEL STATE EXIT_CODE [TASK]: the job ends in that state with
# that exit code (status:signal).
ended_as() {
  local label=$1 state=$2 code=$3
  shift 3
  if ! within "$patience" job_ended "$@"; then
    fail "$label: job $job not ended after $patience s (state $(job_field JobState "$@"))"
    return 1
  fi
  local got
  got="$(job_field JobState "$@") $(job_field ExitCode "$@")"
  echo "e2e_slurm: $label: job $job ended $got, $((SECONDS - submitted)) s after sbatch"
  if [ "$got" = "$state $code" ]; then
    pass
  else
    fail "$label: job $job ended $got, expected $state $code; log: $(log_of "$@" | tail -n 5 | tr '\n' '|')"
    return 1
  fi
}
log_of() {
  if [ -n "${1:-}" ]; then
    cat "$work/submit/nqueens-${job}_$1.out" 2>/dev/null
  else
    cat "$work/submit/nqueens-$job.out" 2>/dev/null
  fi
}
# log_says LABEL TEXT: a line of the job's log contains TEXT.
log_says() {
  if log_of | grep -qF -e "$2"; then
    pass
  else
    fail "$1: the log lacks '$2': $(log_of | tail -n 8 | tr '\n' '|')"
  fi
}
# result_ok LABEL DIR N [unique]: runs/DIR/result.json has Q(N) (and U(N)).
result_ok() {
  out=$work/submit/runs/$2/result.json
  local n=$3 got
  got="$(json_solutions) $(json_unique)"
  local expected="${known_all[$n]} "
  [ "${4:-}" != unique ] || expected+=${known_unique[$n]}
  check "$1: $2/result.json holds '$got', expected '$expected': $(head -c 300 "$out" 2>&1)" \
    [ "$got" = "$expected" ]
}

if srun --mpi=list 2>&1 | grep -qw pmix; then
  auto_launcher="srun --mpi=pmix --cpus-per-task=1"
else
  auto_launcher="mpirun -q -np 2"
fi

# A count that finishes, with the launcher NQ_LAUNCHER=auto chooses; the
# job states its memory, and each rank's join takes 7/8 of its share.
if submit NQ_N=14 -- --ntasks=2 --time=5 --mem-per-cpu=300 "$repo/jobs/nqueens.sbatch"; then
  ended_as "Q(14), auto" COMPLETED 0:0
  result_ok "Q(14), auto" q14 14
  log_says "Q(14), auto launches with $auto_launcher" "$auto_launcher $binary -n 14"
  check "Q(14), --mem-per-cpu=300: 7/8 of 300 MiB a rank: $(head -c 300 "$out" 2>&1)" \
    grep -q '"memory_per_rank":275251200,' "$out"
fi
# The same with mpirun, and an argument passed through.
if submit NQ_N=14 NQ_LAUNCHER=mpirun -- --ntasks=2 --time=5 "$repo/jobs/nqueens.sbatch" --unique; then
  ended_as "Q(14) --unique, mpirun" COMPLETED 0:0
  result_ok "Q(14) --unique, mpirun" q14-unique 14 unique
  log_says "Q(14) --unique, mpirun" "mpirun -q -np 2 $binary -n 14 --format json"
fi
# The first count again: its journal is complete, the answer comes from it,
# with the count's own figures, not this run's instant.
if submit NQ_N=14 -- --ntasks=2 --time=5 "$repo/jobs/nqueens.sbatch"; then
  ended_as "Q(14) again" COMPLETED 0:0
  result_ok "Q(14) again" q14 14
  check "Q(14) again: not every unit came from the journal: $(head -c 300 "$out")" \
    grep -qE '"units":([0-9]+),.*"resumed_units":\1,"counting_runs":1,"run_seconds":[0-9.]+,"from_journal":true' "$out"
fi

# Refused counts leave none of the directories they made (NQ_RUNS new
# here), and a board size with a slash stays inside NQ_RUNS.
if submit NQ_N=abc NQ_RUNS=new/runs -- --ntasks=1 --time=5 "$repo/jobs/nqueens.sbatch"; then
  ended_as "NQ_N=abc" FAILED 2:0
  log_says "NQ_N=abc" "nqueens-mpi: board size 'abc' is not a whole number"
  check "NQ_N=abc: no run directory left" [ ! -e "$work/submit/new" ]
fi
# A launch that ends 0 with nothing printed (srun has, after "task 0
# launch failed"): a program that prints nothing stands in.  No result is
# published, and the job fails.
printf '#!/bin/sh\nexit 0\n' >"$work/silent-nqueens"
chmod +x "$work/silent-nqueens"
job_binary=$work/silent-nqueens
if submit NQ_N=12 NQ_RUNS=silent -- --ntasks=1 --time=5 "$repo/jobs/nqueens.sbatch"; then
  ended_as "status 0, nothing printed" FAILED 1:0
  log_says "status 0, nothing printed" "but printed no whole result line: taken as a failure"
  check "status 0, nothing printed: nothing published" \
    bash -c "[ -d '$work/submit/silent/q12' ] && [ -z \"\$(ls -A '$work/submit/silent/q12')\" ]"
fi
job_binary=
if submit NQ_N=../12 NQ_RUNS=new/runs -- --ntasks=1 --time=5 "$repo/jobs/nqueens.sbatch"; then
  ended_as "NQ_N=../12" FAILED 2:0
  check "NQ_N=../12: no directory left, none made outside NQ_RUNS" \
    bash -c "[ ! -e '$work/submit/new' ] && [ ! -e '$work/submit/12' ]"
fi
# One task: tasks that make parts of one path at once each take back
# only their own, and an outer directory another made can stay
# (jobs/README.md).
if submit NQ_N=12 NQ_SLICES=2 NQ_RUNS=new/runs -- --array=1 --ntasks=1 --time=5 \
  "$repo/jobs/nqueens-array.sbatch" --bogus; then
  ended_as "an array task with a bad argument" FAILED 2:0 1
  check "an array task with a bad argument: no slice directory left" [ ! -e "$work/submit/new" ]
fi
# mpirun as root without Open MPI's two variables: said, not "status 1".
if submit -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM NQ_N=12 NQ_LAUNCHER=mpirun -- \
  --ntasks=1 --time=5 "$repo/jobs/nqueens.sbatch"; then
  ended_as "mpirun as root" FAILED 2:0
  log_says "mpirun as root" "Open MPI's mpirun refuses root unless OMPI_ALLOW_RUN_AS_ROOT=1"
fi

# The job array with a slice that fails (a directory where its journal
# would go: refused before any work, no journal made): the
# merge, submitted to run once the array ends however it ends, has no
# total, says which task to run again and how, and leaves no result.json.
# That task alone again, then the merge: the exact Q(14).
mkdir -p "$work/submit/runs/q14/slices-3/slice-1.journal"
if submit NQ_N=14 -- --array=0-2 --ntasks=1 --time=5 "$repo/jobs/nqueens-array.sbatch"; then
  array_job=$job
  ended_as "array task 0" COMPLETED 0:0 0
  ended_as "array task 1, no journal" FAILED 2:0 1
  ended_as "array task 2" COMPLETED 0:0 2
  check "array task 0: its log names the task and the slice's count: $(log_of 0 | tail -n 3 | tr '\n' '|')" \
    bash -c "grep -q 'nqueens job: job ${array_job}_0, run 1' '$work/submit/nqueens-${array_job}_0.out' && grep -q 'slice 1/3 done' '$work/submit/nqueens-${array_job}_0.out' && grep -q '\"slice\":\"1/3\"' '$work/submit/nqueens-${array_job}_0.out'"
  if submit NQ_N=14 NQ_SLICES=3 -- --dependency=afterany:"$array_job" "$repo/jobs/nqueens-merge.sbatch"; then
    ended_as "merge, a slice failed" FAILED 1:0
    log_says "merge, a slice failed" "slices to run again (array tasks) 1:"
    log_says "merge, a slice failed" "NQ_N=14 NQ_SLICES=3 sbatch --array=1 $repo/jobs/nqueens-array.sbatch"
    check "merge, a slice failed: merge-report.json, no result.json" \
      bash -c "grep -q '\"complete\":false' '$work/submit/runs/q14/slices-3/merge-report.json' && [ ! -e '$work/submit/runs/q14/slices-3/result.json' ]"
  fi
  rmdir "$work/submit/runs/q14/slices-3/slice-1.journal"
  if submit NQ_N=14 NQ_SLICES=3 -- --array=1 --ntasks=1 --time=5 "$repo/jobs/nqueens-array.sbatch"; then
    ended_as "slice 2/3 again (NQ_SLICES, --array=1)" COMPLETED 0:0 1
    if submit NQ_N=14 NQ_SLICES=3 -- --dependency=afterany:"$job" "$repo/jobs/nqueens-merge.sbatch"; then
      ended_as "merge" COMPLETED 0:0
      result_ok "merge" q14/slices-3 14
      check "merge: complete, its report gone: $(head -c 300 "$out")" \
        bash -c "grep -q '\"complete\":true' '$out' && [ ! -e '$work/submit/runs/q14/slices-3/merge-report.json' ]"
    fi
  fi
fi
if submit NQ_N=14 NQ_SLICES=4 -- "$repo/jobs/nqueens-merge.sbatch"; then
  ended_as "merge with the wrong NQ_SLICES" FAILED 2:0
  log_says "merge with the wrong NQ_SLICES" "holds no slices-4 directory (the slice counts there: 3 )"
fi

# SIGUSR2 to the batch shell: the count stops cleanly, the job is not
# requeued and exits 3.  Under mpirun, as the requeue below runs under the
# launcher auto chooses.
if submit NQ_N=18 NQ_LAUNCHER=mpirun -- --ntasks=2 --time=10 "$repo/jobs/nqueens.sbatch"; then
  journal_made() { [ -s "$work/submit/runs/q18/journal" ]; }
  if within "$patience" journal_made; then
    scancel --batch --signal=USR2 "$job"
    ended_as "Q(18), SIGUSR2" FAILED 3:0
    check "Q(18), SIGUSR2: requeued ($(job_field Restarts) restarts)" [ "$(job_field Restarts)" = 0 ]
    log_says "Q(18), SIGUSR2" "SIGUSR2 received"
    log_says "Q(18), SIGUSR2" "nqueens-mpi: stopped cleanly, resumable with the same command:"
    log_says "Q(18), SIGUSR2" "stopped by SIGUSR2: not requeued"
  else
    fail "Q(18), SIGUSR2: no journal after $patience s: $(log_of | tail -n 5 | tr '\n' '|')"
  fi
fi

# The time limit: one minute, and the script's default signal lead of
# 300 s, longer than the limit: Slurm signals at its first check (every
# 30 s), and the script warns and holds the signal until half the limit
# has passed.  Q(18) takes about 50 s on one core of the CI machine with
# the scalar walk (more when it is loaded), so it is still counting.  Once
# the job has been requeued, its limit is raised so that the next run
# finishes: one stop and requeue is what is checked, and more would only
# take longer.  Meanwhile the same count submitted again finds the journal
# held (status 4, no retries here): it ends at once, and the first job's
# result is whole.
if submit NQ_N=18 -- --ntasks=1 --time=1 "$repo/jobs/nqueens.sbatch" --walk scalar; then
  journal_made() { [ -s "$work/submit/runs/q18-walk-scalar/journal" ]; }
  first=$job
  if within "$patience" journal_made &&
    submit NQ_N=18 NQ_BUSY_RETRIES=0 -- --ntasks=1 --time=5 "$repo/jobs/nqueens.sbatch" \
      --walk scalar; then
    ended_as "Q(18) submitted twice: the second" FAILED 4:0
    log_says "Q(18) submitted twice: the second" "in use by another run"
  fi
  job=$first
  restarted() { [ "$(job_field Restarts)" -ge 1 ] 2>/dev/null; }
  restarted_or_ended() { restarted || job_ended; }
  within "$patience" restarted_or_ended
  if restarted; then
    scontrol update JobId="$job" TimeLimit=20
    # Up to a minute of counting left, on one core: on a machine that
    # others load heavily, that has taken over 4 minutes.
    patience=600
    ended_as "Q(18), time limit" COMPLETED 0:0
    check "Q(18), time limit: $(job_field Restarts) restarts" [ "$(job_field Restarts)" -ge 1 ]
    result_ok "Q(18), time limit" q18-walk-scalar 18
    check "Q(18), time limit: no part file left: $(ls "$work/submit/runs/q18-walk-scalar")" \
      bash -c "! ls '$work/submit/runs/q18-walk-scalar/'*.part >/dev/null 2>&1"
    log_says "Q(18), time limit" "warning: the time limit (60 s) is under twice the signal lead (300 s)"
    log_says "Q(18), time limit" "SIGUSR1 received"
    log_says "Q(18), time limit" "nqueens-mpi exited with status 3"
    log_says "Q(18), time limit" "stopped: requeueing job $job to resume (requeue 1)"
    log_says "Q(18), time limit" "nqueens job: job $job, run 2,"
    # The signal was held until half the limit: the first run counted for
    # 30 s or more.
    started_at=$(log_of | sed -nE 's/.*job [0-9]+, run 1, on [^,]*, ([0-9: -]+):.*/\1/p')
    passed_at=$(log_of | sed -n 's/.*SIGUSR1 passed on at \(.*\), the ranks counting$/\1/p' | head -n 1)
    held=$(($(date -d "$passed_at" +%s) - $(date -d "$started_at" +%s)))
    check "Q(18), time limit: the signal held until half the limit ($held s)" [ "$held" -ge 29 ]
    # How long the requeue took: from the stop to the next run's start.
    stopped_at=$(log_of | sed -n 's/.*exited with status 3 at \(.*\)$/\1/p' | head -n 1)
    resumed_at=$(log_of | sed -nE 's/.*job [0-9]+, run 2, on [^,]*, ([0-9: -]+):.*/\1/p')
    echo "e2e_slurm: stopped at $stopped_at, run 2 started at $resumed_at:" \
      "$(($(date -d "$resumed_at" +%s) - $(date -d "$stopped_at" +%s))) s requeued"
    # The last stop's units are what the last run took from the journal.
    kept=$(log_of | sed -nE 's/.*resumable with the same command: ([0-9]+) units done.*/\1/p' |
      tail -n 1)
    check "Q(18), time limit: the last stop kept '$kept' units; the result: $(head -c 300 "$out")" \
      grep -qE "\"resumed_units\":${kept:-none}[,}]" "$out"
  elif [ "$(job_field JobState)" = COMPLETED ]; then
    fail "Q(18), time limit: done in under 30 s, before any signal: on a CPU this fast," \
      "the check needs a larger count"
  else
    fail "Q(18), time limit: not requeued after $patience s (state $(job_field JobState));" \
      "log: $(log_of | grep -v 'units (' | tail -n 8 | tr '\n' '|')"
  fi
fi

finish
