#!/usr/bin/env bash
# End-to-end: a record attempt in small.  Q(14) counted in three slices,
# one of them stopped and resumed, with verification, then merged: the
# exact count; a slice left out is named as missing and gives no total; a
# rank made to count wrong (NQ_TEST_WRONG_COUNT, which only the test
# build's binary reads) is caught by --verify and by --merge against a
# clean journal.  Bad input: status 2, no file made.
#   e2e_record.sh NQUEENS_MPI MPIEXEC [NUMPROC_FLAG]
# shellcheck source=tests/e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

n=14
# The backtracker's journals: auto takes the join at 14, whose record runs
# e2e_join.sh tests; these keep the backtracker's frames and batches.
bt=(--method backtrack)
j() { echo "$work/slice$1.journal"; }

# The three slices: their sums are Q(14), and none is Q(14) alone.
total=0
for i in 1 2 3; do
  run_ranks 2 -n $n --slice $i/3 --checkpoint "$(j $i)" --verify 0.5 --format json -t 1 -q "${bt[@]}"
  got=$(json_solutions)
  check "slice $i/3 runs" bash -c "[ $status -eq 0 ] && [ -n '$got' ]"
  check "slice $i/3 says it is a slice" grep -q "\"slice\":\"$i/3\"" "$out"
  check "slice $i/3 is verified" grep -q '"verified_batches":[1-9]' "$out"
  check "slice $i/3's checks agree" bash -c "grep -q '^check .* agree ' '$(j $i)' && ! grep -q ' differ ' '$(j $i)'"
  total=$((total + ${got:-0}))
done
check "the slices add up to Q($n)" [ "$total" = "${known_all[$n]}" ]
# Where the checks ran follows the check lines: a journal counted on one
# rank, half checked on two (each batch by the other rank), then all on one.
where=$work/where.journal
run -n 12 --checkpoint "$where" -t 1 -q "${bt[@]}"
run_ranks 2 -n 12 --checkpoint "$where" --verify 0.5 --format json -t 1 -q "${bt[@]}"
halves=$(sed -n 's/.*"verified_batches":\([0-9]*\),"verified_units":[0-9]*,"verified_by_other_ranks":\1.*/\1/p' "$out")
run -n 12 --checkpoint "$where" --verify 1 --json "$work/where.json" -t 1 -q "${bt[@]}"
check "checks on two ranks, then on one: the record counts the ${halves:-?} of the first as on other ranks" \
  bash -c "[ $status -eq 0 ] && [ -n '$halves' ] && grep -q '\"batches\":$(grep -c '^[0-9]' "$where"),[^}]*\"by_other_ranks\":$halves,' '$work/where.json' && grep -q ', [0-9]* on other ranks' '$out'"
run --status "$where"
checks=$(grep -c '^check ' "$where")
check "--status of a checked journal: each check held to its record ($checks checks)" \
  bash -c "[ $status -eq 0 ] && grep -q '^complete, and every check agrees ($checks of $checks held to their records. sums): rerun' '$out'"
# Every batch checked: a record changed under a valid CRC now contradicts
# its check line's "agree", and a rerun of --verify fails on it; so do a
# rerun without --verify and --status, which hold every check to its
# record.
forge_record "$where"
run -n 12 --checkpoint "$where" --verify 1 -t 1 -q "${bt[@]}"
check "a forged record under its agreeing check: --verify fails (status $status), naming the units" \
  bash -c "[ $status -eq 1 ] && grep -q 'solved again differed from the journal, the first units' '$err'"
run -n 12 --checkpoint "$where" -t 1 -q "${bt[@]}"
check "a forged record under its agreeing check: a rerun fails (status $status), nothing on stdout" \
  bash -c "[ $status -eq 1 ] && [ ! -s '$out' ] && grep -q '1 batch solved again differed from the journal, the first units 0\.\.[0-9]*; the total is not trusted' '$err'"
run --status "$where" --format json
check "a forged record under its agreeing check: --status in JSON, status $status" \
  bash -c "[ $status -eq 1 ] && grep -q '\"checks_differing\":0,\"checks_confirmed\":$((checks - 1)),\"checks_contradicted\":1,\"trusted\":false' '$out'"
run --status "$where"
check "a forged record under its agreeing check: --status says so" \
  grep -q '^1 check agreed, yet its record now sums differently (the first units 0\.\.[0-9]*): the total is not trusted' "$out"

