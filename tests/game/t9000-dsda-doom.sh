#!/bin/sh
# The real default recipe: dsda-doom playing a Freedoom demo under a fresh
# Xvfb, as the unprivileged user, with a short window. Frames at a
# plausible rate, metrics in the run directory and in the database, a
# complete run directory, nothing of the game left running.
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/dsda-doom ] || skip "dsda-doom is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/doom/freedoom2.wad ] || skip "freedoom is not installed (sh scripts/deps.sh ensure)"

rc=0
"$HB" run --no-quieting dsda-doom --warmup 2 --window 8 --out "$T/runs" --db "$T/db.sqlite" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-dsda-doom-software)
for f in bench.txt frames.bin game.log result.txt prepare.log xserver.log; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
expect_eq status ok "$(value status "$rundir/bench.txt")"
[ "$(value user "$rundir/bench.txt")" != root ] || fail "the game ran as root"
[ -n "$(value package.dsda-doom "$rundir/bench.txt")" ] || fail "no package version"
fps=$(value fps "$rundir/result.txt")
# llvmpipe on 2 cores draws this demo at 60-130 fps; a broken hook gives 0
awk "BEGIN { exit !($fps >= 5 && $fps <= 2000) }" || fail "implausible fps $fps"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 40) }" || fail "too few frames: $frames"
grep -q "^median dsda-doom software (n=1)" "$T/out" || fail "no report printed"
[ "$(sqlite3 "$T/db.sqlite" "select count(*) from metrics m join runs r on r.id = m.run_id where r.game = 'dsda-doom' and m.name = 'fps'")" = 1 ] ||
	fail "the run's fps is not in the database"
pgrep -x dsda-doom >/dev/null && pgrep -u "$(value user "$rundir/bench.txt")" >/dev/null &&
	fail "a process of the game's user is left running"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
