#!/bin/sh
# wall: about 120 s (batches on a target, followed to their ends)
# timing: a stranger's login placed in a run's window on a machine that may be busy
# quick: no (batches on a target, each run followed to its end over ssh)
# Batches run on a target through the test's own OpenSSH server
# (start_sshd), the harness pushed into a prefix under $T (hitchbench
# push): run --target starts a fake-game batch detached and follows it over
# the connection that started it (its runs' events, its end), then pulls it
# (verified, imported; pulled again: the same runs); a second login during
# a run's window marks that run interfered (the sshd session's processes
# counted there, and in no other run than one its session lasted into), and
# none of the controller's logins falls in a window (sshd's accept stamps
# against each run's window on the wall clock); a
# damaged copy fails its check and is neither imported nor deleted there;
# the SSH session that started a batch killed mid-batch loses nothing, and
# pull --delete removes it there once its copy checks; target
# status and pull refuse while a batch is expected to be measuring; a batch whose
# runner was killed on the target (SIGTERM) is finished by run --target
# --resume, whose controller, stopped by Ctrl-C while it waits, leaves it
# running to be pulled later; and a prefix without a push is refused.
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v rsync >/dev/null || skip "no rsync"
fake_setup
S=$T/sshd
start_sshd "$S"
trap 'stop_sshd "$S"; rm -rf "$T"' EXIT
export HITCHBENCH_TARGETS=$T/config/targets.ini HITCHBENCH_RESULTS=$T/host
P=$T/prefix
URL=ssh://root@127.0.0.1:$SSHD_PORT
"$HB" target add hb "$URL" --prefix "$P" --ssh-config "$SSH_CONFIG" >/dev/null || fail "target add"
"$HB" target add bare "$URL" --prefix "$T/bare" --ssh-config "$SSH_CONFIG" >/dev/null || fail "target add bare"
"$HB" push hb >"$T/push.out" 2>&1 || fail "push: $(cat "$T/push.out")"
# a 4 s window: the stranger's login, at 0.7 s into run 2's, lands in it
# however slow ssh is to connect on a busy machine
fake_recipe fake "--fps 100" "warmup = 0.5" "window = 4" "stop_grace = 1"
RUNOPTS="--no-quieting --display :99"

# wait_for WHAT COMMAND...: up to 30 s for COMMAND to succeed
wait_for() {
	_what=$1
	shift
	for _i in $(seq 1 300); do
		"$@" && return 0
		sleep 0.1
	done
	fail "timed out waiting for $_what"
}
# the target's batch directory of batch $1
tdir() {
	echo "$P/results/runs/$1"
}
has_line() {
	grep -q "$1" "$2" 2>/dev/null
}
# the batch in target directory $1 has ended and its detached runner is gone
batch_over() {
	[ -f "$1/SHA256SUMS" ] && ! kill -0 "$(cut -d' ' -f1 "$1/runner.pid")" 2>/dev/null
}
# real_ns RUNDIR MONO_NS: a run's CLOCK_MONOTONIC stamp on the wall clock
real_ns() {
	set -- $(value clock_pair "$1/bench.txt") "$2"
	echo "$(( $2 + $3 - $1 ))"
}
db_runs() {
	"$HB" db info --db "$T/host/hitchbench.db" | sed -n 's/^runs=//p'
}

# 0. a prefix without a pushed harness: refused after one login
rc=0
"$HB" run --target bare $RUNOPTS "$T/fake.ini" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "unpushed: exit" 1 "$rc"
grep -q "no pushed harness in '$T/bare' (no push.txt): 'hitchbench push bare' first" "$T/err" ||
	fail "unpushed: $(cat "$T/err")"
rc=0
"$HB" run --target hb --detach "$T/fake.ini" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "--target --detach: exit" 2 "$rc"

