#!/usr/bin/env bash
# End-to-end: the join (--method join, auto's choice from n = 14) through
# the same run engine as the backtracker: a 2-rank count of Q(18) and
# U(18) killed (SIGKILL to mpiexec and its ranks) twice, then rerun to the
# exact Q(18) and U(18); stopped by a signal (exit 3) and resumed; slices of
# Q(16) and U(16) merged to the exact totals; --verify passes on a join
# journal and catches a rank made to count wrong; --json names the method;
# --status reads a join journal; journals of the other method, and options
# only the backtracker has, are refused (exit 2, nothing changed), but auto
# resumes a journal by the method that wrote it; an odd board from n = 23
# counts under unit scheme 4 and refuses a journal of scheme 3; the join's
# memory follows Slurm's
# allocation unless --memory says otherwise, and a thread's parts far
# under the fastest are noted; auto takes the join with a journal.
#   e2e_join.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

journal=$work/big.journal
# Q(18) here; Q(17) under the sanitizers (e2e_lib.sh, sized).
big=$(sized 18)
records_at_least() { [ "$(lines_matching '^[0-9]' "$journal")" -ge "$1" ]; }

# ---- killed twice, then the exact count ---------------------------------------
# (With --unique: the turn unit, id 0, is journaled and resumed as a set is.)
rm -f "$journal"
for kill_number in 1 2; do
  before=$(lines_matching '^[0-9]' "$journal")
  "$mpiexec" "$numproc_flag" 2 -q --oversubscribe "$binary" -n "$big" --method join -t 1 -q \
    --unique --checkpoint "$journal" >"$out" 2>"$err" &
  pid=$!
  within 120 records_at_least $((before + 3)) || true
  kill -KILL "$pid" 2>/dev/null
  pkill -KILL -f -- "--checkpoint $journal" 2>/dev/null
  wait "$pid" 2>/dev/null
done
kept=$(grep -c '^[0-9]' "$journal")
check "the join killed twice: its journal kept records ($kept) under a join header" \
  bash -c "[ $kept -ge 6 ] && head -n 1 '$journal' | grep -q ' method=join'"
retries=0
while :; do
  run_ranks 2 -n "$big" --method join -t 1 -q --unique --checkpoint "$journal" --format json
  [ "$status" -ne 4 ] || [ "$retries" -ge 20 ] && break
  retries=$((retries + 1))
  sleep 0.2
done
count_ok "the join killed twice, rerun" "$big"
check "the join killed twice, rerun: U($big) $(json_unique), it resumed, by the join: $(head -c 300 "$out")" \
  bash -c "[ '$(json_unique)' = ${known_unique[$big]} ] && grep -q '\"method\":\"join\"' '$out' && grep -q '\"resumed_units\":[1-9]' '$out'"

# ---- stopped by a signal, resumed ---------------------------------------------
rm -f "$journal"
"$mpiexec" "$numproc_flag" 2 -q --oversubscribe "$binary" -n "$big" --method join -t 1 -q \
  --checkpoint "$journal" >"$out" 2>"$err" &
pid=$!
within 120 records_at_least 3 || true
kill -USR1 "$pid"
wait "$pid"
status=$?
check "the join, SIGUSR1 to mpiexec: status 3, its units in the journal: $(head -c 200 "$err")" \
  bash -c "[ $status -eq 3 ] && grep -q 'stopped cleanly, resumable with the same command: [0-9]* units done are in' '$err'"
run -n "$big" --method join -q --checkpoint "$journal" --format json
count_ok "the join stopped, resumed alone" "$big"

# ---- slices, merged -----------------------------------------------------------
total=0
for i in 1 2 3; do
  run_ranks 2 -n 16 --method join --unique --slice $i/3 --checkpoint "$work/s16-$i.journal" \
    -t 1 -q --format json
  got=$(json_solutions)
  check "join slice $i/3 of Q(16): status 0, a share" bash -c "[ $status -eq 0 ] && [ -n '$got' ]"
  total=$((total + ${got:-0}))
done
check "the join's slices add up to Q(16): $total" [ "$total" = "${known_all[16]}" ]
run --merge "$work/s16-1.journal" "$work/s16-2.journal" "$work/s16-3.journal"
check "the join's slices merged: Q(16) and U(16): $(head -c 300 "$out" | tr '\n' '|')" \
  bash -c "grep -qx 'Q(16) = ${known_all[16]} solutions on the 16x16 board' '$out' && grep -qx 'U(16) = ${known_unique[16]} up to rotation and reflection' '$out'"

# ---- verification, --json, --status ------------------------------------------
run_ranks 3 -n 15 --method join --checkpoint "$work/v15.journal" --verify 1 -t 1 -q \
  --json "$work/v15.json" --format json
check "the join, --verify 1 on 3 ranks: status 0, every batch checked and agreeing" \
  bash -c "[ $status -eq 0 ] && grep -q '\"verified_batches\":[1-9]' '$out' && ! grep -q ' differ ' '$work/v15.journal'"
