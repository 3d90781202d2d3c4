#!/bin/sh
# Run integrity on copies of the real recorded runs (tests/fixtures/runs):
# a frames.bin cut short, a bench.txt number that does not parse, a window
# after the frames, a window with too few frames, each copy left out of
# report (table, CSV, JSON), matrix, the database, compare and regress
# with its reason, while the whole runs stay counted; an interval log
# yields no per-frame metrics; frames says a cut file; a run the runner
# just made with too few frames comes out invalid in its result.txt.
. "$(dirname "$0")/../lib.sh"
recorded_runs
D=$T/runs
mkdir -p "$D"
cp -r "$R/$A" "$R/$B" "$R/$G" "$D/"

# copy NAME SRC: a copy of run SRC named NAME with a run_id of its own
copy() {
	cp -r "$R/$2" "$D/$1"
	sed -i "s/^run_id=.*/run_id=$(echo "$1" | md5sum | cut -c1-32)/" "$D/$1/bench.txt"
}
# presents KEY RUN: the first or last present of RUN's frames.bin (ns)
presents() {
	od -An -v -t u8 -j 128 -w16 "$D/$2/frames.bin" | awk '$1 != 0 { print $1 }' | sort -n |
		if [ "$1" = first ]; then head -n 1; else tail -n 1; fi
}

# a frame file cut to 1001 bytes: its header still says 866 records
copy x-cut "$A"
head -c 1001 "$R/$A/frames.bin" >"$D/x-cut/frames.bin"
why_cut="frames.bin: 866 records in the header, 54 in the file"
# a number in bench.txt that is not one
copy x-abc "$B"
sed -i 's/^window_start_ns=.*/window_start_ns=abc/' "$D/x-abc/bench.txt"
line=$(grep -n '^window_start_ns=' "$D/x-abc/bench.txt" | cut -d: -f1)
why_abc="bench.txt:$line: window_start_ns=abc is not a number"
# a window after the last frame (what a warm-up longer than the log made)
copy x-late "$A"
last=$(presents last x-late)
sed -i "s/^window_start_ns=.*/window_start_ns=$((last + 1000000000))/;
	s/^window_end_ns=.*/window_end_ns=$((last + 2000000000))/" "$D/x-late/bench.txt"
# a window of 0.3 s: about ten frames of the gl run
copy x-short "$G"
ws=$(value window_start_ns "$D/x-short/bench.txt")
sed -i "s/^window_end_ns=.*/window_end_ns=$((ws + 300000000))/" "$D/x-short/bench.txt"
# an interval log (rows are samples), in a variant of its own
copy x-interval "$B"
sed -i 's/^variant=.*/variant=samples/' "$D/x-interval/bench.txt"
echo frame_source_kind=interval >>"$D/x-interval/bench.txt"

# the table: the whole runs counted, each broken copy excluded with why
"$HB" report "$D" >"$T/table" 2>"$T/err" || fail "report failed: $(cat "$T/err")"
grep -q '^median dsda-doom software (n=2) ' "$T/table" || fail "software median: $(cat "$T/table")"
grep -q '^median dsda-doom gl (n=1) ' "$T/table" || fail "gl median: $(cat "$T/table")"
grep -qxF "excluded x-cut: invalid: $why_cut" "$T/table" || fail "cut: $(cat "$T/table")"
grep -qxF "excluded x-abc: invalid: $why_abc" "$T/table" || fail "abc: $(cat "$T/table")"
grep -q '^excluded x-late: invalid: the window starts at [0-9.]* s, after the last frame' "$T/table" ||
	fail "late: $(cat "$T/table")"
grep -q '^excluded x-short: invalid: the window holds [0-9]* frames, fewer than the minimum of 50 (--min-frames)$' \
	"$T/table" || fail "short: $(cat "$T/table")"
grep -q '^# invalid = ' "$T/table" || fail "the table does not say what invalid means"
[ "$(grep -c '^excluded ' "$T/table")" = 4 ] || fail "not four excluded: $(cat "$T/table")"
# the interval run is counted, with fps but no per-frame numbers, and said
expect_eq "interval row: frames fps stalls longest low1" "- 118.2 - - -" \
	"$(awk '$1 == "x-interval" { print $2, $3, $5, $7, $8 }' "$T/table")"
grep -q '^# interval log .*: x-interval; only window, fps and mangohud_avg' "$T/table" ||
	fail "the table does not say which run is an interval log"
# the same report of the originals alone has none of those notes
"$HB" report "$R" | grep -q '^# invalid\|^# interval' && fail "notes for whole runs"

# CSV: status invalid, the reason in "excluded"
"$HB" report --format csv "$D" >"$T/csv" || fail "csv report failed"
grep -qF "run,,x-cut,dsda-doom,software,invalid," "$T/csv" || fail "csv status: $(grep x-cut "$T/csv")"
grep -q ",\"$why_cut\"\$" "$T/csv" || fail "csv reason: $(grep x-cut "$T/csv")"
grep -q "^run,,x-abc,.*,$why_abc\$" "$T/csv" || fail "csv abc: $(grep x-abc "$T/csv")"
grep -q '^group,median,,dsda-doom,software,,2,' "$T/csv" || fail "csv median n"

