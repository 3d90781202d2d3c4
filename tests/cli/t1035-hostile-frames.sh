#!/bin/sh
# wall: about 20 s (three fake-game runs of 4 s)
# quick: no
# A hostile game against root's readers of its frame file (issue 38): the
# fake game, as the unprivileged game user, rewrites its frame file's header
# (capacity and count huge) and later cuts the file to its first page,
# while the runner and the stall recorder (STALLS=1, root's) read it live.
# Both keep running to the end (the runner exits 0, the recorder says its
# cost and exits 0: no SIGSEGV, no SIGBUS), the run is marked invalid with
# the reason in bench.txt, and report leaves it out. A run cut only (no
# switch: the runner alone) is marked the same; a game that does nothing of
# this is not. Under the sanitizer build (HB_SANITIZE=1) a read past the
# file would be reported, not just survived.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "the stall recorder runs as root beside the game user's game: needs root"
need_game_user
fake_setup

# no_crash RUNDIR: nothing of root's died of a signal
no_crash() {
	if grep -qE 'SIG(SEGV|BUS)|AddressSanitizer|runtime error:' "$T/err" "$1"/*.log 2>/dev/null; then
		grep -E 'SIG(SEGV|BUS)|AddressSanitizer|runtime error:' "$T/err" "$1"/*.log >&2
		fail "a reader of the frame file crashed"
	fi
}

# invalid_for RUNDIR: marked invalid, because of the frame file
invalid_for() {
	b="$1/bench.txt"
	expect_eq "invalid" 1 "$(value invalid "$b")"
	value invalid_reason "$b" | grep -q "tampered with its frame file" ||
		fail "invalid_reason: '$(value invalid_reason "$b")'"
	grep -q "!! .*INVALID" "$T/err" || fail "no loud invalid line: $(cat "$T/err")"
}

# 1. header rewritten 1.5 s in, the file cut 3 s in; the recorder watching
fake_recipe hostile "--fps 100 --tamper-at 1.5:header --tamper-at 3:truncate" "warmup = 0.5" "window = 3.5" \
	"stop_grace = 0.5"
hb_run "$T/hostile.ini" base 1 --switches STALLS=1
no_crash "$rundir"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "the runner failed ($rc)"; }
no_fakegame_left
grep -q "tampered header: done" "$rundir/game.log" || fail "the game did not rewrite its header: $(cat "$rundir/game.log")"
grep -q "tampered truncate: done" "$rundir/game.log" || fail "the game did not cut its file"
invalid_for "$rundir"
# the recorder saw it too, said so, and ended as it does (its cost, exit 0)
grep -q "^stallrec-frames: tampered: " "$rundir/stallrec.log" ||
	fail "the recorder did not see the tampering: $(cat "$rundir/stallrec.log")"
value stallrec "$rundir/bench.txt" | grep -q "^[0-9]* samples, own CPU" ||
	fail "the recorder did not end cleanly: '$(value stallrec "$rundir/bench.txt")'"
expect_eq "the record" "stalls.rec.zst" "$(value stallrec_record "$rundir/bench.txt")"
"$HB_BUILD/tests/recdump" "$rundir/stalls.rec.zst" | grep -q "frames=tampered: " ||
	fail "the record's trailer does not say the frame file was tampered with"
# the frames kept are those the runner trusted: the layout it validated
"$HB" frames "$rundir" >"$T/frames" 2>&1 && fail "frames gave the invalid run's frames: $(head "$T/frames")"
# nothing counted: the report shows the run as invalid, with no median
"$HB" report "$T/runs" >"$T/report" 2>&1 || true
grep -q "invalid" "$T/report" || fail "the report does not show the run invalid: $(cat "$T/report")"
expect_eq "database invalid flag" 1 "$(sqlite3 "$T/db.sqlite" "select invalid from runs")"

# 2. the file cut only, no switch: the runner alone notices (the file's size)
fake_recipe cut "--fps 100 --tamper-at 2:truncate" "warmup = 0.5" "window = 3" "stop_grace = 0.5"
rm -rf "$T/runs" "$T/db.sqlite"
hb_run "$T/cut.ini" base 1
no_crash "$rundir"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "the runner failed on a cut file ($rc)"; }
no_fakegame_left
invalid_for "$rundir"
value invalid_reason "$rundir/bench.txt" | grep -q "cut shorter" ||
	fail "the reason is not the cut: '$(value invalid_reason "$rundir/bench.txt")'"

# 3. the same game, harmless: counted, nothing said
fake_recipe calm "--fps 100" "warmup = 0.5" "window = 2" "stop_grace = 0.5"
rm -rf "$T/runs" "$T/db.sqlite"
hb_run "$T/calm.ini" base 1 --switches STALLS=1
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "the calm run failed ($rc)"; }
expect_eq "calm run invalid" 0 "$(value invalid "$rundir/bench.txt")"
grep -q "stallrec-frames" "$rundir/stallrec.log" && fail "the recorder distrusted a calm game's file"
expect_eq "calm status" ok "$(value status "$rundir/bench.txt")"
exit 0
