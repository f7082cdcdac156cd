#!/usr/bin/env bash
# Our counting methods side by side with any other counter (docs/research.md):
# for each n, every command runs REPEAT times, the commands taking turns (each
# round starts one further along, so none always runs first, on a cooler or a
# warmer machine), and one row a command gives its median, fastest and slowest
# wall time, its median CPU time (user and system: core-seconds, where threads
# share the work), its median peak memory and its median over the fastest
# median.
#
#   scripts/versus.sh [-t THREADS] [--repeat K] [--methods LIST] [--timeout S]
#                     [--other 'LABEL=COMMAND']... N...
#
#   --methods   ours to run, comma-separated (default backtrack,join; auto too)
#   --other     another counter: COMMAND is split into words as a shell splits
#               them (no quoting inside), {n} stands for the board size and {t}
#               for THREADS.  Repeatable.  Nothing is fetched or built for it.
#   --timeout   a run past S seconds is killed and the script fails (default 7200)
#
# Our runs must agree with each other; another counter's row says whether its
# output holds our count as a word ("yes"), since each prints it its own way.
# A run that fails or times out stops the script (exit 1).  Builds build/.
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

usage() {
  echo "usage: scripts/versus.sh [-t THREADS] [--repeat K] [--methods LIST] [--timeout S]" \
    "[--other 'LABEL=COMMAND']... N..."
}
fail_usage() {
  echo "versus.sh: $1" >&2
  usage >&2
  exit 2
}

threads=1 repeat=3 methods=backtrack,join limit=7200
sizes=() other_labels=() other_commands=()
while [ "$#" -gt 0 ]; do
  case $1 in
    -t | --repeat | --methods | --timeout | --other)
      [ "$#" -ge 2 ] || fail_usage "$1 needs a value"
      case $1 in
        -t) threads=$2 ;;
        --repeat) repeat=$2 ;;
        --methods) methods=$2 ;;
        --timeout) limit=$2 ;;
        --other)
          [[ $2 == ?*=?* ]] || fail_usage "--other '$2' is not LABEL=COMMAND"
          other_labels+=("${2%%=*}")
          other_commands+=("${2#*=}")
          ;;
      esac
      shift 2
      ;;
    -h | --help) usage; exit 0 ;;
    -*) fail_usage "unknown option '$1'" ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ "${#sizes[@]}" -gt 0 ] || fail_usage "no board size given"
for value in "$threads" "$repeat" "$limit" "${sizes[@]}"; do
  if ! [[ $value =~ ^[0-9]+$ ]] || [ "$value" -lt 1 ]; then
    fail_usage "'$value' is not a whole number above 0"
  fi
done
IFS=, read -ra our_methods <<<"$methods"
[ "${#our_methods[@]}" -gt 0 ] || fail_usage "--methods '' names none of ours: our runs give the count the others are checked against"
for method in "${our_methods[@]}"; do
  case $method in
    auto | backtrack | join) ;;
    *) fail_usage "unknown method '$method' in --methods (use auto, backtrack, join)" ;;
  esac
done
most=$NQ_MOST_N
[[ ,$methods, == *,join,* ]] && most=$NQ_JOIN_MOST_N
nq_within_bounds versus.sh "$threads" "$most" "${sizes[@]}" || exit