# 1. three runs through the target; a stranger logs in during run 2's window.
# While they run, the test itself starts nothing but the stranger's login
# (a loop of grep and sleep would be processes the watcher may count: one
# that exits before its environment is read cannot be told the
# harness's): it waits in one waitline process, and looks at the record and
# asks target status once the batch is over.
WAITLINE=$HB_BUILD/tests/waitline
sleep 0.3
before=$(sshd_accepted "$S")
"$HB" run --target hb $RUNOPTS "$T/fake.ini" base 3 >"$T/run.out" 2>"$T/run.err" &
ctl=$!
"$WAITLINE" "$T/run.out" "^batch .* started on hb" || fail "no batch line: $(cat "$T/run.out" "$T/run.err")"
B=$(sed -n 's/^batch \([^ ]*\) started on hb.*/\1/p' "$T/run.out")
[ -n "$B" ] || fail "no batch id: $(cat "$T/run.out")"
# run 2's first frame (the detached runner's log there), then 1.2 s: the
# window is 0.5 .. 4.5 s after it. The stranger's session lasts as long as
# its shell's start-up takes (a login shell's rc files: pyenv, conda); it is
# over when ssh returns, and a run whose window began before that may count
# it too
"$WAITLINE" "$(tdir "$B")/runner.log" "first frame" 2 || fail "run 2 did not start"
sleep 1.2
stranger_start=$(date +%s%N)
ssh -F "$SSH_CONFIG" -o BatchMode=yes hbtarget true || fail "the stranger's login"
stranger_end=$(date +%s%N)
rc=0
wait "$ctl" || rc=$?
[ "$rc" = 0 ] || fail "run --target: exit $rc: $(cat "$T/run.out" "$T/run.err")"
sleep 0.3
logins=$(( $(sshd_accepted "$S") - before ))
expect_eq "logins (the start, the stranger, the pull)" 3 "$logins"
grep -q "batch $B on 'hb' ended (complete), as the connection that started it says" "$T/run.err" ||
	fail "no word of the end from the followed connection: $(cat "$T/run.err")"
# run 3 is done, or invalid if the stranger's session lasted into its window
# (the loop below tells which)
grep -q "batch $B on 'hb': run 3 \(done\|invalid\) " "$T/run.err" ||
	fail "no event of run 3 followed: $(cat "$T/run.err")"
grep -q "^pulled $B: 3 run(s), [0-9]* bytes .*copy [0-9.]* s, verify [0-9.]* s, import [0-9.]* s (3 run(s)" \
	"$T/run.out" || fail "pull line: $(cat "$T/run.out")"
L=$T/host/targets/hb/$B
[ -f "$L/batch.txt" ] || fail "not pulled into $L"
[ ! -e "$T/host/targets/hb/.$B.tmp" ] || fail "the .tmp copy was left"
[ -s "$L.runner.log" ] || fail "the runner's log was not pulled beside the batch"
# the followed session stays, the harness's and idle: the runs do not wait for its end
grep -q "the SSH session that started the batch" "$L.runner.log" &&
	fail "the runner waited for the followed session: $(cat "$L.runner.log")"
expect_eq "pulled status" complete "$(value status "$L/batch.txt")"
expect_eq "db runs" 3 "$(db_runs)"
# each window on the wall clock: no connection of the controller in any
n=0
for r in $(run_dirs "$T/host/targets/hb"); do
	n=$((n + 1))
	t0=$(real_ns "$r" "$(value window_start_ns "$r/bench.txt")")
	t1=$(real_ns "$r" "$(value window_end_ns "$r/bench.txt")")
	in=$(sshd_accepted_between "$S" "$t0" "$t1")
	counted=$(grep -c "^! .*(sshd)" "$r/interference.log")
	if [ "$n" = 2 ]; then
		expect_eq "logins in run 2's window (the stranger's)" 1 "$in"
		expect_eq "run 2 interfered" 1 "$(value interfered "$r/bench.txt")"
		[ "$counted" -gt 0 ] || { cat "$r/interference.log" >&2; fail "the stranger's sshd is not counted"; }
	elif [ "$(sed -n 's/^# clock_pair [0-9]* \([0-9]*\)$/\1/p' "$r/interference.log")" -le "$stranger_end" ] &&
		[ "$t1" -ge "$stranger_start" ]; then
		# the stranger's session lasted into this run's watch, which
		# starts before the game (a slow shell start-up on a busy machine)
		echo "note: run $n's watch began before the stranger's session ended" >&2
	else
		expect_eq "logins in run $n's window" 0 "$in"
		expect_eq "sshd processes counted in run $n" 0 "$counted"
		# the session that started the batch is no one else's: nothing of
		# it is counted (the test's own commands carry the harness's marker)
		[ "$(value interfered "$r/bench.txt")" = 0 ] || {
			cat "$r/interference.log" >&2
			fail "run $n interfered: $(value interfered_reason "$r/bench.txt")"
		}
	fi
