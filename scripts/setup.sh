# shellcheck shell=bash
# Shared set-up for run.sh, test.sh and bench.sh; source it, do not run it.
#
#   nq_install_deps [PKG...] apt-get the build and run dependencies that are
#                            missing, and PKG... (test.sh: NQ_TEST_PACKAGES)
#   nq_build DIR [ARGS...]   configure (Release) and build into DIR; ARGS go to cmake
#   nq_cpus                  the logical CPUs this process may run on
#   nq_within_bounds NAME THREADS MOST_N N...
#                            the program's limits, checked before a build
#   nq_mpirun_flags RANKS    set NQ_MPIRUN_FLAGS for a local mpirun of RANKS ranks
#   nq_median, nq_lowest, nq_highest VALUE...
#                            of the numbers given (versus.sh, pairs.sh)
#   nq_ratio A B             A / B, 1 where B is 0
#
# NQ_BUILD_TARGET limits the build to one target (run.sh: nqueens-mpi alone).
# NQ_BUILD_VERBOSE=1 streams the CMake and compiler output to stderr; otherwise
# it goes to DIR/build.log and is shown only when the build fails, so a script's
# stdout and stderr carry nothing but the program's own.
# NQ_BUILD_JOBS sets the parallel build jobs (default: nproc).

NQ_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NQ_PACKAGES=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libgmp-dev zlib1g-dev nettle-dev
  libgsl-dev libjansson-dev check)
# For the tests alone: tests/e2e_slurm.sh runs a Slurm of its own, and
# tests/fuzz.sh builds its fuzz target with clang's libFuzzer.  test.sh
# installs them, run.sh and bench.sh do not.  tests/scripts.sh times
# commands with GNU time (the `time` package), as scripts/pairs.sh does.
# gdb prints the stacks of a job that a test finds hung (tests/e2e_lib.sh):
# a hang seen once in CI is otherwise gone without a trace.
# shellcheck disable=SC2034 # used by test.sh
NQ_TEST_PACKAGES=(slurm-wlm munge clang libclang-rt-dev time gdb)

# The median (of an even count, the lower middle one), the lowest and the
# highest of the numbers given.
nq_median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
nq_lowest() { printf '%s\n' "$@" | sort -g | head -n 1; }
nq_highest() { printf '%s\n' "$@" | sort -g | tail -n 1; }
# A / B, or 1 where B is 0 (a run too short to time).
nq_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 1) }'; }

nq_as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "nqueens-mpi: need root or sudo to run: $*" >&2
    return 1
  fi
}

nq_install_deps() {
  local missing=() package
  for package in "${NQ_PACKAGES[@]}" "$@"; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" != installed ]; then
      missing+=("$package")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "nqueens-mpi: missing ${missing[*]} and no apt-get to install them" >&2
    return 1
  fi
  echo "nqueens-mpi: installing ${missing[*]}" >&2
  nq_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  nq_as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

nq_build() {
  local dir=$1 log
  shift
  local build=(cmake --build "$dir" -j "${NQ_BUILD_JOBS:-$(nq_cpus)}")
  if [ -n "${NQ_BUILD_TARGET:-}" ]; then
    build+=(--target "$NQ_BUILD_TARGET")
  fi
  if [ "${NQ_BUILD_VERBOSE:-0}" = 1 ]; then
    cmake -S "$NQ_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >&2 && "${build[@]}" >&2
    return
  fi
  mkdir -p "$dir"
  log=$dir/build.log
  if [ ! -x "$dir/nqueens-mpi" ]; then
    echo "nqueens-mpi: building into ${dir#"$NQ_ROOT"/}/ (log: ${log#"$NQ_ROOT"/})" >&2
  fi
  if ! { cmake -S "$NQ_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" &&
    "${build[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "nqueens-mpi: build failed (log: $log)" >&2
    return 1
  fi
}

# The logical CPUs this process may run on (its affinity mask, as nproc
# reads it), whatever OMP_NUM_THREADS says: GNU nproc answers with that
# variable where it is set, which site modules often set to 1.
nq_cpus() { env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc; }

# The program's limits (NQ_COUNT_MAX_THREADS, NQ_MAX_N and NQ_JOIN_MAX_N in
# include/nqueens/), for the benchmark scripts to refuse before their build
# and header what the program would refuse after them.
NQ_MOST_THREADS=4096
# shellcheck disable=SC2034 # used by bench.sh and versus.sh
NQ_MOST_N=64
NQ_JOIN_MOST_N=32

# nq_within_bounds NAME THREADS MOST_N N...: THREADS at most
# NQ_MOST_THREADS and every N at most MOST_N (NQ_MOST_N, or NQ_JOIN_MOST_N
# where the join counts); else one line naming the first that is not,
# prefixed NAME, and status 2.
nq_within_bounds() {
  local name=$1 threads=$2 most=$3 n
  shift 3
  if [ "$threads" -gt "$NQ_MOST_THREADS" ]; then
    echo "$name: -t $threads: at most $NQ_MOST_THREADS threads" >&2
    return 2
  fi
  for n in "$@"; do
    if [ "$n" -gt "$most" ]; then
      echo "$name: n = $n: boards go up to $most$([ "$most" = "$NQ_JOIN_MOST_N" ] && echo " for the join")" >&2
      return 2
    fi
  done
}

# nq_mpirun_flags RANKS sets NQ_MPIRUN_FLAGS for an mpirun of RANKS local ranks.
# -q: no Open MPI report on top of the program's own message when a rank exits
# non-zero (it also hides mpirun's own errors, hence the next two flags).
# --use-hwthread-cpus: one slot per logical CPU, as nproc counts them; by
# default Open MPI counts cores and refuses -np $(nproc) on hyperthreaded CPUs.
# --oversubscribe: when asked for more ranks than logical CPUs, and inside
# a Slurm allocation, where Open MPI's slots are the allocation's tasks (one
# under `salloc -n 1 -c 8`), not the CPUs this shell may use.  Without it,
# -q would leave mpirun's refusal unsaid: status 1 and no word.
nq_mpirun_flags() {
  NQ_MPIRUN_FLAGS=(-q --use-hwthread-cpus)
  if [ "$1" -gt "$(nq_cpus)" ] || [ -n "${SLURM_JOB_ID:-}" ]; then
    NQ_MPIRUN_FLAGS+=(--oversubscribe)
  fi
  if [ "$(id -u)" -eq 0 ]; then
    NQ_MPIRUN_FLAGS+=(--allow-run-as-root)
  fi
}
