#!/bin/sh
# lane: alone (recorded devices replayed into uinput are seen by every watcher on the machine)
# time-limit: 900 (the recordings play in real time: about 125 s in all)
# The interference watcher on the repo's real evemu recordings replayed
# into uinput: each recorded device is made and played by the input
# helper (hitchbench-input, libevemu) under a person's name ("t1160 ..."),
# in real time, while a watcher of its own runs, and the watcher's summary
# must count what docs/interference.md's table says of that recording
# (the counts tests/unit/test-inputrules.c gets from the recorded times,
# worked out again by tests/tools/evemu-counts.awk), plus the device's
# coming and going; no line names a key. Then one recording under the
# harness's name ("hitchbench input ...") gives '-' lines only. Needs
# /dev/uinput and root; skips elsewhere, where the unit tests feed the
# same recordings to the same rules (test-inputrules.c).
# On a desktop the replayed keyboards type into the focused window.
. "$(dirname "$0")/../lib.sh"
W="$HB_BUILD/hitchbench-intfwatch"
IN="$HB_BUILD/hitchbench-input"
E="$HB_TESTDATA/evemu"
[ -x "$W" ] || fail "no $W"
[ -x "$IN" ] || fail "no $IN"
[ -e /dev/uinput ] || skip "no /dev/uinput on this machine (the uinput module is not loaded or not built): no recorded device can be replayed for the watcher to see"
[ "$(id -u)" = 0 ] || skip "the watcher opens every /dev/input/event* and the helper writes /dev/uinput: both need root"
[ -w /dev/uinput ] || skip "/dev/uinput is not writable"

started=""
trap 'for p in $started; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
: >"$T/game.log"

# wait_until SECONDS WHAT COMMAND...: COMMAND succeeds within SECONDS
wait_until() {
	limit=$(($1 * 20))
	what=$2
	shift 2
	i=0
	until "$@"; do
		i=$((i + 1))
		[ "$i" -le "$limit" ] || { sed 's/^/    log: /' "$LOG" >&2; fail "$what: not within $((limit / 20)) s"; }
		sleep 0.05
	done
}

# replay NAME "SUMMARY" RECORDING [EVENTS]: the watcher's summary once the
# recording (or its description and events) was played under NAME and the
# device went away is "SUMMARY" ('' for nothing of the device's), anything
# else on the machine after it
replay() {
	name=$1 want=$2
	shift 2
	step="play $E/$1${2:+ $E/$2}"
	LOG="$T/$(echo "$name" | tr ' /' '__').log"
	"$W" --log "$LOG" --run-root $$ --duration 600 --ready "$LOG.ready" 2>"$LOG.err" &
	w=$!
	started="$started $w"
	wait_until 10 "the watcher's ready file" test -e "$LOG.ready"
	"$IN" --driver uinput --game-log "$T/game.log" --name "$name" -- "$step" >"$LOG.in" 2>&1 &
	p=$!
	started="$started $p"
	wait_until 120 "$name: every event played" grep -q '^# end played=' "$LOG.in"
	grep -qx '# end played=1 of 1' "$LOG.in" || fail "$name: $(cat "$LOG.in")"
	# what was written is read before the device goes away
	sleep 1
	kill -TERM "$p"
	rc=0
	wait "$p" || rc=$?
	expect_eq "$name: the helper's exit after SIGTERM" 0 "$rc"
	wait_until 10 "$name: the device's going" grep -qE "DEVREMOVE event[0-9]+ \"$name play 1\"" "$LOG"
	kill -TERM "$w"
	rc=0
	wait "$w" || rc=$?
	if [ -n "$want" ]; then
		expect_eq "$name: the watcher's exit" 3 "$rc"
		grep -qE "^# summary interfered=1: $want, 2 device change\(s\)(, .*)?$" "$LOG" ||
			{ sed 's/^/    log: /' "$LOG" >&2; fail "$name: the summary is not '$want, 2 device change(s)'"; }
	elif grep -E "^! .*\"$name play 1\"" "$LOG"; then
		fail "$name: the harness's device counted"
	fi
	if grep -E 'KEY_|EV_KEY' "$LOG"; then
		fail "$name: the log names a key"
	fi
}

replay "t1160 chromiumos b a d enter" "4 key presses" \
	chromiumos-autotest_keyboard.prop chromiumos-autotest_keyboard_b+a+d+enter
replay "t1160 chromiumos ctrl shift c" "10 key presses" \
	chromiumos-autotest_keyboard.prop chromiumos-autotest_keyboard_ctrl+shift+c
replay "t1160 lenovo" "2 key presses" evemu-devices_lenovo_compact_keyboard.events
replay "t1160 k400" "2 key presses" evemu-devices_logitech_k400plus_keyboard.events
replay "t1160 wiimote" "1 button presses" evemu-devices_nintendo_wiimote.desc evemu-devices_nintendo_wiimote.events
replay "t1160 egalax" "11 touches" evemu-repo_wetab_touchscreen_evemu1.1.event
replay "t1160 madcatz" "1 button presses, 3 hat presses" evemu-devices_madcatz_xbox360_gamepad.events
replay "t1160 chromiumos mouse" "2 mouse motions" \
	chromiumos-autotest_mouse.prop chromiumos-autotest_mouse_center_cursor_gesture
replay "t1160 logitech scroll" "213 wheel steps, 1 mouse motions" \
	chromiumos-autotest_platform_MouseScrollTest_mouse.prop chromiumos-autotest_platform_MouseScrollTest_mouse_event
replay "t1160 scrollpoint" "2478 wheel steps" \
	evemu-devices_ibm_scrollpoint_mouse.desc evemu-devices_ibm_scrollpoint_mouse.scroll.events
replay "t1160 ultrathin" "6 button presses, 39 wheel steps, 2 mouse motions" \
	evemu-devices_logitech_ultrathin_touch_mouse.events
replay "t1160 ps2" "6 mouse motions" evemu-devices_ps2_generic_mouse.desc evemu-devices_ps2_generic_mouse.events
replay "t1160 saitek" "3 button presses" evemu-devices_saitek_rat5_mouse.desc evemu-devices_saitek_rat5_mouse.events

# under the harness's name: seen, its button '-', nothing counted of it
replay "hitchbench input t1160" "" evemu-devices_nintendo_wiimote.desc evemu-devices_nintendo_wiimote.events
grep -qE "^- +[0-9]+\.[0-9]{3} button dev=\"hitchbench input t1160 play 1\" button press \(the harness's own input device\)$" "$LOG" ||
	{ sed 's/^/    log: /' "$LOG" >&2; fail "the harness's replayed button is not a '-' line"; }
exit 0
