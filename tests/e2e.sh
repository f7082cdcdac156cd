#!/usr/bin/env bash
# End-to-end tests of the real nqueens-mpi binary, alone and under mpiexec:
# those that run on any machine.  Those that depend on it are apart, each its
# own ctest test that is skipped where it cannot run: e2e_avx512.sh,
# e2e_without_avx512.sh, e2e_dev_full.sh.
#   e2e.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# Prints one line per failure and "N passed, M failed"; exits 1 on any
# failure.
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

# ---- counting -------------------------------------------------------------

for n in $(thinned 2 $(seq 0 16)); do
  run -n "$n" --format json
  count_ok "1 rank" "$n"
done
# -q: 4 ranks on a loaded 2-core machine can pass the 60 s after which a
# count prints its progress; that a count is silent by default is the
# 1-rank loop's to check.
for n in $(thinned 4 $(seq 0 16)); do
  run_ranks 4 -n "$n" --format json -q
  count_ok "4 ranks" "$n"
done
for n in $(thinned 2 1 5 8 12); do
  run_ranks 2 -n "$n" --unique --format json
  got=$(json_unique)
  if [ "$status" -eq 0 ] && [ "$got" = "${known_unique[$n]}" ]; then
    pass
  else
    fail "2 ranks: -n $n --unique: status $status, unique '$got', expected ${known_unique[$n]}"
  fi
  count_ok "2 ranks, --unique" "$n"
done

run -n 8
check "-n 8: not the two lines of Q(8) = 92 on 1 rank: $(head -c 200 "$out" | tr '\n' '|')" \
  text_count_ok 8 1 '(scalar|avx512)'
run -n 1
check "-n 1: not the singular text count: $(head -c 200 "$out" | tr '\n' '|')" \
  text_count_ok 1 1 '(scalar|avx512)'
run_ranks 2 -n 12 --unique
check "-n 12 --unique at 2 ranks: status $status, output: $(head -c 300 "$out" | tr '\n' '|')" \
  text_count_ok 12 2 '(scalar|avx512)' unique

# ---- singletons started together ----------------------------------------------
# Open MPI names every lone process alike, so that all would share one
# session directory, $TMPDIR/ompi.<host>.<uid>, which the first to end
# removes under the others; each run keeps one of its own,
# ompi.<host>.<uid>.<pid>, and sweeps the empty ones of processes killed
# before they could.  A file in the shared directory's place fails every
# run that would use it, at MPI_Init; a dozen runs at once count, and
# leave nothing behind.
sessions=$work/sessions
mkdir "$sessions"
blocker=$sessions/ompi.$(hostname | cut -d. -f1).$(id -u)
: >"$blocker"
# dead_session: the name a process that has ended would have given its own.
dead_session() {
  true &
  wait "$!"
  echo "ompi.$(hostname).$(id -u).$!"
}
swept=$(dead_session)
kept=$(dead_session)
mkdir -p "$sessions/$swept/jf.0/1/0" "$sessions/$kept/jf.0"
: >"$sessions/$kept/jf.0/file"
TMPDIR=$sessions run -n 8 --format json
count_ok "1 rank, the shared session directory taken" 8
for i in $(seq 1 12); do
  TMPDIR=$sessions timeout "$limit" "$binary" -n 9 --format json >"$work/together.$i" 2>&1 &
done
wait
for i in $(seq 1 12); do
  check "singleton $i of 12 started together: $(head -c 300 "$work/together.$i" | tr '\n' '|')" \
    grep -q "\"solutions\":\"${known_all[9]}\"" "$work/together.$i"
done
check "singletons left or swept session directories: $(ls -A "$sessions" | tr '\n' ' ')" \
  [ "$(ls -A "$sessions" | sort)" = "$(printf '%s\n' "$(basename "$blocker")" "$kept" | sort)" ]

# ---- the scalar walk ----------------------------------------------------------
# Every CPU runs it; the lane walk is e2e_avx512.sh's.

