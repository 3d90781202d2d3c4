#!/bin/sh
# Stall causes end to end on hand-made runs (tests/tools/stallrun.c, one
# 200 ms stall of each cause): hitchbench stalls gives each its cause and
# what decided it, and says how the alignments agree; report --stalls
# carries the stall columns and stall_why; the matrix has stall_*_s.csv.
. "$(dirname "$0")/../lib.sh"
MK="$HB_BUILD/tests/mkstallrun"
"$MK" sampled "$T/runs/b1/sampled" || fail "mkstallrun sampled"
"$MK" exact "$T/runs/b1/exact" || fail "mkstallrun exact"

"$HB" stalls "$T/runs/b1/sampled" "$T/runs/b1/exact" >"$T/out" 2>"$T/err" || fail "stalls failed: $(cat "$T/err")"
# every case's row in the window or warm-up, in order: cause and decider
for kind in sampled exact; do
	"$MK" --cases $kind | while read -r name cause decided section; do
		echo "$cause $decided"
	done >"$T/want.$kind"
	awk -v k=$kind '/^run /{r=($2==k)} /^  (warm-up|window) /{on=1; next} /^  load /{on=0}
		r && on && /^ +[+-][0-9]/{print $3, $4}' "$T/out" >"$T/got.$kind"
	diff -u "$T/want.$kind" "$T/got.$kind" || fail "$kind: causes differ"
done
grep -q '^  stallrec: 861 samples, own CPU 0.004 s (0.05% of a thread, 5.0 us a sample)$' "$T/out" ||
	fail "no cost line: $(grep stallrec "$T/out")"
grep -q 'alignment (frames): 18 stall frames, .*median 3.000 ms, max 3.000 ms' "$T/out" || fail "frames alignment"
grep -q 'alignment (t0): .*differs by +1.000 ms' "$T/out" || fail "t0 alignment"
grep -q 'D in pread64 on /usr/share/games/doom/freedoom2.wad.*stack: folio_wait_bit_common' "$T/out" ||
	fail "no evidence for the io stall"
"$HB" stalls -v "$T/runs/b1/exact" | grep -q ' S futex .* wait ' || fail "-v shows no samples"

# JSON: the same causes and deciders, section by section, and the seconds
# per cause; --no-notes drops the closing line of the table alone
"$HB" stalls --format json "$T/runs/b1/sampled" "$T/runs/b1/exact" >"$T/json" || fail "stalls --format json"
for kind in sampled exact; do
	python3 - "$T/json" "$kind" "$T/want.$kind" <<'EOF' || fail "$kind: the JSON differs: $(head -c 1500 "$T/json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == 1 and doc["stall_ms"] == 100, doc["format"]
run = [r for r in doc["runs"] if r["run"] == sys.argv[2]][0]
assert run["no_stalls_because"] is None
got = ["%s %s" % (s["cause"], s["decided"]) for s in run["stalls"] if s["section"] in ("warm-up", "window")]
want = open(sys.argv[3]).read().split("\n")[:-1]
assert got == want, (got, want)
for s in run["stalls"]:
    assert abs(sum(s["share_s"].values()) - s["ms"] / 1000) < 0.011, s
# seconds per cause: the sums of the stalls' shares, section by section
for sec, per in run["seconds_per_cause"].items():
    for cause, v in per.items():
        want_v = sum(s["share_s"].get(cause, 0) for s in run["stalls"] if s["section"] == sec)
        assert abs(v - want_v) < 1e-9, (sec, cause, v, want_v)
EOF
done
"$HB" stalls --no-notes "$T/runs/b1/sampled" >"$T/bare" || fail "stalls --no-notes"
"$HB" stalls "$T/runs/b1/sampled" | grep -v '^  (when_s: ' | cmp -s - "$T/bare" ||
	fail "--no-notes did more than drop the note: $(diff "$T/bare" "$T/out")"

# a run without a record: said, and exit 2 only when no run had one
mkdir -p "$T/plain" && cp "$T/runs/b1/sampled/bench.txt" "$T/runs/b1/sampled/frames.bin" "$T/plain/"
rc=0; "$HB" stalls "$T/plain" >"$T/out2" 2>"$T/err2" || rc=$?
expect_eq "no record anywhere" 2 "$rc"
grep -q 'no stall record' "$T/out2" || fail "no message for the run without a record"
"$HB" stalls "$T/plain" "$T/runs/b1/exact" >/dev/null || fail "one record is enough"
rc=0; "$HB" stalls --stall-ms x "$T/plain" >/dev/null 2>&1 || rc=$?
expect_eq "bad usage" 2 "$rc"

# report: the stall columns add up to stall_s, stall_why is the largest
"$HB" report --stalls --format csv "$T/runs/b1/sampled" >"$T/csv" || fail "report --stalls"
awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next} $1=="run" && $3=="sampled"{
	s=0; split("disk swap reclaim gpu cpu io wait other", g, " ")
	for(k in g) s+=$(c["stall_" g[k] "_s"])
	if (s - $(c["stall_s"]) > 0.011 || $(c["stall_s"]) - s > 0.011) { print "sum " s " vs " $(c["stall_s"]); exit 1 }
	if ($(c["stall_why"]) != "swap") { print "why " $(c["stall_why"]); exit 1 }
	# full precision: sums of the sample shares, 0.40 and 0.20 at the 2 decimals of the table
	if (sprintf("%.2f", $(c["load_disk_s"])) != "0.40" || sprintf("%.2f", $(c["warm_disk_s"])) != "0.20") { print "load/warm " $(c["load_disk_s"]) " " $(c["warm_disk_s"]); exit 1 }
}' "$T/csv" || fail "report --stalls CSV is wrong"
"$HB" report --stalls "$T/runs/b1/sampled" | grep -q '^sampled .* swap$' || fail "report --stalls table has no why"

# the matrix: a CSV per stall column, with the run's value
"$HB" matrix --out "$T/matrix" --interfered /dev/null "$T/runs/b1" >/dev/null 2>"$T/merr" || fail "matrix: $(cat "$T/merr")"
for m in stall_disk_s stall_swap_s stall_reclaim_s stall_gpu_s stall_cpu_s stall_io_s stall_wait_s stall_other_s load_disk_s warm_disk_s; do
	[ -f "$T/matrix/$m.csv" ] || fail "no $m.csv: $(ls "$T/matrix")"
done
expect_eq "stall_disk_s.csv" "stallgame,sampled@rec10,0.20,0.20,0.20,1" \
	"$(grep '^stallgame,sampled@rec10,' "$T/matrix/stall_disk_s.csv")"
exit 0
