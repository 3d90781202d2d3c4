#!/bin/sh
# --display: the game runs on an X server that is already there and wants
# a cookie; the runner hands the caller's authority file to the game user.
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
command -v xauth >/dev/null || skip "xauth is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/dsda-doom ] || skip "dsda-doom is not installed (sh scripts/deps.sh ensure)"

export XAUTHORITY="$T/cookie"
xauth -q -f "$XAUTHORITY" add :0 . "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" ||
	fail "cannot make a cookie"
start_xvfb -auth "$XAUTHORITY"
# the cookie must name that display for the client side
xauth -q -f "$XAUTHORITY" add ":$n" . "$(xauth -f "$XAUTHORITY" list | head -n 1 | awk '{print $3}')"

rc=0
"$HB" run --no-quieting dsda-doom --display ":$n" --warmup 1 --window 3 --out "$T/runs" --no-db >"$T/out" 2>"$T/err" || rc=$?
expect_eq "run on an existing display" 0 "$rc"
rundir=$(run_dirs "$T/runs" | tail -n 1)
grep -q "^display=:$n (existing)$" "$rundir/bench.txt" || fail "bench.txt does not name the display"
[ -z "$(value screen "$rundir/bench.txt")" ] || fail "a screen was recorded for a server the run did not start"
awk "BEGIN { exit !($(value fps "$rundir/result.txt") > 5) }" || fail "no frames on the existing display"
kill -0 "$xpid" || fail "the runner stopped an X server it did not start"

# without the cookie the game cannot draw there, and the run must say so
# (not measure a game that fell back to drawing nowhere)
rc=0
XAUTHORITY=/nonexistent HOME=/nonexistent "$HB" run --no-quieting dsda-doom --display ":$n" --warmup 1 --window 3 \
	--out "$T/runs-nocookie" --no-db >"$T/out" 2>"$T/err" || rc=$?
expect_eq "run without the cookie" 1 "$rc"
rundir=$(run_dirs "$T/runs-nocookie" | tail -n 1)
expect_eq "status without the cookie" failed "$(value status "$rundir/bench.txt")"
grep -q "Authorization required" "$rundir/game.log" || fail "game.log does not show why"
exit 0