# JSON: the same
"$HB" report --format json "$D" >"$T/json" || fail "json report failed"
python3 - "$T/json" "$why_cut" <<'EOF' || fail "json: $(cat "$T/json")"
import json, sys
d = json.load(open(sys.argv[1]))
runs = {r["run"]: r for r in d["runs"]}
assert runs["x-cut"]["status"] == "invalid" and runs["x-cut"]["excluded"] == sys.argv[2], runs["x-cut"]
for name in ("x-abc", "x-late", "x-short"):
    assert runs[name]["status"] == "invalid" and runs[name]["excluded"], runs[name]
assert runs["x-interval"]["excluded"] is None
assert runs["x-interval"]["metrics"]["frames"] is None and runs["x-interval"]["metrics"]["fps"] > 100
groups = {g["run_name"]: g["n"] for g in d["groups"]}
assert groups == {"software": 2, "gl": 1, "samples": 1}, groups
assert {e["run"] for e in d["excluded"]} == {"x-cut", "x-abc", "x-late", "x-short"}, d["excluded"]
EOF

# --min-frames: 0 counts the short window, 400 leaves the 335 frames of gl out
"$HB" report --min-frames 0 "$D" | grep -q '^median dsda-doom gl (n=2) ' || fail "--min-frames 0"
"$HB" report --min-frames 400 "$D" >"$T/t400"
grep -q "^excluded $G: invalid: the window holds 335 frames, fewer than the minimum of 400" "$T/t400" ||
	fail "--min-frames 400: $(cat "$T/t400")"
rc=0; "$HB" report --min-frames lots "$D" >/dev/null 2>&1 || rc=$?
expect_eq "--min-frames lots" 2 "$rc"

# matrix: the cells are over the whole runs, the others listed with why
"$HB" matrix --by kernel --metric fps --out "$T/matrix" "$D" >"$T/mout" || fail "matrix failed"
expect_eq "matrix software n" 2 "$(awk -F, '$2 == "software" { print $6 }' "$T/matrix/fps.csv")"
expect_eq "matrix gl n" 1 "$(awk -F, '$2 == "gl" { print $6 }' "$T/matrix/fps.csv")"
grep -qxF "# excluded x-cut: invalid: $why_cut" "$T/mout" || fail "matrix: $(cat "$T/mout")"
grep -qF "# excluded x-short: invalid: the window holds" "$T/mout" || fail "matrix short: $(cat "$T/mout")"

# frames prints what a cut file holds, says so and exits 1
rc=0; "$HB" frames "$D/x-cut" >"$T/frames" 2>"$T/err" || rc=$?
expect_eq "frames of a cut file" 1 "$rc"
grep -qF "invalid: $why_cut" "$T/err" || fail "frames stderr: $(cat "$T/err")"
grep -qxF "# invalid: $why_cut" "$T/frames" || fail "frames header: $(head -n 3 "$T/frames")"
expect_eq "frames of the 54 records" 53 "$(grep -vc '^#\|^t_s' "$T/frames")"
"$HB" frames "$D/$A" >/dev/null || fail "frames of a whole run"

# the database: stored invalid with the reason, and every query leaves them out
db=$T/import.sqlite
"$HB" db import --db "$db" "$D" >"$T/dbout" || fail "db import failed"
grep -qxF "imported x-cut (invalid: $why_cut)" "$T/dbout" || fail "db import: $(cat "$T/dbout")"
expect_eq "stored invalid" "x-abc x-cut x-late x-short" \
	"$(sqlite3 "$db" "select name from runs where status = 'invalid' order by name" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "stored reason" "$why_cut" "$(sqlite3 "$db" "select check_failed from runs where name = 'x-cut'")"
expect_eq "whole runs have no reason" 4 "$(sqlite3 "$db" "select count(*) from runs where check_failed is null")"
"$HB" report --db "$db" >"$T/dbtable" || fail "report --db failed"
grep '^excluded ' "$T/table" | sort >"$T/ex.dirs"
grep '^excluded ' "$T/dbtable" | sort >"$T/ex.db"
diff -u "$T/ex.dirs" "$T/ex.db" || fail "the database excludes other runs than the directories"
grep -q '^median dsda-doom software (n=2) ' "$T/dbtable" || fail "report --db median"
"$HB" matrix --db "$db" --by kernel --metric fps --out "$T/dbmatrix" >"$T/dbmout" || fail "matrix --db failed"
cmp -s "$T/matrix/fps.csv" "$T/dbmatrix/fps.csv" || fail "matrix --db differs: $(cat "$T/dbmatrix/fps.csv")"
grep -qxF "# excluded x-cut: invalid: $why_cut" "$T/dbmout" || fail "matrix --db: $(cat "$T/dbmout")"

