#!/usr/bin/env bash
# The fuzz target of the journal's readers (tests/fuzz_journal.c): built
# with clang's libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer
# from the sources it tests, seeded with real journals the program writes
# (counts, --unique, slices, --verify's check lines, pairs of slices, the
# join's), and run for SECONDS.  Any crash, hang (10 s an input), leak or
# wrong answer that passes fails the test; the input that did it is kept in
# ARTIFACTS_DIR.  Skipped (77) where clang cannot build a libFuzzer target.
#   fuzz.sh NQUEENS_MPI SOURCE_DIR ARTIFACTS_DIR SECONDS [INCLUDE_DIR...]
# NQ_FUZZ_SECONDS, when set, replaces SECONDS (a longer run by hand).
set -u
if [ "$#" -lt 4 ]; then
  echo "usage: $0 NQUEENS_MPI SOURCE_DIR ARTIFACTS_DIR SECONDS [INCLUDE_DIR...]" >&2
  exit 2
fi
binary=$1 source=$2 artifacts=$3 seconds=${NQ_FUZZ_SECONDS:-$4}
shift 4
includes=(-I"$source/include")
for layer in "$source"/src/*/; do includes+=(-I"$layer"); done
for directory in "$@"; do includes+=(-I"$directory"); done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang=$(command -v clang || true)
if [ -z "$clang" ]; then
  echo "SKIPPED: no clang (Debian: apt-get install clang libclang-rt-dev)"
  exit 77
fi
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
  >"$work/probe.c"
if ! "$clang" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>"$work/probe.log"; then
  echo "SKIPPED: clang cannot build a libFuzzer target (Debian: apt-get install libclang-rt-dev): $(head -c 200 "$work/probe.log")"
  exit 77
fi

# The readers and what they call, nothing of MPI's but its header.
sources=()
for name in record/journal record/journal_checks record/journal_lines record/journal_load record/merge record/totals \
  board/slice board/units board/frame board/symmetry base/error base/message base/durable base/bit_avx2 base/bit_count base/bit_transpose \
  base/standard_stream \
  app/status app/app_output app/output record/merge_cycles method/method method/method_backtrack method/method_join join/join_bucket join/join_completions join/join_memory join/join_quarter_tables join/join_quarters \
  join/join_sample join/join_scratch join/join_tables join/join_tops join/join_units search/kernel search/lanes search/symmetric; do
  sources+=("$source/src/$name.c")
done
if ! "$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  "${includes[@]}" "$source/tests/fuzz_journal.c" "${sources[@]}" -lgmp -lz \
  -o "$work/fuzz_journal" 2>"$work/build.log"; then
  echo "FAIL: the fuzz target does not build:"
  cat "$work/build.log"
  exit 1
fi

# Seeds: small journals as runs write them (n = 8 has 44 units: short
# inputs, so that a mutation often lands on a number that means something),
# and pairs for --merge, these with "C" first: the target makes their
# checksums right whatever the fuzzer changes (a forged record).
mkdir -p "$work/seeds" "$work/corpus" "$work/run"
seed() { "$binary" "$@" -q >/dev/null; }
for n in 4 6 8; do
  seed -n "$n" -t 1 --method backtrack --checkpoint "$work/seeds/count$n"
done
seed -n 8 -t 2 --method backtrack --checkpoint "$work/seeds/count8-2threads"
seed -n 8 -t 2 --unique --checkpoint "$work/seeds/unique8"
for slice in 1 2 3; do
  seed -n 8 -t 1 --slice "$slice/3" --checkpoint "$work/seeds/slice$slice"
done
seed -n 8 -t 1 --checkpoint "$work/seeds/verified8" --verify 0.5
seed -n 8 -t 1 --method join --checkpoint "$work/seeds/join8"
seed -n 9 -t 1 --method join --slice 1/2 --checkpoint "$work/seeds/join9-slice1"
{ printf C; cat "$work/seeds/count8"; } >"$work/seeds/count8.crc"
{ printf C; cat "$work/seeds/verified8"; } >"$work/seeds/verified8.crc"
{ printf C; cat "$work/seeds/count8"; echo =; cat "$work/seeds/count8-2threads"; } \
  >"$work/seeds/pair-runs.crc"
{ printf C; cat "$work/seeds/slice1"; echo =; cat "$work/seeds/slice2"; } \
  >"$work/seeds/pair-slices.crc"
{ printf C; cat "$work/seeds/count8"; echo =; cat "$work/seeds/slice3"; } \
  >"$work/seeds/pair-whole.crc"
if [ "$(find "$work/seeds" -type f -size +0 | wc -l)" -ne 16 ]; then
  echo "FAIL: the program did not write the seed journals"
  exit 1
fi

NQ_FUZZ_DIR="$work/run" "$work/fuzz_journal" -max_total_time="$seconds" -timeout=10 -max_len=16384 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" \
  "$work/corpus" "$work/seeds" >"$work/fuzz.log" 2>&1
status=$?
grep -E '^(stat::number_of_executed_units|stat::new_units_added|Done)' "$work/fuzz.log"
if [ "$status" -ne 0 ]; then
  mkdir -p "$artifacts"
  cp "$work"/crash-* "$work"/timeout-* "$work"/leak-* "$work"/oom-* "$artifacts"/ 2>/dev/null
  echo "FAIL: the fuzzer found a failure (status $status); inputs kept in $artifacts:"
  grep -E 'ERROR|SUMMARY|fuzz_journal:|runtime error|Test unit written' "$work/fuzz.log" | head -20
  exit 1
fi
echo "fuzzed the journal's readers for $seconds s: nothing found"