for n in 15 16; do
  run_ranks 2 -n "$n" --walk scalar --format json
  count_ok "2 ranks, --walk scalar" "$n"
  expected="{\"n\":$n,\"solutions\":\"${known_all[$n]}\",\"seconds\":#,\"ranks\":2,\"threads\":#,\"units\":#,\"depth\":#,\"nodes\":\"#\",\"nodes_per_second\":#,\"method\":\"backtrack\",\"walk\":\"scalar\",\"solutions_mod\":#,\"version\":\"#\"}"
  check "-n $n --walk scalar --format json: '$(json_count_shape)', expected '$expected'" \
    [ "$(json_count_shape)" = "$expected" ]
done
run -n 10 --walk scalar
check "-n 10 --walk scalar: the text does not end 'scalar walk': $(tail -n 1 "$out")" \
  text_count_ok 10 1 scalar

# ---- the join method (research, docs/research.md) -----------------------------
# Q(n) from the column sets dealt over ranks and threads, in both formats.

for n in $(thinned 2 0 1 2 3 13 14); do
  run_ranks 2 -n "$n" --method join -t 2 --format json
  count_ok "2 ranks x 2 threads, --method join" "$n"
done
run_ranks 3 -n 12 --method join --format json
count_ok "3 ranks, --method join" 12
expected='{"n":12,"solutions":"14200","seconds":#,"ranks":3,"threads":#,"units":#,"depth":#,"nodes":"#","nodes_per_second":#,"method":"join","memory_per_rank":4294967296,"solutions_mod":#,"version":"#"}'
check "-n 12 --method join --format json: '$(json_count_shape)', expected '$expected'" \
  [ "$(json_count_shape)" = "$expected" ]
run -n 11 --method join -t 1
check "-n 11 --method join: status $status, output: $(head -c 300 "$out" | tr '\n' '|')" \
  [ "$status" -eq 0 -a "$(head -n 1 "$out")" = "Q(11) = ${known_all[11]} solutions on the 11x11 board" ]
check "-n 11 --method join: the second line does not name the join: $(tail -n 1 "$out")" \
  grep -qE '^[0-9.]+ s on 1 rank, 1 thread, [0-9]+ column sets, [0-9.e+]+ nodes/s, join method, its tables within 4 GiB a rank$' "$out"

# ---- estimates --------------------------------------------------------------
# A fixed seed and budget: the same sample on 1 and 3 ranks, so the same
# estimate (printed to 10 digits; sums in another order may differ below).

json_number() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p" "$out"; }
run -n 13 --estimate --estimate-samples 3 --seed 4 --estimate-ranks 8 --format json
alone=$(json_number solutions)
check "-n 13 --estimate --format json: status $status, $(head -c 300 "$out")" \
  [ "$status" -eq 0 -a -n "$alone" -a -n "$(json_number estimate_ranks_wall_seconds)" ]
run_ranks 3 -n 13 --estimate --estimate-samples 3 --seed 4 --format json
check "-n 13 --estimate at 3 ranks: status $status, solutions '$(json_number solutions)', alone '$alone'" \
  [ "$status" -eq 0 -a "$(json_number solutions)" = "$alone" ]
run -n 13 --estimate 0.2 -t 2
check "-n 13 --estimate 0.2: status $status, $(head -c 300 "$out" | tr '\n' '|')" \
  grep -q "^Q(13) ~ .*95% interval" "$out"
# Where the probes can take every set or frame, by time on 3 ranks: the
# count itself, said so.
run_ranks 3 -n 16 --estimate --format json
check "-n 16 --estimate at 3 ranks: status $status, $(head -c 300 "$out")" \
  [ "$status" -eq 0 -a "$(json_number solutions)" = 14772512 ]
check "-n 16 --estimate at 3 ranks is not counted: $(head -c 100 "$out")" \
  grep -q '^{"n":16,"estimate":true,"counted":true,' "$out"
run_ranks 3 -n 10 --estimate
check "-n 10 --estimate at 3 ranks: status $status, $(head -c 300 "$out" | tr '\n' '|')" \
  grep -qx "Q(10) = 724 (counted, every frame solved)" "$out"

# ---- listing --------------------------------------------------------------

