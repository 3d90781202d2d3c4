#!/bin/sh
# report and db on run directories made by the runner: table, CSV and
# JSON carry the same numbers; db import is idempotent and rebuilds the
# index the runner wrote; a report from the database has each run's api,
# as one from the directories has it.
# lane: alone (it counts a live run's stalls exactly: beside the heavy lane a fresh clone's make check saw a second one)
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe two "--fps 100 --stall-at 1.5:250" "warmup = 0.5" "window = 2" "stop_grace = 0.5"
hb_run "$T/two.ini" --rounds 2
expect_eq "two rounds" 0 "$rc"
[ "$(run_dirs "$T/runs" | wc -l)" = 2 ] || fail "expected two run directories"

# the table: two runs, the group's median, min and max rows, the notes that say how
"$HB" report "$T/runs" >"$T/table" || fail "report failed"
[ "$(grep -c -- '-two-base ' "$T/table")" = 2 ] || fail "table lacks the two runs: $(cat "$T/table")"
grep -q '^median two base (n=2) ' "$T/table" || fail "table lacks the median row"
grep -q '^min two base ' "$T/table" && grep -q '^max two base ' "$T/table" || fail "table lacks min and max"
grep -q '^# percentiles: nearest-rank' "$T/table" || fail "table does not say the percentile definition"
grep -q '^# stall = a frame over 100 ms' "$T/table" || fail "table does not say the stall threshold"

# CSV: a header, the runs, the median, min and max; the same stalls as result.txt
"$HB" report --format csv "$T/runs" >"$T/csv" || fail "csv report failed"
head -n 1 "$T/csv" | grep -q '^row,stat,run,game,variant,status,n,frames,window_s,fps,' || fail "csv header: $(head -n 1 "$T/csv")"
[ "$(wc -l <"$T/csv")" = 6 ] || fail "csv rows: $(cat "$T/csv")"
col=$(head -n 1 "$T/csv" | tr ',' '\n' | grep -n '^stalls$' | cut -d: -f1)
expect_eq "csv stalls of run 1" 1 "$(sed -n 2p "$T/csv" | cut -d, -f"$col")"

# a higher threshold: the 250 ms frame is no stall any more
"$HB" report --format csv --stall-ms 300 "$T/runs" >"$T/csv300" || fail "--stall-ms report failed"
expect_eq "stalls over 300 ms" 0 "$(sed -n 2p "$T/csv300" | cut -d, -f"$col")"

# JSON parses and holds both runs
"$HB" report --format json "$T/runs" >"$T/json" || fail "json report failed"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["runs"])==2, d; assert d["groups"][0]["n"]==2; assert d["runs"][0]["provenance"]["run_id"]==d["runs"][0]["run_id"]' "$T/json" ||
		fail "json report is not what it should be"
fi

# the database the runner filled, and one rebuilt from the run directories
"$HB" report --db "$T/db.sqlite" >"$T/dbtable" || fail "report --db failed"
grep -q '^median two base (n=2) ' "$T/dbtable" || fail "report --db lacks the median"
# ... with each run's api as the report computes it from the directory
"$HB" report --db "$T/db.sqlite" --format csv >"$T/dbcsv" || fail "report --db --format csv failed"
[ -n "$(run_apis "$T/csv" | awk '$2 != ""')" ] || fail "no api in the directories' report: $(cat "$T/csv")"
[ "$(run_apis "$T/csv")" = "$(run_apis "$T/dbcsv")" ] ||
	fail "api from the database: $(run_apis "$T/dbcsv"), from the directories: $(run_apis "$T/csv")"
"$HB" db import --db "$T/rebuilt.sqlite" "$T/runs" >"$T/imp" || fail "db import failed"
grep -q '^# 2 run(s) indexed' "$T/imp" || fail "db import output: $(cat "$T/imp")"
q="select r.name, m.name, m.value from runs r join metrics m on m.run_id = r.id order by 1, 2"
[ "$(sqlite3 "$T/db.sqlite" "$q")" = "$(sqlite3 "$T/rebuilt.sqlite" "$q")" ] ||
	fail "the rebuilt database differs from the one the runner wrote"
sqlite3 "$T/rebuilt.sqlite" .dump >"$T/dump1"
"$HB" db import --db "$T/rebuilt.sqlite" "$T/runs" >/dev/null || fail "second import failed"
sqlite3 "$T/rebuilt.sqlite" .dump >"$T/dump2"
cmp -s "$T/dump1" "$T/dump2" || fail "importing twice changed the database"
"$HB" db info --db "$T/rebuilt.sqlite" >"$T/info" || fail "db info failed"
grep -q '^runs=2$' "$T/info" || fail "db info: $(cat "$T/info")"
grep -q '^schema_version=5$' "$T/info" || fail "db info schema: $(cat "$T/info")"

# a broken run directory is refused with file:line
mkdir -p "$T/broken"
printf 'format=1\nthis line is wrong\n' >"$T/broken/bench.txt"
rc=0; "$HB" report "$T/broken" 2>"$T/err" >/dev/null || rc=$?
expect_eq "broken run exit (bad input)" 2 "$rc"
grep -q "$T/broken/bench.txt:2: " "$T/err" || fail "broken run message: $(cat "$T/err")"
exit 0
