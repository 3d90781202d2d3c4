#!/bin/sh
# The chocolate-doom recipe for real: Freedoom 2's DEMO2 as a timedemo
# under a fresh Xvfb, as the unprivileged user, with a short window (its
# default variant, SDL's accelerated renderer on llvmpipe). Frames at a
# plausible rate, the demo actually playing, the run ended by its window
# as the recipe declares (end = window), nothing of the game left running.
. "$(dirname "$0")/../lib.sh"
recipe_smoke chocolate-doom
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/chocolate-doom ] || skip "chocolate-doom is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/doom/freedoom2.wad ] || skip "freedoom is not installed (sh scripts/deps.sh ensure)"

rc=0
"$HB" run --no-quieting --no-db "$HB_SRCDIR/recipes/chocolate-doom.ini" --warmup 2 --window 8 \
	--out "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
rundir=$(run_dirs "$T/runs" | tail -n 1)
[ -n "$rundir" ] || fail "no run directory"
case $rundir in *-chocolate-doom-accel-1280x960) ;; *) fail "not the default variant: $rundir" ;; esac
for f in bench.txt frames.bin game.log result.txt prepare.log xserver.log; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
b=$rundir/bench.txt
expect_eq status ok "$(value status "$b")"
expect_eq "frame source" hook "$(value frame_source "$b")"
# the recipe declares end = window: the runner, not the game, ended the run
expect_eq end window "$(value end "$b")"
expect_eq end_reason window "$(value end_reason "$b")"
case $(value pass.1.end "$b") in
*"tree terminated"*|*"tree killed"*) ;;
*) fail "the game was not stopped by the runner: $(value pass.1.end "$b")" ;;
esac
[ "$(value user "$b")" != root ] || fail "the game ran as root"
[ -n "$(value package.chocolate-doom "$b")" ] || fail "no package version"
[ "$(value package.chocolate-doom "$b")" != not-installed ] || fail "chocolate-doom recorded as not installed"
# the demo was found and played, as Doom 1.9 (the demo's version byte)
grep -q "Playing demo demo2.lmp" "$rundir/game.log" || fail "the demo was not played"
grep -q "Emulating the behavior of the 'Doom 1.9' executable" "$rundir/game.log" ||
	fail "chocolate-doom did not emulate Doom 1.9"
fps=$(value fps "$rundir/result.txt")
# llvmpipe on 2 cores draws this demo at 40-110 fps; a broken hook gives 0
awk "BEGIN { exit !($fps >= 5 && $fps <= 2000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 40) }" || fail "too few frames: $frames"
if pgrep -u "$(value user "$b")" -x chocolate-doom >/dev/null; then
	pgrep -u "$(value user "$b")" -ax chocolate-doom >&2
	fail "a chocolate-doom process was left running"
fi
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