# compare: two runs against one, the copies listed with why and not counted
rc=0; "$HB" compare --db "$db" dsda-doom software gl >"$T/cmp" 2>"$T/err" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || [ "$rc" = 4 ] || fail "compare exit $rc: $(cat "$T/err")"
grep -q '^runs  *2  *1 ' "$T/cmp" || fail "compare counted the copies: $(cat "$T/cmp")"
grep -qxF "excluded A x-cut: invalid: $why_cut" "$T/cmp" || fail "compare A: $(cat "$T/cmp")"
grep -qF "excluded B x-short: invalid: the window holds" "$T/cmp" || fail "compare B: $(cat "$T/cmp")"
# a side with nothing valid says what it left out
sqlite3 "$db" "update runs set status = 'invalid', check_failed = 'made up' where name = '$G'"
rc=0; "$HB" compare --db "$db" dsda-doom software gl >/dev/null 2>"$T/err" || rc=$?
expect_eq "compare without valid runs" 1 "$rc"
grep -qF "excluded B $G: invalid: made up" "$T/err" || fail "compare err: $(cat "$T/err")"

# regress: the two whole runs on one kernel, the copies listed with why
rc=0; "$HB" regress --db "$db" --metric fps dsda-doom software >"$T/reg" 2>"$T/err" || rc=$?
expect_eq "regress exit" 0 "$rc"
grep -q '^regress dsda-doom software fps: 2 valid runs on 1 kernels' "$T/reg" || fail "regress: $(cat "$T/reg")"
grep -qxF "excluded x-cut: invalid: $why_cut" "$T/reg" || fail "regress excluded: $(cat "$T/reg")"
"$HB" regress --db "$db" --metric fps --format tsv dsda-doom software >"$T/tsv" 2>"$T/err"
grep -q excluded "$T/tsv" && fail "excluded lines in the TSV"
grep -qF "hitchbench: excluded x-cut: invalid: $why_cut" "$T/err" || fail "regress tsv stderr: $(cat "$T/err")"

# a real MangoHud log imported with a warm-up longer than it: refused by
# import, or a run whose window starts after its frames; and a copy of a
# good import whose bench.txt says so is invalid
log="$HB_TESTDATA/mangohud-0.6.8-here/dsda-doom_2026-11-30_10-02-37.csv"
[ -f "$log" ] || fail "no MangoHud log at $log (tests/fixtures/testdata is part of the checkout)"
rc=0; "$HB" import --format mangohud --warmup 999 --out "$T/imp" --no-db "$log" >/dev/null 2>"$T/err" || rc=$?
expect_eq "import with a warm-up longer than the log" 2 "$rc"
[ ! -d "$T/imp" ] || [ -z "$(ls -A "$T/imp")" ] || fail "a refused import left a run: $(ls -R "$T/imp")"
out=$("$HB" import --format mangohud --out "$T/imp" --no-db "$log") || fail "import failed"
expect_eq "a whole import" ok "$(value status "$out/result.txt")"
last=$(presents last "../imp/${out##*/}")
sed -i "s/^window_start_ns=.*/window_start_ns=$((last + 5000000000))/;
	s/^window_end_ns=.*/window_end_ns=$((last + 6000000000))/" "$out/bench.txt"
"$HB" report "$out" | grep -q '^excluded .*: invalid: the window starts at .* after the last frame' ||
	fail "an import whose window is after its frames: $("$HB" report "$out")"

# the runner: a run of 20 frames in its window comes out invalid, with why
need_game_user
fake_setup
fake_recipe few "--fps 20" "warmup = 0" "window = 1" "stop_grace = 0.5"
# (INTF=0: what is checked is the data, not a watcher that this shared
# machine may trip)
hb_run "$T/few.ini" base --switches "INTF=0"
[ -n "$rundir" ] || fail "no run directory: $(cat "$T/err")"
expect_eq "bench.txt status of the run" ok "$(value status "$rundir/bench.txt")"
expect_eq "result.txt status of the run" invalid "$(value status "$rundir/result.txt")"
value check_failed "$rundir/result.txt" | grep -q '^the window holds [0-9]* frames, fewer than the minimum of 50' ||
	fail "result.txt reason: $(cat "$rundir/result.txt")"
grep -q 'invalid: the window holds .*THIS RUN IS NOT COUNTED' "$T/err" || fail "the run did not say: $(cat "$T/err")"
expect_eq "the runner's database" invalid "$(sqlite3 "$T/db.sqlite" 'select status from runs')"
grep -Eq '^1[[:space:]]+invalid[[:space:]].*data: the window holds' "$(dirname "$rundir")/runs.txt" ||
	fail "runs.txt does not list the run as invalid: $(cat "$(dirname "$rundir")/runs.txt")"

# --rerun-invalid runs a run whose data failed a check once more, as it
# does one an observer marked: two runs, both invalid, the second a rerun
rm -rf "$T/runs" "$T/db.sqlite"
hb_run "$T/few.ini" base --switches "INTF=0" --rerun-invalid
expect_eq "runs of the rerun batch" 2 "$(run_dirs "$T/runs" | wc -l)"
grep -Eq '^1[[:space:]]+rerun[[:space:]]' "$(dirname "$rundir")/runs.txt" || fail "runs.txt has no rerun: $(cat "$(dirname "$rundir")/runs.txt")"
grep -q 'invalid, run once more now' "$T/err" || fail "the batch did not say it reran: $(cat "$T/err")"
exit 0
