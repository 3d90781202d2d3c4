#!/bin/sh
# lane: alone (an input device made on uinput is seen by every watcher on the machine)
# The interference watcher on live input devices, played by uinputdev
# (tests/tools/uinputdev.c): a keyboard plugged in mid-run is a device
# change, its presses count and its auto-repeats do not, no line names the
# key, and its going away is a device change too; a device named as the
# harness's own ("hitchbench input ...") gives '-' lines only; a 0.3 s
# mouse wiggle is a bump; a device there before the watch is listed as
# watched; a pad's stick thrown past a quarter of its range counts once.
# The expected counts are what the steps send, read against the rules in
# docs/interference.md. Needs /dev/uinput and root; skips elsewhere. (The
# watcher hears of devices coming and going from udev, or from the
# kernel's uevents where no udev daemon runs: either way here.)
# On a desktop the virtual devices are real to it too: a focused window
# gets "aaaaa", and the pointer wiggles back to where it was.
. "$(dirname "$0")/../lib.sh"
W="$HB_BUILD/hitchbench-intfwatch"
U="$HB_BUILD/tests/uinputdev"
[ -x "$W" ] || fail "no $W"
[ -x "$U" ] || fail "no $U"
[ -e /dev/uinput ] || skip "no /dev/uinput on this machine (the uinput module is not loaded or not built): no input device can be made for the watcher to see"
[ "$(id -u)" = 0 ] || skip "the watcher opens every /dev/input/event* and uinputdev writes /dev/uinput: both need root"
[ -w /dev/uinput ] || skip "/dev/uinput is not writable"

LOG="$T/w.log"
# what this script started is stopped when it ends, however it ends
started=""
trap 'for p in $started; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

# show: the watcher's log on stderr, for a failure
show() {
	[ -f "$LOG" ] && sed 's/^/    log: /' "$LOG" >&2
	return 0
}

# forget PID: PID was waited for (its number may be reused)
forget() {
	started=$(echo " $started " | sed "s/ $1 / /")
}

# wait_until WHAT COMMAND...: COMMAND succeeds within 10 s, or the test fails
wait_until() {
	what=$1
	shift
	i=0
	until "$@"; do
		i=$((i + 1))
		[ "$i" -le 200 ] || { show; fail "$what: not within 10 s"; }
		sleep 0.05
	done
}

# lines N ERE: exactly N lines of the log match ERE
lines() {
	[ "$(grep -cE "$2" "$LOG")" = "$1" ]
}

n_dev=0
# device NAME KIND STEP...: starts uinputdev in the background ($dev_pid)
# and waits for its device ($node: event7); a uinputdev that cannot make
# it (exit 77) skips the test with its reason
device() {
	n_dev=$((n_dev + 1))
	out="$T/dev.$n_dev"
	"$U" "$@" >"$out" 2>"$out.err" &
	dev_pid=$!
	started="$started $dev_pid"
	i=0
	until grep -q '^ready ' "$out"; do
		if ! kill -0 "$dev_pid" 2>/dev/null; then
			rc=0
			wait "$dev_pid" || rc=$?
			forget "$dev_pid"
			[ "$rc" != 77 ] || skip "$(cat "$out.err")"
			fail "uinputdev $1 exited $rc before its device was ready: $(cat "$out.err")"
		fi
		i=$((i + 1))
		[ "$i" -le 200 ] || fail "uinputdev $1: no device within 10 s"
		sleep 0.05
	done
	node=$(sed -n 's|^ready /dev/input/\(event[0-9]*\)$|\1|p' "$out")
	[ -n "$node" ] || fail "uinputdev $1: not an event node: $(cat "$out")"
}

# ended WHAT PID: PID exits 0
ended() {
	rc=0
	wait "$2" || rc=$?
	forget "$2"
	expect_eq "$1: uinputdev's exit" 0 "$rc"
}

# A watch of its own. --run-root $$: what this script starts is the run's,
# so the log's '!' lines are the devices' (and whatever else happens on
# the machine meanwhile: tolerated below where it can only add).
# The mouse is there before the watch starts.
device "t1120 mouse" mouse waitfile "$T/wiggle" wiggle 300 waitfile "$T/end"
mouse=$dev_pid mnode=$node
"$W" --log "$LOG" --run-root $$ --duration 120 --ready "$T/ready" 2>"$T/w.err" &
w=$!
started="$started $w"
wait_until "the watcher's ready file" test -e "$T/ready"
grep -qE "^- +[0-9]+\.[0-9]{3} DEVICE $mnode \"t1120 mouse\" watched$" "$LOG" ||
	{ show; fail "the mouse there before the watch is not listed as watched"; }

# (a) a keyboard plugged in mid-run: counted; 3 presses, 2 auto-repeats
device "t1120 keyboard" keyboard waitfile "$T/kbd-go" \
	press KEY_A repeat KEY_A repeat KEY_A press KEY_A press KEY_A waitfile "$T/kbd-done" exit
kbd=$dev_pid knode=$node
wait_until "the keyboard's DEVADD" lines 1 \
	"^! +[0-9]+\.[0-9]{3} DEVADD $knode \"t1120 keyboard\" \(an input device appeared\)$"
