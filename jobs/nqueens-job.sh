# shellcheck shell=bash
# What the batch scripts nqueens.sbatch, nqueens-array.sbatch and
# nqueens-merge.sbatch share; they source it, it is not submitted.  jobs/README.md explains the whole.
#
#   nq_job_setup               the binary, the launcher, the signal traps and
#                              their lead against the time limit
#   nq_job_id                  prints the job's name as Slurm gives it (19_0)
#   nq_job_key ARGS...         prints the name of a count's run directory
#   nq_job_part FILE           prints this job's own temporary name for FILE
#   nq_job_publish PART FILE   renames PART to FILE, atomically
#   nq_job_count OUT ARGS...   one run of the binary on every task, its stdout
#                              to OUT, the journal nq_job_journal, retried
#                              while another run holds the journal (status
#                              4); sets nq_job_status
#   nq_job_finish              ends the job: exit status, or a requeue on 3
#
# Slurm runs a copy of the batch script, not the file in jobs/: NQ_ROOT (the
# repository, default: the directory the job runs in, so submit from the
# repository root) is how the scripts find this file and build/nqueens-mpi.

nq_job_say() { echo "nqueens job: $*" >&2; }

# nq_job_id: "19_0" for task 0 of array job 19, else the job id;
# local-<pid> outside Slurm.
nq_job_id() {
  if [ -n "${SLURM_ARRAY_JOB_ID:-}" ] && [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    echo "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"
  elif [ -n "${SLURM_JOB_ID:-}" ]; then
    echo "$SLURM_JOB_ID"
  else
    echo "local-$$"
  fi
}

# nq_job_part FILE: where this job writes FILE before it is whole: a name
# of its own beside it, so that no other job (the same count submitted
# twice, a refused one) can write or remove it.
nq_job_part() { echo "$1.$(nq_job_id).part"; }

# nq_job_publish PART FILE: PART becomes FILE at once, whole (rename(2) in
# one directory), replacing what was there.
nq_job_publish() { mv -f -- "$1" "$2"; }

# nq_job_numbers: the settings that are counts of seconds or of tries
# must be whole numbers: each goes into arithmetic, where another word
# would end the job with a shell error (or be run as a command).  Returns
# 2, naming the first that is not.
nq_job_numbers() {
  local name value
  for name in NQ_SIGNAL_LEAD NQ_SIGNAL_HOLD NQ_BUSY_WAIT NQ_BUSY_RETRIES NQ_MAX_REQUEUES; do
    value=${!name-}
    # No leading zero: bash arithmetic reads 010 as octal 8, and 08 not at all.
    if [ -n "${!name+set}" ] && ! [[ $value =~ ^(0|[1-9][0-9]{0,8})$ ]]; then
      nq_job_say "$name is '$value': give a whole number (or leave it unset for its default)"
      return 2
    fi
  done
}

# nq_job_setup: NQ_BINARY (default $NQ_ROOT/build/nqueens-mpi) must run;
# chooses how to start the ranks (nq_job_launch) and catches SIGUSR1,
# SIGUSR2, SIGTERM and SIGINT for the ranks.  Returns 2, having said why,
# when it cannot go on.
nq_job_setup() {
  nq_job_numbers || return
  NQ_ROOT=${NQ_ROOT:-$PWD}
  nq_job_binary=${NQ_BINARY:-$NQ_ROOT/build/nqueens-mpi}
  if [ ! -x "$nq_job_binary" ]; then
    nq_job_say "no program at $nq_job_binary: build it first, on a filesystem the" \
      "nodes share (see jobs/README.md), or set NQ_BINARY"
    return 2
  fi
  nq_job_choose_launcher || return
  nq_job_plan_lead
  nq_job_pid=""
  nq_job_signal=""
  nq_job_journal=""
  nq_job_counting=0
  nq_job_keep_stopped=0
  trap 'nq_job_forward USR1' USR1
  trap 'nq_job_forward USR2' USR2
  # scancel and the time limit send SIGTERM (SIGKILL some seconds later):
  # without a trap the batch shell died at once, leaving its part file and
  # the launcher.  Like SIGUSR2, a stop for good; an interactive ^C too.
  trap 'nq_job_forward TERM' TERM
  trap 'nq_job_forward INT' INT
}

# NQ_LAUNCHER: srun (srun --mpi=pmix), mpirun (Open MPI's mpirun, which
# takes the allocation from Slurm), or auto (default): srun when this
# Slurm's srun has the pmix plugin, else mpirun.  Plain srun is never used:
# Debian's Open MPI 4.1 (and any built without Slurm's PMI) cannot start
# under it ("OMPI was not built with SLURM's PMI support").
nq_job_choose_launcher() {
  local launcher=${NQ_LAUNCHER:-auto} ranks=${SLURM_NTASKS:-1}
  if [ "$launcher" = auto ]; then
    launcher=mpirun
    if [ -n "${SLURM_JOB_ID:-}" ] && command -v srun >/dev/null 2>&1 &&
      srun --mpi=list 2>&1 | grep -qw pmix; then
      launcher=srun
    fi
  fi
  # Each rank runs SLURM_CPUS_PER_TASK search threads (the program reads
  # it): srun must be told to give a task that many CPUs (since Slurm 22.05
  # it no longer takes it from the job), mpirun to bind a rank to as many.
  local threads=${SLURM_CPUS_PER_TASK:-1}
  case $launcher in
    srun) nq_job_launch=(srun --mpi=pmix --cpus-per-task="$threads") ;;
    # -q: the program's own message on a non-zero exit, not Open MPI's too.
    # It also hides why mpirun refuses root, which is said here instead.
    mpirun)
      if [ "$(id -u)" -eq 0 ] && { [ "${OMPI_ALLOW_RUN_AS_ROOT:-}" != 1 ] ||
        [ "${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-}" != 1 ]; }; then
        nq_job_say "the job runs as root, and Open MPI's mpirun refuses root unless" \
          "OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set: set both" \
          "on sbatch's command line, submit as another user, or use NQ_LAUNCHER=srun"
        return 2
      fi
      nq_job_launch=(mpirun -q -np "$ranks")
      if [ "$threads" -gt 1 ]; then nq_job_launch+=(--map-by "slot:PE=$threads"); fi
      ;;
    *)
      nq_job_say "NQ_LAUNCHER is '$launcher': use srun, mpirun or auto"
      return 2
      ;;
  esac
  if ! command -v "${nq_job_launch[0]}" >/dev/null 2>&1; then
    nq_job_say "NQ_LAUNCHER=$launcher, but there is no $launcher here: load your site's" \
      "MPI module in the script, or choose the other launcher"
    return 2
  fi
}