run --status "$(j 2)" --format json
check "--status of a slice in JSON names its slice and method: $(head -c 300 "$out")" \
  grep -q '"method":"backtrack","slice":"2/3",' "$out"

run --merge "$(j 1)" "$(j 2)" "$(j 3)"
check "merge of the three: status 0" [ "$status" -eq 0 ]
check "merge of the three: Q($n)" grep -qx "Q($n) = ${known_all[$n]} solutions on the ${n}x$n board" "$out"
check "merge of the three: checks confirmed" grep -q "checks: \([1-9][0-9]*\) of \1 confirmed" "$out"

run --format json --merge "$(j 1)" "$(j 3)"
check "merge without slice 2: status 1" [ "$status" -eq 1 ]
check "merge without slice 2: no total" bash -c "! grep -q '\"solutions\"' '$out'"
check "merge without slice 2: names it" grep -q '"slices_missing":\[2\]' "$out"
check "merge without slice 2: says why" grep -q "units are missing" "$err"
check "merge without slice 2: names it to run again: $(cat "$err")" \
  grep -qx "nqueens-mpi: --merge: no total: [0-9]* units are missing; run again slice 2 of 3" "$err"

# Several slices to run again, as runs of consecutive slices, in the text
# and the error line (check_output tests the runs' cut at ten).
run --merge "$(j 1)"
check "merge of slice 1 alone, text: slices 2..3 to run again: $(cat "$out")" \
  grep -qx "slices to run again (of 3): 2\.\.3" "$out"
check "merge of slice 1 alone: slices 2..3 to run again: $(cat "$err")" \
  grep -qx "nqueens-mpi: --merge: no total: [0-9]* units are missing; run again 2 of the 3 slices: 2\.\.3" "$err"

# Two journals whose records overlap with no chain of records spanning
# them (units 0..59 against 30..99 of n = 10): held, yet no sum can be
# told; said so, no total.
"$binary" -n 10 --checkpoint "$work/ten.journal" -q >/dev/null 2>&1
for part in "a 0 60" "b 30 70"; do
  read -r name first count <<<"$part"
  { head -n 1 "$work/ten.journal"; echo "$first $count 1 0 1 0 1700000000000 x"; } >"$work/$name.journal"
  crc_line "$work/$name.journal" 2
done
run --merge "$work/a.journal" "$work/b.journal"
check "merge of overlaps no chain spans: status 1, the units held named: $(head -c 300 "$out")" \
  bash -c "[ $status -eq 1 ] && grep -q '0 of 100 units present (and 100 held that cannot be summed)' '$out' && grep -q 'cannot be compared' '$err'"

# A slice killed part way (SIGKILL to mpiexec and its ranks, as a node
# failure would), then resumed: the same merge.  The kill races the
# slice's end; a slice that ended first is resumed all the same.
rm -f "$(j 2)"
timeout "$limit" "$mpiexec" "$numproc_flag" 2 -q --oversubscribe "$binary" -n $n --slice 2/3 \
  --checkpoint "$(j 2)" -t 1 -q "${bt[@]}" >"$out" 2>"$err" &
pid=$!
journal_lines() { [ "$({ wc -l <"$(j 2)"; } 2>/dev/null || echo 0)" -ge 4 ] || ! kill -0 "$pid" 2>/dev/null; }
within 60 journal_lines || true
kill -KILL "$pid" 2>/dev/null
pkill -KILL -f "nqueens-mpi -n $n --slice 2/3 --checkpoint $(j 2)" 2>/dev/null
wait "$pid" 2>/dev/null
run -n $n --slice 2/3 --checkpoint "$(j 2)" -t 1 -q "${bt[@]}"
check "resumed slice: status 0" [ "$status" -eq 0 ]
check "a journaled slice says to merge the journals" \
  grep -q "^slice 2/3 of Q($n): .* (merge every slice's journal with --merge for Q($n))$" "$out"
run -n 8 --slice 1/2 -t 1 -q
check "a slice without a journal says to add the slices' counts: $(head -c 300 "$out")" \
  grep -q "^slice 1/2 of Q(8): .* (no journal kept: Q(8) is the sum of all 2 slices' counts;" "$out"
