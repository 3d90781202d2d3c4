#!/bin/sh
# cpu: heavy, about 9 s (glgame on llvmpipe: a shader compiled and a CPU loop spun on cue)
# timing: the two frames on cue must be the run's longest, on a machine that may be busy
# The runner on a game that renders through real GL (tests/tools/glgame.c,
# llvmpipe on the run's own Xvfb): the frame hook records each
# glXSwapBuffers, and the frames the game made long on cue, a GLSL program
# compiled and linked before frame 60's draw and 250 ms of CPU spun before
# frame 100's, are the two longest of the run, at the indices the game
# named (its frame N is the frame ending at present N, the Nth data row of
# `hitchbench frames`). Each is at least as long as what the game said it
# spent in it; the compile is also checked to take more than one frame.
. "$(dirname "$0")/../lib.sh"
need_game_user
# 1. GLX on an Xvfb here, or a skip with glgame's reason
glgame_setup

# 2. through the runner, on its own Xvfb (INTF=0: what is checked is the
# frames, not a watcher that this shared machine may trip)
cat >"$T/glgame.ini" <<EOF
[recipe]
name = glgame
command = $T/game/glgame --fps 30 --compile-at 60 --busy-at 100:250
warmup = 0
window = 6
screen = 640x480x24
stop_grace = 1
EOF
rc=0
"$HB" run --no-quieting --out "$T/runs" --no-db "$T/glgame.ini" base --switches INTF=0 >"$T/out" 2>"$T/err" || rc=$?
rundir=$(run_dirs "$T/runs" | tail -n 1)
[ -n "$rundir" ] || fail "no run directory: $(cat "$T/err")"
expect_eq "exit status ($(value status_detail "$rundir/bench.txt"))" 0 "$rc"
expect_eq "status" ok "$(value status "$rundir/bench.txt")"
expect_eq "frames_api" opengl "$(value frames_api "$rundir/bench.txt")"
# the run's X server is the game's to talk to: it runs as the game's user,
# never as root (docs/security.md)
user=$(value user "$rundir/bench.txt")
value display "$rundir/bench.txt" | grep -Eq "^:[0-9]+ \(Xvfb, started by the run, as $user\)$" ||
	fail "display: $(value display "$rundir/bench.txt")"
[ "$(id -u)" != 0 ] || [ "$user" != root ] || fail "the game and its X server ran as root"
value window_sources "$rundir/bench.txt" | grep -Eq '^glXSwapBuffers [0-9]+$' ||
	fail "window_sources: $(value window_sources "$rundir/bench.txt")"

# what the game said it did, and how long the compile took it
cut -f 2- "$rundir/game.log" >"$T/said"
grep -qx "busy 100 250 ms" "$T/said" || fail "the game did not spin at frame 100: $(cat "$T/said")"
compile_ms=$(sed -n 's/^compiled 60 \([0-9]*\) ms$/\1/p' "$T/said")
[ -n "$compile_ms" ] || fail "the game did not compile at frame 60: $(cat "$T/said")"

# every frame as INDEX MS (the Nth data row ends at present N), longest first
"$HB" frames "$rundir" >"$T/frames" || fail "frames $rundir failed"
grep -v '^#' "$T/frames" | awk -F'\t' 'NR > 1 { print NR - 1, $2 }' | sort -k2,2 -g -r >"$T/longest"
[ "$(wc -l <"$T/longest")" -ge 120 ] || fail "only $(wc -l <"$T/longest") frames recorded"
expect_eq "the two longest frames" "60 100" "$(head -n 2 "$T/longest" | cut -d' ' -f1 | sort -n | tr '\n' ' ' | sed 's/ $//')"
compile_frame=$(awk '$1 == 60 { print $2 }' "$T/longest")
busy_frame=$(awk '$1 == 100 { print $2 }' "$T/longest")
echo "frame 60 (compile, ${compile_ms} ms said): $compile_frame ms; frame 100 (busy 250 ms): $busy_frame ms;" \
	"next longest: $(sed -n 3p "$T/longest")" >&2
# a frame holds all the work done before its present: never shorter
awk -v f="$busy_frame" 'BEGIN { exit !(f >= 250) }' || fail "frame 100 is $busy_frame ms, under its 250 ms spin"
awk -v f="$compile_frame" -v c="$compile_ms" 'BEGIN { exit !(f >= c) }' ||
	fail "frame 60 is $compile_frame ms, under the $compile_ms ms the compile took"
# more than one frame at 30 fps: the shader is heavy enough to be a hitch
[ "$compile_ms" -gt 34 ] || fail "the compile took $compile_ms ms, not more than a frame: make the shader heavier"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
pgrep -f "$T/game/glgame" >/dev/null && fail "glgame was left running"
exit 0
