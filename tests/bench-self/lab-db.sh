#!/bin/sh
# lab-db: the lab's results database under load. A benchmark, not a test:
# it prints figures and fails only if a command fails or a count is wrong.
# Run by 'make bench-lab' (and 'make bench-self') from the top of the tree
# after make built everything; root (the PostgreSQL 15 server it starts runs
# as the user postgres, on a socket directory of its own, fsync on as a
# lab's server would have it).
#
# 1. Imports a second with concurrent writers: RUNS run directories (copies
#    of the three recorded real runs, tests/fixtures/runs, each with its own
#    run_id) imported by W = 1, 2, 4, 8 'hitchbench db import' processes at
#    once, each its own share, into a fresh database: PostgreSQL, and an
#    SQLite file beside it. A rate is runs / the wall time from the first
#    process's start to the last one's end, and covers what an import is:
#    reading bench.txt and the frames, checking them, computing the metrics,
#    one transaction per run. ROUNDS rounds, the engines and writer counts
#    interleaved within each; medians with [min .. max].
# 2. A matrix over a large lab: the three real runs' rows (run, 31 metric
#    values, 48 provenance pairs each) copied by SQL into N runs (default
#    100,000: 1,000 batches of 100 runs, 2 machines, 10 kernels), then
#    'hitchbench matrix --by batch' and '--by kernel --machine' timed, from
#    the command's start to its exit (read, group, write every CSV), and
#    its peak RSS (GNU time's %M).
# 3. The lab's site of that database ('hitchbench site', issue 39), for
#    PostgreSQL and for SQLite: whole (a fresh directory), again with
#    nothing changed, and after one new batch of 100 runs on a new kernel
#    (made by SQL as the others), each timed with its peak RSS; the new
#    batch's page must be there.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
HB_BUILD=${HB_BUILD:-$top/build}
HB=$HB_BUILD/hitchbench
HB_FIXTURES=$top/tests/fixtures
RUNS=${LAB_RUNS:-400}
ROUNDS=${LAB_ROUNDS:-3}
N=${LAB_MATRIX_RUNS:-100000}
case $N in
'' | *[!0-9]*) N=1 ;;
esac
if [ "$N" = 0 ] || [ $((N % 100)) != 0 ]; then
	echo "lab database: LAB_MATRIX_RUNS must be a multiple of 100 (whole batches), not '${LAB_MATRIX_RUNS:-}'" >&2
	exit 2
fi
export HB HB_BUILD HB_FIXTURES
TMPDIR=$(mktemp -d)
export TMPDIR
. "$top/tests/lib.sh"
skip() {
	echo "lab database: skipped: $*"
	exit 0
}
trap 'stop_postgres; rm -rf "$TMPDIR"' EXIT
chmod 755 "$TMPDIR"
start_postgres "$T/pg"
# a lab's server keeps what it commits: fsync back on for the figures
psql_hb "ALTER SYSTEM SET fsync = on" >/dev/null
stop_postgres
restart_postgres
recorded_runs

echo "lab database: $(psql_hb 'SELECT version()' | cut -d' ' -f1-2) on a socket, $(nproc) CPU(s); hitchbench $("$HB" --version | cut -d' ' -f2)"

# the run directories, in 8 shares (a writer takes 8/W of them)
for i in $(seq 1 "$RUNS"); do
	src=$A
	[ $((i % 3)) = 1 ] && src=$B
	[ $((i % 3)) = 2 ] && src=$G
	share=$((i % 8))
	d="$T/runs/$share/20261201T$(printf %06d "$i")Z-$src"
	mkdir -p "$T/runs/$share"
	cp -r "$R/$src" "$d"
	sed -i "s/^run_id=.*/run_id=bench-$i/" "$d/bench.txt"
done

# import_rate ENGINE W ROUND: runs a second, W writers at once
import_rate() {
	engine=$1
	w=$2
	name=i${w}r$3
	if [ "$engine" = pg ]; then
		psql_hb "CREATE DATABASE $name" >/dev/null
		db="postgresql:///$name?host=$T/pg/sock&user=postgres"
	else
		db=$T/$name.db
	fi
	"$HB" db info --db "$db" >/dev/null 2>&1 || "$HB" db upgrade --db "$db" >/dev/null 2>&1 || true
	t0=$(date +%s.%N)
	pids=
	k=0
	while [ $k -lt "$w" ]; do
		dirs=
		s=$k
		while [ $s -lt 8 ]; do
			dirs="$dirs $T/runs/$s"
			s=$((s + w))
		done
		# shellcheck disable=SC2086
		"$HB" db import --db "$db" $dirs >"$T/imp.$k" 2>&1 &
		pids="$pids $!"
		k=$((k + 1))
	done
	for p in $pids; do
		wait "$p" || { cat "$T"/imp.*; die "an importer failed"; }
	done
	t1=$(date +%s.%N)
	if [ "$engine" = pg ]; then
		n=$(psql -X -q -A -t "$db" -c 'SELECT count(*) FROM runs')
	else
		n=$(sqlite3 "$db" 'SELECT count(*) FROM runs')
	fi
	[ "$n" = "$RUNS" ] || die "$engine, $w writers: $n runs in the database, not $RUNS"
	awk -v n="$RUNS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", n / (b - a) }'
}