run -n 4 --list
check "-n 4 --list: status $status" [ "$status" -eq 0 ]
printf '.Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n' >"$work/expected"
check "-n 4 --list is not the two expected boards" cmp -s "$out" "$work/expected"

run -n 4 --list --format json
printf '[[".Q..","...Q","Q...","..Q."],["..Q.","Q...","...Q",".Q.."]]\n' >"$work/expected"
check "-n 4 --list --format json is not the expected array" cmp -s "$out" "$work/expected"

run -n 8 --list
cp "$out" "$work/list1"
check "-n 8 --list at 1 rank: status $status" [ "$status" -eq 0 ]
check "-n 8 --list: not 92 different solutions of 8 rows, a blank line between two" \
  boards_ok 8 92 "$work/list1"
run_ranks 3 -n 8 --list
check "-n 8 --list at 3 ranks: status $status" [ "$status" -eq 0 ]
check "-n 8 --list differs between 1 and 3 ranks" cmp -s "$out" "$work/list1"

run -n 8 --list --limit 5
check "--list --limit 5: status $status" [ "$status" -eq 0 ]
if [ "$(grep -c '^$' "$out")" -eq 4 ] && [ "$(wc -l <"$out")" -eq 44 ]; then
  pass
else
  fail "--list --limit 5 does not give 5 boards"
fi
head -n 44 "$work/list1" >"$work/expected"
check "--list --limit 5 is not the first 5 boards of the full list" cmp -s "$out" "$work/expected"

# One board a class: 8's twelve, each one of the whole list's, at any ranks.
run_ranks 3 -n 8 --list --unique
check "-n 8 --list --unique at 3 ranks: status $status" [ "$status" -eq 0 ]
check "-n 8 --list --unique: not 12 different solutions" boards_ok 8 12 "$out"
not_listed=$(comm -13 <(boards_columns 8 <"$work/list1" | sort) <(boards_columns 8 <"$out" | sort))
check "-n 8 --list --unique: boards --list lacks: $not_listed" [ -z "$not_listed" ]
run -n 6 --list --unique --format json
printf '[[".Q....","...Q..",".....Q","Q.....","..Q...","....Q."]]\n' >"$work/expected"
check "-n 6 --list --unique --format json is not the least of the four boards" \
  cmp -s "$out" "$work/expected"

# ---- one solution -----------------------------------------------------------

run -n 8 --first --format json
check "--first -n 8: status $status" [ "$status" -eq 0 ]
expected='{"n":8,"board":["Q.......","....Q...",".......Q",".....Q..","..Q.....","......Q.",".Q......","...Q...."],"columns":[0,4,7,5,2,6,1,3],"kind":"lexicographically-first","seconds":#,"version":"#"}'
got=$(sed -E -e 's/"seconds":[0-9.e+-]+/"seconds":#/' -e 's/"version":"[^"]*"/"version":"#"/' "$out")
check "--first -n 8 --format json: '$got', expected '$expected'" [ "$got" = "$expected" ]

run --first -n 40
check "--first -n 40: status $status" [ "$status" -eq 0 ]
check "--first -n 40 does not begin 'Constructed (not the lexicographically first) solution'" \
  [ "$(head -n 1 "$out")" = "Constructed (not the lexicographically first) solution for n = 40:" ]
sed -n '2,41p' "$out" >"$work/board40"
check "--first -n 40: the board is not a solution of n = 40" boards_ok 40 1 "$work/board40"
check "--first -n 40: not 42 lines" [ "$(wc -l <"$out")" -eq 42 ]
check "--first -n 40: the columns line does not name the board's columns" \
  [ "$(tail -n 1 "$out")" = "columns: $(boards_columns 40 <"$work/board40")" ]
cp "$out" "$work/first40"
run_ranks 3 --first -n 40
check "--first -n 40 differs between 1 and 3 ranks" cmp -s "$out" "$work/first40"

run -n 3 --first
check "--first -n 3: status $status" [ "$status" -eq 0 ]
check "--first -n 3: '$(cat "$out")'" [ "$(cat "$out")" = "No solution exists for n = 3." ]

# ---- help and version -------------------------------------------------------