check "the join, --json: the record names the method and its scheme: $(head -c 300 "$work/v15.json")" \
  bash -c "grep -q '\"method\":\"join\",\"memory_per_rank\":4294967296,\"unit_scheme\":3,\"depth\":7,' '$work/v15.json'"
run --status "$work/v15.journal" --format json
check "--status of a join journal: complete, trusted" \
  bash -c "[ $status -eq 0 ] && grep -q '\"complete\":true' '$out' && grep -q '\"trusted\":true' '$out'"
run_counting_wrong -n 15 --method join --checkpoint "$work/w15.journal" -t 1 -q
run_ranks 2 -n 15 --method join --checkpoint "$work/w15.journal" --verify 1 -t 1 -q
check "the join counted wrong, verified on 2 ranks: --verify fails the run" \
  bash -c "[ $status -eq 1 ] && grep -q 'differed from the journal' '$err' && grep -q ' differ ' '$work/w15.journal'"
# A worker counting wrong in the run itself is caught by whichever comes
# first: a copy of its last batches on rank 0's threads (a conflict) or
# --verify.
run_ranks_counting_wrong 2 1 -n 15 --method join --checkpoint "$work/w15-worker.journal" \
  --verify 1 -t 1 -q
check "the join, a worker counting wrong: caught, status $status: $(head -c 200 "$err")" \
  bash -c "[ $status -eq 1 ] && grep -qE 'differed from the journal|ranks [01] and [01] counted the same units differently' '$err' && grep -q ' differ ' '$work/w15-worker.journal'"

# The join's nodes follow the memory a unit was solved in (a bucket's parts
# each walk the bottom): verified with another thread count and memory, and
# merged with a run of other memory, the counts agree and the nodes are not
# held against them.
run -n 12 --method join -t 1 --memory 1M --checkpoint "$work/m12.journal" -q
run -n 12 --method join -t 40 --memory 1M --checkpoint "$work/m12.journal" --verify 1 -q
check "the join verified in parts of other sizes: status $status (expected 0), no differ line" \
  bash -c "[ $status -eq 0 ] && ! grep -q ' differ ' '$work/m12.journal'"
run -n 12 --method join -t 40 --memory 1M --checkpoint "$work/m12-small.journal" -q
run --merge "$work/m12.journal" "$work/m12-small.journal"
check "the join, two runs in parts of other sizes merged: Q(12), no conflict" \
  bash -c "[ $status -eq 0 ] && grep -qx 'Q(12) = ${known_all[12]} solutions on the 12x12 board' '$out'"

# ---- refusals -----------------------------------------------------------------
run -n 15 --method backtrack --checkpoint "$work/b15.journal" -q
cp "$work/b15.journal" "$work/b15.before"
run -n 15 --method join --checkpoint "$work/b15.journal"
usage_error_ok "a backtracker's journal for the join" "-n 15 --method join --checkpoint"
check "a backtracker's journal for the join: says which, untouched" \
  bash -c "grep -q 'journal is for --method backtrack, this run is --method join' '$err' && cmp -s '$work/b15.journal' '$work/b15.before'"
run -n 15 --checkpoint "$work/b15.journal" --format json
check "auto with a backtracker's journal: resumed by the backtracker, with a note: $(head -c 200 "$err")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"method\":\"backtrack\"' '$out' && grep -q '\"from_journal\":true' '$out' && grep -q 'note: --checkpoint .* was written by --method backtrack: resuming with it' '$err'"
run -n 14 --checkpoint "$work/b15.journal"
usage_error_ok "auto with a backtracker's journal of another board" "-n 14 --checkpoint (n = 15)"
check "auto with a backtracker's journal of another board: the board named, no note of a resume" \
  grep -q 'journal is for n = 15, this run is n = 14' "$err"
cp "$work/v15.journal" "$work/v15.before"
run -n 15 --method backtrack --checkpoint "$work/v15.journal"
usage_error_ok "a join journal for the backtracker" "-n 15 --method backtrack --checkpoint"
check "a join journal for the backtracker: untouched" cmp -s "$work/v15.journal" "$work/v15.before"
for option in "--walk scalar" --gpu; do
  # shellcheck disable=SC2086
  run -n 15 --method join $option
  usage_error_ok "--method join $option" "-n 15 --method join $option"
done

# ---- the join's memory: Slurm's share, and the note on small parts ------------
SLURM_MEM_PER_CPU=600 SLURM_CPUS_PER_TASK=2 run -n 14 -t 1 --format json
check "under Slurm, 7/8 of SLURM_MEM_PER_CPU x SLURM_CPUS_PER_TASK a rank: $(head -c 300 "$out")" \
  bash -c "[ $status -eq 0 ] && [ ! -s '$err' ] && grep -q '\"memory_per_rank\":1101004800,' '$out'"