touch "$T/kbd-go"
# the device stays until its presses are in the log: the events a reader
# has not read yet are lost when a device goes away
wait_until "the keyboard's 3 presses" lines 3 '^! +[0-9]+\.[0-9]{3} key dev="t1120 keyboard" key press$'
touch "$T/kbd-done"
ended keyboard "$kbd"
# (d) and its going away
wait_until "the keyboard's DEVREMOVE" lines 1 \
	"^! +[0-9]+\.[0-9]{3} DEVREMOVE $knode \"t1120 keyboard\" \(an input device went away\)$"

# (b) the harness's own device: seen, never counted
device "hitchbench input TEST" keyboard waitfile "$T/own-go" press KEY_A press KEY_A waitfile "$T/own-done"
own=$dev_pid onode=$node
wait_until "the harness's device's DEVADD" lines 1 \
	"^- +[0-9]+\.[0-9]{3} DEVADD $onode \"hitchbench input TEST\" \(the harness's own input device\)$"
touch "$T/own-go"
wait_until "the harness's device's presses" lines 2 \
	"^- +[0-9]+\.[0-9]{3} key dev=\"hitchbench input TEST\" key press \(the harness's own input device\)$"
touch "$T/own-done"
ended "the harness's device" "$own"
wait_until "the harness's device's DEVREMOVE" lines 1 \
	"^- +[0-9]+\.[0-9]{3} DEVREMOVE $onode \"hitchbench input TEST\" \(the harness's own input device\)$"

# (c) the mouse bumped: 30 moves of 8 counts 10 ms apart, about 0.29 s
touch "$T/wiggle"
wait_until "the mouse's bump" lines 1 \
	'^- +[0-9]+\.[0-9]{3} bump dev="t1120 mouse" mouse motion [01]\.[0-9]{2} s, 240 counts \(a bump: under 2 s and 1500 counts in 10 s\)$'

kill -TERM "$w"
w_rc=0
wait "$w" || w_rc=$?
forget "$w"
touch "$T/end"
ended mouse "$mouse"
expect_eq "the watcher's exit (something counted)" 3 "$w_rc"

# What counted: the keyboard's 3 presses, its coming and its going, and
# nothing else of these devices. Anything else on the machine (a process,
# a login) comes after the devices in the summary and is tolerated.
grep -qE '^# summary interfered=1: 3 key presses, 2 device change\(s\)(, .*)?$' "$LOG" ||
	{ show; fail "the summary is not '3 key presses, 2 device change(s)'"; }
grep -q '^interference: 3 key presses, 2 device change(s)' "$T/w.err" || fail "stderr: $(cat "$T/w.err")"
lines 3 '^! .* key ' || { show; fail "not exactly 3 key lines counted"; }
lines 0 '^! .*dev="(t1120 mouse|hitchbench input TEST)"' || { show; fail "the mouse or the harness's device counted"; }
lines 0 '^! .* (DEVICE|DEVADD|DEVREMOVE) .*"(t1120 mouse|hitchbench input TEST)"' ||
	{ show; fail "the mouse or the harness's device counted as a device change"; }
lines 5 '^! .*"t1120 keyboard"' || { show; fail "the keyboard's '!' lines are not its DEVADD, 3 presses, DEVREMOVE"; }
# No key named: no KEY_ anywhere, and no 30 (KEY_A's code) in the lines of
# the two keyboards once their time stamp, which may hold one, is cut off.
lines 0 'KEY_' || { show; fail "a key's name is in the log"; }
if grep -E '"(t1120 keyboard|hitchbench input TEST)"' "$LOG" | sed -E 's/^[!-] +[0-9]+\.[0-9]{3} //' |
	grep -wE '30'; then
	show
	fail "the key's code is in the log"
fi
grep -q '^# self cpu=' "$LOG" || fail "no self cost line"

# A pad there before a watch that ends by itself (--duration): listed as
# watched; its stick out past a quarter of the range and back counts once.
LOG="$T/p.log"
device "t1120 pad" pad waitfile "$T/pad-go" stick ABS_X 30000 wait 50 stick ABS_X 0 waitfile "$T/pad-end"
pad=$dev_pid pnode=$node
"$W" --log "$LOG" --run-root $$ --duration 4 --ready "$T/p.ready" 2>/dev/null &
w=$!
started="$started $w"
wait_until "the second watcher's ready file" test -e "$T/p.ready"
lines 1 "^- +[0-9]+\.[0-9]{3} DEVICE $pnode \"t1120 pad\" watched$" ||
	{ show; fail "the pad there before the watch is not listed as watched"; }
touch "$T/pad-go"
wait_until "the stick's throw" lines 1 \
	'^! +[0-9]+\.[0-9]{3} stick dev="t1120 pad" stick ABS_X left rest \(quarter of range\)$'
w_rc=0
wait "$w" || w_rc=$?
forget "$w"
touch "$T/pad-end"
ended pad "$pad"
expect_eq "the second watcher's exit" 3 "$w_rc"
lines 1 '^! .*dev="t1120 pad"' || { show; fail "the pad counted more than once"; }
grep -qE '^# summary interfered=1: 1 stick moves(, .*)?$' "$LOG" || { show; fail "the summary is not '1 stick moves'"; }
exit 0
