#!/bin/sh
# The minetest recipe as shipped: Minetest Game under a fresh Xvfb, as the
# unprivileged user, flying hbflight's scripted path over the fixed-seed
# world, with a short window. The flight started, frames at a plausible
# rate, the run ended as the recipe declares (the window: the flight
# outlasts it), the analysis found the join line its reload rule rests on,
# the interference scan reads the game's log and finds no player action,
# and nothing of the game is left running.
. "$(dirname "$0")/../lib.sh"
recipe_smoke minetest
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/minetest ] || skip "minetest is not installed (apt-get install minetest)"
[ -r /usr/share/games/minetest/games/minetest_game/game.conf ] ||
	skip "Minetest Game is not installed (it ships in minetest-data)"

rc=0
"$HB" run --no-quieting minetest --warmup 2 --window 8 --out "$T/runs" --no-db >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-minetest-shaders)
for f in bench.txt frames.bin game.log result.txt prepare.log; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
expect_eq status ok "$(value status "$rundir/bench.txt")"
[ "$(value user "$rundir/bench.txt")" != root ] || fail "the game ran as root"
[ -n "$(value package.minetest "$rundir/bench.txt")" ] || fail "no package version of minetest"
[ -n "$(value package.minetest-data "$rundir/bench.txt")" ] || fail "no package version of minetest-data"
# the world, its config and the flight mod reached the game
grep -q 'ACTION\[Server\]: hbflight: flight started at (0,50,0)' "$rundir/game.log" ||
	fail "the scripted flight never started (the world or the mod did not load)"
grep -q 'listening on 127\.0\.0\.1:' "$rundir/game.log" ||
	fail "the singleplayer server is not bound to the loopback address"
# the declared end: the window (the flight's shutdown comes 120 s after the join)
expect_eq end_reason window "$(value end_reason "$rundir/bench.txt")"
case $(value pass.1.end "$rundir/bench.txt") in
*"(tree terminated)"* | *"(tree killed)"*) ;;
*) fail "the game was not stopped by the runner: $(value pass.1.end "$rundir/bench.txt")" ;;
esac
fps=$(value fps "$rundir/result.txt")
# llvmpipe on 2 cores shared with other games drew it at 9-17 fps, the
# window holding the 1.1-1.5 s first frame after the join; a hook that
# sees no swaps gives 0
awk "BEGIN { exit !($fps >= 4 && $fps <= 2000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 30) }" || fail "too few frames: $frames"
# gamedb/minetest/analysis.ini: its line is in game.log, so the load is a
# reload segment (with a 2 s warm-up it overlaps the window)
"$HB" report --format json --include-interfered "$rundir" >"$T/report.json" 2>"$T/report.err" ||
	fail "hitchbench report failed: $(cat "$T/report.err")"
grep -q '"reload_n": 1,' "$T/report.json" || fail "the reload rule found no segment"
# gamedb/minetest/interference.ini loads, and the flight is no player
irc=0
"$HB" interference-scan "$rundir" >"$T/scan" 2>&1 || irc=$?
cat "$T/scan" >&2
expect_eq "interference-scan exit status" 0 "$irc"
grep -q 'game.log against its game.s gamedb/GAME/interference.ini in 1' "$T/scan" ||
	fail "the scan did not read game.log with gamedb/minetest/interference.ini"
user=$(value user "$rundir/bench.txt")
if pgrep -u "$user" -x minetest >/dev/null; then
	fail "a minetest process of the game's user is left running"
fi
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
