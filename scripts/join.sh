#!/usr/bin/env bash
# The join method against the backtracker (docs/research.md): for each n,
# both count Q(n) with the same threads, alternately, REPEAT times (the
# median is printed), and one table row gives each one's seconds and work
# and their ratio.
#   scripts/join.sh [-t THREADS] [--repeat K] N...    (default: -t 1, K = 3, N = 12..17)
# Builds build/ first.  Columns: backtrack seconds and nodes; join seconds
# and nodes (the queens its bottom walks placed); backtrack seconds / join
# seconds.  bench_join (tests/) gives the join's finer work counters.
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

usage() { echo "usage: scripts/join.sh [-t THREADS] [--repeat K] [N...]"; }

threads=1
repeat=3
sizes=()
while [ "$#" -gt 0 ]; do
  case $1 in
    -t | --repeat)
      if [ "$#" -lt 2 ]; then
        usage >&2
        exit 2
      fi
      if [ "$1" = -t ]; then threads=$2; else repeat=$2; fi
      shift 2
      ;;
    -h | --help) usage; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
if [ "${#sizes[@]}" -eq 0 ]; then
  sizes=(12 13 14 15 16 17)
fi
for value in "$threads" "$repeat" "${sizes[@]}"; do
  if ! [[ $value =~ ^[1-9][0-9]{0,5}$ ]]; then
    echo "join.sh: '$value' is not a whole number from 1 to 999999" >&2
    exit 2
  fi
done
nq_within_bounds join.sh "$threads" "$NQ_JOIN_MOST_N" "${sizes[@]}" || exit

nq_install_deps
NQ_BUILD_TARGET=nqueens-mpi nq_build "$NQ_ROOT/build"
binary=$NQ_ROOT/build/nqueens-mpi

# field NAME JSON: a number or string field of a one-line JSON object.
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([0-9.e+-]*\).*/\1/p" <<<"$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "# $binary, 1 rank, $threads thread(s), median of $repeat, $(nq_cpus) logical CPUs:" \
  "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)"
printf '%3s %20s | %10s %14s | %10s %14s | %6s\n' n Q backtrack_s nodes join_s nodes ratio
for n in "${sizes[@]}"; do
  back_times=() join_times=()
  for ((i = 0; i < repeat; i++)); do
    back=$("$binary" -n "$n" -t "$threads" --method backtrack -q --format json)
    join=$("$binary" -n "$n" -t "$threads" --method join --format json)
    if [ "$(field solutions "$back")" != "$(field solutions "$join")" ]; then
      echo "join.sh: n = $n: the methods disagree: $back / $join" >&2
      exit 1
    fi
    back_times+=("$(field seconds "$back")")
    join_times+=("$(field seconds "$join")")
  done
  back_s=$(median "${back_times[@]}")
  join_s=$(median "${join_times[@]}")
  printf '%3s %20s | %10.3f %14s | %10.3f %14s | %6.2f\n' "$n" \
    "$(field solutions "$join")" "$back_s" "$(field nodes "$back")" "$join_s" \
    "$(field nodes "$join")" \
    "$(awk -v b="$back_s" -v j="$join_s" 'BEGIN { print (j > 0 ? b / j : 0) }')"
done
