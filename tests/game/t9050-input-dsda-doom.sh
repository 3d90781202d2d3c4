#!/bin/sh
# A real game reacting to the xtest driver: dsda-doom on the run's Xvfb
# gets F10 (Doom's quick quit) and then y (yes) from the recipe's [input]
# steps, and quits by itself with status 0 a few seconds in, long before
# its 30 s window; without the keys it runs until the runner stops it. The
# run is ok and says what was played, and the interference watcher, on
# as in every run, counts nothing: the keys were the harness's, and so is
# the input helper (its log lists it as such).
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/dsda-doom ] || skip "dsda-doom is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/doom/freedoom2.wad ] || skip "freedoom is not installed (sh scripts/deps.sh ensure)"

cat >"$T/doomquit.ini" <<'EOF2'
[recipe]
name = doomquit
command = /usr/games/dsda-doom -iwad /usr/share/games/doom/freedoom2.wad -nosound -window -geom 640x480 -vidmode sw -skill 3 -warp 1
env = SDL_AUDIODRIVER=dummy
warmup = 0
window = 30
end = exit
screen = 640x480x24

[input]
step = wait_line ^Loading DEH lump
step = wait 4
step = key F10
step = wait 1
step = key y
EOF2
rc=0
"$HB" run --no-quieting --out "$T/runs" --no-db "$T/doomquit.ini" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
rundir=$(run_dirs "$T/runs" | tail -n 1)
expect_eq "exit status" 0 "$rc"
expect_eq status ok "$(value status "$rundir/bench.txt")"
expect_eq input "5 of 5 steps played (xtest)" "$(value input "$rundir/bench.txt")"
# the game ended the run itself, cleanly, after the keys
expect_eq end_reason exit "$(value end_reason "$rundir/bench.txt")"
expect_eq "the game's exit" "exit 0" "$(value exit_status "$rundir/bench.txt")"
grep -q "The game has crashed" "$rundir/game.log" && fail "dsda-doom was stopped, it did not quit"
expect_eq interfered 0 "$(value interfered "$rundir/bench.txt")"
grep -q "^# summary interfered=0: none" "$rundir/interference.log" ||
	{ cat "$rundir/interference.log" >&2; fail "the watcher counted something"; }
grep -q "^- .* PROCESS pid [0-9]* (hitchbench-inpu[a-z]*) exempt harness: carries HITCHBENCH_HARNESS" \
	"$rundir/interference.log" || { cat "$rundir/interference.log" >&2; fail "the input helper was not seen as the harness's"; }
# it quit after the y, within 10 s of it (not at the window's end)
y_at=$(awk -F'\t' '$3 == "key y" { print $1 }' "$rundir/input.log")
[ -n "$y_at" ] || fail "input.log has no 'key y': $(cat "$rundir/input.log")"
end_ns=$(value window_end_ns "$rundir/bench.txt")
awk "BEGIN { d = $end_ns / 1e9 - $y_at; exit !(d > -1 && d < 10) }" ||
	fail "the game did not quit right after 'key y' (window ended at $end_ns ns, y at $y_at s)"
exit 0
