#!/bin/sh
# hitchbench interference-scan on the hand-made runs of
# tests/fixtures/intfscan (one clean, one with X server evidence, one with
# kernel evidence, one with a fixture game's player actions): the suspects
# and their evidence, the exit codes, --write appending each suspect once
# (a second --write adds nothing), and report then leaving them out.
. "$(dirname "$0")/../lib.sh"

FIX="$HB_FIXTURES/intfscan"
REC="$HB_FIXTURES/runs/20261130T120707Z-dsda-doom-software"
clean=20261130T120707Z-fixgame-base
# the fixtures share the recorded run's clocks: its frames give them numbers
cp -r "$FIX/runs" "$T/runs"
for d in "$T"/runs/*/; do
	cp "$REC/frames.bin" "$d"
done
scan() {
	rc=0
	"$HB" interference-scan --gamedb "$FIX/gamedb" "$@" >"$T/out" 2>"$T/err" || rc=$?
}

# the suspects, one line each with their evidence under it
scan --interfered "$T/none.txt" "$T/runs"
expect_eq "suspects found" 5 "$rc"
[ "$(grep -c ': suspect, ' "$T/out")" = 3 ] || fail "expected 3 suspects: $(cat "$T/out")"
! grep -q "^$clean:" "$T/out" || fail "the clean run is a suspect: $(cat "$T/out")"
grep -q "^  Xorg.0.log:6: VT switch away x4 at 2.9 s (window): (II) systemd-logind: got pause for 13:64\$" "$T/out" ||
	fail "VT switch: $(cat "$T/out")"
grep -q "^  Xorg.0.log:12: input device added 'Logitech USB Receiver' at 7.7 s (window): " "$T/out" ||
	fail "input device: $(cat "$T/out")"
grep -q "^  kernel.log:3: USB connect '1-2' at 1.3 s (warm-up): usb 1-2: new full-speed USB device number 3 using xhci_hcd\$" "$T/out" ||
	fail "USB connect: $(cat "$T/out")"
grep -q "^  kernel.log:11: Bluetooth HID device 'Xbox Wireless Controller' at 4.6 s (window): " "$T/out" ||
	fail "Bluetooth: $(cat "$T/out")"
grep -q "^  game.log:3: player action '^singleplayer digs' x3 at 1.0-1.7 s (warm-up): singleplayer digs" "$T/out" ||
	fail "player action: $(cat "$T/out")"
grep -q "^# scanned 4 runs: 3 suspects\$" "$T/out" || fail "summary: $(cat "$T/out")"
grep -q "^# left out: 4 lines of the harness's own input devices" "$T/out" || fail "exempt count: $(cat "$T/out")"
[ ! -e "$T/none.txt" ] || fail "a scan without --write wrote the interfered file"

# a clean run alone: exit 0, no suspect line
scan --interfered "$T/none.txt" "$T/runs/$clean"
expect_eq "clean run" 0 "$rc"
! grep -q ': suspect, ' "$T/out" || fail "clean run listed: $(cat "$T/out")"

# bad usage and bad input: 2, nothing written
scan
expect_eq "no run directory" 2 "$rc"
scan --interfered "$T/i.txt" "$T/nowhere"
expect_eq "not a run directory" 2 "$rc"
printf 'lonely\n' >"$T/bad.txt"
scan --interfered "$T/bad.txt" "$T/runs"
expect_eq "bad interfered file" 2 "$rc"
grep -q "$T/bad.txt:1: no reason given for 'lonely'" "$T/err" || fail "bad file message: $(cat "$T/err")"
mkdir -p "$T/gamedb/fixgame"
printf 'action = ^singleplayer digs\n' >"$T/gamedb/fixgame/interference.ini"
rc=0
"$HB" interference-scan --write --gamedb "$T/gamedb" --interfered "$T/i.txt" "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "bad interference.ini" 2 "$rc"
grep -q "$T/gamedb/fixgame/interference.ini:1: the action has no 'why'" "$T/err" ||
	fail "bad interference.ini message: $(cat "$T/err")"
[ ! -e "$T/i.txt" ] || fail "a refused scan wrote the interfered file"

# report before: the four runs in one group
"$HB" report --interfered /dev/null "$T/runs" >"$T/table" || fail "report failed"
grep -q '^median fixgame base (n=4) ' "$T/table" || fail "report before: $(cat "$T/table")"

# --write (to the default file under HITCHBENCH_RESULTS): each suspect once,
# the run named twice (itself and in its directory) added once
mkdir -p "$T/results"
printf '# kept\nsomeone-else  a backup ran' >"$T/results/interfered.txt"
rc=0
HITCHBENCH_RESULTS="$T/results" "$HB" interference-scan --write --gamedb "$FIX/gamedb" "$T/runs" \
	"$T/runs/$clean-2" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "--write" 5 "$rc"
grep -q "^# --write: 3 runs added to $T/results/interfered.txt, 0 already listed there\$" "$T/out" ||
	fail "--write summary: $(cat "$T/out")"
expect_eq "kept lines" "# kept" "$(head -n 1 "$T/results/interfered.txt")"
expect_eq "the last line without a newline kept" "someone-else  a backup ran" "$(sed -n 2p "$T/results/interfered.txt")"
[ "$(grep -c 'interference-scan: ' "$T/results/interfered.txt")" = 3 ] ||
	fail "expected 3 entries: $(cat "$T/results/interfered.txt")"
grep -q "^$clean-4  interference-scan: game.log: player action '^singleplayer digs' x3 at 1.0-1.7 s (warm-up), player action '^singleplayer (activates|places)' at 4.8 s (window)\$" \
	"$T/results/interfered.txt" || fail "entry: $(cat "$T/results/interfered.txt")"
cp "$T/results/interfered.txt" "$T/after1"

# a second --write adds nothing; the suspects say where they are listed
rc=0
HITCHBENCH_RESULTS="$T/results" "$HB" interference-scan --write --gamedb "$FIX/gamedb" "$T/runs" \
	>"$T/out" 2>"$T/err" || rc=$?
expect_eq "second --write" 5 "$rc"
cmp -s "$T/after1" "$T/results/interfered.txt" || fail "the second --write changed the file"
grep -q "^# --write: 0 runs added to $T/results/interfered.txt, 3 already listed there\$" "$T/out" ||
	fail "second --write summary: $(cat "$T/out")"
grep -q "^$clean-3: suspect, .*; already listed: $T/results/interfered.txt:4: interference-scan: kernel.log: " "$T/out" ||
	fail "already listed: $(cat "$T/out")"

# report: the three are left out, named with the evidence
HITCHBENCH_RESULTS="$T/results" "$HB" report "$T/runs" >"$T/table" || fail "report after failed"
grep -q '^median fixgame base (n=1) ' "$T/table" || fail "report after: $(cat "$T/table")"
grep -q "^excluded $clean-2: $T/results/interfered.txt:3: interference-scan: Xorg.0.log: VT switch away x4 at 2.9 s (window)" "$T/table" ||
	fail "excluded line: $(cat "$T/table")"
[ "$(grep -c '^excluded ' "$T/table")" = 3 ] || fail "expected 3 excluded: $(cat "$T/table")"
exit 0
