#!/bin/sh
# The host's noise (bench.txt noise.*) on copies of the real recorded runs
# (tests/fixtures/runs) with the keys a run made with them has:
# cpu_ms_per_frame is the game's CPU time over the frames of (t0, t1],
# counted here from frames.bin on its own; report's table gets cpu_ms/f
# beside fps and a noise column, each defined under it, "-" for the run
# without the keys, and tables of runs without any stay as they were;
# CSV and JSON carry the five metrics (empty, null without); db import
# stores them, compare --metric cpu_ms_per_frame finds the copies whose
# frames cost 10% more and says which side is better; matrix writes
# cpu_ms_per_frame.csv and a file per noise figure; a noise number that
# does not parse makes the run invalid with its bench.txt line.
. "$(dirname "$0")/../lib.sh"
recorded_runs
D=$T/runs
mkdir -p "$D"
cp -r "$R/$G" "$D/"

# presents_in T0 T1 RUN: presents of RUN's frames.bin in (T0, T1] (each
# ends a frame: the first present is before T0); records from byte 128,
# 16 bytes, the stamp first, unused slots 0
presents_in() {
	od -An -v -t u8 -j 128 -w16 "$D/$3/frames.bin" |
		awk -v t0="$1" -v t1="$2" '$1 != 0 && $1 > t0 && $1 <= t1 { n++ } END { print n + 0 }'
}

# noisy NAME SRC VARIANT GAME_CPU_MS STEAL: a copy of SRC with a run_id
# of its own and the noise keys, over its window less 1 ms at each end
noisy() {
	cp -r "$R/$2" "$D/$1"
	f=$D/$1/bench.txt
	ws=$(value window_start_ns "$f")
	we=$(value window_end_ns "$f")
	sed -i "s/^run_id=.*/run_id=$(echo "$1" | md5sum | cut -c1-32)/; s/^variant=.*/variant=$3/;
		/^status=/d" "$f"
	cat >>"$f" <<EOF
noise.t0_ns=$((ws + 1000000))
noise.t1_ns=$((we - 1000000))
noise.cpus=2
noise.steal_pct=$5
noise.steal=proc/stat steal; worst cpu1 0.60%
noise.irq_pct=0.85
noise.softirq_pct=0.30
noise.foreign_cpu_pct=2.13
noise.run_cpu_ms=6500.000
noise.game_cpu_ms=$4
noise.game_runq_ms=55.020
noise.game_runq_ms_per_s=9.17
noise.cost_us=118
status=ok
EOF
}
noisy "$A" "$A" software 5400.000 0.41
noisy "$B" "$B" software 5300.000 -
# cpu_ms_per_frame of run $1 with game CPU time $2, computed here
expect_cpu() {
	f=$D/$1/bench.txt
	n=$(presents_in "$(value noise.t0_ns "$f")" "$(value noise.t1_ns "$f")" "$1")
	[ "$n" -gt 600 ] || fail "only $n frames in $1's noise interval"
	awk -v c="$2" -v n="$n" 'BEGIN { printf "%.3f\n", c / n }'
}
cpu_a=$(expect_cpu "$A" 5400)
cpu_b=$(expect_cpu "$B" 5300)

# the table: cpu_ms/f after fps, noise last, "-" for the gl run
"$HB" report "$D" >"$T/table" 2>"$T/err" || fail "report failed: $(cat "$T/err")"
head -n 1 "$T/table" | grep -q '^run  *frames  *fps  *cpu_ms/f  *steady  *stalls  *stall_s  *longest  *low1  *noise$' ||
	fail "table heading: $(head -n 1 "$T/table")"
grep -q "^$A  *731  *121\.8  *$cpu_a  .* st0\.4 fg2\.1 rq9$" "$T/table" || fail "run A ($cpu_a): $(cat "$T/table")"
grep -q "^$B  .* $cpu_b  .* st- fg2\.1 rq9$" "$T/table" || fail "run B ($cpu_b): $(cat "$T/table")"
grep -q "^$G  *335  *55\.8  *-  .*  -$" "$T/table" || fail "the gl run without noise: $(cat "$T/table")"
grep -q '^median dsda-doom software (n=2) .* st0\.4 fg2\.1 rq9$' "$T/table" ||
	fail "the median's noise (steal of one run): $(cat "$T/table")"
