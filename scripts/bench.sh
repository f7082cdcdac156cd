#!/usr/bin/env bash
# Benchmark of the backtracker (--method backtrack): counts Q(n) for each n
# and prints one table row per n.
#   scripts/bench.sh                  n = 12..17 on 1 rank
#   scripts/bench.sh -np 2 16 17      n = 16, 17 on 2 ranks
#   scripts/bench.sh --walk scalar 16 count with the scalar walk (default: auto)
#   scripts/bench.sh --native 16      build-native/ (-DNQ_NATIVE=ON, -march=native)
# Builds first (build/ or build-native/, log in DIR/build.log).  Columns: total
# solutions, wall seconds, queens placed per second, work units per second,
# the walk that counted.
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

usage() {
  echo "usage: scripts/bench.sh [-np RANKS] [--walk auto|scalar|avx512] [--native] [N...]"
  echo "       (default: -np 1, --walk auto, N = 12..17)"
}

ranks=1
walk=auto
native=OFF
sizes=()
while [ "$#" -gt 0 ]; do
  case $1 in
    -np | --np)
      if [ "$#" -lt 2 ]; then
        usage >&2
        exit 2
      fi
      ranks=$2
      shift 2
      ;;
    --walk)
      if [ "$#" -lt 2 ]; then
        usage >&2
        exit 2
      fi
      walk=$2
      shift 2
      ;;
    --native) native=ON; shift ;;
    -h | --help) usage; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
for value in "$ranks" "${sizes[@]}"; do
  if ! [[ $value =~ ^[0-9]{1,6}$ ]]; then
    echo "bench.sh: '$value' is not a whole number" >&2
    usage >&2
    exit 2
  fi
done
if [ "$ranks" -lt 1 ]; then
  echo "bench.sh: -np must be at least 1" >&2
  exit 2
fi
# The program's own bounds, before the build and the header.
case $walk in
  auto | scalar | avx512) ;;
  *)
    echo "bench.sh: unknown --walk '$walk' (use auto, scalar or avx512)" >&2
    exit 2
    ;;
esac
nq_within_bounds bench.sh 1 "$NQ_MOST_N" "${sizes[@]}" || exit
if [ "${#sizes[@]}" -eq 0 ]; then
  sizes=(12 13 14 15 16 17)
fi

build_dir=$NQ_ROOT/build
if [ "$native" = ON ]; then
  build_dir=$NQ_ROOT/build-native
fi
nq_install_deps
NQ_BUILD_TARGET=nqueens-mpi nq_build "$build_dir" -DNQ_NATIVE="$native"
nq_mpirun_flags "$ranks"

echo "# ${build_dir#"$NQ_ROOT"/}/nqueens-mpi, $ranks rank(s), --walk $walk, NQ_NATIVE=$native," \
  "$(nq_cpus) logical CPUs"
printf '%4s %22s %10s %12s %12s %7s\n' n total seconds nodes/s units/s walk
for n in "${sizes[@]}"; do
  status=0
  json=$(mpirun "${NQ_MPIRUN_FLAGS[@]}" -np "$ranks" "$build_dir/nqueens-mpi" -n "$n" \
    --walk "$walk" --method backtrack --format json) || status=$?
  if [ "$status" -ne 0 ] || [ -z "$json" ]; then
    echo "bench.sh: n = $n failed (mpirun exit status $status)" >&2
    exit 1
  fi
  # One JSON object on one line; the counts are strings, the rest numbers.
  printf '%s\n' "$json" | awk '
    function field(name,   rest) {
      if (!match($0, "\"" name "\":")) return ""
      rest = substr($0, RSTART + RLENGTH)
      match(rest, /^"?[-+.0-9eE]*/)
      rest = substr(rest, 1, RLENGTH)
      gsub(/"/, "", rest)
      return rest
    }
    {
      seconds = field("seconds") + 0
      nodes_rate = units_rate = "-"
      if (seconds > 0) {
        nodes_rate = sprintf("%.3e", field("nodes") / seconds)
        units_rate = sprintf("%.0f", field("units") / seconds)
      }
      walk = "-"
      if (match($0, /"walk":"[a-z0-9]*"/))
        walk = substr($0, RSTART + 8, RLENGTH - 9)
      printf "%4s %22s %10.3f %12s %12s %7s\n", field("n"), field("solutions"), seconds,
             nodes_rate, units_rate, walk
    }'
done
