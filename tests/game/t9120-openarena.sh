#!/bin/sh
# The OpenArena recipe for real: the demo Debian ships, played as a
# timedemo by the opengl1 renderer under a fresh Xvfb, as the unprivileged
# user, with a short window. The demo loaded (not the menu after a failed
# load), frames at a plausible rate, the run ended by its window as the
# recipe declares, the reload rule found its line, nothing of the game left.
. "$(dirname "$0")/../lib.sh"
recipe_smoke openarena
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/openarena ] && [ -x /usr/lib/ioquake3/ioquake3 ] ||
	skip "openarena is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/openarena/baseoa/pak6-patch088.pk3 ] ||
	skip "openarena-088-data is not installed: no demo088-test1 (sh scripts/deps.sh ensure)"

rc=0
"$HB" run --no-quieting openarena opengl1 --warmup 2 --window 8 --out "$T/runs" --no-db >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-openarena-opengl1)
for f in bench.txt frames.bin game.log result.txt xserver.log; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
b=$rundir/bench.txt
expect_eq status ok "$(value status "$b")"
expect_eq "end (the recipe's)" window "$(value end "$b")"
expect_eq end_reason window "$(value end_reason "$b")"
[ "$(value user "$b")" != root ] || fail "the game ran as root"
[ -n "$(value package.openarena-088-data "$b")" ] || fail "no package version"
# the demo itself, not the menu ioquake3 falls back to when a load fails
grep -q 'Demo file: demos/demo088-test1.dm_71' "$rundir/game.log" || fail "the demo was not started"
grep -q 'Com_TouchMemory:' "$rundir/game.log" || fail "the demo's map never finished loading"
grep -q 'ERROR' "$rundir/game.log" && fail "the game reported an error: $(grep ERROR "$rundir/game.log" | head -n 1)"
fps=$(value fps "$rundir/result.txt")
# llvmpipe drew 3-10 fps here with five other games on the 2 cores (far
# more alone); a hook that sees nothing gives 0
awk "BEGIN { exit !($fps >= 1 && $fps <= 2000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 8) }" || fail "too few frames: $frames"
# gamedb/openarena/analysis.ini's line came in the window's pass
rel=$(value reload_n "$rundir/result.txt")
awk "BEGIN { exit !($rel == 1) }" || fail "reload segments in the window: $rel, expected 1"
user=$(value user "$b")
pgrep -u "$user" -x ioquake3 >/dev/null && fail "an ioquake3 of the game's user is left running"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