SLURM_MEM_PER_NODE=1000 run_ranks 2 -n 14 -t 1 --format json
check "under Slurm, 7/8 of SLURM_MEM_PER_NODE over the node's 2 ranks: $(head -c 300 "$out")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"memory_per_rank\":458752000,' '$out'"
SLURM_MEM_PER_CPU=18446744073709551615 SLURM_CPUS_PER_TASK=64 run -n 14 -t 1 --format json
check "under Slurm, a share past 1024T: 7/8 of 1024T, no wrap: $(head -c 300 "$out")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"memory_per_rank\":985162418487296,' '$out'"
SLURM_MEM_PER_CPU=lots run -n 14 -t 1 --format json
check "under Slurm, a malformed SLURM_MEM_PER_CPU: the default 4 GiB: $(head -c 300 "$out")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"memory_per_rank\":4294967296,' '$out'"
SLURM_MEM_PER_CPU=1 run -n 14 -t 1 --memory 100M --format json
check "--memory before Slurm's: $(head -c 300 "$out")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"memory_per_rank\":104857600,' '$out'"
# --memory past the node's memory bounds nothing: said, and counted all the
# same; a bound the node holds says nothing.
run_ranks 2 -n 14 -t 1 --memory 1000T -q
check "--memory past the node's memory: a note naming the node's ranks, Q(14): $(head -c 300 "$err")" \
  bash -c "[ $status -eq 0 ] && grep -q '^Q(14) = ${known_all[14]} ' '$out' && grep -q '^nqueens-mpi: note: --memory 1099511627776000 bytes a rank, times this node.s 2 ranks, is more than its [0-9]* bytes of memory' '$err'"
run -n 14 -t 1 --memory 64M -q
check "--memory the node holds: no note" bash -c "[ $status -eq 0 ] && [ ! -s '$err' ]"
SLURM_MEM_PER_CPU=1 run -n 16 -t 1
usage_error_ok "a Slurm task's memory too small for the join" "SLURM_MEM_PER_CPU=1 -n 16"
check "a Slurm task's memory too small: the line says whose" grep -q "the Slurm task's memory" "$err"
SLURM_MEM_PER_CPU=1 run -n 12 --method backtrack -q
check "a Slurm task's memory too small: no matter to the backtracker" \
  bash -c "[ $status -eq 0 ] && [ ! -s '$err' ]"
# 16 threads on 4 GiB at n = 28: a fifth of the fastest part a thread.  The
# run is stopped (SIGINT) once the note is out; exit 3 says it stopped clean.
note_pattern='^nqueens-mpi: note: at n = 28 a thread.s part holds at most [0-9]+ tops .* parts of 8388608 walk fastest: --memory [0-9]+G'
timeout "$limit" "$binary" -n 28 -t 16 -q >"$out" 2>"$err" &
pid=$!
within 120 grep -qE "$note_pattern" "$err" || true
kill -INT "$pid" 2>/dev/null
wait "$pid"
status=$?
check "n = 28 on 16 threads in 4 GiB: the note, then a clean stop: $(head -c 400 "$err")" \
  bash -c "[ $status -eq 3 ] && grep -qE '$note_pattern' '$err' && [ ! -s '$out' ]"

# ---- unit scheme 4: odd boards from n = 23 -----------------------------------
# One set of n = 23 (a slice of one unit): its journal and record name
# scheme 4, it resumes, and the same journal under scheme 3, whose ids
# name other sets, is refused (exit 2, the file untouched).
journal23=$work/s23.journal
run -n 23 --method join --slice 1/412080 -t 1 -q --checkpoint "$journal23" --json "$work/s23.json"
check "n = 23: its journal and record name unit scheme 4: $(head -c 120 "$journal23")" \
  bash -c "[ $status -eq 0 ] && head -n 1 '$journal23' | grep -q ' scheme=4 ' && grep -q '\"unit_scheme\":4,' '$work/s23.json'"
run -n 23 --method join --slice 1/412080 -t 1 -q --checkpoint "$journal23" --format json
check "n = 23 under scheme 4 resumes: $(head -c 200 "$out")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"resumed_units\":1,' '$out'"
sed -i '1s/ scheme=4 / scheme=3 /' "$journal23"
crc_line "$journal23" 1
before=$(sha256sum <"$journal23")
run -n 23 --method join --slice 1/412080 -t 1 -q --checkpoint "$journal23"
usage_error_ok "n = 23, a journal of scheme 3" "-n 23 --checkpoint (scheme 3)"
check "n = 23, a journal of scheme 3: named, and untouched" \
  bash -c "grep -q 'journal uses unit scheme 3, this program scheme 4' '$err' && [ '$before' = '$(sha256sum <"$journal23")' ]"

# ---- auto takes the join with a journal and the rest --------------------------
# (It needs the complete Q(18) journal of above: the plain build's alone.)
if [ "$big" = 18 ]; then
  run -n 18 --checkpoint "$journal" --format json -q
  check "auto, n = 18 with a checkpoint: the join's journal answers, by the join" \
    bash -c "[ $status -eq 0 ] && grep -q '\"method\":\"join\"' '$out' && grep -q '\"from_journal\":true' '$out'"
fi
finish
