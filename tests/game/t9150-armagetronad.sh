#!/bin/sh
# The Armagetron Advanced recipe end to end under a fresh Xvfb, with a short
# window: [input] clicks through the menu into a local game of AIs, the hook
# times the game's presents, the run ends with the window and the game is
# stopped. A run that never left the menu also has frames, so the test
# checks in game.log that a round started before the window did.
. "$(dirname "$0")/../lib.sh"
recipe_smoke armagetronad
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/armagetronad.real ] || skip "armagetronad is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/armagetronad/language/languages.txt ] ||
	skip "armagetronad-common is not installed (sh scripts/deps.sh ensure)"
command -v stdbuf >/dev/null || skip "stdbuf (coreutils) is not on the PATH"

# the warm-up covers the menu and the first round's start (about 11-13 s
# after the first frame here, gamedb/armagetronad/README.md)
rc=0
"$HB" run --no-quieting --no-db "$HB_SRCDIR/recipes/armagetronad.ini" low --warmup 15 --window 8 \
	--out "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-armagetronad-low)
for f in bench.txt frames.bin game.log result.txt input.log; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
b=$rundir/bench.txt
expect_eq status ok "$(value status "$b")"
expect_eq end_reason window "$(value end_reason "$b")"
expect_eq input "8 of 8 steps played (xtest)" "$(value input "$b")"
[ "$(value user "$b")" != root ] || fail "the game ran as root"
[ "$(value package.armagetronad "$b")" != not-installed ] || fail "no package version"

# the game's first NEW_ROUND line (the ladder log on stdout) comes before
# the window: the window measured a game, not the menu
first_ns=$(value first_frame_ns "$b")
win_ns=$(value window_start_ns "$b")
round=$(awk -F'\t' '$2 ~ /^\[L\] NEW_ROUND/ { print $1; exit }' "$rundir/game.log")
[ -n "$round" ] || fail "no round started (game.log has no '[L] NEW_ROUND'): the menu input missed"
awk "BEGIN { exit !($round * 1e9 < $win_ns) }" ||
	fail "the first round started at $round s, after the window's start ($win_ns ns)"
echo "first round $(awk "BEGIN { printf \"%.1f\", $round - $first_ns / 1e9 }") s after the first frame"

fps=$(value fps "$rundir/result.txt")
# llvmpipe on 2 cores draws the low variant at 30-60 fps here; a broken hook gives 0
awk "BEGIN { exit !($fps >= 5 && $fps <= 2000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 40) }" || fail "too few frames: $frames"

user=$(value user "$b")
if pgrep -u "$user" -f armagetronad.real >/dev/null; then
	pgrep -a -u "$user" -f armagetronad.real >&2
	fail "the game is left running"
fi
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