grep -q '^# cpu_ms/f = the game.s CPU time over (noise.t0_ns, noise.t1_ns\] .* / the frames whose end is in that interval, ms$' \
	"$T/table" || fail "cpu_ms/f is not defined: $(cat "$T/table")"
grep -q '^# noise = .*st = steal_pct.*st-: no steal clock.*fg = foreign_cpu_pct.*rq = game_runq_ms_per_s.*- : the run has none' \
	"$T/table" || fail "noise is not defined: $(cat "$T/table")"
# runs without any noise: the table as it always was
"$HB" report "$R" >"$T/plain" || fail "report of the recorded runs failed"
diff -u "$HB_FIXTURES/expected/runs-report.txt" "$T/plain" || fail "a table without noise changed"
grep -q 'noise\|cpu_ms' "$T/plain" && fail "noise in a table of runs without it"

# CSV: the five metrics, empty for the gl run
"$HB" report --format csv "$D" >"$T/csv" || fail "csv report failed"
python3 - "$T/csv" "$A" "$B" "$G" "$cpu_a" <<'EOF' || fail "CSV: $(cat "$T/csv")"
import csv, sys
rows = {r["run"]: r for r in csv.DictReader(open(sys.argv[1])) if r["row"] == "run"}
a, b, g = rows[sys.argv[2]], rows[sys.argv[3]], rows[sys.argv[4]]
# full precision: the table's 3 decimals once rounded
assert "%.3f" % float(a["cpu_ms_per_frame"]) == sys.argv[5], a["cpu_ms_per_frame"]
assert (a["steal_pct"], a["foreign_cpu_pct"], a["irq_pct"], a["game_runq_ms_per_s"]) == \
    ("0.41", "2.13", "0.85", "9.17"), a
assert b["steal_pct"] == "" and b["foreign_cpu_pct"] == "2.13", b
for k in ("cpu_ms_per_frame", "steal_pct", "foreign_cpu_pct", "irq_pct", "game_runq_ms_per_s"):
    assert g[k] == "", (k, g[k])
EOF
# JSON: the numbers in full, null without, each defined
"$HB" report --format json "$D" >"$T/json" || fail "json report failed"
python3 - "$T/json" "$A" "$G" "$cpu_a" <<'EOF' || fail "JSON: $(head -c 2000 "$T/json")"
import json, sys
doc = json.load(open(sys.argv[1]))
runs = {r["run"]: r for r in doc["runs"]}
a, g = runs[sys.argv[2]]["metrics"], runs[sys.argv[3]]["metrics"]
assert abs(a["cpu_ms_per_frame"] - float(sys.argv[4])) < 0.0005, a["cpu_ms_per_frame"]
assert a["steal_pct"] == 0.41 and a["game_runq_ms_per_s"] == 9.17, a
assert g["cpu_ms_per_frame"] is None and g["steal_pct"] is None, g
assert "noise.game_cpu_ms" in doc["definitions"]["cpu_ms_per_frame"]
assert runs[sys.argv[2]]["provenance"]["noise.steal"].startswith("proc/stat steal")
EOF

# the database: five copies a side, B's frames costing 10% more CPU
for i in 1 2 3 4 5; do
	noisy "fast$i" "$A" fast "$((5400 + i * 10)).000" 0.41
	noisy "slow$i" "$A" slow "$((5940 + i * 10)).000" 0.41
done
db=$T/db.sqlite
"$HB" db import --db "$db" "$D" >"$T/dbout" 2>"$T/err" || fail "db import failed: $(cat "$T/err")"
stored=$(sqlite3 "$db" "SELECT count(*) FROM metrics WHERE name IN ('cpu_ms_per_frame', 'steal_pct',
	'foreign_cpu_pct', 'irq_pct', 'game_runq_ms_per_s')")
