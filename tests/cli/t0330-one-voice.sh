#!/bin/sh
# One voice: an unknown metric is refused (exit 2) with the list of the
# known ones by every command that takes --metric, before anything is read;
# a run whose recipe changed since it ran, or no longer loads, is said once
# (a note on stderr naming the run) by report, stalls and plot frames, while
# a run whose recipe is as it was gets no note. On copies of real runs.
. "$(dirname "$0")/../lib.sh"
R="$HB_FIXTURES/runs"
cp -R "$R" "$T/runs"
export HITCHBENCH_RESULTS="$T/results"

# bogus WHAT ARGS...: exit 2, the list of metrics, nothing made
bogus() {
	what=$1
	shift
	rc=0
	"$HB" "$@" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$what: exit" 2 "$rc"
	expect_eq "$what: message" "hitchbench: unknown metric 'bogus'; the metrics are:" "$(head -n 1 "$T/err")"
	# every metric report --format csv has a column for is listed
	for m in frames fps p99_ms low1 stall_s longest_ms; do
		sed -n '2,/^usage:/p' "$T/err" | tr ' ' '\n' | grep -qx "$m" || fail "$what: '$m' not listed: $(cat "$T/err")"
	done
	grep -q '^usage: hitchbench ' "$T/err" || fail "$what: no usage after the list"
	[ ! -e "$T/results" ] || fail "$what made $T/results"
}
bogus "report" report --metric bogus "$T/runs"
bogus "matrix" matrix --metric bogus
bogus "compare" compare --metric bogus dsda-doom software gl
bogus "regress" regress --metric bogus dsda-doom software
bogus "plot trend" plot trend --metric bogus x.tsv
# the list is the metrics there are: the same names as report's CSV columns
"$HB" report --format csv "$T/runs" >"$T/csv" || fail "csv report failed"
"$HB" report --metric bogus "$T/runs" 2>&1 | sed -n '2,/^usage:/p' | grep -v '^usage:' | tr ' ' '\n' |
	grep -v '^$' >"$T/listed"
for m in $(cat "$T/listed"); do
	head -n 1 "$T/csv" | tr ',' '\n' | grep -qx "$m" || fail "'$m' is listed but is no column of the CSV"
done
[ "$(wc -l <"$T/listed")" -gt 20 ] || fail "too few metrics listed: $(cat "$T/listed")"

# the recipe notes: one run points to a copy of its recipe edited since,
# another to one that no longer loads; the third is left as recorded
sw=$(ls -d "$T"/runs/*-software | head -n 1)
gl=$(ls -d "$T"/runs/*-gl)
cp "$HB_SRCDIR/recipes/dsda-doom.ini" "$T/changed.ini"
echo "# edited after the run" >>"$T/changed.ini"
printf '[recipe]\nname = dsda-doom\nwindw = 10\n' >"$T/broken.ini"
sed -i "s|^recipe=.*|recipe=$T/changed.ini|" "$sw/bench.txt"
sed -i "s|^recipe=.*|recipe=$T/broken.ini|" "$gl/bench.txt"
changed="hitchbench: note: ${sw##*/}: the recipe $T/changed.ini changed since the run:"
broken="hitchbench: note: ${gl##*/}: the recipe no longer loads ($T/broken.ini:3: unknown key 'windw')"

# notes N WHAT: each note N times in $T/err, and no other note
notes() {
	expect_eq "$2: the changed recipe's note" "$1" "$(grep -cF "$changed" "$T/err")"
	expect_eq "$2: the broken recipe's note" "$1" "$(grep -cF "$broken" "$T/err")"
	expect_eq "$2: notes" "$((2 * $1))" "$(grep -c '^hitchbench: note: ' "$T/err")"
}
"$HB" report "$T/runs" >"$T/out" 2>"$T/err" || fail "report failed: $(cat "$T/err")"
notes 1 "report"
grep -q '^median dsda-doom software (n=2) ' "$T/out" || fail "report lost a run: $(cat "$T/out")"
"$HB" report --format csv "$T/runs" >"$T/out" 2>"$T/err" || fail "report --format csv failed"
notes 1 "report --format csv"
cmp -s "$T/out" "$T/csv" || fail "the notes changed the CSV"
rc=0; "$HB" stalls "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "stalls without a stall record" 2 "$rc"
notes 1 "stalls"
"$HB" report "$sw" >/dev/null 2>"$T/err" || fail "report of one run failed"
expect_eq "report of the changed run alone" 1 "$(grep -c '^hitchbench: note: ' "$T/err")"
grep -qF "$changed" "$T/err" || fail "report of one run: $(cat "$T/err")"
# as recorded: no note
"$HB" report "$R" >/dev/null 2>"$T/err" || fail "report of the recorded runs failed"
expect_eq "recorded runs: notes" 0 "$(grep -c '^hitchbench: note: ' "$T/err")"
if command -v gnuplot >/dev/null; then
	"$HB" plot frames "$gl" --out "$T/plots" >/dev/null 2>"$T/err" || fail "plot frames failed: $(cat "$T/err")"
	expect_eq "plot frames: the broken recipe's note" 1 "$(grep -cF "$broken" "$T/err")"
fi
exit 0