nq_install_deps
NQ_BUILD_TARGET=nqueens-mpi nq_build "$NQ_ROOT/build"
binary=$NQ_ROOT/build/nqueens-mpi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# command_words INDEX N: the words of command INDEX (ours first, then the
# others) for board size N, into the array `words`.
command_words() {
  local index=$1 n=$2 ours=${#our_methods[@]}
  if [ "$index" -lt "$ours" ]; then
    words=("$binary" -n "$n" -t "$threads" --method "${our_methods[$index]}" -q --format json)
    return
  fi
  local text=${other_commands[$((index - ours))]}
  text=${text//\{n\}/$n}
  text=${text//\{t\}/$threads}
  read -ra words <<<"$text"
}

label_of() {
  local ours=${#our_methods[@]}
  if [ "$1" -lt "$ours" ]; then echo "nqueens-mpi ${our_methods[$1]}"; else echo "${other_labels[$(($1 - ours))]}"; fi
}

# timed_run INDEX N: one run; its wall seconds in `seconds`, its CPU seconds
# (user and system) in `cpu` and its peak resident memory in MB in `peak_mb`
# (both - where /usr/bin/time is missing), its stdout in $scratch/out.
timed_run() {
  local words=()
  command_words "$1" "$2"
  local start end rc=0
  start=$EPOCHREALTIME
  if [ -x /usr/bin/time ]; then
    timeout "$limit" /usr/bin/time -f '%M %U %S' -o "$scratch/peak" "${words[@]}" >"$scratch/out" 2>"$scratch/err" || rc=$?
  else
    timeout "$limit" "${words[@]}" >"$scratch/out" 2>"$scratch/err" || rc=$?
    echo - >"$scratch/peak"
  fi
  end=$EPOCHREALTIME
  if [ "$rc" -ne 0 ]; then
    echo "versus.sh: n = $2: '${words[*]}' failed (exit $rc$([ "$rc" -eq 124 ] && echo ", past ${limit} s")):" >&2
    tail -n 5 "$scratch/err" >&2
    exit 1
  fi
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  peak_mb=$(awk 'NF == 3 && $1 ~ /^[0-9]+$/ { printf "%.0f", $1 / 1024; found = 1 }
                 END { if (!found) print "-" }' "$scratch/peak")
  cpu=$(awk 'NF == 3 && $1 ~ /^[0-9]+$/ { printf "%.3f", $2 + $3; found = 1 }
             END { if (!found) print "-" }' "$scratch/peak")
}

commands=$((${#our_methods[@]} + ${#other_commands[@]}))
echo "# versus.sh: $threads thread(s), median of $repeat, $(nq_cpus) logical CPUs:" \
  "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)"
printf '%3s %-28s %10s %10s %10s %10s %8s %8s %s\n' n command median_s fastest_s slowest_s cpu_s \
  peak_MB x_best "same count"
for n in "${sizes[@]}"; do
  declare -A times=() peaks=() cpus=()
  count=""
  for ((round = 0; round < repeat; round++)); do
    for ((turn = 0; turn < commands; turn++)); do
      index=$(((round + turn) % commands))
      timed_run "$index" "$n"
      times[$index]+="$seconds "
      peaks[$index]+="$peak_mb "
      cpus[$index]+="$cpu "
      if [ "$index" -lt "${#our_methods[@]}" ]; then
        ours=$(sed -n 's/.*"solutions":"\{0,1\}\([0-9]*\).*/\1/p' "$scratch/out")
        [ -n "$ours" ] || { echo "versus.sh: n = $n: no count from ${our_methods[$index]}" >&2; exit 1; }
        if [ -n "$count" ] && [ "$ours" != "$count" ]; then
          echo "versus.sh: n = $n: our methods disagree: $count and $ours" >&2
          exit 1
        fi
        count=$ours
      fi
      cp "$scratch/out" "$scratch/out.$index"
    done
  done
  medians=()
  for ((index = 0; index < commands; index++)); do
    read -ra samples <<<"${times[$index]}"
    medians[index]=$(nq_median "${samples[@]}")
  done
  best=$(nq_lowest "${medians[@]}")
  for ((index = 0; index < commands; index++)); do
    read -ra samples <<<"${times[$index]}"
    read -ra memory <<<"${peaks[$index]}"
    read -ra cpu_samples <<<"${cpus[$index]}"
    same=ours
    if [ "$index" -ge "${#our_methods[@]}" ]; then
      same=no
      if [ -n "$count" ] && tr -c '0-9\n' ' ' <"$scratch/out.$index" | grep -qw -- "$count"; then same=yes; fi
    fi
    peak=-
    [ "${memory[0]}" = - ] || peak=$(nq_median "${memory[@]}")
    cpu_median=-
    [ "${cpu_samples[0]}" = - ] || cpu_median=$(printf '%.3f' "$(nq_median "${cpu_samples[@]}")")
    printf '%3s %-28s %10.3f %10.3f %10.3f %10s %8s %8.2f %s\n' "$n" "$(label_of "$index")" \
      "${medians[$index]}" "$(nq_lowest "${samples[@]}")" "$(nq_highest "${samples[@]}")" "$cpu_median" "$peak" \
      "$(nq_ratio "${medians[$index]}" "$best")" "$same"
  done
  echo "# n = $n: Q = $count"
  unset times peaks cpus
done
