#!/bin/sh
# wall: about 30 s (a PostgreSQL of its own, started and filled)
# The lab's results database on a real PostgreSQL 15 (the test's own, on a
# socket directory in $T): the same schema and migrations as SQLite, the
# same report, compare, regress and matrix from both engines; --machine;
# two concurrent importers of the same runs leave one copy of each; a run
# whose --db is the lab is stored here first; db push sends what was not
# sent, loses nothing when the server stops in the middle, and sends the
# rest at the next try.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
trap 'stop_postgres; rm -rf "$T"' EXIT
start_postgres "$T/pg"
recorded_runs
lab=$PGURL

# the recorded real runs into both engines: the same reports
"$HB" db import --db "$lab" "$R/$A" "$R/$B" "$R/$G" >"$T/out" || fail "db import into PostgreSQL: $(cat "$T/out")"
"$HB" db import --db "$T/l.db" "$R/$A" "$R/$B" "$R/$G" >/dev/null || fail "db import into SQLite"
expect_eq "schema version in PostgreSQL" 5 "$(psql_hb 'SELECT version FROM hitchbench_schema')"
# the api the report computes from a run directory is kept (schema 5), and
# a report from the lab's database says it as one from the directories does
expect_eq "api of the gl run in PostgreSQL" opengl "$(psql_hb "SELECT api FROM runs WHERE name = '$G'")"
expect_eq "api of a software run in PostgreSQL" sdl-renderer "$(psql_hb "SELECT api FROM runs WHERE name = '$A'")"
"$HB" report --format csv "$R/$A" "$R/$B" "$R/$G" >"$T/dirs.csv" || fail "report of the directories"
"$HB" report --format csv --db "$lab" >"$T/pg.csv" || fail "report --db of the lab"
[ "$(run_apis "$T/dirs.csv")" = "$(run_apis "$T/pg.csv")" ] ||
	fail "api from PostgreSQL: $(run_apis "$T/pg.csv"), from the directories: $(run_apis "$T/dirs.csv")"
