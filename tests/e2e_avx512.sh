#!/usr/bin/env bash
# End-to-end: the AVX-512 lane walk gives the scalar walk's counts and node
# counts, and the output names it.  Status 77 (ctest: skipped), with the
# reason, where this build or CPU cannot run it; e2e_without_avx512.sh
# covers that side.
#   e2e_avx512.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

lanes_probe
if [ "$lanes_listed" != yes ]; then
  skip "$lanes_missing"
fi

for n in 15 16; do
  run_ranks 2 -n "$n" --walk scalar --format json
  count_ok "2 ranks, --walk scalar" "$n"
  scalar_nodes=$(json_nodes)
  run_ranks 2 -n "$n" --walk avx512 --format json
  count_ok "2 ranks, --walk avx512" "$n"
  expected="{\"n\":$n,\"solutions\":\"${known_all[$n]}\",\"seconds\":#,\"ranks\":2,\"threads\":#,\"units\":#,\"depth\":#,\"nodes\":\"#\",\"nodes_per_second\":#,\"method\":\"backtrack\",\"walk\":\"avx512\",\"solutions_mod\":#,\"version\":\"#\"}"
  check "-n $n --walk avx512 --format json: '$(json_count_shape)', expected '$expected'" \
    [ "$(json_count_shape)" = "$expected" ]
  check "-n $n: nodes $(json_nodes) with --walk avx512, $scalar_nodes with --walk scalar" \
    [ "$(json_nodes)" = "$scalar_nodes" ]
done
run -n 16 --walk avx512
check "-n 16 --walk avx512: the text count does not end 'avx512 walk': $(tail -n 1 "$out")" \
  text_count_ok 16 1 avx512
# auto takes the lanes where they run (n = 16 has units big enough for
# them); the backtracker asked for, since auto counts n = 16 by the join.
run -n 16 --method backtrack
check "-n 16 (--walk auto): the text count does not end 'avx512 walk': $(tail -n 1 "$out")" \
  text_count_ok 16 1 avx512

finish
