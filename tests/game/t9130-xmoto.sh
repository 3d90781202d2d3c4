#!/bin/sh
# The X-Moto recipe for real: the prepare steps unpack the credits replay
# from xmoto-data's xmoto.bin and build xmoto's database, then xmoto
# replays it with --timedemo under a fresh Xvfb, as the unprivileged user,
# with a short window. The ride lasts about 150 s, so the window (not the
# game) ends the run: end_reason=window, one pass. Frames at a plausible
# rate, the replay found (not a menu), nothing of the game left running.
. "$(dirname "$0")/../lib.sh"
recipe_smoke xmoto
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/xmoto ] || skip "xmoto is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/xmoto/xmoto.bin ] || skip "xmoto-data is not installed (sh scripts/deps.sh ensure)"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed (the recipe's prepare step needs it)"

rc=0
"$HB" run --no-quieting --no-db --out "$T/runs" "$HB_SRCDIR/recipes/xmoto.ini" low \
	--warmup 2 --window 8 >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
expect_eq "exit status" 0 "$rc"
rundir=$(run_dirs "$T/runs" | tail -n 1)
[ -n "$rundir" ] || fail "no run directory"
for f in bench.txt frames.bin game.log result.txt prepare.log; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
expect_eq status ok "$(value status "$rundir/bench.txt")"
[ "$(value user "$rundir/bench.txt")" != root ] || fail "the game ran as root"
[ "$(value package.xmoto "$rundir/bench.txt")" != not-installed ] || fail "no xmoto version recorded"
# the recipe's end: the window, with the ride still going (no relaunch)
expect_eq end_reason window "$(value end_reason "$rundir/bench.txt")"
expect_eq passes 1 "$(value passes "$rundir/bench.txt")"
# prepare found the replay in the profile (xmoto printed its level)
grep -q "Level Id *: 4elitethewayofgod" "$rundir/prepare.log" ||
	fail "prepare did not find the credits replay: $(tail -n 5 "$rundir/prepare.log")"
fps=$(value fps "$rundir/result.txt")
# llvmpipe on 2 cores draws the replay at 10-60 fps; a broken hook, or a
# menu waiting for a key, gives 0 or the menu's capped rate over a few frames
awk "BEGIN { exit !($fps >= 5 && $fps <= 2000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 40) }" || fail "too few frames: $frames"
user=$(value user "$rundir/bench.txt")
pgrep -u "$user" -x xmoto >/dev/null && fail "xmoto is left running"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