run --merge "$(j 1)" "$(j 2)" "$(j 3)"
check "merge after the resume: Q($n)" grep -qx "Q($n) = ${known_all[$n]} solutions on the ${n}x$n board" "$out"

# The installed program has no fault hook: the variable changes nothing.
NQ_TEST_WRONG_COUNT=1 run_ranks 2 -n 12 --checkpoint "$work/hookless.journal" --verify 1 -t 1 -q
check "the program ignores NQ_TEST_WRONG_COUNT: verified, Q(12)" \
  bash -c "[ $status -eq 0 ] && grep -qx 'Q(12) = ${known_all[12]} solutions on the 12x12 board' '$out'"
# A journal counted wrong, then verified on 2 ranks (each batch solved
# again on the rank that did not solve it): verification fails the run,
# and marks the journal.  (A wrong worker in a run of 2 ranks or more may
# be caught first by a backup copy at the run's end: e2e_join.sh.)
run_counting_wrong -n $n --checkpoint "$work/wrong.journal" -t 1 -q "${bt[@]}"
run_ranks 2 -n $n --checkpoint "$work/wrong.journal" --verify 1 -t 1 -q "${bt[@]}"
check "wrong count: --verify fails the run" [ "$status" -eq 1 ]
check "wrong count: --verify names the units" grep -q "solved again differed from the journal, the first units [0-9]*\.\.[0-9]*; the total is not trusted" "$err"
check "wrong count: the journal marks it" grep -q '^check .* differ ' "$work/wrong.journal"
check "wrong count: nothing on stdout" is_empty "$out"
run -n $n --checkpoint "$work/wrong.journal" -q "${bt[@]}"
check "wrong count: a rerun without --verify still refuses the total" \
  bash -c "[ $status -eq 1 ] && [ ! -s '$out' ] && grep -q 'the total is not trusted' '$err'"
run --merge "$(j 1)" "$(j 2)" "$(j 3)" "$work/wrong.journal"
check "wrong count: merge finds conflicts" bash -c "[ $status -eq 1 ] && grep -q '^conflict: units' '$out'"
run --status "$work/wrong.journal"
check "wrong count: --status says the total is not trusted, status 1" \
  bash -c "[ $status -eq 1 ] && grep -q 'found a difference (the first units [0-9]*\.\.[0-9]*): the total is not trusted' '$out' && ! grep -q '^complete' '$out'"
run --status "$work/wrong.journal" --format json
check "wrong count: --status in JSON counts the checks" \
  bash -c "[ $status -eq 1 ] && grep -q '\"checks\":[1-9][0-9]*,\"checks_differing\":[1-9][0-9]*,\"checks_confirmed\":[0-9]*,\"checks_contradicted\":0,\"trusted\":false' '$out'"
# A torn check line (a kill while --verify wrote it) is named as one: the
# batch is checked again, not counted again.
last_check=$(grep -n '^check ' "$work/wrong.journal" | tail -n 1 | cut -d: -f1)
head -n "$last_check" "$work/wrong.journal" | head -c -5 >"$work/torn.journal"
run -n $n --checkpoint "$work/torn.journal" -q "${bt[@]}"
check "a torn check line: named, the batch to be checked again" \
  grep -q 'torn last check line at line [0-9]* ([0-9]* bytes) dropped: that batch is checked again by --verify' "$err"

# A whole run's journal with one record forged (a wrong count under a
# valid CRC) against three clean slices: whatever the records' batches,
# the merge compares the run with the slices over the ranges where their
# records end together, and refuses the total.  One file under two names
# is refused too.
for i in 1 2 3; do
  run -n 15 --method backtrack -t 1 --slice $i/3 --checkpoint "$work/s15-$i.journal" -q
done
run -n 15 --method backtrack -t 2 --checkpoint "$work/w15.journal" -q
forge_record "$work/w15.journal"
run --merge "$work/w15.journal" "$work/s15-1.journal" "$work/s15-2.journal" "$work/s15-3.journal"
conflict_line=$(grep '^conflict: units [0-9]*\.\.[0-9]* sum differently in ' "$out")
check "merge of a forged run and clean slices: status 1, no total, a conflict naming both" \
  bash -c "[ $status -eq 1 ] && ! grep -q '^Q(15)' '$out' && grep -q 'w15.journal' <<<'$conflict_line' && grep -q 's15-' <<<'$conflict_line'"