# 12 runs with noise, 5 figures each, less run B's steal
expect_eq "noise metric rows in the database" 59 "$stored"
v=$(sqlite3 "$db" "SELECT printf('%.3f', m.value) FROM metrics m JOIN runs r ON r.id = m.run_id
	WHERE m.name = 'cpu_ms_per_frame' AND r.path LIKE '%/$A'")
expect_eq "cpu_ms_per_frame of run A in the database" "$cpu_a" "$v"
rc=0; "$HB" compare --db "$db" --metric cpu_ms_per_frame dsda-doom fast slow >"$T/cmp" 2>"$T/err" || rc=$?
expect_eq "compare fast slow on cpu_ms_per_frame" 3 "$rc"
grep -q '^ratio  *1\.099[0-9]* ' "$T/cmp" || fail "ratio of 10% more CPU: $(cat "$T/cmp")"
grep -q '^better  *A  *lower cpu_ms_per_frame is better$' "$T/cmp" || fail "which side is better: $(cat "$T/cmp")"
rc=0; "$HB" compare --db "$db" --metric cpu_ms_per_frame dsda-doom software gl >"$T/cmp" 2>"$T/err" || rc=$?
expect_eq "compare against runs without the metric" 1 "$rc"
grep -q "no valid runs of dsda-doom 'gl' with cpu_ms_per_frame" "$T/err" || fail "why: $(cat "$T/err")"
# the database's report shows the same column
"$HB" report --db "$db" --variant software >"$T/dbtable" || fail "report --db failed"
grep -q " $cpu_a  .* st0\.4 fg2\.1 rq9$" "$T/dbtable" || fail "report --db: $(cat "$T/dbtable")"

# matrix: the CPU time a frame and each noise figure, empty for gl (run A's
# 5400 ms over 730 frames is under run B's 5300 ms over 709)
"$HB" matrix --by kernel --metric cpu_ms_per_frame --metric steal_pct --metric game_runq_ms_per_s \
	--out "$T/matrix" "$D" >"$T/mout" || fail "matrix failed: $(cat "$T/mout")"
k=6.18.44-fc-v657
grep -qxF "game,run,$k.median,$k.min,$k.max,$k.n" "$T/matrix/cpu_ms_per_frame.csv" ||
	fail "matrix header: $(cat "$T/matrix/cpu_ms_per_frame.csv")"
grep -q "^dsda-doom,software,[0-9.]*,$cpu_a,$cpu_b,2$" "$T/matrix/cpu_ms_per_frame.csv" ||
	fail "matrix software cell: $(cat "$T/matrix/cpu_ms_per_frame.csv")"
grep -qxF "dsda-doom,gl,,,," "$T/matrix/cpu_ms_per_frame.csv" || fail "matrix gl cell: $(cat "$T/matrix/cpu_ms_per_frame.csv")"
grep -qxF "dsda-doom,software,0.41,0.41,0.41,1" "$T/matrix/steal_pct.csv" ||
	fail "matrix steal (one run without a steal clock): $(cat "$T/matrix/steal_pct.csv")"
grep -qxF "dsda-doom,fast,9.17,9.17,9.17,5" "$T/matrix/game_runq_ms_per_s.csv" ||
	fail "matrix run queue: $(cat "$T/matrix/game_runq_ms_per_s.csv")"

# a noise number that does not parse: invalid, with its line
noisy x-abc "$A" software abc 0.41
line=$(grep -n '^noise.game_cpu_ms=' "$D/x-abc/bench.txt" | cut -d: -f1)
"$HB" report "$D" >"$T/table" 2>"$T/err" || fail "report failed: $(cat "$T/err")"
grep -qxF "excluded x-abc: invalid: bench.txt:$line: noise.game_cpu_ms=abc is not a number" "$T/table" ||
	fail "bad number: $(grep excluded "$T/table")"
exit 0
