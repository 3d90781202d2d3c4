#!/bin/sh
# lane: alone (the stalls it attributes are CPU stalls: another test's load beside it turns a compile into a run-queue wait)
# timing: the two frames on cue must be the window's stalls, on a machine that may be busy
# quick: no (two runs of a real GL game, about 30 s)
# The profile recorder (PROFILE=1) beside a game that renders through real
# GL (tests/tools/glgame.c, llvmpipe): the GLSL program it compiles before
# frame 45 and the 250 ms it spins in glgame_busy_named_loop before frame
# 90 are the window's stalls, and `hitchbench profile` says the first was
# LLVM compiling a shader ("shader compile") and the second the game's own
# function, by name; the stall table's CPU stalls say the same, the report
# has stall_cpu_what, the folded stacks, JSON and pictures read. A flip run
# (PROFILE between 1 and 0 while the game plays) pauses the recorder and
# says so in its record. A run without a record, and bad arguments, are
# refused. The record's reading is unit-tested on a recorded run
# (tests/unit/test-profile.c) for machines where this cannot run.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "the recorder opens perf events on another user's threads: needs root"
need_game_user
glgame_setup
cat >"$T/glgame.ini" <<EOF
[recipe]
name = glgame
command = $T/game/glgame --fps 30 --compile-at 45 --busy-at 90:250
warmup = 1
window = 4
screen = 640x480x24
stop_grace = 1
EOF
rc=0
"$HB" run --no-quieting --out "$T/runs" --no-db "$T/glgame.ini" base --switches "STALLS=1+PROFILE=1+INTF=0" \
	>"$T/out" 2>"$T/err" || rc=$?
rundir=$(run_dirs "$T/runs" | tail -n 1)
[ -n "$rundir" ] || fail "no run directory: $(cat "$T/err")"
b=$rundir/bench.txt
if value profile "$b" | grep -q "failed" && grep -q "perf_event_open" "$rundir/profrec.log"; then
	skip "no perf events here: $(grep perf_event_open "$rundir/profrec.log")"
fi
expect_eq "exit status ($(value status_detail "$b"))" 0 "$rc"
expect_eq "run name" "base@rec10+prof+nointf" "$(value run_name "$b")"
value profile "$b" | grep -Eq '^[0-9]+ samples, [0-9]+ threads, [0-9]+ stacks, 0 lost; the recorder [0-9.]+% of one CPU, [0-9]+ ns a sample$' ||
	fail "bench.txt profile: '$(value profile "$b")'"
expect_eq "profile_record" profile.rec.zst "$(value profile_record "$b")"
grep -q "profrec: .* samples" "$T/err" || fail "the run did not say what the recorder cost"
[ ! -e "$(value stage_dir "$b" 2>/dev/null)/profile.live" ] || fail "the live record was left"

# per stall frame: the compile is LLVM's, the spin the game's named function
"$HB" profile --top 4 "$rundir" >"$T/prof" 2>"$T/prof.err" || fail "profile failed: $(cat "$T/prof.err")"
# (a busy machine may add a stall of its own: the two on cue are checked by name)
grep -Eq '^  window: [0-9]+ frames, ([2-9]|[1-9][0-9]+) stalls over 100 ms' "$T/prof" || fail "not 2 stalls: $(cat "$T/prof")"
grep -Eq '^  frame 45 stall .*: [0-9]+ samples, [0-9]+ ms of CPU: shader compile [0-9]+%' "$T/prof" ||
	fail "frame 45 is not a shader compile first: $(grep 'frame 45' "$T/prof")"
grep -Eq '^  frame 90 stall .*: game (9[0-9]|100)%' "$T/prof" || fail "frame 90 is not the game's: $(grep 'frame 90' "$T/prof")"
awk '/^  frame 90 /{on=1; next} /^  frame |^  hottest/{on=0} on' "$T/prof" | grep -q 'glgame`glgame_busy_named_loop$' ||
	fail "frame 90 does not name the function: $(cat "$T/prof")"
awk '/^  frame 45 /{on=1; next} /^  frame |^  hottest/{on=0} on' "$T/prof" | grep -q 'libLLVM[^`]*`llvm::' ||
	fail "frame 45 names no LLVM function: $(cat "$T/prof")"
