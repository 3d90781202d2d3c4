#!/bin/sh
# lane: alone (a recorded device made on uinput is seen by every watcher on the machine)
# A recipe's [input] play in a real run: the input helper makes the
# recorded keyboard (ChromiumOS autotest's, typing b a d Enter) through
# uinput with libevemu before the game starts, named as the harness's
# ("hitchbench input RUN_ID play 2", the recorded ids kept), plays its 24
# events after the step before it, and keeps it until the run ends. The
# run's own interference watcher sees the device and its 4 key presses as
# the harness's ('-' lines), so the run is not interfered; no log names a
# key. Needs /dev/uinput, root and the game user; skips elsewhere (t1220
# covers the rest here: the plan, libevemu's reading, the recipe's errors).
# Under Xvfb the device reaches no X client: only games that read
# /dev/input see it. On a desktop the replayed keys are typed into the
# focused window.
. "$(dirname "$0")/../lib.sh"
[ -e /dev/uinput ] || skip "no /dev/uinput on this machine (the uinput module is not loaded or not built): no recorded device can be made"
[ "$(id -u)" = 0 ] || skip "making a uinput device and watching /dev/input need root"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
fake_setup
E="$HB_TESTDATA/evemu"
mkdir -p "$T/rec"
cp "$E/chromiumos-autotest_keyboard.prop" "$T/rec/kbd.desc"
cp "$E/chromiumos-autotest_keyboard_b+a+d+enter" "$T/rec/kbd.events"
chmod -R a+rX "$T/rec"
fake_recipe play "--fps 50" "warmup = 0" "window = 8" "screen = 640x480x24" \
	"[input]" "step = wait 1" "play = rec/kbd.desc rec/kbd.events"
rc=0
"$HB" run --no-quieting --out "$T/runs" --no-db "$T/play.ini" >"$T/out" 2>"$T/err" || rc=$?
rundir=$(run_dirs "$T/runs" | tail -n 1)
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
expect_eq status ok "$(value status "$rundir/bench.txt")"
expect_eq input "2 of 2 steps played (xtest)" "$(value input "$rundir/bench.txt")"
id=$(value run_id "$rundir/bench.txt")
sys=$(value input_device "$rundir/bench.txt")
case $sys in
/sys/devices/virtual/input/input*) ;;
*) fail "input_device is not the play's syspath: '$sys'" ;;
esac
grep -qxF "# device $sys hitchbench input $id play 2" "$rundir/input.log" || fail "no device line: $(cat "$rundir/input.log")"
grep -qxF '# play 2 recorded "Emulated Keyboard" (bus 0003 vendor 0461 product 4e05 version 0111)' "$rundir/input.log" ||
	fail "no play line: $(cat "$rundir/input.log")"
grep -qE "^[0-9]+\.[0-9]{6}	2	play .*kbd\.desc .*kbd\.events	ok: 24 events over [0-9.]+ s, each at most [0-9.]+ ms after its time$" \
	"$rundir/input.log" || fail "the play's line: $(cat "$rundir/input.log")"
# the watcher saw it as the harness's: not interfered, its presses '-'
expect_eq interfered 0 "$(value interfered "$rundir/bench.txt")"
L="$rundir/interference.log"
grep -qE "^- +[0-9]+\.[0-9]{3} (DEVICE|DEVADD) event[0-9]+ \"hitchbench input $id play 2\" \(the harness's own input device\)$" "$L" ||
	{ cat "$L" >&2; fail "the watcher did not list the play's device as the harness's"; }
[ "$(grep -cE "^- .* key dev=\"hitchbench input $id play 2\" key press \(the harness's own input device\)$" "$L")" = 4 ] ||
	{ cat "$L" >&2; fail "not the 4 key presses, as the harness's"; }
if grep -E "^! .*hitchbench input $id" "$L"; then
	fail "the play's device counted"
fi
if grep -E 'KEY_|EV_KEY' "$L" "$rundir/input.log"; then
	fail "a log names a key"
fi
no_fakegame_left
exit 0
