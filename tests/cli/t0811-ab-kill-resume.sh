#!/bin/sh
# wall: about 30 s (an ab batch killed after two pairs and resumed, then one uninterrupted)
# hitchbench ab killed with SIGKILL in the middle of its batch (two pairs
# done, the fifth run's game up) and resumed gives what an uninterrupted ab
# of the same cells gives: the same verdict, the same sign. The unfinished run is not counted: its slot runs again, its hidden
# .NAME.tmp is no run of the batch, and the pairs are those of the runs
# runs.txt says are done; the finished runs are intact (their SHA256SUMS,
# the batch's after the resume); compare --paired, reading the run
# directories again, agrees with ab line for line. The batch quiets a copy
# of the machine (tests/fixtures/quiet-root, HITCHBENCH_ROOT) with
# task_delayacct: left at 1 with its journal by the kill, given back by the
# resume. The interference watcher is off (INTF=0), as in t0810.
# timing: the fake game's frame rates under load (the verdict is 40% away from its threshold)
# time-limit: 180
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (quiet skips its steps for other users)"
need_game_user
fake_setup
fake_recipe pair "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5" \
	"[variant fast]" "args = --fps 100" "[variant slow]" "args = --fps 60"
quiet_root
cp -R "$FIX" "$T/root"
mkdir -p "$T/units"
inert_profile "$T/profile.ini"
sed -i 's/^delayacct = no$/delayacct = yes/' "$T/profile.ini"
DA=proc/sys/kernel/task_delayacct

# the verdict and its pairs: "DIFFERENT 6"
verdict_of() {
	sed -n 's/^verdict \([A-Z]*\): .* after \([0-9]*\) pair(s)$/\1 \2/p' "$1"
}

"$HB" ab --display :99 --out "$T/runs" --no-db --profile "$T/profile.ini" "$T/pair.ini" \
	fast@INTF=0 slow@INTF=0 --max-rounds 10 >"$T/out" 2>"$T/err" &
pid=$!
runs=
for i in $(seq 1 100); do
	runs=$(ls "$T"/runs/*/runs.txt 2>/dev/null | head -n 1)
	[ -n "$runs" ] && break
	sleep 0.1
done
[ -n "$runs" ] || fail "no batch began: $(cat "$T/err")"
batchdir=${runs%/runs.txt}
"$HB_BUILD/tests/waitline" "$runs" "^[0-9]+ done " 4 60 || fail "two pairs not done in 60 s: $(cat "$T/err")"
"$HB_BUILD/tests/waitline" "$runs" "^5 started" 1 30 || fail "the fifth run never started: $(cat "$runs")"
# its game up: the kill falls in the middle of a run
for i in $(seq 1 100); do
	pgrep -f "$T/game/fakegame" >/dev/null && break
	sleep 0.1
done
pgrep -f "$T/game/fakegame" >/dev/null || fail "the fifth run's game never came: $(tail -n 5 "$T/err")"
expect_eq "task_delayacct while quiet" 1 "$(cat "$T/root/$DA")"
kill -9 "$pid"
wait "$pid" 2>/dev/null
for i in $(seq 1 100); do
	pgrep -f "$T/game/fakegame" >/dev/null || break
	sleep 0.1
done
no_fakegame_left
[ -e "$J" ] || fail "the killed ab left no journal"
expect_eq "task_delayacct after the kill" 1 "$(cat "$T/root/$DA")"
expect_eq "the last event when killed" "5 started" "$(tail -n 1 "$runs")"
[ ! -e "$batchdir/SHA256SUMS" ] || fail "a killed batch has a SHA256SUMS"
# the four finished runs are whole
done4=$(sed -n 's/^[0-9]* done \([^ ]*\) .*/\1/p' "$runs")
for r in $done4; do
	(cd "$batchdir/$r" && sha256sum -c --strict --quiet SHA256SUMS) || fail "finished run $r is not whole"
done
killed=$(ls -d "$batchdir"/.*.tmp 2>/dev/null | head -n 1)

# resumed: the journal restored first, the killed slot run again, the test
# goes on to its verdict
rc=0
"$HB" ab --resume "$batchdir" --display :99 --no-db --profile "$T/profile.ini" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "ab --resume exit status (DIFFERENT)" 3 "$rc"
grep -q "thaw: restoring what a batch" "$T/err" || fail "the resume did not restore the journal: $(cat "$T/err")"
diff -r -x drop_caches -x compact_memory "$FIX" "$T/root" >"$T/diff" || fail "the machine after the resume: $(cat "$T/diff")"
[ ! -e "$J" ] || fail "a journal is left after the resume: $(cat "$J")"
expect_eq "slot 5 started twice, done once" "2 1" \
	"$(grep -c '^5 started$' "$runs") $(grep -c '^5 done ' "$runs")"
# the runs counted are the runs done, two a pair: the killed one is not among them
finished=$(sed -n 's/^[0-9]* done \([^ ]*\) .*/\1/p' "$runs" | sort)
expect_eq "finished run directories" "$finished" "$(run_dirs "$batchdir/.." | sed 's|.*/||' | sort)"
pairs=$(value pairs "$batchdir/ab.txt")
expect_eq "runs done, two a pair" "$((2 * pairs))" "$(echo "$finished" | wc -l | tr -d ' ')"
for r in $done4; do
	echo "$finished" | grep -qx "$r" || fail "finished run $r lost by the resume"
done
if [ -n "$killed" ]; then
	echo "$finished" | grep -qx "$(basename "$killed" .tmp | sed 's/^\.//')" && fail "the killed run was counted"
	grep -q "  ${killed#"$batchdir"/}/" "$batchdir/SHA256SUMS" && fail "the killed run is in the batch's SHA256SUMS"
fi
(cd "$batchdir" && sha256sum -c --strict --quiet SHA256SUMS) || fail "the resumed batch's SHA256SUMS"
ab_test_lines "$T/out" >"$T/ab-lines"
rc=0; "$HB" compare --paired "$batchdir" >"$T/cmp" 2>"$T/err" || rc=$?
expect_eq "compare --paired exit status" 3 "$rc"
ab_test_lines "$T/cmp" >"$T/cmp-lines"
cmp -s "$T/ab-lines" "$T/cmp-lines" || fail "compare --paired differs from the resumed ab: $(diff "$T/ab-lines" "$T/cmp-lines")"

# the same cells uninterrupted: the same verdict and sign
sign=$(value sign "$batchdir/ab.txt")
rm -rf "$T/runs"
rc=0
"$HB" ab --display :99 --out "$T/runs" --no-db --no-quieting "$T/pair.ini" fast@INTF=0 slow@INTF=0 \
	--max-rounds 10 >"$T/out2" 2>"$T/err" || rc=$?
expect_eq "uninterrupted ab exit status" 3 "$rc"
# the verdict, not its pair count: the uninterrupted batch plays pairs of
# its own, and on a loaded machine (a sanitizer build) the sequential test
# may need more of them before it decides; that the resumed verdict is its
# own pairs' is compare --paired's check above
resumed=$(verdict_of "$T/out") whole=$(verdict_of "$T/out2")
expect_eq "verdict, resumed and uninterrupted ($resumed; $whole)" "${whole%% *}" "${resumed%% *}"
expect_eq "verdict" DIFFERENT "${resumed%% *}"
[ "${resumed#* }" -ge 6 ] || fail "the resumed verdict came after ${resumed#* } pairs, fewer than the 6 blocks it needs"
expect_eq "sign, uninterrupted and resumed" "$(value sign "$(ls -d "$T"/runs/*/)ab.txt")" "$sign"
no_fakegame_left
exit 0