run --help
check "--help: status $status" [ "$status" -eq 0 ]
check "--help wrote to stderr" is_empty "$err"
# Each option as a word of its own ("-u" must not pass on "--unique").
for option in -n --size -u --unique -l --list --limit -f --first --format -h --help \
  -V --version --walk; do
  check "--help does not mention $option" grep -qE -e "(^|[ ,[])$option([] ,]|$)" "$out"
done

run --version
check "--version: status $status" [ "$status" -eq 0 ]
check "--version is not one line" one_line "$out"
check "--version is not 'nqueens-mpi X.Y.Z (walks: ...)': $(head -c 200 "$out")" \
  line_matches "$out" 1 'nqueens-mpi [0-9]+\.[0-9]+\.[0-9]+ \(walks: scalar(, avx512)?\)'

# ---- search threads ---------------------------------------------------------
# -t sets them; without it, a process started alone takes every core it may
# use, one under mpirun takes 1, and SLURM_CPUS_PER_TASK rules where set.
# The JSON counts the run's threads over all ranks.

json_threads() { sed -n 's/.*"threads":\([0-9]*\).*/\1/p' "$out"; }
threads_ok() {
  local label=$1 expected=$2 n=$3
  count_ok "$label" "$n"
  check "$label: \"threads\":$(json_threads), expected $expected" [ "$(json_threads)" = "$expected" ]
}
cores=$(nproc)
run -n 13 --format json
threads_ok "alone, no -t" "$cores" 13
run -n 13 --format json -t 3
threads_ok "alone, -t 3" 3 13
SLURM_CPUS_PER_TASK=2 run -n 13 --format json
threads_ok "alone, SLURM_CPUS_PER_TASK=2" 2 13
run_ranks 2 -n 13 --format json
threads_ok "2 ranks, no -t" 2 13
run_ranks 2 -n 14 --format json --threads 2
threads_ok "2 ranks, --threads 2" 4 14
run -n 12 -t 2
check "-n 12 -t 2: status $status, output: $(head -c 300 "$out" | tr '\n' '|')" \
  text_count_ok 12 1 '(scalar|avx512)'
check "-n 12 -t 2: the text does not say 2 threads: $(tail -n 1 "$out")" \
  grep -q ' 2 threads, ' "$out"

# ---- bad command lines ------------------------------------------------------

bad_lines=(
  "-n 012"
  ""
  "-n abc"
  "-n -1"
  "-n 65"
  "-n 99999999999999999999999"
  "-n 8 -x"
  "-n 8 --bogus"
  "-n"
  "-n 8 -n 8"
  "-n 8 --list --list"
  "-n 8 --list --first"
  "-n 8 --limit 3"
  "-n 8 --list --limit 0"
  "-n 8 --list --limit -3"
  "-n 8 --list --limit abc"
  "-n 8 --format xml"
  "-n 8 --unique --first"
  "-n 8 stray"
  "-n 8x"
  "-n 8 --list --limit 99999999999999999999999"
  "-n 8 --format"
  "-n 8 --format json --format text"
  "-n 8 --first --limit 2"
  "-n 8 --first --list"
  "-n 8 --walk simd"
  "-n 8 --method"
  "-n 8 --method magic"
  "-n 8 --method join --gpu"
  "-n 33 --method join"
  "-n 8 --list --method join"
  "-n 18 --memory 1K"
  "-n 24 --memory 2M"
  "-n 24 --estimate --memory 2M"
  "-n 18 --memory 1025T"
  "-n 8 --walk"
  "-n 40 --walk avx512"
  "-n 8 --list --walk scalar"
  "-n 8 -t 0"
  "-n 8 --threads -2"
  "-n 8 -t 4097"
  "-n 8 -t two"
  "-n 8 --list -t 2"
  "-n 8 -t 2 -t 2"
  "-n 8 --estimate 0"
  "-n 8 --estimate -1"
  "-n 8 --estimate junk"
  "-n 8 --estimate --list"
  "-n 8 --first --estimate 5"
  "-n 8 --estimate --estimate-ranks 0"
  "-n 8 --estimate --estimate-samples 1"
  "-n 8 --estimate --unique"
  "-n 8 --estimate-ranks 4"
  "-n 8 --seed 3"
)