run --merge "$work/s15-1.journal" "$work/s15-2.journal" "$work/s15-3.journal"
check "merge of the clean slices: Q(15)" grep -qx "Q(15) = ${known_all[15]} solutions on the 15x15 board" "$out"
run --merge "$work/s15-1.journal" "$work/s15-2.journal" "$work/s15-3.journal" --format json
check "merge of the clean slices in JSON: the total and its residues" \
  grep -q "\"complete\":true,\"solutions\":\"${known_all[15]}\",.*\"solutions_mod\":{" "$out"
run --merge "$work/s15-1.journal" --format json
check "merge of one slice in JSON: status 1, neither a sum nor its residues" \
  bash -c "[ $status -eq 1 ] && grep -q '\"complete\":false' '$out' && ! grep -q '\"solutions' '$out'"
run --merge "$work/s15-1.journal" "$work/./s15-1.journal"
check "merge of one journal under two names: status 2" \
  bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && grep -q 'are the same file' '$err'"
mkfifo "$work/fifo"
timeout 10 "$binary" --merge "$work/fifo" >"$out" 2>"$err"
status=$?
check "merge of a FIFO: refused at once" bash -c "[ $status -eq 2 ] && grep -q 'not a regular file' '$err'"
timeout 10 "$binary" --status "$work/fifo" >"$out" 2>"$err"
status=$?
check "--status of a FIFO: refused at once" bash -c "[ $status -eq 2 ] && grep -q 'not a regular file' '$err'"

# A record whose sum passes what its units can hold (8 x (2^64 - 1) each),
# under a valid CRC: a resume, --status and --merge refuse the journal
# rather than sum it.
"$binary" -n 12 --checkpoint "$work/big.journal" -q >/dev/null 2>&1
set_record_field "$work/big.journal" 1 2 "1$(printf '0%.0s' {1..40})" # 10^40
cp "$work/big.journal" "$work/big.journal.before"
for args in "-n 12 --checkpoint $work/big.journal" "--status $work/big.journal" "--merge $work/big.journal"; do
  # shellcheck disable=SC2086
  run $args
  check "a record past 64 bits a unit: $args refused (status $status, expected 2), journal unchanged" \
    bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && grep -q 'solutions sum is more than its' '$err' && cmp -s '$work/big.journal' '$work/big.journal.before'"
done

# A slice's record moved to a unit of another slice under a valid CRC: the
# journal is refused, not resumed into more units than the slice holds.
"$binary" -n 12 --slice 2/3 --checkpoint "$work/moved.journal" -q >/dev/null 2>&1
set_record_field "$work/moved.journal" 1 0 $(($(record_field "$work/moved.journal" 1 0) + 1))
for args in "-n 12 --slice 2/3 --checkpoint $work/moved.journal" "--status $work/moved.journal" "--merge $work/moved.journal"; do
  # shellcheck disable=SC2086
  run $args
  check "a record outside its slice: $args refused (status $status, expected 2)" \
    bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && grep -q 'not all of slice 2/3' '$err'"
done
# More slices than units (n = 1 has one): the empty slices are not asked for.
for i in 1 2 3; do "$binary" -n 1 --slice $i/3 --checkpoint "$work/one-$i.journal" -q >/dev/null 2>&1; done
run --merge "$work/one-1.journal"
check "merge of n = 1's one slice with units: Q(1), no slice to run again" \
  bash -c "[ $status -eq 0 ] && grep -qx 'Q(1) = 1 solution on the 1x1 board' '$out' && ! grep -q 'run again' '$out'"

