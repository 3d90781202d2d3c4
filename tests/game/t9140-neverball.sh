#!/bin/sh
# cpu: heavy, about 25 s (a real game)
# The neverball recipe under a fresh Xvfb with a short window: the replay
# Debian ships plays to its end, the recipe's Return presses quit it from
# the end screen (this Neverball does not quit by itself) and the runner
# relaunches it, all inside one 18 s window. Frames at a plausible rate,
# the window ended the run as the recipe declares, the analysis found the
# relaunch's reload, nothing of the game left running.
. "$(dirname "$0")/../lib.sh"
recipe_smoke neverball
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/neverball ] || skip "neverball is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/neverball/gui/demo1.nbr ] || skip "neverball-data is not installed (sh scripts/deps.sh ensure)"

rc=0
"$HB" run --no-quieting neverball --warmup 2 --window 18 --out "$T/runs" --no-db >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-neverball-high)
for f in bench.txt frames.bin game.log input.log result.txt; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
expect_eq status ok "$(value status "$rundir/bench.txt")"
[ "$(value user "$rundir/bench.txt")" != root ] || fail "the game ran as root"
[ -n "$(value package.neverball "$rundir/bench.txt")" ] || fail "no package version"
# the recipe's end = window, and the window did end it
expect_eq end_reason window "$(value end_reason "$rundir/bench.txt")"
# the 12.7 s replay ended inside the window and the game quit on Return
# from the end screen (not stopped by the runner), then came back
case "$(value pass.1.end "$rundir/bench.txt")" in
"exit 0 "*) ;;
*) fail "pass 1 did not quit by itself: $(value pass.1.end "$rundir/bench.txt") (input.log: $(tail -n 1 "$rundir/input.log"))" ;;
esac
passes=$(value passes "$rundir/bench.txt")
[ "$passes" -ge 2 ] || fail "no relaunch: passes=$passes"
value input "$rundir/bench.txt" | grep -q '^[0-9]* of 255 steps played (xtest)' ||
	fail "input: $(value input "$rundir/bench.txt")"
# llvmpipe drew 9-16 fps here with five other games on the two cores (a
# relaunch's 2-3 s without frames included); a broken hook gives 0
fps=$(value fps "$rundir/result.txt")
awk "BEGIN { exit !($fps >= 3 && $fps <= 2000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 40) }" || fail "too few frames: $frames"
# gamedb/neverball/analysis.ini took the relaunch out of the play numbers
reload_n=$(value reload_n "$rundir/result.txt")
awk "BEGIN { exit !($reload_n >= 1) }" || fail "no reload segment found: reload_n=$reload_n"
pgrep -x -u "$(value user "$rundir/bench.txt")" neverball >/dev/null &&
	fail "a neverball of the game's user is left running"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