# Under the sanitizers every third line: check_cli's sanitized run parses
# each spelling in-process, and a refused line's way out is the same.
mapfile -t bad_sample < <(thinned 3 "${bad_lines[@]}")
for line in "${bad_sample[@]}"; do
  read -ra words <<<"$line"
  run ${words[@]+"${words[@]}"}
  usage_error_ok "1 rank" "$line"
done

# Under mpiexec every rank refuses the line and exits 2, rank 0 alone saying
# why.  Every parse error reaches that end the same way (the ranks' one
# agreement on what they parsed), so a few of its kinds stand for the rest;
# a --memory below the join's needs is refused later, after the parse, on a
# path of its own in a count and in an estimate.  When one rank exits while
# another is still in its exit, mpiexec kills that one and waits
# odls_base_sigkill_timeout (1 s) for it, about half the time: waiting on
# Open MPI, not on nqueens-mpi, so that timeout is 0 here.  Under the
# sanitizers every second kind, and both --memory paths (the last two).
bad_lines_3_ranks=(
  "-n abc"
  "-n"
  "-n 8 --bogus"
  "-n 8 --list --first"
  "-n 24 --memory 2M"
  "-n 24 --estimate --memory 2M"
)
mapfile -t bad_sample < <(thinned 2 "${bad_lines_3_ranks[@]}")
for line in "${bad_sample[@]}"; do
  read -ra words <<<"$line"
  OMPI_MCA_odls_base_sigkill_timeout=0 run_ranks 3 ${words[@]+"${words[@]}"}
  usage_error_ok "3 ranks" "$line"
done

# The empty string as the board size: an argument array, not a split line.
run -n ""
usage_error_ok "1 rank" "-n ''"

# ---- ranks started with different arguments ---------------------------------
# One job, one rank per command line (mpiexec's "A : B").  The ranks must
# settle on one verdict before acting: status 2, one line from rank 0,
# nothing on stdout, and no hang (these runs take a second; a hang ends at 60).

# run_mpmd "RANK 0 ARGS" "RANK 1 ARGS"
run_mpmd() {
  local first=() second=()
  read -ra first <<<"$1"
  read -ra second <<<"$2"
  timeout 60 "$mpiexec" -q --oversubscribe "$numproc_flag" 1 "$binary" "${first[@]}" : \
    "$numproc_flag" 1 "$binary" "${second[@]}" >"$out" 2>"$err"
  status=$?
}
# mpmd_refused_ok "RANK 0 ARGS" "RANK 1 ARGS" MESSAGE
mpmd_refused_ok() {
  run_mpmd "$1" "$2"
  if [ "$status" -eq 2 ] && is_empty "$out" && one_line "$err" && [ "$(cat "$err")" = "$3" ]; then
    pass
  else
    fail "'$1' : '$2': status $status (expected 2, 124 is a hang), stdout $(wc -c <"$out")" \
      "bytes, stderr: $(head -c 300 "$err" | tr '\n' '|'), expected '$3'"
  fi
}

# The same command line twice: one job that counts, so the refusals below
# are the program's, not the launcher's.
run_mpmd "-n 12 --format json" "-n 12 --format json"
count_ok "-n 12 : -n 12 (two app contexts)" 12
mpmd_refused_ok "-n 12" "-n abc" \
  "nqueens-mpi: ranks were started with different arguments; rank 1: board size 'abc' is not a whole number"
mpmd_refused_ok "-n 12" "-n 12 --list" "nqueens-mpi: ranks were started with different arguments"
mpmd_refused_ok "-n 12 --list" "-n 12" "nqueens-mpi: ranks were started with different arguments"
mpmd_refused_ok "-n 12" "-n 13" "nqueens-mpi: ranks were started with different arguments"
mpmd_refused_ok "-n 8 --first" "-n 8 --first --format json" \
  "nqueens-mpi: ranks were started with different arguments"
