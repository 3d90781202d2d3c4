#!/bin/sh
# A recipe's [input] steps played by the xtest driver into a fake game on
# the run's own Xvfb: the game prints every key, button and motion its
# window gets, and game.log must show each step's; input.log and bench.txt
# say what was played. A bad step stops the run before anything starts.
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
fake_setup

# hb_xrun ARGS...: hitchbench run on a fresh Xvfb of its own, no database
hb_xrun() {
	rc=0
	"$HB" run --no-quieting --out "$T/runs" --no-db "$@" >"$T/out" 2>"$T/err" || rc=$?
	rundir=$(run_dirs "$T/runs" | tail -n 1)
}

# 1. every kind of step, in order; the run ends on the motion's line
fake_recipe xin "--fps 50 --x-input" "warmup = 0" "window = 20" "screen = 640x480x24" \
	"end = line" "end_line = ^motion 10 20$" \
	"[input]" \
	"step = wait_line ^x-input ready$" \
	"step = key Return" \
	"step = wait 0.2" \
	"step = type Hi!" \
	"step = keys ctrl+q" \
	"step = click 3" \
	"step = move 10 20"
hb_xrun "$T/xin.ini"
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
expect_eq status ok "$(value status "$rundir/bench.txt")"
expect_eq end_reason line "$(value end_reason "$rundir/bench.txt")"
expect_eq input "7 of 7 steps played (xtest)" "$(value input "$rundir/bench.txt")"
[ -z "$(value input_device "$rundir/bench.txt")" ] || fail "xtest has no input device"
# the keys the harness sent are no interference
[ "$(value interfered "$rundir/bench.txt")" = 0 ] ||
	{ cat "$rundir/interference.log" >&2; fail "the run was marked interfered"; }
# what the game printed, without the stamps: the events in the order sent
cut -f 2- "$rundir/game.log" | grep -E '^(key|button|motion) ' >"$T/got"
cat >"$T/want" <<'WANT'
key Return
key H
key i
key Shift_L
key exclam
key Control_L
key q
button 3
motion 10 20
WANT
# typing H and ! presses Shift first (XLookupString names the Shift key
# itself when it goes down); the order of the lines is the steps' order
grep -v '^key Shift_L$' "$T/want" >"$T/want.noshift"
grep -v '^key Shift_L$' "$T/got" >"$T/got.noshift"
cmp -s "$T/want.noshift" "$T/got.noshift" || {
	diff "$T/want.noshift" "$T/got.noshift" >&2
	fail "the game did not get the steps' events in order"
}
[ "$(grep -c '^key Shift_L$' "$T/got")" = 2 ] || fail "expected Shift pressed twice (for H and !)"
# input.log: a header, one stamped line per step with its outcome, the end
head -n 1 "$rundir/input.log" | grep -q '^# hitchbench-input 1 driver=xtest steps=7$' ||
	fail "input.log has no header: $(head -n 1 "$rundir/input.log")"
[ "$(grep -cE '^[0-9]+\.[0-9]{6}	[1-7]	[a-z_]+ .*	ok' "$rundir/input.log")" = 7 ] ||
	fail "input.log lacks 7 played steps: $(cat "$rundir/input.log")"
grep -qE '	1	wait_line \^x-input ready\$	ok: [0-9.]+	x-input ready$' "$rundir/input.log" ||
	fail "wait_line does not say which line matched"
grep -q '^# end played=7 of 7$' "$rundir/input.log" || fail "input.log has no end line"
# each step was played after the one before it (the stamps never go back)
cut -f 1 "$rundir/input.log" | grep -v '^#' | sort -c -n || fail "input.log's stamps are out of order"
expect_eq helper "exit 0" "$(value helper.input "$rundir/bench.txt")"
# it reads the game's words with no capability, the tree read-only (as
# root; not root, it narrows as far as it may: "best effort")
case "$(id -u):$(value helper.input.sandbox "$rundir/bench.txt")" in
"0:strict: no_new_privs=1 effective=none permitted=none bounding=none ambient=none read_only=yes") ;;
[1-9]*:"best effort "*) ;;
*) fail "the input helper's sandbox: '$(value helper.input.sandbox "$rundir/bench.txt")'" ;;
esac
no_fakegame_left

# 2. a wait_line that never matches: the run goes on, ends with its
# window, and says where the steps stopped
rm -rf "$T/runs"
fake_recipe xwait "--fps 50 --x-input" "warmup = 0" "window = 2" \
	"[input]" "step = wait_line ^x-input ready$" "step = key a" "step = wait_line ^never printed$" \
	"step = key b"
hb_xrun "$T/xwait.ini"
expect_eq "waiting exit status" 0 "$rc"
expect_eq "waiting status" ok "$(value status "$rundir/bench.txt")"
expect_eq "waiting input" "2 of 4 steps played (xtest); stopped during step 3 (wait_line ^never printed\$)" \
	"$(value input "$rundir/bench.txt")"
cut -f 2- "$rundir/game.log" | grep -qx 'key a' || fail "the first key did not reach the game"
cut -f 2- "$rundir/game.log" | grep -qx 'key b' && fail "a step after the unmatched wait_line was played"
no_fakegame_left

# 3. bad steps: refused with file:line before anything runs, exit 2
rm -rf "$T/runs"
fake_recipe xbad "--fps 50" "[input]" "step = wait 1" "step = key NoSuchKeysym"
hb_xrun "$T/xbad.ini"
expect_eq "bad key exit status" 2 "$rc"
grep -q "xbad.ini:7: unknown key 'NoSuchKeysym'" "$T/err" || fail "no file:line error: $(cat "$T/err")"
[ ! -d "$T/runs" ] || [ -z "$(run_dirs "$T/runs")" ] || fail "a bad recipe made a run directory"
fake_recipe xbad2 "--fps 50" "[input]" "driver = uinput" "step = key Return"
hb_xrun "$T/xbad2.ini"
expect_eq "xtest name with uinput exit status" 2 "$rc"
grep -q "xbad2.ini:7: unknown key 'Return' (a Linux key name" "$T/err" || fail "no uinput key error: $(cat "$T/err")"
exit 0
