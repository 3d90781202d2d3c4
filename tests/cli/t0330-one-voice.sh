#!/bin/sh
# One voice: an unknown metric is refused (exit 2) with the list of the
# known ones by every command that takes --metric, before anything is read;
# report, stalls and plot frames analyse a run from its own files: a recipe
# changed or broken since the run gets no note and changes no number, and a
# reload rule the run records is used after its recipe is deleted. On
# copies of real runs.
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

# a run is analysed from its own files, never its recipe: one run points
# to a copy of its recipe edited since, another to one that no longer
# loads; neither gets a note, and the numbers are the recorded runs'
sw=$(ls -d "$T"/runs/*-software | head -n 1)
gl=$(ls -d "$T"/runs/*-gl)
cp "$HB_SRCDIR/recipes/dsda-doom.ini" "$T/changed.ini"
printf '\n[reload]\nafter_pass_start = 3\nwhy = edited after the run\n' >>"$T/changed.ini"
printf '[recipe]\nname = dsda-doom\nwindw = 10\n' >"$T/broken.ini"
sed -i "s|^recipe=.*|recipe=$T/changed.ini|" "$sw/bench.txt"
sed -i "s|^recipe=.*|recipe=$T/broken.ini|" "$gl/bench.txt"
# each command with its exit code: stalls has no stall record to show (2)
for cmd in "report:0" "report --format csv:0" "stalls:2"; do
	want=${cmd##*:} cmd=${cmd%:*} rc=0
	# shellcheck disable=SC2086 # the command's words
	"$HB" $cmd "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$cmd: exit" "$want" "$rc"
	expect_eq "$cmd: notes" 0 "$(grep -c '^hitchbench: note: ' "$T/err")"
	[ "$cmd" != "report --format csv" ] || cmp -s "$T/out" "$T/csv" ||
		fail "an edited or broken recipe changed the CSV: $(diff "$T/csv" "$T/out")"
done
"$HB" report "$T/runs" >"$T/out" 2>&1 || fail "report failed: $(cat "$T/out")"
grep -q '^median dsda-doom software (n=2) ' "$T/out" || fail "report lost a run: $(cat "$T/out")"
if command -v gnuplot >/dev/null; then
	"$HB" plot frames "$gl" --out "$T/plots" >/dev/null 2>"$T/err" || fail "plot frames failed: $(cat "$T/err")"
	expect_eq "plot frames: notes" 0 "$(grep -c '^hitchbench: note: ' "$T/err")"
fi

# a run that records its reload rule (bench.txt reload.*, as the runner
# writes it) keeps it when its recipe is deleted: pass start + 3 s reaches
# 0.86 s into the gl run's window (gamedb's 1 s stays in its warm-up)
col() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }
n=$(col "$T/csv" reload_n)
row=$(grep -F "${gl##*/}" "$T/csv" | cut -d, -f"$n")
expect_eq "recorded gl run: reload_n from gamedb" 0 "$row"
cat >>"$gl/bench.txt" <<EOF2
reload.format=1
reload.source=recipe $T/gone.ini:12
reload.after_pass_start=3
reload.why=the recipe's own, deleted since
EOF2
"$HB" report --format csv "$gl" >"$T/one.csv" 2>"$T/err" || fail "report of the recorded rule: $(cat "$T/err")"
[ ! -e "$T/gone.ini" ] || fail "$T/gone.ini exists"
expect_eq "recorded rule: reload_n" 1 "$(sed -n 2p "$T/one.csv" | cut -d, -f"$(col "$T/one.csv" reload_n)")"
s=$(sed -n 2p "$T/one.csv" | cut -d, -f"$(col "$T/one.csv" reload_s)")
awk -v s="$s" 'BEGIN { exit !(s > 0.7 && s < 1.1) }' || fail "recorded rule: reload_s=$s, want about 0.86"
# a bad recorded key is refused with its line, as a bad analysis.ini is
echo "reload.margin=soon" >>"$gl/bench.txt"
rc=0; "$HB" report "$gl" >/dev/null 2>"$T/err" || rc=$?
expect_eq "bad reload key: exit" 2 "$rc"
grep -qF "${gl##*/}/bench.txt:53: bad margin 'soon' (seconds, 0 to 3600)" "$T/err" ||
	fail "bad reload key: $(cat "$T/err")"
exit 0
