#!/bin/sh
# lab submit on a one-node Slurm of the test's own (tests/lib-slurm.sh,
# its slurm.conf from lab init): a quick batch of the fake game as a job,
# and a matrix of two batches as two jobs; each job runs its batch on the
# node into results/lab/jobs/JOBID/ and stores it in the database given to
# submit; lab status says where each is in the harness's words, lab results
# prints the report of each job's batch from the database.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-slurm.sh"
lab_test_setup
OPTS="--no-quieting --display :99"

# 1. one game's batch: a job, waited for, its runs in the database
"$HB" lab submit "$T/fake.ini" base 2 --db "$DB" $OPTS >"$T/out" 2>"$T/err" || fail "submit: $(cat "$T/err")"
J=$(submitted "$T/out") || exit 1
grep -q "^job $J: $T/fake.ini \"base\" x2, its batch in $T/results/lab/jobs/$J\$" "$T/out" || fail "submit said: $(cat "$T/out")"
grep -q "^1 job(s) submitted" "$T/out" || fail "no count: $(cat "$T/out")"
R=$T/results/lab/jobs/$J.txt
expect_eq "record format" 1 "$(value format "$R")"
expect_eq "record job" "$J" "$(value job_id "$R")"
expect_eq "record db" "$DB" "$(value db "$R")"
expect_eq "record variants" "base" "$(value variants "$R")"
wait_job "$J" RUNNING COMPLETED
"$HB" lab status "$J" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
grep -q "^job $J $T/fake.ini \"base\" x2 on node1: \(running\|finished\)" "$T/st" || fail "status while running: $(cat "$T/st")"
wait_job "$J" COMPLETED FAILED
expect_eq "job state" COMPLETED "$(job_state "$J")"
"$HB" lab status >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
expect_eq "status of the finished job" "job $J $T/fake.ini \"base\" x2 on node1: finished, 2 of 2 run(s) done" "$(cat "$T/st")"
B=$(ls -d "$T/results/lab/jobs/$J"/*/)
B=$(basename "$B")
expect_eq "batch status" complete "$(value status "$T/results/lab/jobs/$J/$B/batch.txt")"
expect_eq "batch's job" "$J" "$(value slurm_job_id "$T/results/lab/jobs/$J/$B/batch.txt")"
expect_eq "runs in the database" 2 "$(sqlite3 "$DB" "select count(*) from runs where batch_uuid = '$B'")"
"$HB" lab results "$J" --db "$DB" >"$T/res" 2>&1 || fail "results: $(cat "$T/res")"
grep -q "^# job $J: 2 run(s) of batch $B in $DB" "$T/res" || fail "results: $(cat "$T/res")"
grep -q "base" "$T/res" || fail "results without the variants: $(cat "$T/res")"

# 2. a matrix of two batches (recipe paths relative to the matrix file):
# two jobs, one after the other on the one node
fake_recipe fake2 "--fps 60" "warmup = 0.5" "window = 1" "stop_grace = 1"
cat >"$T/matrix.ini" <<MATRIX
[matrix]
rounds = 1

[game ./fake.ini]
variants = base

[game ./fake2.ini]
variants = base
rounds = 2
MATRIX
"$HB" lab submit "$T/matrix.ini" --db "$DB" $OPTS >"$T/out" 2>"$T/err" || fail "matrix submit: $(cat "$T/err")"
grep -q "^2 job(s) submitted" "$T/out" || fail "matrix: $(cat "$T/out")"
M1=$(sed -n 's/^job \([0-9]*\): .*fake.ini.*/\1/p' "$T/out")
M2=$(sed -n 's/^job \([0-9]*\): .*fake2.ini.*/\1/p' "$T/out")
grep -q "^job $M1: $T/./fake.ini \"base\" x1, " "$T/out" && grep -q "^job $M2: $T/./fake2.ini \"base\" x2, " "$T/out" ||
	fail "matrix jobs: $(cat "$T/out")"
wait_job "$M1" COMPLETED
wait_job "$M2" COMPLETED
"$HB" lab status >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
expect_eq "status of three jobs" "job $J $T/fake.ini \"base\" x2 on node1: finished, 2 of 2 run(s) done
job $M1 $T/./fake.ini \"base\" x1 on node1: finished, 1 of 1 run(s) done
job $M2 $T/./fake2.ini \"base\" x2 on node1: finished, 2 of 2 run(s) done" "$(cat "$T/st")"
expect_eq "database runs of the three jobs" "fake|3
fake2|2" "$(sqlite3 "$DB" "select game, count(*) from runs group by game order by game")"
"$HB" lab results --db "$DB" >"$T/res" 2>&1 || fail "results: $(cat "$T/res")"
expect_eq "results of all: one report a job" "# job $J: 2 run(s)
# job $M1: 1 run(s)
# job $M2: 2 run(s)" "$(grep '^# job' "$T/res" | sed 's/ of batch .*//')"
"$HB" lab results "$M2" --db "$DB" >"$T/res" 2>&1 || fail "results: $(cat "$T/res")"
grep -q "^# job $M2: 2 run(s) of batch [^ ]* in $DB" "$T/res" || fail "results of $M2: $(cat "$T/res")"
exit 0
