#!/bin/sh
# lane: alone (a watched run with the proc connector, and strangers on purpose)
# The interference watcher as every run has it (the INTF switch): a quiet
# run is marked clean, with the watcher's log and cost; a process the run
# starts itself is the run's; a stranger's command during the run marks
# it interfered (bench.txt, result.txt, a loud line), keeps it out of the
# median, and --rerun-invalid runs it once more; INTF=0 turns the watcher
# off and the run's name and bench.txt say so.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup

# 1. a quiet run; the game starts a child of its own (the run's)
cat >"$T/quiet.ini" <<INI
[recipe]
name = quiet
command = /bin/sh -c "sleep 0.4 & exec $T/game/fakegame --fps 100"
env = HB_STUB=$T/game/libhbstub.so
warmup = 1
window = 2
stop_grace = 1
INI
hb_run "$T/quiet.ini" base
expect_eq "exit status" 0 "$rc"
expect_eq status ok "$(value status "$rundir/bench.txt")"
[ "$(value interfered "$rundir/bench.txt")" = 0 ] ||
	{ cat "$rundir/interference.log" >&2; fail "a quiet run was marked interfered"; }
case "$(value interference "$rundir/bench.txt")" in
none*) ;;
*) fail "interference: $(value interference "$rundir/bench.txt")" ;;
esac
L="$rundir/interference.log"
[ -s "$L" ] || fail "no interference.log"
grep -q "^# summary interfered=0: none" "$L" || { cat "$L" >&2; fail "no clean summary"; }
grep -q "^- .* PROCESS pid [0-9]* (sleep) the run's own" "$L" ||
	{ cat "$L" >&2; fail "the game's own child was not seen as the run's"; }
grep -q "^!" "$L" && { cat "$L" >&2; fail "something was counted in a quiet run"; }
[ -n "$(value interference_cost "$rundir/bench.txt")" ] || fail "no interference_cost"
grep -q "quiet base: interference: none" "$T/err" || fail "the terminal was not told: $(cat "$T/err")"
[ -z "$(value disturbed "$rundir/result.txt")" ] || fail "a clean run's result.txt says disturbed"
no_fakegame_left

# 2. a stranger runs a command mid-run: interfered, rerun once, the rerun clean
rm -rf "$T/runs"
fake_recipe busy "--fps 100" "warmup = 1" "window = 2" "stop_grace = 1"
"$HB" run --no-quieting --display :99 --out "$T/runs" --db "$T/db.sqlite" --rerun-invalid \
	"$T/busy.ini" >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 1 100); do
	pgrep -f "$T/game/fakegame" >/dev/null && break
	sleep 0.1
done
sleep 0.5
# the stranger lives 0.3 s: a command that exits and is reaped before the
# watcher wakes is still counted, but its name is "(gone)" (the connector's
# exec event carries no name), and the log's name is what is checked here
env -u HITCHBENCH_HARNESS sh -c "sleep 0.3; :"
rc=0
wait "$pid" || rc=$?
expect_eq "exit status" 0 "$rc"
set -- $(run_dirs "$T/runs")
[ $# = 2 ] || { cat "$1/interference.log" "$T/err" >&2; fail "expected the run and its rerun, got $*"; }
first=$1
second=$2
expect_eq "first: interfered" 1 "$(value interfered "$first/bench.txt")"
case "$(value interfered_reason "$first/bench.txt")" in
*"process(es) outside the run"*) ;;
*) fail "reason: $(value interfered_reason "$first/bench.txt")" ;;
esac
grep -q "^! .* PROCESS pid [0-9]* (sleep) new process outside the run" "$first/interference.log" ||
	{ cat "$first/interference.log" >&2; fail "the stranger's command is not in the log"; }
case "$(value disturbed "$first/result.txt")" in
"!! INTERFERENCE: "*"THIS RUN IS INVALID") ;;
*) fail "result.txt: $(value disturbed "$first/result.txt")" ;;
esac
grep -q "!! INTERFERENCE: .*THIS RUN IS INVALID" "$T/err" || fail "no loud line: $(cat "$T/err")"
expect_eq "rerun: interfered" 0 "$(value interfered "$second/bench.txt")"
expect_eq "rerun: attempt" 2 "$(value batch_attempt "$second/bench.txt")"
# the median is the rerun's alone; the report lists the disturbed run apart
grep -q "^median busy base (n=1)" "$T/out" || fail "the median counted the disturbed run: $(cat "$T/out")"
"$HB" report "$first" >"$T/report" 2>&1
grep -q "interfered=1" "$T/report" || fail "report does not say interfered: $(cat "$T/report")"
no_fakegame_left

# 3. INTF=0: not watched, and named so
rm -rf "$T/runs"
hb_run "$T/busy.ini" base --switches "INTF=0"
expect_eq "INTF=0 exit status" 0 "$rc"
expect_eq "run name" base@nointf "$(value run_name "$rundir/bench.txt")"
expect_eq interference "not watched (INTF=0)" "$(value interference "$rundir/bench.txt")"
[ -z "$(value interfered "$rundir/bench.txt")" ] || fail "an unwatched run says interfered="
[ ! -e "$rundir/interference.log" ] || fail "INTF=0 left an interference.log"
no_fakegame_left
exit 0
