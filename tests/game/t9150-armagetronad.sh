#!/bin/sh
# cpu: heavy, about 45 s (a real game)
# timing: a real game's frames in its playback's seconds
# The Armagetron Advanced recipe end to end under a fresh Xvfb: the game
# plays back the recording the project keeps, the hook times its presents,
# the warm-up starts at the first round's NEW_ROUND line, and the game ends
# the run by exiting at the recording's end (the recipe's end = exit). The
# window asked for is longer than the playback, so the exit is what ends it.
# The recording is played to its first 45 s of game time (two rounds, about
# 40 s at the low detail here, where the whole of it takes 95 s): the cut
# ends as the game ends a recording it is stopped in, an END line and one
# more time line, so the playback exits there as it does at the whole
# recording's end.
. "$(dirname "$0")/../lib.sh"
recipe_smoke armagetronad
[ -x /usr/games/armagetronad.real ] || skip "armagetronad is not installed (sh scripts/deps.sh ensure)"
command -v stdbuf >/dev/null || skip "stdbuf (coreutils) is not on the PATH"
command -v zstd >/dev/null || skip "zstd is not installed (sh scripts/deps.sh ensure)"

# the recording cut at its first time line of second 45 ("T 45 USEC")
zstdcat "$HB_SRCDIR/gamedb/armagetronad/demo/ai-rounds.rec.zst" |
	awk '{ print } /^T 45 [0-9]+$/ { printf "END\nT 45 %d\n", $3 + 3000; exit }' >"$T/short.rec"
tail -n 2 "$T/short.rec" | head -n 1 | grep -qx END || fail "the recording has no second 45 to cut at"
zstd -q "$T/short.rec" -o "$T/short.rec.zst" || fail "zstd"
# the recipe as shipped, its data found from $T, the cut recording its own
sed -e "s|^file = ai-rounds.rec.zst .*|file = ai-rounds.rec.zst $T/short.rec.zst|" \
	-e "s|\.\./gamedb/|$HB_SRCDIR/gamedb/|g" "$RECIPE" >"$T/armagetronad.ini"
chmod -R a+rX "$T"

rc=0
"$HB" run --no-quieting --no-db "$T/armagetronad.ini" low --warmup 5 --window 300 \
	--out "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-armagetronad-low)
for f in bench.txt frames.bin game.log result.txt; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
b=$rundir/bench.txt
expect_eq status ok "$(value status "$b")"
[ "$(value user "$b")" != root ] || fail "the game ran as root"
[ "$(value package.armagetronad "$b")" != not-installed ] || fail "no package version"
[ "$(value package.zstd "$b")" != not-installed ] || fail "no zstd version"

# the game ended the run: it exited 0 by itself after its benchmark line,
# and the window was cut at its last frame
expect_eq end_reason exit "$(value end_reason "$b")"
expect_eq "pass end" "exit 0 (tree exited)" "$(value pass.1.end "$b")"
grep -qE '	[0-9]+ frames in [0-9.]+ seconds: [0-9.]+ fps\.$' "$rundir/game.log" ||
	fail "game.log lacks the playback's 'N frames in S seconds' line"
# the warm-up started at the first round's line, which came after the menu
first_ns=$(value first_frame_ns "$b")
start_ns=$(value start_line_ns "$b")
win_ns=$(value window_start_ns "$b")
round=$(awk -F'\t' '$2 ~ /^\[L\] NEW_ROUND/ { print $1; exit }' "$rundir/game.log")
[ -n "$round" ] || fail "no round started (game.log has no '[L] NEW_ROUND')"
awk "BEGIN { d = $start_ns / 1e9 - $round; exit !(d > -0.01 && d < 0.01) }" ||
	fail "start_line_ns $start_ns is not the first NEW_ROUND line's stamp $round"
expect_eq "window start" "$((start_ns + 5000000000))" "$win_ns"
echo "first round $(awk "BEGIN { printf \"%.1f\", ($start_ns - $first_ns) / 1e9 }") s after the first frame"
# every round of the cut recording was played: the same 2 every time
expect_eq "rounds played" 2 "$(grep -c '	\[L\] NEW_ROUND' "$rundir/game.log")"

fps=$(value fps "$rundir/result.txt")
# llvmpipe on 2 cores draws the low variant's playback at about 290 fps
# here; a broken hook gives 0
awk "BEGIN { exit !($fps >= 5 && $fps <= 5000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 200) }" || fail "too few frames: $frames"

user=$(value user "$b")
if pgrep -u "$user" -f armagetronad.real >/dev/null; then
	pgrep -a -u "$user" -f armagetronad.real >&2
	fail "the game is left running"
fi
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
