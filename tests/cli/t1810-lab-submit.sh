#!/bin/sh
# lab submit on a one-node Slurm of the test's own (tests/lib-slurm.sh,
# its slurm.conf from lab init): a quick batch of the fake game as a job,
# and a matrix of two batches as two jobs; each job runs its batch on the
# node into results/lab/jobs/JOBID/ and stores it in the database given to
# submit; lab status says where each is in the harness's words, lab results
# prints the report of each job's batch from the database.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-slurm.sh"
need_slurm
need_game_user
fake_setup
slurm_start
export HITCHBENCH_RESULTS=$T/results
fake_recipe fake "--fps 100" "warmup = 0.5" "window = 1" "stop_grace = 1"
DB=$T/lab.sqlite
OPTS="--no-quieting --display :99"

# 1. one game's batch: a job, waited for, its runs in the database
"$HB" lab submit "$T/fake.ini" base 2 --db "$DB" $OPTS >"$T/out" 2>"$T/err" || fail "submit: $(cat "$T/err")"
J=$(sed -n 's/^job \([0-9]*\): .*/\1/p' "$T/out")
[ -n "$J" ] || fail "no job id: $(cat "$T/out")"
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
grep -q "^# 2 run(s) of 1 batch(es) in $DB" "$T/res" || fail "results: $(cat "$T/res")"
grep -q "base" "$T/res" || fail "results without the variants: $(cat "$T/res")"
cat "$T/res" >&2

exit 0
