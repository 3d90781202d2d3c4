#!/bin/sh
# lane: alone (the watcher as it runs on the machine: the proc connector, and input devices, which every watcher sees)
# The interference watcher on its own: a process started outside the run
# during the watch is counted, one the run starts is not; its log has its
# sources, a summary and what it cost; a clean watch exits 0, a disturbed
# one 3. (Input devices: tests/unit/test-inputrules.c feeds the same rules
# with real recordings; live devices, made with /dev/uinput where it
# exists, are t1120's.)
. "$(dirname "$0")/../lib.sh"
W="$HB_BUILD/hitchbench-intfwatch"
[ -x "$W" ] || fail "no $W"

# the run: a shell whose children are the run's
sh -c 'sleep 0.8; sleep 2' &
run=$!
"$W" --log "$T/a.log" --run-root "$run" --duration 2 --ready "$T/ready" 2>"$T/a.err" &
w=$!
for i in $(seq 50); do [ -e "$T/ready" ] && break; sleep 0.05; done
[ -e "$T/ready" ] || fail "the watcher was not ready"
sleep 0.3
# outside the run: started after the start by a shell without the harness's
# marker (the tests export HITCHBENCH_HARNESS: see tests/lib.sh)
env -u HITCHBENCH_HARNESS sh -c "sleep 0.2; :"
rc=0
wait "$w" || rc=$?
kill "$run" 2>/dev/null
expect_eq "exit when disturbed" 3 "$rc"
grep -q "^# sources .*processes=" "$T/a.log" || fail "no sources line"
grep -q "^! .* PROCESS pid [0-9]* (sleep) new process outside the run" "$T/a.log" ||
	{ cat "$T/a.log" >&2; fail "the outside sleep was not counted"; }
grep -q "^- .* PROCESS pid [0-9]* (sleep) the run's own" "$T/a.log" ||
	{ cat "$T/a.log" >&2; fail "the run's sleep was not seen as the run's"; }
grep -q "^# summary interfered=1: .*process(es) outside the run" "$T/a.log" || fail "no summary"
grep -q "^# self cpu=.* ms a second over" "$T/a.log" || fail "no self cost"
grep -q "^interference: " "$T/a.err" || fail "nothing on stderr"
# a bad option: exit 2
"$W" --log "$T/b.log" --run-root x 2>/dev/null
expect_eq "bad option" 2 "$?"
exit 0
