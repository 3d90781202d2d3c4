#!/bin/sh
# Flip runs (docs/metrics.md "Flip"): ab --design flip turns SLOWDOWN between
# 0 and 30 while a CPU-bound fake game plays (segments of 0.2 s in time,
# AB and BA pairs in a seeded order: the fake game does not loop), and the
# sequential test over the runs' blocks of segment pairs says B is slower.
# The run is named for both sides, its flip.txt holds the schedule and
# every switch (format 1, each applied after it was due), bench.txt what
# the hook spun; compare --paired reads the batch again to the same
# verdict. Pairs a flip cannot serve are refused before anything runs.
# timing: a 30% effect against a loaded machine's segment-to-segment noise
# lane: alone (an effect within runs: a neighbour's load that comes and goes moves segments)
# wall: about 10 s
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe flip "--fps 100000 --busy-us 2000" "warmup = 0.3" "window = 8" "stop_grace = 0.5"

rc=0
"$HB" ab --no-quieting --display :99 --out "$T/runs" --no-db "$T/flip.ini" base@SLOWDOWN=0 base@SLOWDOWN=30 \
	--design flip --window 8 --max-minutes 0.5 --segment 0.2 --settle 0.04 --effect 10 >"$T/out" 2>"$T/err" || rc=$?
cat "$T/out"
[ "$rc" = 3 ] || { cat "$T/err" >&2; fail "ab --design flip exit status $rc, not 3 (DIFFERENT)"; }
grep -q "^verdict DIFFERENT: B slower than A after [0-9]* block(s) of flip pairs" "$T/out" ||
	fail "no verdict DIFFERENT (slower)"
run=$(run_dirs "$T/runs" | head -n 1)
case "$run" in
*@slow0~slow30) ;;
*) fail "a flip run's name is not both sides': $run" ;;
esac
f="$run/flip.txt"
expect_eq "flip.txt format" 1 "$(value format "$f")"
expect_eq "flip.txt switch" SLOWDOWN "$(value switch "$f")"
expect_eq "flip.txt order" pairs "$(value order "$f")"
expect_eq "flip.txt unit" seconds "$(value unit "$f")"
[ -n "$(value plan "$f" | tr -d AB)" ] && fail "a plan of other than A and B"
n=$(grep -c '^flip=' "$f")
[ "$n" -ge 20 ] || fail "only $n switches in an 8 s window of 0.2 s segments"
expect_eq "bench.txt flip.switches" "$n" "$(value flip.switches "$run/bench.txt")"
awk "BEGIN { exit !($(value slowdown.spin_ms "$run/bench.txt") > 0) }" || fail "the hook spun nothing"
# every switch made in its segment: applied after due (the reader's check)
"$HB" compare --paired "$(dirname "$run")" >"$T/again" 2>&1
expect_eq "compare --paired exit status" 3 "$?"
grep -q "^verdict DIFFERENT: B slower" "$T/again" || fail "compare --paired: $(cat "$T/again")"

# the report says what a flip run is: its own figures under the table, in
# JSON, and in the HTML page a picture of its segments and running estimate
"$HB" report "$(dirname "$run")" >"$T/report" 2>&1 || fail "report: $(cat "$T/report")"
grep -q "^# flip $(basename "$run"): SLOWDOWN SLOWDOWN=0 SLOWDOWN=30; [0-9]* of [0-9]* segments; [0-9]* pairs in [0-9]* blocks of [0-9]*; ln(B/A) -" \
	"$T/report" || fail "the report has no flip line for the run: $(grep flip "$T/report")"
"$HB" report --format json "$(dirname "$run")" >"$T/report.json" || fail "report --format json"
python3 - "$T/report.json" <<'PY' || fail "report JSON: no flip object"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == 4
f = [r["flip"] for r in d["runs"] if r["flip"]]
assert f and f[0]["flip"] == "SLOWDOWN SLOWDOWN=0 SLOWDOWN=30" and f[0]["log_ratio"] < 0 and f[0]["pairs"] > 0, f
PY
if command -v gnuplot >/dev/null; then
	"$HB" report --format html "$(dirname "$run")" >"$T/report.html" 2>"$T/html.err" ||
		fail "report --format html: $(cat "$T/html.err")"
	grep -q "<h4>Flip</h4>" "$T/report.html" || fail "the HTML report has no flip section"
	awk '/<h4>Flip<\/h4>/ { f = 1 } f && /<svg/ { found = 1; exit } END { exit !found }' "$T/report.html" ||
		fail "the HTML report's flip section has no picture"
else
	echo "the HTML report's flip picture not checked: no gnuplot"
fi

# refused before anything runs: exit 2 and why
refused() {
	want=$1
	shift
	rc=0
	"$HB" run --no-quieting --display :99 --out "$T/refused" --no-db "$T/flip.ini" base 1 "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_eq "exit status of $*" 2 "$rc"
	grep -q "$want" "$T/err" || fail "$*: no '$want' in: $(cat "$T/err")"
}
refused "differ in SLOWDOWN and in STALLS: a flip run turns one switch" --switches SLOWDOWN=0 --flip STALLS=1
refused "GAMEENV cannot be changed while the game runs" --switches GAMEENV=MESA_NO_ERROR=0 --flip GAMEENV=MESA_NO_ERROR=1
refused "STALLS flips by pausing it: one side has it on, the other off" --switches STALLS=1 --flip STALLS=bpf
refused "a flip wants STALLS_MS at most 20" --switches STALLS=0 --flip STALLS=1+STALLS_MS=50
refused "a flip wants a period of at most 20 ms" --switches - --flip WAKER=50
refused "name one token" --switches "SLOWDOWN=0 SLOWDOWN=5" --flip SLOWDOWN=3
refused "set the same: nothing to flip" --switches SLOWDOWN=3 --flip SLOWDOWN=3
refused "leaves nothing of a 0.1 s segment" --switches SLOWDOWN=0 --flip SLOWDOWN=3 --segment 0.1 --settle 0.06
refused "KNOB flips one knob" --switches KNOB=/proc/sys/vm/swappiness=10 \
	--flip KNOB=/proc/sys/vm/dirty_ratio=10
[ ! -d "$T/refused" ] || [ -z "$(ls "$T/refused")" ] || fail "a refused flip left a batch: $(ls "$T/refused")"
exit 0