done
expect_eq "pulled runs" 3 "$n"
# pulled again: the same runs, updated in place
"$HB" pull hb "$B" >"$T/out" 2>"$T/err" || fail "pull again: $(cat "$T/err")"
grep -q "^pulled $B: 3 run(s)" "$T/out" || fail "pull again: $(cat "$T/out")"
expect_eq "db runs after a second pull" 3 "$(db_runs)"
"$HB" target status hb "$B" >"$T/out" 2>"$T/err" || fail "status: $(cat "$T/err")"
grep -q "^$B  *fake  *complete  *3/3 " "$T/out" || fail "status: $(cat "$T/out")"

# a damaged copy on the target fails the check, names the file, imports nothing
f=$(cd "$(tdir "$B")" && ls -d ./*/frames.bin | head -n 1)
printf 'x' >>"$(tdir "$B")/$f"
rc=0
"$HB" pull hb "$B" --delete --db "$T/other.db" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "damaged: exit" 1 "$rc"
[ -f "$(tdir "$B")/batch.txt" ] || fail "--delete removed a batch whose copy failed its check"
grep -q "batch $B from 'hb' fails its check: .*frames.bin: checksum mismatch" "$T/err" || fail "damaged: $(cat "$T/err")"
[ ! -e "$T/other.db" ] || [ "$("$HB" db info --db "$T/other.db" | sed -n 's/^runs=//p')" = 0 ] ||
	fail "a batch that failed its check was imported"
[ -d "$T/host/targets/hb/.$B.tmp" ] || fail "the failed copy was not kept"
expect_eq "the verified copy stays" complete "$(value status "$L/batch.txt")"
rm -rf "$(tdir "$B")"

# 2. the SSH session that started a batch killed mid-batch: nothing lost
# (started by hand as run --target starts it: results in PREFIX/results,
# not the login's data directory of an installed tree)
ssh -F "$SSH_CONFIG" -o BatchMode=yes hbtarget "export HITCHBENCH_HARNESS=t HITCHBENCH_RESULTS=results; cd $P &&
	bin/hitchbench run --detach $RUNOPTS $T/fake.ini base 2 && exec sleep 120" >"$T/k.out" 2>"$T/k.err" &
sshpid=$!
wait_for "the detached batch" has_line "^batch " "$T/k.out"
K=$(sed -n 's/^batch \([^ ]*\) expected_s [0-9]* dir .*/\1/p' "$T/k.out")
wait_for "its first run" has_line "^1 started" "$(tdir "$K")/runs.txt"
sessions=$(pgrep -P "$SSHD_PID")
[ -n "$sessions" ] || fail "no sshd session process to kill"
kill -9 "$sshpid" $sessions $(for s in $sessions; do pgrep -P "$s"; done) 2>/dev/null
wait "$sshpid" 2>/dev/null
# a pull now finds it running and leaves it
"$HB" pull hb "$K" >"$T/out" 2>"$T/err" || fail "pull of a running batch: $(cat "$T/err")"
grep -q "note: batch $K is still running on 'hb'" "$T/err" || fail "running batch not skipped: $(cat "$T/err")"
[ ! -e "$T/host/targets/hb/$K" ] || fail "a running batch was pulled"
wait_for "the batch's end" batch_over "$(tdir "$K")"
expect_eq "after the kill: status" complete "$(value status "$(tdir "$K")/batch.txt")"
"$HB" pull hb "$K" >"$T/out" 2>"$T/err" || fail "pull after the kill: $(cat "$T/err")"
grep -q "^pulled $K: 2 run(s)" "$T/out" || fail "pull after the kill: $(cat "$T/out")"
expect_eq "db runs" 5 "$(db_runs)"
# --delete after a verified pull: gone there, kept here
"$HB" pull hb "$K" --delete >"$T/out" 2>"$T/err" || fail "pull --delete: $(cat "$T/err")"
grep -q "^  removed on hb" "$T/out" || fail "pull --delete: $(cat "$T/out")"
[ ! -e "$(tdir "$K")" ] || fail "--delete left the batch on the target"
[ -f "$T/host/targets/hb/$K/SHA256SUMS" ] || fail "--delete lost the pulled copy"
expect_eq "db runs after --delete" 5 "$(db_runs)"

# 3. the runner killed on the target mid-batch, then resumed from the host
"$HB" run --target hb --no-wait $RUNOPTS "$T/fake.ini" base 3 >"$T/out" 2>"$T/err" || fail "--no-wait: $(cat "$T/err")"
R=$(sed -n 's/^batch \([^ ]*\) started on hb.*/\1/p' "$T/out")
grep -q "hitchbench pull hb $R" "$T/err" || fail "--no-wait says not how to get it: $(cat "$T/err")"
[ -s "$T/host/targets/hb/$R.remote" ] || fail "no record of the remote batch"
expect_eq "record's target" hb "$(value target "$T/host/targets/hb/$R.remote")"
[ -n "$(value expected_end_utc "$T/host/targets/hb/$R.remote")" ] || fail "the record has no expected end"
# target status now would be a login during a measurement: refused
rc=0
"$HB" target status hb >"$T/out" 2>"$T/err" || rc=$?
expect_eq "status while measuring: exit" 1 "$rc"
grep -q "batch $R on 'hb' is expected to be measuring until .*marks the run being measured interfered" "$T/err" ||
	fail "status while measuring: $(cat "$T/err")"
# and so would a pull
rc=0
"$HB" pull hb "$R" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "pull while measuring: exit" 1 "$rc"
grep -q "batch $R on 'hb' is expected to be measuring until .*('--now' connects anyway)" "$T/err" ||
	fail "pull while measuring: $(cat "$T/err")"
wait_for "run 2 of the batch to resume" has_line "^2 started" "$(tdir "$R")/runs.txt"
kill -TERM "$(cut -d' ' -f1 "$(tdir "$R")/runner.pid")"
wait_for "the interrupted end" batch_over "$(tdir "$R")"
expect_eq "killed: status" interrupted "$(value status "$(tdir "$R")/batch.txt")"
"$HB" target status --now hb "$R" >"$T/out" 2>"$T/err" || fail "status --now: $(cat "$T/err")"
grep -q "^$R  *fake  *interrupted  *1/3 " "$T/out" || fail "status of the interrupted batch: $(cat "$T/out")"
# resumed from the host; Ctrl-C in the waiting controller leaves it running
"$HB" run --target hb --resume "$R" $RUNOPTS >"$T/out" 2>"$T/err" &
ctl=$!
wait_for "the resume's start" has_line "^batch $R started on hb" "$T/out"
wait_for "the resume's follow" has_line "batch $R on 'hb': run [0-9]* started" "$T/err"
kill -INT "$ctl"
rc=0
wait "$ctl" || rc=$?
expect_eq "Ctrl-C: exit" 130 "$rc"
grep -q "batch $R goes on on 'hb': 'hitchbench pull hb $R' gets it" "$T/err" || fail "Ctrl-C: $(cat "$T/err")"
wait_for "the resumed batch's end" batch_over "$(tdir "$R")"
# ended before its expected end: the record does not know, so --now
"$HB" pull --now hb "$R" >"$T/out" 2>"$T/err" || fail "pull of the resumed batch: $(cat "$T/err")"
grep -q "^pulled $R: 3 run(s)" "$T/out" || fail "resumed batch's pull: $(cat "$T/out")"
expect_eq "resumed: status" complete "$(value status "$T/host/targets/hb/$R/batch.txt")"
expect_eq "db runs" 8 "$(db_runs)"
no_fakegame_left
exit 0
