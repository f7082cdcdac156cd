#!/usr/bin/env bash
# The work distribution's measurements (docs/scaling.md): builds
# bench_master and unit_times, then, in one mpirun of MAX ranks (starting
# hundreds of ranks on a few cores takes minutes, so it is done once):
#   capacity   zero-cost units of Q(22) at 2..MAX ranks, batches of 16 and 1:
#              units and messages a second at the master
#   tail       units costed like Q(19)'s real ones (node counts, unit_times
#              trace) and lognormal (sigma 0.7) at 32..MAX ranks, the
#              mean cost 0.25 ms x ranks so that every run lasts about 25 s
# Each run appends one line to DIR/<test>.dat; then the medians go to
# DIR/<label>-<test>.txt and scripts/scaling.gp draws the figures.
#   scripts/scaling.sh [--label NAME] [--max-ranks MAX] [--repeat K] [--out DIR]
#   defaults: --label today --max-ranks 256 --repeat 3 --out build/scaling
# The trace of Q(19) (about 5 minutes of one core) is kept in build/scaling/.
set -euo pipefail
# shellcheck source=scripts/setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

usage() {
  echo "usage: scripts/scaling.sh [--label NAME] [--max-ranks MAX] [--repeat K] [--out DIR]"
}

label=today
max_ranks=256
repeat=3
out=$NQ_ROOT/build/scaling
while [ "$#" -gt 0 ]; do
  if [ "$#" -lt 2 ]; then
    usage >&2
    exit 2
  fi
  case $1 in
    --label) label=$2 ;;
    --max-ranks) max_ranks=$2 ;;
    --repeat) repeat=$2 ;;
    --out) out=$2 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift 2
done
if ! [[ $max_ranks =~ ^[0-9]+$ && $repeat =~ ^[0-9]+$ ]] || [ "$max_ranks" -lt 2 ] ||
  [[ $label == *[[:space:]]* ]]; then
  usage >&2
  exit 2
fi

nq_install_deps
NQ_BUILD_TARGET=bench_master nq_build "$NQ_ROOT/build" -DNQ_TESTS=ON
NQ_BUILD_TARGET=unit_times nq_build "$NQ_ROOT/build" -DNQ_TESTS=ON
mkdir -p "$out" "$NQ_ROOT/build/scaling"
trace=$NQ_ROOT/build/scaling/trace19.txt
if [ ! -s "$trace" ]; then
  echo "scaling.sh: timing every unit of Q(19) for the trace (minutes)" >&2
  "$NQ_ROOT/build/tests/unit_times" --write "$trace.part" 19 >&2
  mv "$trace.part" "$trace"
fi

# Open MPI: only the shared-memory transport (the other components cost
# each of hundreds of processes time at start-up), and ranks waiting in MPI
# yield the CPU to the ranks being measured.
nq_mpirun_flags "$max_ranks"
flags=("${NQ_MPIRUN_FLAGS[@]}" --mca pml ob1 --mca btl 'self,vader' --mca mtl '^ofi,psm,psm2'
       --mca osc '^ucx' --mca mpi_yield_when_idle 1)

groups=(--label "$label" --repeat "$repeat")
first=1
add_group() {
  if [ "$first" -eq 0 ]; then
    groups+=(--then)
  fi
  first=0
  groups+=("$@")
}
for ranks in 2 8 32 64 128 256 512 1024; do
  if [ "$ranks" -le "$max_ranks" ]; then
    add_group --data "$out/capacity.dat" --n 22 --cost zero --batch 16 --ranks "$ranks"
  fi
done
add_group --batch 1 --ranks 2
add_group --batch 1 --ranks "$max_ranks"
for model in trace lognormal; do
  for ranks in 32 64 128 256 512 1024; do
    if [ "$ranks" -le "$max_ranks" ]; then
      scale=$(awk -v r="$ranks" 'BEGIN { printf "%.6f", 0.00025 * r }')
      add_group --data "$out/tail-$model.dat" --n 19 --batch 16 --cost "$model" --sigma 0.7 \
        --trace "$trace" --scale "$scale" --ranks "$ranks"
    fi
  done
done

echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nq_cpus) CPUs; $(date -u +%FT%TZ);" \
  "git $(git -C "$NQ_ROOT" rev-parse --short HEAD)" | tee -a "$out/runs.log"
mpirun "${flags[@]}" -np "$max_ranks" "$NQ_ROOT/build/tests/bench_master" "${groups[@]}" |
  tee -a "$out/runs.log"

# Medians over the repeats, by label and rank count (and batch): columns
# named in each file's first line.
median_by() {
  local data=$1 summary=$2
  shift 2
  awk -v label="$label" '
    $1 == label { key = $2 " " $4; keys[key] = 1; n[key]++; for (c = 3; c <= NF; c++) v[key, c, n[key]] = $c }
    END {
      for (key in keys) {
        line = key
        for (c = 7; c <= 17; c++) {
          m = n[key]
          for (i = 1; i <= m; i++) s[i] = v[key, c, i] + 0
          for (i = 2; i <= m; i++) for (j = i; j > 1 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
          line = line " " (m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2)
        }
        print line " " m
      }
    }' "$data" | sort -k2,2n -k1,1n >"$summary.body"
  {
    echo "# medians of DIR/$(basename "$data") for label $label"
    echo "# ranks batch wall_s units/s master_sends master_receives messages/s work_s efficiency idle_end tail_s ramp_s after_s runs"
    cat "$summary.body"
  } >"$summary"
  rm -f "$summary.body"
}
for test in capacity tail-trace tail-lognormal; do
  if [ -s "$out/$test.dat" ]; then
    median_by "$out/$test.dat" "$out/$label-$test.txt"
  fi
done
echo "scaling.sh: medians in $out/$label-*.txt; figures: gnuplot -e \"dir='$out'; labels='$label'\" scripts/scaling.gp" >&2