expect_eq "runs in PostgreSQL" 3 "$(psql_hb 'SELECT count(*) FROM runs')"
"$HB" db info --db "$lab" >"$T/info" || fail "db info"
grep -q '^engine=postgresql$' "$T/info" || fail "db info: $(cat "$T/info")"
grep -q '^runs=3$' "$T/info" || fail "db info: $(cat "$T/info")"
# a metric read back is the double stored (PostgreSQL's REAL would round it)
sq=$(sqlite3 "$T/l.db" "SELECT printf('%.17g', value) FROM metrics m JOIN runs r ON r.id = m.run_id
	WHERE r.name = '$A' AND m.name = 'p99_ms'")
pg=$(psql_hb "SELECT value FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.name = '$A' AND m.name = 'p99_ms'")
awk -v a="$sq" -v b="$pg" 'BEGIN { exit !(a == b) }' || fail "p99_ms: SQLite $sq, PostgreSQL $pg"
for cmd in "report" "report --format csv" "report --format json" "compare dsda-doom software gl" \
	"compare --metric p99_ms dsda-doom software gl"; do
	rc1=0; rc2=0
	# shellcheck disable=SC2086
	"$HB" $cmd --db "$T/l.db" >"$T/sq.out" 2>&1 || rc1=$?
	# shellcheck disable=SC2086
	"$HB" $cmd --db "$lab" >"$T/pg.out" 2>&1 || rc2=$?
	expect_eq "exit status of '$cmd' on both engines" "$rc1" "$rc2"
	cmp -s "$T/sq.out" "$T/pg.out" || fail "'$cmd' differs between SQLite and PostgreSQL: $(diff "$T/sq.out" "$T/pg.out")"
done
"$HB" matrix --db "$T/l.db" --out "$T/msq" >/dev/null || fail "matrix on SQLite"
"$HB" matrix --db "$lab" --out "$T/mpg" >/dev/null || fail "matrix on PostgreSQL"
diff -r "$T/msq" "$T/mpg" >/dev/null || fail "matrix differs: $(diff -r "$T/msq" "$T/mpg")"

# a read is read-only on PostgreSQL too; a missing server is said, not made
"$HB" report --db "postgresql:///nosuch?host=$T/pg/sock&user=postgres" >/dev/null 2>"$T/err" && fail "a missing database reported"
grep -q "nosuch" "$T/err" || fail "no reason: $(cat "$T/err")"

# --machine: the runs of a host, and a second machine's runs refused unmixed
"$HB" db info --db "$lab" --machine vm | grep -q '^runs=3$' || fail "--machine vm"
"$HB" db info --db "$lab" --machine nosuch | grep -q '^runs=0$' || fail "--machine nosuch"
cp -r "$R/$A" "$T/$A-other"
sed -i 's/^run_id=.*/run_id=other-machine-run/; s/^host=.*/host=gamingpc/; s/^machine_id=.*//' "$T/$A-other/bench.txt"
"$HB" db import --db "$lab" "$T/$A-other" >/dev/null || fail "import of the other machine's run"
rc=0; "$HB" report --db "$lab" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "report over two machines" 2 "$rc"
grep -q "more than one machine.*--machine" "$T/err" || fail "no reason: $(cat "$T/err")"
"$HB" report --db "$lab" --machine vm >"$T/vm.out" || fail "report --machine vm"
"$HB" report --db "$T/l.db" >"$T/sq.out"
cmp -s "$T/vm.out" "$T/sq.out" || fail "--machine vm is not the one machine's report"
"$HB" report --db "$lab" --machine gamingpc | grep -q "^$A-other " || fail "--machine gamingpc"
rc=0; "$HB" regress --db "$lab" --metric fps dsda-doom software >"$T/out" 2>"$T/err" || rc=$?
expect_eq "regress over two machines" 2 "$rc"
grep -q "2 machines" "$T/err" || fail "regress: $(cat "$T/err")"
"$HB" regress --db "$lab" --machine vm --metric fps dsda-doom software >/dev/null || fail "regress --machine vm"

# two importers at once, of the same 40 runs: one copy of each
mkdir "$T/many"
for i in $(seq 1 40); do
	d="$T/many/20261201T0000$(printf %02d "$i")Z-dsda-doom-software"
	cp -r "$R/$A" "$d"
	sed -i "s/^run_id=.*/run_id=many-$i/" "$d/bench.txt"
done
createdb_sql="CREATE DATABASE two"
psql_hb "$createdb_sql" >/dev/null || fail "$createdb_sql"
two="postgresql:///two?host=$T/pg/sock&user=postgres"
"$HB" db import --db "$two" "$R/$A" >/dev/null || fail "the schema of the second database"
"$HB" db import --db "$two" "$T/many" >"$T/imp1" 2>&1 &
p1=$!
"$HB" db import --db "$two" "$T/many" >"$T/imp2" 2>&1 &
p2=$!
wait $p1 || fail "importer 1: $(tail -n 3 "$T/imp1")"
wait $p2 || fail "importer 2: $(tail -n 3 "$T/imp2")"
q() { psql -X -q -A -t "$two" -c "$1"; }
expect_eq "runs after two importers" 41 "$(q 'SELECT count(*) FROM runs')"
expect_eq "distinct runs" 41 "$(q 'SELECT count(DISTINCT run_uuid) FROM runs')"
per=$(q "SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.run_uuid = 'many-1'")
expect_eq "metric rows" "$((per * 41))" "$(q 'SELECT count(*) FROM metrics')"

# run --db URL: stored here first, then in the lab's database
fake_recipe lab "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5"
export HITCHBENCH_RESULTS="$T/results"
rc=0
"$HB" run --no-quieting --display :99 --out "$T/runs" --db "$lab" "$T/lab.ini" --rounds 2 >"$T/out" 2>"$T/err" || rc=$?
expect_eq "run into the lab" 0 "$rc"
grep -q "^# stored in $T/results/hitchbench.db and postgresql:///hb" "$T/out" || fail "where stored: $(cat "$T/out")"
expect_eq "the runs here" 2 "$(sqlite3 "$T/results/hitchbench.db" "SELECT count(*) FROM runs WHERE game = 'lab'")"
expect_eq "the runs in the lab" 2 "$(psql_hb "SELECT count(*) FROM runs WHERE game = 'lab'")"
expect_eq "the batch in the lab, ended" complete "$(psql_hb "SELECT status FROM batches WHERE game = 'lab'")"
mid=$(cat /etc/machine-id 2>/dev/null || true)
[ -z "$mid" ] || expect_eq "machine id" "$mid" "$(psql_hb "SELECT DISTINCT machine_id FROM runs WHERE game = 'lab'")"

# the lab's server down during a run: the runs stay here; db push sends them
stop_postgres
rc=0
"$HB" run --no-quieting --display :99 --out "$T/runs" --db "$lab" "$T/lab.ini" --rounds 2 >"$T/out" 2>"$T/err" || rc=$?
expect_eq "run with the lab down" 0 "$rc"
[ "$(grep -c "did not take the runs" "$T/err")" = 1 ] || fail "the lab's failure said once: $(cat "$T/err")"
grep -q "db push" "$T/err" || fail "no way out said: $(cat "$T/err")"
expect_eq "the runs here" 4 "$(sqlite3 "$T/results/hitchbench.db" "SELECT count(*) FROM runs WHERE game = 'lab'")"
rc=0; "$HB" db push --to "$lab" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "db push with the lab down" 1 "$rc"
restart_postgres
"$HB" db push --to "$lab" >"$T/out" || fail "db push: $(cat "$T/out")"
grep -q "^pushed 2 of 2 run(s) not sent before, and 1 batch(es)" "$T/out" || fail "push: $(cat "$T/out")"
expect_eq "the runs in the lab" 4 "$(psql_hb "SELECT count(*) FROM runs WHERE game = 'lab'")"
# a push carries each run's api as the machine's database has it
expect_eq "api pushed" "$(sqlite3 "$T/results/hitchbench.db" "SELECT group_concat(api, ' ') FROM
	(SELECT api FROM runs WHERE game = 'lab' ORDER BY run_uuid)")" \
	"$(psql_hb "SELECT string_agg(api, ' ' ORDER BY run_uuid) FROM runs WHERE game = 'lab'")"
[ -z "$(psql_hb "SELECT name FROM runs WHERE game = 'lab' AND api IS NULL")" ] || fail "a pushed run without its api"
"$HB" db push --to "$lab" >"$T/out" || fail "second db push"
grep -q "^pushed 0 of 0 run(s) not sent before, and 0 batch(es)" "$T/out" || fail "second push: $(cat "$T/out")"

# the server stopped in the middle of a push of 40 runs, for good: what was
# sent is recorded, nothing doubles, and the next push sends the rest
"$HB" db import --db "$T/local40.db" "$T/many" >/dev/null || fail "local import of 40 runs"
"$HB" db push --db "$T/local40.db" --to "$two" >"$T/out" 2>"$T/err" || fail "push to two"
# a third database, empty, and a server stopped while the push runs
psql_hb "CREATE DATABASE three" >/dev/null
three="postgresql:///three?host=$T/pg/sock&user=postgres"
"$HB" db push --db "$T/local40.db" --to "$three" >"$T/push1" 2>"$T/push1.err" &
pp=$!
for i in $(seq 1 200); do
	n=$(psql -X -q -A -t "$three" -c 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 3 ] && break
	sleep 0.02
done
stop_postgres immediate
rc=0; wait $pp || rc=$?
sent=$(sqlite3 "$T/local40.db" "SELECT count(*) FROM pushes WHERE lab LIKE 'postgresql:///three%'")
if [ "$rc" = 0 ]; then
	# the push was quicker than the stop: every run sent
	expect_eq "runs recorded as sent" 40 "$sent"
else
	expect_eq "push cut short" 1 "$rc"
	grep -q "not sent: the next push sends them" "$T/push1.err" || fail "cut push: $(cat "$T/push1.err")"
	[ "$sent" -lt 40 ] || fail "all recorded as sent, yet the push failed"
fi
restart_postgres
"$HB" db push --db "$T/local40.db" --to "$three" >"$T/push2" || fail "the second push: $(cat "$T/push2")"
grep -q "^pushed $((40 - sent)) of $((40 - sent)) run(s)" "$T/push2" || fail "second push: $(cat "$T/push2") (after $sent)"
three_q() { psql -X -q -A -t "$three" -c "$1"; }
expect_eq "runs in the lab after the cut" 40 "$(three_q 'SELECT count(*) FROM runs')"
expect_eq "metric rows after the cut" "$((per * 40))" "$(three_q 'SELECT count(*) FROM metrics')"
expect_eq "provenance after the cut" "$(sqlite3 "$T/local40.db" 'SELECT count(*) FROM provenance')" \
	"$(three_q 'SELECT count(*) FROM provenance')"
exit 0
