#!/bin/sh
# A recipe's [input] play, in the parts that need no uinput (t1221 plays
# for real where /dev/uinput exists): hitchbench-input --dry-run reads
# every real recording of the repo that has events with libevemu (alone,
# or as its description and its events) and plans the device it would
# make, named as the harness's, with the recorded ids and as many events
# as the file's E: lines; a recording libevemu would misread is refused
# by line; and hitchbench run refuses a recipe whose play is missing, not
# a recording or given as a step, with file:line and exit 2, and plans
# one whose steps and plays mix.
. "$(dirname "$0")/../lib.sh"
IN="$HB_BUILD/hitchbench-input"
E="$HB_TESTDATA/evemu"
[ -x "$IN" ] || fail "no $IN"

# plan DESC EVENTS: the dry run of one play (DESC empty: EVENTS is the
# whole recording) plans the device with the recording's name, ids and
# events, read by libevemu
plan() {
	if [ -n "$1" ]; then
		step="play $E/$1 $E/$2"
		desc=$E/$1
	else
		step="play $E/$2"
		desc=$E/$2
	fi
	rc=0
	"$IN" --dry-run --name "hitchbench input t1220" -- "wait 1" "$step" >"$T/plan" 2>"$T/plan.err" || rc=$?
	expect_eq "$2: dry run's exit" 0 "$rc"
	name=$(sed -n 's/^N: //p' "$desc" | tr -d '\r')
	ids=$(sed -n 's/^I: \([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]*\).*/bus \1 vendor \2 product \3 version \4/p' "$desc")
	n=$(grep -c '^E:' "$E/$2")
	line=$(sed -n 3p "$T/plan")
	want="2	$step	plan: device \"hitchbench input t1220 play 2\" as recorded \"$name\" ($ids), $n events over "
	case $line in
	"$want"*" s (read by libevemu)") ;;
	*) fail "$2: the plan is not '$want... s (read by libevemu)': '$line' $(cat "$T/plan.err")" ;;
	esac
	head -n 1 "$T/plan" | grep -qx '# hitchbench-input 1 driver=xtest steps=2 dry-run' ||
		fail "no dry-run header: $(head -n 1 "$T/plan")"
	grep -qx '1	wait 1	plan' "$T/plan" || fail "the wait is not planned"
	grep -qx '# end planned=2 of 2' "$T/plan" || fail "no end line: $(cat "$T/plan")"
}

plan "" evemu-devices_madcatz_xbox360_gamepad.events
plan "" evemu-devices_lenovo_compact_keyboard.events
plan "" evemu-devices_logitech_k400plus_keyboard.events
plan "" evemu-devices_logitech_ultrathin_touch_mouse.events
plan "" evemu-repo_wetab_touchscreen_evemu1.1.event
plan evemu-devices_nintendo_wiimote.desc evemu-devices_nintendo_wiimote.events
plan evemu-devices_ps2_generic_mouse.desc evemu-devices_ps2_generic_mouse.events
plan evemu-devices_saitek_rat5_mouse.desc evemu-devices_saitek_rat5_mouse.events
plan evemu-devices_ibm_scrollpoint_mouse.desc evemu-devices_ibm_scrollpoint_mouse.scroll.events
plan chromiumos-autotest_keyboard.prop chromiumos-autotest_keyboard_b+a+d+enter
plan chromiumos-autotest_keyboard.prop chromiumos-autotest_keyboard_ctrl+shift+c
plan chromiumos-autotest_mouse.prop chromiumos-autotest_mouse_center_cursor_gesture
plan chromiumos-autotest_platform_MouseScrollTest_mouse.prop chromiumos-autotest_platform_MouseScrollTest_mouse_event

# the plan names no key: counts and times only
"$IN" --dry-run -- "play $E/chromiumos-autotest_keyboard.prop $E/chromiumos-autotest_keyboard_b+a+d+enter" >"$T/keys" 2>&1 ||
	fail "dry run: $(cat "$T/keys")"
if grep -E 'KEY_|EV_KEY' "$T/keys"; then
	fail "the plan names a key"
fi

# a recording libevemu would misread: refused by line, exit 2
sed '/^E:/q' "$E/evemu-devices_logitech_k400plus_keyboard.events" >"$T/cut.evemu"
echo 'P: 00 00 00 00 00 00 00 00' >>"$T/cut.evemu"
last=$(wc -l <"$T/cut.evemu")
rc=0
"$IN" --dry-run -- "play $T/cut.evemu" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "a misordered recording's exit" 2 "$rc"
grep -qF "hitchbench-input: step 1 'play $T/cut.evemu': $T/cut.evemu:$last: a 'P:' line after the 'E:' lines" "$T/err" ||
	fail "no line-numbered error: $(cat "$T/err")"

# recipes through hitchbench run: a bad play stops the run before anything
# starts (exit 2, file:line); steps and plays mixed plan (exit 0)
mkdir -p "$T/r/rec"
cp "$E/evemu-devices_madcatz_xbox360_gamepad.events" "$T/r/rec/pad.evemu"
cp "$E/evemu-devices_sony_ps3_controller.desc" "$T/r/rec/ps3.desc"
recipe() {
	name=$1
	shift
	printf '[recipe]\nname = %s\ncommand = /bin/true\n[input]\n' "$name" >"$T/r/$name.ini"
	for line in "$@"; do
		echo "$line" >>"$T/r/$name.ini"
	done
}
refused() {
	rc=0
	"$HB" run "$T/r/$1.ini" --plan --no-db --no-quieting --out "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$1: exit" 2 "$rc"
	grep -qF "$2" "$T/err" || fail "$1: not '$2': $(cat "$T/err")"
	[ ! -d "$T/runs" ] || fail "$1: a run directory was made"
}
recipe missing "step = wait 1" "play = rec/nope.evemu"
refused missing "$T/r/missing.ini:6: cannot read '$T/r/rec/nope.evemu': No such file or directory"
recipe noevents "play = rec/ps3.desc"
refused noevents "$T/r/noevents.ini:5: $T/r/rec/ps3.desc: no events (E: lines): nothing to play"
recipe asstep "step = play rec/pad.evemu"
refused asstep "$T/r/asstep.ini:5: a recording is played with 'play = FILE' (relative to the recipe), not 'step = play'"
recipe mixed "step = wait 1" "play = rec/pad.evemu" "step = key Escape"
rc=0
"$HB" run "$T/r/mixed.ini" --plan --no-db --no-quieting --out "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "a recipe mixing steps and a play, planned" 0 "$rc"
exit 0