die() {
	echo "lab database: $*" >&2
	exit 1
}

# median [min .. max] of the numbers on stdin
summary() {
	sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "%8.1f  [%.1f .. %.1f]", m, v[1], v[NR] }'
}

echo
echo "imports a second, $RUNS runs, W writers at once, $ROUNDS rounds (median [min .. max]):"
for r in $(seq 1 "$ROUNDS"); do
	for w in 1 2 4 8; do
		for e in pg sqlite; do
			import_rate $e $w "$r" >>"$T/rate.$e.$w"
		done
	done
done
printf "  %-8s %28s %28s\n" writers "PostgreSQL" "SQLite (one file)"
for w in 1 2 4 8; do
	printf "  %-8s %28s %28s\n" "$w" "$(summary <"$T/rate.pg.$w")" "$(summary <"$T/rate.sqlite.$w")"
done
echo "  # rate = runs / wall seconds from the first importer's start to the last one's end;"
echo "  # an import reads bench.txt and frames.bin, checks them, computes 31 metrics, one transaction a run"

# the large lab: N runs made by SQL from the three real ones
psql_hb "CREATE DATABASE big" >/dev/null
big="postgresql:///big?host=$T/pg/sock&user=postgres"
"$HB" db import --db "$big" "$R/$A" "$R/$B" "$R/$G" >/dev/null
"$HB" db import --db "$T/big.db" "$R/$A" "$R/$B" "$R/$G" >/dev/null
# the copy: run i is real run (i % 3) + 1, in batch i / 100, on host
# lab-(i / 100 % 2), kernel 6.(i / 10000); its directory is on its machine
# (/lab/HOST/NAME), not here, as a lab's runs are where its database is. copy_sql ENGINE LO HI [KERNEL]:
# runs LO .. HI (whole batches) in the engine's SQL (pg or sqlite), on
# KERNEL if given
copy_sql() {
	lo=$2
	hi=$3
	run_kernel="'6.' || (i / 10000)"
	batch_kernel="'6.' || (i / 100)"
	[ -z "${4:-}" ] || run_kernel="'$4'" batch_kernel="'$4'"
	if [ "$1" = pg ]; then
		series="(SELECT g AS i FROM generate_series(@LO@, @HI@) AS g) AS s"
		pad="lpad(CAST(i AS TEXT), 8, '0')"
	else
		series="(SELECT value AS i FROM generate_series(@LO@, @HI@)) AS s"
		pad="printf('%08d', i)"
	fi
	copied="n.run_uuid LIKE 'big-run-%' AND CAST(substr(n.run_uuid, 9) AS INTEGER) BETWEEN $lo AND $hi"
	cat <<SQL
INSERT INTO batches (batch_uuid, path, game, status, host, kernel_release, imported_utc)
	SELECT 'big-' || i, '/lab/' || i, 'dsda-doom', 'complete', 'lab-' || (i % 2),
	       $batch_kernel, '2026-12-01T00:00:00Z' FROM $(echo "$series" | sed "s/@LO@/$((lo / 100))/; s/@HI@/$((hi / 100))/");
INSERT INTO runs (run_uuid, name, path, format, game, variant, status, started_utc, kernel_release,
		  host, imported_utc, batch_uuid, batch_round, batch_position, run_name, invalid)
	SELECT 'big-run-' || i, r.name || '-' || i, '/lab/lab-' || ((i / 100) % 2) || '/' || r.name || '-' || i, r.format, r.game, r.variant, r.status,
	       '2026-12-01T' || $pad, $run_kernel, 'lab-' || ((i / 100) % 2),
	       r.imported_utc, 'big-' || (i / 100), i % 100, 0, r.variant, 0
	FROM $(echo "$series" | sed "s/@LO@/$lo/; s/@HI@/$hi/") JOIN runs AS r ON r.id = 1 + (i % 3);
INSERT INTO metrics (run_id, name, value)
	SELECT n.id, m.name, m.value FROM runs AS n JOIN runs AS o
	       ON $copied AND o.id = 1 + (CAST(substr(n.run_uuid, 9) AS INTEGER) % 3)
	JOIN metrics AS m ON m.run_id = o.id;
INSERT INTO provenance (run_id, seq, key, value)
	SELECT n.id, p.seq, p.key, p.value FROM runs AS n JOIN runs AS o
	       ON $copied AND o.id = 1 + (CAST(substr(n.run_uuid, 9) AS INTEGER) % 3)
	JOIN provenance AS p ON p.run_id = o.id;
SQL
}
t0=$(date +%s.%N)
copy_sql pg 0 $((N - 1)) | psql -X -q "$big" -v ON_ERROR_STOP=1 >/dev/null || die "filling PostgreSQL"
psql -X -q "$big" -c "VACUUM ANALYZE" >/dev/null
t1=$(date +%s.%N)
copy_sql sqlite 0 $((N - 1)) | sqlite3 "$T/big.db" || die "filling SQLite"
sqlite3 "$T/big.db" "ANALYZE" || die "ANALYZE"
t2=$(date +%s.%N)
np=$(psql -X -q -A -t "$big" -c 'SELECT count(*) FROM runs')
ns=$(sqlite3 "$T/big.db" 'SELECT count(*) FROM runs')
[ "$np" = $((N + 3)) ] || die "PostgreSQL holds $np runs, not $((N + 3))"
[ "$ns" = $((N + 3)) ] || die "SQLite holds $ns runs, not $((N + 3))"
echo
awk -v n="$N" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	printf "a matrix over %d runs (+3 real; 31 metric values and 48 provenance pairs each), made by SQL in %.0f s (PostgreSQL), %.0f s (SQLite):\n", n, b - a, c - b }'
# time_cmd LABEL CMD...: seconds and peak RSS (the command's stdout in $T/out)
time_cmd() {
	label=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%e %M" -o "$T/time" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err"; die "$label failed"; }
		read -r s kb <"$T/time"
		printf "  %-46s %7.1f s  %6d MiB peak RSS\n" "$label" "$s" "$((kb / 1024))"
	else
		t0=$(date +%s.%N)
		"$@" >"$T/out" 2>"$T/err" || { cat "$T/err"; die "$label failed"; }
		t1=$(date +%s.%N)
		awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN { printf "  %-46s %7.1f s\n", l, b - a }'
	fi
}
for r in 1 2; do
	time_cmd "PostgreSQL  matrix --by batch (round $r)" "$HB" matrix --db "$big" --out "$T/mpg" --metric fps --metric stalls
	time_cmd "SQLite      matrix --by batch (round $r)" "$HB" matrix --db "$T/big.db" --out "$T/msq" --metric fps --metric stalls