# --json: the provenance record, on a count and on the merge; the hashes
# are those of the journals' bytes.
run -n 12 --checkpoint "$work/p.journal" --json "$work/count.json" -q
check "--json count: status 0" [ "$status" -eq 0 ]
check "--json count: the record" grep -q '^{"record":"count","n":12,"solutions":"14200",' "$work/count.json"
check "--json count: provenance fields" bash -c "grep -q '\"started\":\"20[0-9-]*T[0-9:.]*Z\".*\"hosts\":\[\".*\"git_commit\":\".*\"mpi_library\":\".*\"gmp_version\":\".*\"restarts\":0' '$work/count.json'"
check "--json count: the journal's SHA-256" grep -q "\"journal_sha256\":\"$(sha256sum "$work/p.journal" | cut -d' ' -f1)\"" "$work/count.json"
# A resume is a restart; printing the complete journal again is none, and
# leaves the journal as it was.
# The header, the run line and half the records, however many batches the
# run made: incomplete whatever the threads' timing.
lines=$(wc -l <"$work/p.journal")
head -n $((2 + (lines - 2) / 2)) "$work/p.journal" >"$work/p.part" && mv "$work/p.part" "$work/p.journal"
run -n 12 --checkpoint "$work/p.journal" --json "$work/count.json" -q
check "--json on a resume of $((2 + (lines - 2) / 2)) of $lines lines: a restart (status $status): $(head -c 300 "$err")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"restarts\":1' '$work/count.json'"
cp "$work/p.journal" "$work/p.before"
run -n 12 --checkpoint "$work/p.journal" --json "$work/count.json" -q
check "--json of the complete journal again: the count's one restart, the journal as it was (status $status): $(head -c 300 "$err")" \
  bash -c "[ $status -eq 0 ] && grep -q '\"restarts\":1' '$work/count.json' && cmp -s '$work/p.journal' '$work/p.before'"
run --json "$work/merge.json" --merge "$(j 1)" "$(j 2)" "$(j 3)"
check "--json merge: the record" grep -q "^{\"record\":\"merge\",\"n\":$n,\"complete\":true,\"solutions\":\"${known_all[$n]}\"" "$work/merge.json"
check "--json merge: each journal's SHA-256" grep -q "\"sha256\":\"$(sha256sum "$(j 3)" | cut -d' ' -f1)\"" "$work/merge.json"
# A merge with no total keeps a record that holds one (a merge's or a
# count's), and replaces one with none.
cp "$work/merge.json" "$work/merge.before"
run --json "$work/merge.json" --merge "$(j 1)" "$(j 3)"
check "--json merge with no total over one with a total: status 1, the record kept, said" \
  bash -c "[ $status -eq 1 ] && cmp -s '$work/merge.json' '$work/merge.before' && grep -q '^nqueens-mpi: --json $work/merge.json: kept as it was, since it holds Q($n) = ${known_all[$n]} and this merge has no total' '$err'"
run --json "$work/count.json" --merge "$(j 1)"
check "--json merge with no total over a count's record: kept" \
  bash -c "[ $status -eq 1 ] && grep -q '^{\"record\":\"count\",' '$work/count.json' && grep -q 'kept as it was' '$err'"
# A slice's count is not a total: it refuses a file that holds one, before
# counting, and a merge with no total may replace its record.
cp "$work/count.json" "$work/count.before"
run -n 12 --slice 1/2 --json "$work/count.json"
usage_error_ok "--json of a slice's count over a count's record" "-n 12 --slice 1/2 --json"
check "--json of a slice's count over a count's record: named, the record kept" \
  bash -c "grep -q 'holds Q(12) = 14200, which slice 1/2.s record would replace' '$err' && cmp -s '$work/count.json' '$work/count.before'"
run -n 12 --slice 1/2 --json "$work/slice.json" -q
run --json "$work/slice.json" --merge "$(j 1)"
check "--json merge with no total over a slice's record: replaced" \
  bash -c "[ $status -eq 1 ] && grep -q '^{\"record\":\"merge\",.*\"complete\":false' '$work/slice.json' && ! grep -q 'kept as it was' '$err'"
run --json "$work/partial.json" --merge "$(j 1)"
run --json "$work/partial.json" --merge "$(j 1)" "$(j 2)"
check "--json merge with no total over one with none: replaced" \
  bash -c "[ $status -eq 1 ] && grep -q '\"complete\":false,.*\"units_present\":[0-9]*,' '$work/partial.json' && grep -q '\"path\":\"$(j 2)\"' '$work/partial.json' && ! grep -q 'kept as it was' '$err'"
# A header whose n was changed under a valid checksum: its unit total is
# not that n's, and --status and --merge refuse it.
sed '1s/ n=12 / n=13 /' "$work/p.journal" >"$work/altered.journal"
crc_line "$work/altered.journal" 1
run --status "$work/altered.journal"
usage_error_ok "--status of a header with another n" "--status (n altered)"
check "--status of a header with another n: says so" grep -q 'n = 13 at depth 1 has 245: a damaged or altered header' "$err"
run --merge "$work/altered.journal"
check "--merge of a header with another n: status 2" bash -c "[ $status -eq 2 ] && grep -q 'altered header' '$err'"

