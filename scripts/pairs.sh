#!/usr/bin/env bash
# Two commands timed in alternating pairs, A then B, PAIRS times after one
# warm-up run of each: the ratio A/B of each pair's wall and CPU (user +
# system) seconds, and their median, lowest and highest.  A ratio taken
# pair by pair stays meaningful when a shared machine's speed drifts
# between runs, which a median of all of A's runs against all of B's does
# not (docs/performance.md quotes ratios taken this way).
#
#   scripts/pairs.sh [--pairs K] [--cpu LIST] -- 'COMMAND_A' 'COMMAND_B'
#
#   --pairs   pairs counted (default 5)
#   --cpu     run both on these processors (taskset -c LIST)
#
# Each command is one string, run by sh -c; its output is discarded.  A run
# that fails stops the script (exit 1); bad arguments exit 2.  The CPU
# times come from GNU time (/usr/bin/time).  Of an even number of pairs
# the median is the lower middle ratio, as scripts/versus.sh takes it.
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

usage() {
  echo "usage: scripts/pairs.sh [--pairs K] [--cpu LIST] -- 'COMMAND_A' 'COMMAND_B'"
}
fail_usage() {
  echo "scripts/pairs.sh: $1" >&2
  usage >&2
  exit 2
}

pairs=5
cpus=
while [ "$#" -gt 0 ]; do
  case $1 in
    --pairs)
      [ "$#" -ge 2 ] || fail_usage "--pairs needs a count"
      [[ $2 =~ ^[1-9][0-9]*$ ]] || fail_usage "--pairs must be a positive integer, not '$2'"
      pairs=$2
      shift 2
      ;;
    --cpu)
      [ "$#" -ge 2 ] || fail_usage "--cpu needs a processor list"
      cpus=$2
      shift 2
      ;;
    --)
      shift
      break
      ;;
    *) fail_usage "unknown argument '$1'" ;;
  esac
done
[ "$#" -eq 2 ] || fail_usage "two commands are needed after --"
# A list this process may not run on is the argument's fault, not the
# commands': taskset refuses it before either runs.
if [ -n "$cpus" ] && ! command -v taskset >/dev/null 2>&1; then
  echo "scripts/pairs.sh: --cpu needs taskset (util-linux), which is missing" >&2
  exit 2
fi
if [ -n "$cpus" ] && ! taskset -c "$cpus" true 2>/dev/null; then
  fail_usage "--cpu '$cpus' is not a list of processors this process may run on"
fi
[ -x /usr/bin/time ] || {
  echo "scripts/pairs.sh: /usr/bin/time (GNU time) is missing" >&2
  exit 2
}

# One run of a command: prints "WALL CPU" in seconds, the wall read from
# the shell's clock to the millisecond (GNU time's %e has hundredths), the
# CPU from GNU time (user and system).
time_once() {
  local out start end
  out=$(mktemp)
  local pin=()
  [ -n "$cpus" ] && pin=(taskset -c "$cpus")
  start=$EPOCHREALTIME
  if ! /usr/bin/time -f '%U %S' -o "$out" "${pin[@]}" sh -c "$1" >/dev/null 2>&1; then
    echo "scripts/pairs.sh: this run failed: $1" >&2
    rm -f "$out"
    exit 1
  fi
  end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" 'END { printf "%.3f %.3f\n", b - a, $1 + $2 }' "$out"
  rm -f "$out"
}

time_once "$1" >/dev/null
time_once "$2" >/dev/null
wall=()
cpu=()
for ((p = 1; p <= pairs; p++)); do
  read -r a_wall a_cpu < <(time_once "$1")
  read -r b_wall b_cpu < <(time_once "$2")
  printf 'pair %d: A %s s wall, %s s cpu; B %s s wall, %s s cpu\n' \
    "$p" "$a_wall" "$a_cpu" "$b_wall" "$b_cpu"
  wall+=("$(nq_ratio "$a_wall" "$b_wall")")
  cpu+=("$(nq_ratio "$a_cpu" "$b_cpu")")
done
# report NAME RATIO...: their median, lowest and highest.
report() {
  local name=$1
  shift
  printf 'A/B %s: median %.3f (%.3f to %.3f, %d pairs)\n' "$name" "$(nq_median "$@")" \
    "$(nq_lowest "$@")" "$(nq_highest "$@")" "$#"
}
report wall "${wall[@]}"
report cpu "${cpu[@]}"