# one frame, by its present
"$HB" profile --frames 90..90 "$rundir" | grep -c '^  frame ' | grep -qx 1 || fail "--frames 90..90 is not one frame"

# the stall table's CPU stalls say what they ran; the report says it too
"$HB" stalls "$rundir" >"$T/stalls" 2>&1 || fail "stalls failed: $(cat "$T/stalls")"
grep -q 'cpu: shader compile [0-9]*%' "$T/stalls" || fail "no shader compile in the stall table: $(cat "$T/stalls")"
grep -q 'cpu: game [0-9]*% (most: glgame`glgame_busy_named_loop' "$T/stalls" ||
	fail "the busy stall names no function: $(cat "$T/stalls")"
"$HB" report --format json "$rundir" | python3 -c '
import json, sys
row = json.load(sys.stdin)["runs"][0]
w = row["stall_cpu_what"]
assert "shader compile" in w and "game" in w, w' || fail "report's stall_cpu_what"

# folded stacks, JSON, and the pictures well formed
"$HB" profile --frames all --format folded "$rundir" >"$T/folded" || fail "folded failed"
grep -Eq '(^|;)glgame`main;glgame`glgame_busy_named_loop [0-9]+$' "$T/folded" || fail "folded: $(head -5 "$T/folded")"
awk '{ n += $NF } END { exit !(n > 200) }' "$T/folded" || fail "folded holds too few samples"
"$HB" profile --format json "$rundir" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["format"] == 1
r = d["runs"][0]
sel = {f["present"]: f for f in r["selected"]}
assert 45 in sel and 90 in sel, sorted(sel)
assert max(sel[45]["categories"], key=lambda c: sel[45]["categories"][c]["samples"]) == "shader compile"
assert sel[90]["functions"][0]["function"] == "glgame`glgame_busy_named_loop", sel[90]["functions"][0]
' || fail "profile's JSON"
for pic in "--format svg" "--format svg --picture frames" "--format svg --vs $rundir"; do
	# shellcheck disable=SC2086
	"$HB" profile $pic "$rundir" >"$T/pic.svg" || fail "profile $pic failed"
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/pic.svg" ||
		fail "profile $pic: not well-formed SVG"
done

# refusals
rc=0
"$HB" profile --frames 9..1 "$rundir" >/dev/null 2>"$T/e" || rc=$?
expect_eq "--frames 9..1 refused" 2 "$rc"
mkdir -p "$T/plain"
cp "$b" "$rundir/frames.bin" "$T/plain/"
rc=0
"$HB" profile "$T/plain" >/dev/null 2>"$T/e" || rc=$?
expect_eq "a run without a record" 1 "$rc"
grep -q "no profile record (profile.rec.zst): make runs with PROFILE=1" "$T/e" || fail "no reason: $(cat "$T/e")"

# a flip run: the recorder paused on the side without it, and said so
rm -rf "$T/runs"
rc=0
"$HB" run --no-quieting --out "$T/runs" --no-db "$T/glgame.ini" base --switches "PROFILE=1+INTF=0" \
	--flip "PROFILE=0+INTF=0" >"$T/out" 2>"$T/err" || rc=$?
rundir=$(run_dirs "$T/runs" | tail -n 1)
expect_eq "flip run exit status ($(tail -3 "$T/err"))" 0 "$rc"
# one pause for each switch to B (PROFILE=0): how many there are depends on
# the seeded order of the AB and BA pairs (ABBA... merges two B segments)
# (a line is written at every segment, its side changed or not)
to_b=$(awk '/^flip=/ { if ($3 == "B" && prev != "B") n++; prev = $3 } END { print n + 0 }' "$rundir/flip.txt")
[ "$to_b" -ge 1 ] || fail "the flip run never switched to B: $(grep '^flip=' "$rundir/flip.txt")"
pauses=$(zstdcat "$rundir/profile.rec.zst" | grep -c '^pause	') || true
expect_eq "the recorder's pauses against the switches to B ($(grep -E '^(plan|flip)=' "$rundir/flip.txt" | tr '\n' ' '))" \
	"$to_b" "$pauses"
exit 0