# --json never destroys what is at its path: the journal (under any name),
# a FIFO, a device, a dangling link are refused before any work, files
# untouched; a link to a file is written through, the link kept; the
# record gets the replaced file's mode, or 0666 less the umask.
cp "$work/p.journal" "$work/p.journal.before"
ln -s p.journal "$work/p.link"
mkfifo "$work/record.fifo"
for target in "$work/p.journal" "$work/./p.journal" "$work/p.link" "$work/record.fifo" /dev/null; do
  run -n 12 --checkpoint "$work/p.journal" --json "$target" -q
  check "--json $target: status 2 before any work, journal unchanged" \
    bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && [ \$(wc -l <'$err') -eq 1 ] && cmp -s '$work/p.journal' '$work/p.journal.before' && [ -p '$work/record.fifo' ] && [ -c /dev/null ]"
done
run --json "$(j 2)" --merge "$(j 1)" "$(j 2)" "$(j 3)"
check "--json onto a merged journal: status 2" bash -c "[ $status -eq 2 ] && grep -q 'is the journal' '$err'"
# Any journal, not only the run's: another run's slice, and a journal made
# at the record's path while the count ran (its journal already open, the
# destination checked before it), whose record is kept beside it.
"$binary" -n 12 --slice 2/2 --checkpoint "$work/other.journal" -q >/dev/null 2>&1
cp "$work/other.journal" "$work/other.journal.before"
run -n 12 --slice 1/2 --checkpoint "$work/mine.journal" --json "$work/other.journal" -q
check "--json onto another run's journal: status 2 before any work, that journal unchanged" \
  bash -c "[ $status -eq 2 ] && [ ! -e '$work/mine.journal' ] && grep -q 'is a checkpoint journal' '$err' && cmp -s '$work/other.journal' '$work/other.journal.before'"
"$binary" -n 16 --method join -t 1 --checkpoint "$work/late.journal" --json "$work/late.json" -q \
  >"$out" 2>"$err" &
late=$!
for _ in $(seq 3000); do [ -s "$work/late.journal" ] && break; sleep 0.01; done
cp "$work/other.journal" "$work/late.json"
wait "$late"
status=$?
check "--json whose path became a journal during the count: status 1, the journal kept, the record beside it" \
  bash -c "[ $status -eq 1 ] && cmp -s '$work/late.json' '$work/other.journal' && grep -q 'is now a checkpoint journal' '$err' && grep -q '\"solutions\":\"${known_all[16]}\"' '$work'/late.json.??????"
# A directory whose permission bits let root write, whose file system
# does not: refused before the count, not after it.
if [ -d /sys/kernel ]; then
  run -n 8 --checkpoint "$work/sysfs.journal" --json /sys/kernel/nq-record.json -q
  check "--json where the file system refuses files: status 2 before any work" \
    bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && [ ! -e '$work/sysfs.journal' ] && grep -q 'cannot write in /sys/kernel' '$err'"
fi
ln -s nowhere "$work/dangling"
run -n 8 --json "$work/dangling"
check "--json to a dangling link: status 2, nothing made" bash -c "[ $status -eq 2 ] && [ ! -e '$work/nowhere' ]"
echo '{}' >"$work/kept.json"
chmod 640 "$work/kept.json"
ln -s kept.json "$work/kept.link"
run -n 8 --json "$work/kept.link" -q
check "--json through a link: the target written, the link and the mode kept" \
  bash -c "[ $status -eq 0 ] && [ -L '$work/kept.link' ] && grep -q '\"solutions\":\"92\"' '$work/kept.json' && [ \$(stat -c %a '$work/kept.json') = 640 ]"
(umask 027 && "$binary" -n 8 --json "$work/new.json" -q >/dev/null 2>&1)
check "--json: a new record's mode follows the umask" [ "$(stat -c %a "$work/new.json")" = 640 ]
# --json onto the run's own output would replace the file it prints to,
# the printed result lost with the old file; /dev/stdout on a pipe links
# to no path, yet is named as what it is.
timeout "$limit" "$binary" -n 8 --json "$work/printed.txt" >"$work/printed.txt" 2>"$err"
status=$?
check "--json FILE > FILE: status $status (expected 2), stderr: $(head -c 300 "$err")" \
  bash -c "[ $status -eq 2 ] && [ ! -s '$work/printed.txt' ] && grep -q \"is this run's standard output\" '$err'"
