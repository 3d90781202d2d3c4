#!/bin/sh
# Ctrl-C in the middle of a batch: the finished run stays intact, the
# interrupted one leaves nothing but an "aborted" line in runs.txt, the game
# and its staging are gone, hitchbench exits 130, and --resume finishes the
# batch without redoing the finished run.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe slow "--fps 60 --ignore-term" "warmup = 0" "window = 2" "stop_grace = 0.5"

"$HB" run --no-quieting --display :99 --out "$T/runs" --db "$T/db.sqlite" --rounds 3 "$T/slow.ini" \
	>"$T/out" 2>"$T/err" &
pid=$!
# wait for the first run to finish, then interrupt the second
for i in $(seq 1 100); do
	[ "$(run_dirs "$T/runs" | wc -l)" -ge 1 ] && break
	sleep 0.1
done
sleep 1
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit status after SIGINT" 130 "$rc"
grep -q "interrupted" "$T/err" || fail "no word about the interruption: $(cat "$T/err")"
n=$(run_dirs "$T/runs" | wc -l)
expect_eq "finished runs kept" 1 "$n"
batch=$(ls -d "$T"/runs/*/)
batch=${batch%/}
ls -A "$batch" | grep -q '^\.' && fail "the interrupted run left a temporary directory"
expect_eq "first run status" ok "$(value status "$(run_dirs "$T/runs")/bench.txt")"
[ "$(sqlite3 "$T/db.sqlite" "select count(*) from runs")" = 1 ] || fail "the finished run is not in the database"
grep -q '^2 aborted' "$batch/runs.txt" || fail "the interrupted run is not marked aborted: $(cat "$batch/runs.txt")"
expect_eq "batch status" interrupted "$(value status "$batch/batch.txt")"
[ "$(sqlite3 "$T/db.sqlite" "select status from batches")" = interrupted ] || fail "the batch is not in the database"
no_fakegame_left
[ -z "$(staging_of "$pid")" ] || fail "a staging directory was left: $(staging_of "$pid")"
grep -q -- "--resume" "$T/err" || fail "no word of how to resume: $(cat "$T/err")"

# --resume: the two runs left, not the finished one; then the batch is complete
first=$(run_dirs "$T/runs")
rc=0; "$HB" run --no-quieting --display :99 --db "$T/db.sqlite" --resume "$batch" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "resume exit status" 0 "$rc"
expect_eq "runs after the resume" 3 "$(run_dirs "$T/runs" | wc -l)"
run_dirs "$T/runs" | grep -qx "$first" || fail "the finished run was redone"
expect_eq "resumed batch status" complete "$(value status "$batch/batch.txt")"
grep -q "2 run(s) to go" "$T/err" || fail "resume planned the wrong runs: $(cat "$T/err")"
[ "$(sqlite3 "$T/db.sqlite" "select count(*) from runs where batch_uuid = '$(basename "$batch")'")" = 3 ] ||
	fail "the database does not hold the batch's three runs"
rc=0; "$HB" run --no-quieting --display :99 --no-db --resume "$batch" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "resume of a complete batch" 0 "$rc"
grep -q "0 run(s) to go" "$T/err" || fail "a complete batch ran again: $(cat "$T/err")"
rc=0; "$HB" run --no-quieting --resume "$batch" --rounds 2 >"$T/out" 2>"$T/err" || rc=$?
expect_eq "--resume with a plan change" 2 "$rc"

# a second Ctrl-C does not wait for the recipe's 30 s grace: the game that
# ignores SIGTERM is killed at once, and the batch still ends properly
fake_recipe stubborn "--fps 60 --ignore-term" "warmup = 0" "window = 60" "stop_grace = 30"
rm -rf "$T/runs"
hb_run_bg --no-quieting "$T/stubborn.ini"
sleep 0.5
t0=$(date +%s)
kill -INT "$pid"
sleep 0.5
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
t1=$(date +%s)
expect_eq "exit status after two SIGINTs" 130 "$rc"
[ $((t1 - t0)) -lt 10 ] || fail "the second Ctrl-C waited $((t1 - t0)) s"
no_fakegame_left
expect_eq "batch after two SIGINTs" interrupted "$(value status "$(ls -d "$T"/runs/*/)/batch.txt")"

# kill -9 of the runner: the game dies with it (its parent-death signal);
# the staging directory it left is swept by the next run
rm -rf "$T/runs"
hb_run_bg --no-quieting "$T/slow.ini"
sleep 0.5
kill -9 "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
no_fakegame_left
[ -n "$(staging_of "$pid")" ] || fail "expected the killed runner's staging directory to be left"
ls -A "$T"/runs/*/ | grep -q '^\..*\.tmp$' || fail "expected the killed run's temporary directory"
fake_recipe quick "--fps 60" "warmup = 0" "window = 0.5" "stop_grace = 0.5"
"$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/quick.ini" >"$T/out" 2>"$T/err" || fail "the next run failed"
grep -q "removed the staging directories of runners that were killed" "$T/err" || fail "no word of the sweep: $(cat "$T/err")"
[ -z "$(staging_of "$pid")" ] || fail "the next run did not sweep the dead runner's staging directory"
"$HB" report "$T/runs" >/dev/null || fail "report trips over the killed run's temporary directory"
exit 0