mpmd_refused_ok "-n abc" "-n 12" "nqueens-mpi: board size 'abc' is not a whole number (see --help)"
# Files named on one rank and not another, or other files: the rank with
# a journal waited for the others forever; none of them is created.
mpmd_refused_ok "-n 4" "-n 4 --checkpoint $work/mpmd.journal" \
  "nqueens-mpi: ranks were started with different arguments"
mpmd_refused_ok "-n 8 --checkpoint $work/mpmd.journal" "-n 8" \
  "nqueens-mpi: ranks were started with different arguments"
mpmd_refused_ok "-n 8 --checkpoint $work/mpmd.journal" "-n 8 --checkpoint $work/other.journal" \
  "nqueens-mpi: ranks were started with different arguments"
mpmd_refused_ok "-n 4 --json $work/mpmd.json" "-n 4" \
  "nqueens-mpi: ranks were started with different arguments"
check "ranks with different files created none" \
  bash -c "[ ! -e '$work/mpmd.journal' ] && [ ! -e '$work/other.journal' ] && [ ! -e '$work/mpmd.json' ]"

# ---- a reader that stops early ---------------------------------------------
# Like any filter, the listing ends quietly when its reader goes: killed by
# SIGPIPE (status 141) or exiting 0, nothing on stderr.  The binary runs
# with SIGPIPE's default action even where the test's caller ignores it.

env --default-signal=PIPE "$binary" -n 12 --list 2>"$err" | head -n 1 >"$out"
status=${PIPESTATUS[0]}
ended_quietly() { [ "$1" -eq 141 ] || [ "$1" -eq 0 ]; }
check "--list | head -n 1: status $status, not 141 or 0" ended_quietly "$status"
check "--list | head -n 1 wrote to stderr: $(head -c 200 "$err")" is_empty "$err"
printf 'Q...........\n' >"$work/expected"
check "--list | head -n 1 is not the first row of the first board" cmp -s "$out" "$work/expected"

# ---- more output checks ------------------------------------------------------

run_ranks 1 -n 8 --list --format json
cp "$out" "$work/json1"
run_ranks 3 -n 8 --list --format json
check "-n 8 --list --format json differs between 1 and 3 ranks" cmp -s "$out" "$work/json1"
check "-n 8 --list --format json is not one line" one_line "$out"
# The same boards as the text list, one JSON array of rows each.
sed -e 's/^\[\["//' -e 's/"\]\]$//' -e 's/"\],\["/\n\n/g' -e 's/","/\n/g' "$out" >"$work/json_as_text"
check "-n 8 --list --format json does not hold the boards of the text list" \
  cmp -s "$work/json_as_text" "$work/list1"

for n in 33 64; do
  run -n "$n" --first --format json
  check "--first -n $n --format json: status $status" [ "$status" -eq 0 ]
  check "--first -n $n --format json is not one line" one_line "$out"
  check "--first -n $n --format json: not one line of n $n, kind constructed: $(head -c 100 "$out")" \
    line_matches "$out" 1 "\\{\"n\":$n,\"board\":\\[[^]]*\\],\"columns\":\\[[0-9,]*\\],\"kind\":\"constructed\",\"seconds\":[0-9.]+,\"version\":\"[^\"]+\"\\}"
  check "--first -n $n --format json: the columns are not a solution of n = $n" \
    columns_are_solution "$n" "$(sed 's/.*"columns":\[\([^]]*\)\].*/\1/' "$out" | tr ',' ' ')"
done

run -n 0 --list
printf '(the empty board)\n' >"$work/expected"
check "-n 0 --list is not '(the empty board)'" cmp -s "$out" "$work/expected"

# No board: stdout stays empty (so --list | wc -l counts 0 lines), the
# reason goes to stderr, and the status is 0.  JSON's empty array says it.
for n in 2 3; do
  run -n "$n" --list
  check "-n $n --list: status $status" [ "$status" -eq 0 ]
  check "-n $n --list wrote $(wc -c <"$out") bytes to stdout" is_empty "$out"
  echo "nqueens-mpi: no solution exists for n = $n" >"$work/expected"
  check "-n $n --list: stderr is not '$(cat "$work/expected")'" cmp -s "$err" "$work/expected"
  run -n "$n" --list --format json
  check "-n $n --list --format json: status $status" [ "$status" -eq 0 ]
  printf '[]\n' >"$work/expected"
  check "-n $n --list --format json is not []" cmp -s "$out" "$work/expected"
  check "-n $n --list --format json wrote to stderr" is_empty "$err"