timeout "$limit" "$binary" -n 8 --json /dev/stdout 2>"$err" | cat >"$out"
status=${PIPESTATUS[0]}
usage_error_ok "--json /dev/stdout into a pipe" "-n 8 --json /dev/stdout | cat"
check "--json /dev/stdout into a pipe: not named: $(head -c 300 "$err")" \
  grep -q "^nqueens-mpi: --json /dev/stdout: is this run's standard output, which the record" "$err"
cp "$binary" "$work/program"
run -n 8 --json "$work/program"
usage_error_ok "--json onto an executable file" "-n 8 --json PROGRAM"
check "--json onto an executable file: it changed" cmp -s "$binary" "$work/program"
run -n 12 --json "$work/no/such/dir/x.json"
check "--json into a missing directory: status 2, nothing made" bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && [ ! -e '$work/no' ]"
# The temporary files beside a record or a journal keep within NAME_MAX
# whatever the name: 250 bytes, legal, are written; 260 refused first.
long_name=$work/$(printf 'r%.0s' {1..250})
run -n 8 --checkpoint "$long_name.j" --json "$long_name.json" -q
check "--json and --checkpoint with 250-byte names: written" \
  bash -c "[ $status -eq 0 ] && grep -q '\"solutions\":\"92\"' '$long_name.json' && [ -s '$long_name.j' ]"
run -n 8 --json "$work/$(printf 'r%.0s' {1..260}).json" -q
check "--json with a 260-byte name: status 2 before any work" \
  bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && grep -q 'File name too long' '$err'"
# A crashed creation's temporary file, where the new run has the same pid
# (pid 1 of a new pid namespace, as in a container): the journal is made.
echo stale >"$work/pid.journal.tmp.1"
if unshare -pf --mount-proc true 2>/dev/null; then
  unshare -pf --mount-proc "$binary" -n 10 --checkpoint "$work/pid.journal" -q >"$out" 2>"$err"
  status=$?
  check "a stale <journal>.tmp.1 and a run of pid 1: the journal made" \
    bash -c "[ $status -eq 0 ] && grep -q '^nqueens-journal ' '$work/pid.journal'"
else
  echo "note: a run of pid 1 beside a stale temporary file not checked: unshare -p is refused here"
fi
ln -s nowhere "$work/dangling.journal"
listing_before=$(ls -A "$work" | grep -vx 'out\|err')
run -n 8 --checkpoint "$work/dangling.journal"
check "--checkpoint to a dangling link: status 2, says so" \
  bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && grep -q 'a symbolic link to nothing' '$err'"
check "--checkpoint to a dangling link: nothing made" \
  [ "$listing_before" = "$(ls -A "$work" | grep -vx 'out\|err')" ]

# Bad input: status 2, one line, nothing made.
for args in "--slice 0/3" "--slice 4/3" "--slice 3" "--verify 0.5" "--verify 2 --checkpoint $work/x.journal"; do
  # shellcheck disable=SC2086
  run -n $n $args
  check "bad input ($args): status 2, one line, no file" \
    bash -c "[ $status -eq 2 ] && [ ! -s '$out' ] && [ \$(wc -l <'$err') -eq 1 ] && [ ! -e '$work/x.journal' ]"
done
echo "not a journal" >"$work/plain.txt"
run --merge "$(j 1)" "$work/plain.txt"
check "merge of a non-journal: status 2" bash -c "[ $status -eq 2 ] && [ ! -s '$out' ]"
run -n 12 --checkpoint "$work/other.journal" -q
run --merge "$(j 1)" "$work/other.journal"
check "merge of another count's journal: status 2" bash -c "[ $status -eq 2 ] && grep -q 'not the same count' '$err'"
run -n 12 --method join --checkpoint "$work/join12.journal" -q
run --merge "$work/other.journal" "$work/join12.journal"
check "merge of another method's journal: status 2, both methods named: $(head -c 300 "$err")" \
  bash -c "[ $status -eq 2 ] && grep -q 'not the same count as .*(--method join, n = 12, .* against --method backtrack, n = 12, ' '$err'"
finish