done
time_cmd "PostgreSQL  matrix --by kernel --machine lab-0" "$HB" matrix --db "$big" --machine lab-0 --by kernel --out "$T/mpgk" --metric fps
time_cmd "SQLite      matrix --by kernel --machine lab-0" "$HB" matrix --db "$T/big.db" --machine lab-0 --by kernel --out "$T/msqk" --metric fps
cmp -s "$T/mpg/fps.csv" "$T/msq/fps.csv" || die "the two engines' fps.csv differ"
echo "  # from the command's start to its exit: the runs and their metrics read, grouped, every CSV written;"
echo "  # both engines wrote the same fps.csv ($(wc -l <"$T/mpg/fps.csv") lines)"

# the lab's site of the large lab: whole, again unchanged, after one new batch
echo
echo "the lab's site of those $N runs ($((N / 100)) batches), hitchbench site:"
# site_cmd LABEL ENGINE: times site of ENGINE's database into $T/site-ENGINE, and shows its line
site_cmd() {
	if [ "$2" = pg ]; then
		db=$big
		name="PostgreSQL"
	else
		db=$T/big.db
		name="SQLite    "
	fi
	time_cmd "$name  site, $1" "$HB" site --db "$db" --out "$T/site-$2"
	echo "      $(sed "s|^site $T/site-$2: ||" "$T/out")"
}
for e in pg sqlite; do
	site_cmd "whole" $e
	site_cmd "again, nothing changed" $e
done
copy_sql pg "$N" $((N + 99)) 7.0 | psql -X -q "$big" -v ON_ERROR_STOP=1 >/dev/null || die "the new batch into PostgreSQL"
copy_sql sqlite "$N" $((N + 99)) 7.0 | sqlite3 "$T/big.db" || die "the new batch into SQLite"
for e in pg sqlite; do
	site_cmd "one batch more (kernel 7.0)" $e
	[ -f "$T/site-$e/batch/big-$((N / 100)).html" ] || die "$e: no page of the new batch big-$((N / 100)) in $T/site-$e/batch"
done
echo "  # from the command's start to its exit; the new batch's page is there on both engines"