done

# ---- GPU ranks ----------------------------------------------------------------
# --gpu counts only; where this process sees a CUDA GPU (--version lists it)
# a lone process counts on it, and elsewhere --gpu is a usage error.

run -n 12 --gpu --list
usage_error_ok "--gpu with --list" "-n 12 --gpu --list"
check "-n 12 --gpu --list: stderr is not the --gpu refusal" \
  [ "$(cat "$err")" = "nqueens-mpi: --gpu only applies to counting (see --help)" ]
run --version
if grep -q 'CUDA GPUs: [1-9]' "$out"; then
  run -n 14 --gpu --format json
  count_ok "1 rank, --gpu" 14
  check "-n 14 --gpu: no \"gpu_ranks\":1 in $(head -c 300 "$out")" grep -q '"gpu_ranks":1,' "$out"
else
  run -n 12 --gpu
  usage_error_ok "--gpu without a GPU" "-n 12 --gpu"
  check "-n 12 --gpu: stderr is not the no-GPU refusal: $(head -c 200 "$err")" \
    [ "$(cat "$err")" = "nqueens-mpi: --gpu: no rank found a usable CUDA GPU (rank 0 drives one only when alone; see --version)" ]
  run_ranks 3 -n 12 --gpu
  usage_error_ok "--gpu without a GPU, 3 ranks" "-n 12 --gpu"
  # Refused before the journal: none made, and one there not marked with
  # a run.
  run -n 12 --gpu --checkpoint "$work/gpu.journal"
  check "-n 12 --gpu --checkpoint without a GPU: status $status (expected 2), journal made" \
    bash -c "[ $status -eq 2 ] && [ ! -e '$work/gpu.journal' ]"
  "$binary" -n 12 --slice 1/2 --checkpoint "$work/gpu.journal" -q >/dev/null 2>&1
  cp "$work/gpu.journal" "$work/gpu.journal.before"
  run_ranks 3 -n 12 --slice 1/2 --gpu --checkpoint "$work/gpu.journal"
  check "--gpu without a GPU, 3 ranks, on a journal: status $status (expected 2), journal changed" \
    bash -c "[ $status -eq 2 ] && cmp -s '$work/gpu.journal' '$work/gpu.journal.before'"
fi

# ---- progress on stderr ------------------------------------------------------
# Every --progress interval rank 0 writes one line on stderr (not a
# terminal here); stdout stays the result alone.  The count is long enough
# (seconds, from its JSON) for lines to be due; -q silences them.
progress_line='nqueens-mpi: [0-9]+/6112 units \([0-9.]+%\), [0-9]+ solutions so far, [0-9.e+]+ units/s, [0-9.]+ (s|min|h|d) elapsed, ETA ([0-9.]+ (s|min|h|d)|unknown)'
run -n 17 --method backtrack --progress 1 --format json
counted_q17() { [ "$status" -eq 0 ] && [ "$(json_solutions)" = "${known_all[17]}" ]; }
check "--progress 1: status $status, solutions '$(json_solutions)'" counted_q17
seconds=$(sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' "$out")
lines=$(wc -l <"$err")
check "--progress 1: stderr holds lines that are not progress: $(head -c 300 "$err")" \
  [ "$(grep -cvxE -e "$progress_line" "$err")" -eq 0 ]
if awk -v s="$seconds" 'BEGIN { exit !(s >= 2) }'; then
  check "--progress 1: no progress line in a $seconds s count" [ "$lines" -ge 1 ]
fi
run_ranks 2 -n 17 --method backtrack --progress 1 -q
check "-q: stderr not empty: $(head -c 200 "$err")" is_empty "$err"
check "-q: status $status" [ "$status" -eq 0 ]

finish
