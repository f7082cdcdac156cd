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
# that fails stops the script (exit 1); bad arguments exit 2.  Times come
# from GNU time (/usr/bin/time).
set -euo pipefail

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
[ -x /usr/bin/time ] || {
  echo "scripts/pairs.sh: /usr/bin/time (GNU time) is missing" >&2
  exit 2
}

# One run of a command: prints "WALL CPU" in seconds.
time_once() {
  local out
  out=$(mktemp)
  local pin=()
  [ -n "$cpus" ] && pin=(taskset -c "$cpus")
  if ! /usr/bin/time -f '%e %U %S' -o "$out" "${pin[@]}" sh -c "$1" >/dev/null 2>&1; then
    echo "scripts/pairs.sh: this run failed: $1" >&2
    rm -f "$out"
    exit 1
  fi
  awk 'END { printf "%s %.3f\n", $1, $2 + $3 }' "$out"
  rm -f "$out"
}

time_once "$1" >/dev/null
time_once "$2" >/dev/null
ratios=()
for ((p = 1; p <= pairs; p++)); do
  read -r a_wall a_cpu < <(time_once "$1")
  read -r b_wall b_cpu < <(time_once "$2")
  printf 'pair %d: A %s s wall, %s s cpu; B %s s wall, %s s cpu\n' \
    "$p" "$a_wall" "$a_cpu" "$b_wall" "$b_cpu"
  ratios+=("$a_wall $b_wall $a_cpu $b_cpu")
done
# Median, lowest and highest of each ratio (a pair whose B took 0 s counts
# as a ratio of 1).
printf '%s\n' "${ratios[@]}" | awk '
  function ratio(a, b) { return b > 0 ? a / b : 1 }
  { wall[NR] = ratio($1, $2); cpu[NR] = ratio($3, $4) }
  function report(name, v, n,    i, j, t) {
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    printf "A/B %s: median %.3f (%.3f to %.3f, %d pairs)\n", name, m, v[1], v[n], n
  }
  END { report("wall", wall, NR); report("cpu", cpu, NR) }'