# nq_job_needs OPTION: the program's --help must list it (a build older
# than slices has no --slice).  Returns 2, having said so, when it does not.
nq_job_needs() {
  # The help whole first: grep -q would close the pipe early, and the
  # program's SIGPIPE would fail the pipeline (pipefail) at random.
  local help
  help=$("$nq_job_binary" --help 2>/dev/null)
  if ! grep -qF -e "$1" <<<"$help"; then
    nq_job_say "$nq_job_binary has no $1 option (a build older than slices?):" \
      "this job cannot run; count with jobs/nqueens.sbatch instead"
    return 2
  fi
}

# nq_seconds LIMIT: Slurm's time limit ("30", "1:00", "2:00:00",
# "1-12:00:00") in seconds; nothing for UNLIMITED or what it cannot read.
nq_seconds() {
  local days=0 rest=$1 h=0 m=0 sec=0 parts
  case $rest in *-*) days=${rest%%-*} rest=${rest#*-} ;; esac
  IFS=: read -r -a parts <<<"$rest"
  case ${#parts[@]} in
    1) m=${parts[0]} ;;
    2) m=${parts[0]} sec=${parts[1]} ;;
    3) h=${parts[0]} m=${parts[1]} sec=${parts[2]} ;;
    *) return ;;
  esac
  [[ "$days$h$m$sec" =~ ^[0-9]+$ ]] || return
  echo $((((10#$days * 24 + 10#$h) * 60 + 10#$m) * 60 + 10#$sec))
}

# The signal lead against the time limit.  Slurm signals NQ_SIGNAL_LEAD
# seconds (default 300, the #SBATCH --signal line's) ahead of the limit,
# and at its first check (every 30 s) when the limit is shorter than the
# lead: every run would stop at once, and be requeued, over and over.  So
# with a limit under twice the lead, the script holds the signal until
# half the limit has passed (nq_job_hold_until, in SECONDS), and says so.
nq_job_plan_lead() {
  local limit lead=${NQ_SIGNAL_LEAD:-300}
  nq_job_hold_until=0
  [ -n "${SLURM_JOB_ID:-}" ] || return 0
  limit=$(nq_seconds "$(squeue -h -j "$SLURM_JOB_ID" -o %l 2>/dev/null | head -n 1)")
  if [ -n "$limit" ] && [ "$limit" -gt 0 ] && [ "$limit" -lt $((2 * lead)) ]; then
    nq_job_hold_until=$((SECONDS + limit / 2))
    nq_job_say "warning: the time limit ($limit s) is under twice the signal lead ($lead s):" \
      "Slurm would signal each run at once; the signal is held until half the limit has" \
      "passed. Give --time well above the lead, or a shorter --signal=B:USR1@<s> with" \
      "NQ_SIGNAL_LEAD=<s>"
  fi
}

# The signal goes to the launcher, which passes it to every rank (srun and
# mpirun both do); the ranks stop cleanly and the program exits 3.  SIGUSR2
# also says: do not requeue.  A rank that gets the signal before it has set
# its handlers (while MPI starts, which takes seconds on a loaded node)
# dies of it instead, so the launcher gets it only once the ranks are
# counting (nq_job_started); one that comes earlier waits in nq_job_count.
# SIGTERM and SIGINT go on as SIGUSR2, the same stop for good: mpirun
# passes the USR signals to the ranks and exits with their status, but
# ends the job itself on SIGTERM, with status 1.
nq_job_forward() {
  local what="stopping the count"
  nq_job_signal=$1
  if [ "$1" != USR1 ]; then
    nq_job_keep_stopped=$1
    nq_job_signal=USR2
    what+=", no requeue"
  fi
  nq_job_say "SIG$1 received at $(date '+%F %T'): $what"
  if [ -n "$nq_job_pid" ] && nq_job_started && nq_job_due; then
    kill -s "$nq_job_signal" "$nq_job_pid" 2>/dev/null
    nq_job_signal=""
  fi
}

# A SIGUSR1 is held while the limit's lead says so (nq_job_plan_lead); a
# stop for good (SIGUSR2, and SIGTERM and SIGINT as it) never.
nq_job_due() { [ "$nq_job_signal" != USR1 ] || [ "$SECONDS" -ge "$nq_job_hold_until" ]; }

# The ranks set their handlers before rank 0 opens the journal, which it
# creates, or else (a resume) cuts or appends to within seconds: they are
# counting once the journal's size differs from what it was at the launch.
# Without a journal (nq_job_journal empty), NQ_SIGNAL_HOLD seconds after
# the launch (default 30).
nq_job_started() {
  if [ "$nq_job_counting" = 0 ]; then
    if [ -n "$nq_job_journal" ]; then
      [ "$(nq_job_journal_size)" != "$nq_job_launch_size" ] || return 1
    else
      [ "$SECONDS" -ge "$nq_job_settled" ] || return 1
    fi
    nq_job_counting=1
  fi
}
nq_job_journal_size() { stat -c %s "$nq_job_journal" 2>/dev/null || echo none; }

# nq_job_key ARGS...: "q<NQ_N>" followed by the arguments, each without its
# leading dashes and with any character but letters, digits, '.', '_' and
# '=' made '_', joined by '-': `NQ_N=20 ... --unique` is q20-unique.  The
# same count submitted again gets the same directory, and with it its
# journal; so does a requeued job.
nq_job_key() {
  local key="q${NQ_N//[^A-Za-z0-9._=]/_}" arg
  for arg in "$@"; do
    arg=${arg##-}
    arg=${arg##-}
    key+="-${arg//[^A-Za-z0-9._=]/_}"
  done
  echo "$key"
}

# nq_job_make_dir DIR: mkdir -p DIR, one level at a time, remembering the
# directories this job made itself (nq_job_made, outermost first) for
# nq_job_unmake_dir: the tasks of an array make theirs at once, and each
# takes back only its own.
nq_job_make_dir() {
  local dir=$1 missing=() level
  nq_job_made=()
  while [ ! -d "$dir" ]; do
    missing=("$dir" "${missing[@]}")
    dir=$(dirname -- "$dir")
  done
  for level in "${missing[@]}"; do
    if mkdir -- "$level" 2>/dev/null; then
      nq_job_made+=("$level")
    elif [ ! -d "$level" ]; then
      mkdir -- "$level" # again, for its message
      return 1
    fi
  done
}

# nq_job_unmake_dir: after a refused count (status 2: a bad argument, which
# every task of an array meets alike), the directories this job made,
# innermost first, while they are empty: none is left behind, and one that
# was there before is never touched.
nq_job_unmake_dir() {
  [ "$nq_job_status" -eq 2 ] || return 0
  local i
  for ((i = ${#nq_job_made[@]} - 1; i >= 0; i--)); do
    rmdir -- "${nq_job_made[i]}" 2>/dev/null || return 0
  done
}

# nq_job_count OUT ARGS...: nq_job_run, again while the journal is held
# by another live run (status 4: a run of the same count still ending, as
# the ranks of a killed job do for a moment), every NQ_BUSY_WAIT seconds
# (default 10) up to NQ_BUSY_RETRIES times (default 30).
nq_job_count() {
  local retries=0
  nq_job_run "$@"
  while [ "$nq_job_status" -eq 4 ] && [ "$retries" -lt "${NQ_BUSY_RETRIES:-30}" ] &&
    [ -z "$nq_job_signal" ] && [ "$nq_job_keep_stopped" = 0 ]; do
    retries=$((retries + 1))
    nq_job_say "the journal is in use by another run: retry $retries of" \
      "${NQ_BUSY_RETRIES:-30} in ${NQ_BUSY_WAIT:-10} s"
    sleep "${NQ_BUSY_WAIT:-10}" &
    wait $!
    [ -n "$nq_job_signal" ] && break
    nq_job_run "$@"
  done
}

# nq_job_run OUT ARGS...: `nqueens-mpi ARGS` on every task, stdout to OUT;
# nq_job_journal names the journal ARGS give, if any.  Waits for the
# launcher through any number of signals: a trap cuts `wait` short, the
# launcher goes on until the ranks have stopped.
nq_job_run() {
  local out=$1
  shift
  nq_job_say "job $(nq_job_id), run $((${SLURM_RESTART_COUNT:-0} + 1))," \
    "on ${SLURM_JOB_NODELIST:-$(hostname -s)}, $(date '+%F %T'):" \
    "${nq_job_launch[*]} $nq_job_binary $*"
  nq_job_counting=0
  nq_job_launch_size=$(nq_job_journal_size)
  nq_job_settled=$((SECONDS + ${NQ_SIGNAL_HOLD:-30}))
  "${nq_job_launch[@]}" "$nq_job_binary" "$@" >"$out" &
  nq_job_pid=$!
  while kill -0 "$nq_job_pid" 2>/dev/null; do
    if [ -z "$nq_job_signal" ]; then
      wait "$nq_job_pid"
    elif nq_job_started && nq_job_due; then
      nq_job_say "SIG$nq_job_signal passed on at $(date '+%F %T'), the ranks counting"
      kill -s "$nq_job_signal" "$nq_job_pid" 2>/dev/null
      nq_job_signal=""
    else
      sleep 1
    fi
  done
  wait "$nq_job_pid"
  nq_job_status=$?
  nq_job_pid=""
  nq_job_say "nqueens-mpi exited with status $nq_job_status at $(date '+%F %T')"
  # Every run here prints its result as one JSON line: status 0 without it
  # is a launch that failed (srun has ended 0 after "task 0 launch failed"),
  # never a result to publish.
  if [ "$nq_job_status" -eq 0 ] && ! nq_job_one_line "$out"; then
    nq_job_say "but printed no whole result line: taken as a failure (status 1)"
    nq_job_status=1
  fi
}

# nq_job_one_line FILE: FILE holds something, ending in a newline.
nq_job_one_line() { [ -s "$1" ] && [ -z "$(tail -c 1 "$1" | tr -d '\n')" ]; }

# nq_job_finish: exits with the program's status, except that a stop (3)
# in a job started with --requeue is requeued first: the next run resumes
# from the journal.  Not after SIGUSR2, SIGTERM or SIGINT, and at most NQ_MAX_REQUEUES times
# (default 20), so that a job that never gets anywhere ends.
nq_job_finish() {
  local restarts=${SLURM_RESTART_COUNT:-0}
  if [ "$nq_job_status" -ne 3 ]; then
    exit "$nq_job_status"
  fi
  if [ -z "${SLURM_JOB_ID:-}" ]; then
    nq_job_say "stopped, not in Slurm: run the same command again to resume"
  elif [ "$nq_job_keep_stopped" != 0 ]; then
    nq_job_say "stopped by SIG$nq_job_keep_stopped: not requeued; submit the same command" \
      "again to resume"
  elif [ "$restarts" -ge "${NQ_MAX_REQUEUES:-20}" ]; then
    nq_job_say "stopped after $restarts requeues (NQ_MAX_REQUEUES): not requeued;" \
      "submit the same command again to resume"
  else
    nq_job_say "stopped: requeueing job $SLURM_JOB_ID to resume (requeue $((restarts + 1)))"
    # Slurm ends this run as it requeues the job: nothing after this line
    # is sure to run.  A refusal (a job without --requeue) leaves it exiting 3.
    if scontrol requeue "$SLURM_JOB_ID"; then
      exit 3
    fi
    nq_job_say "scontrol requeue failed: submit the same command again to resume"
  fi
  exit 3
}
