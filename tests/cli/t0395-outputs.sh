#!/bin/sh
# Every output format of report, compare, regress and db info on the real
# recorded runs (tests/fixtures/runs: two dsda-doom software runs, one gl):
# the numbers agree across formats to the last bit (CSV and JSON at full
# precision), each independently recomputed where it can be (fps from
# frames.bin, a median, a ratio), Markdown is a table whose rows are the
# text table's, --no-notes drops the notes alone, the JSON documents carry
# their format versions, and compare's and regress's exit codes are the
# same in every format.
. "$(dirname "$0")/../lib.sh"
recorded_runs
command -v python3 >/dev/null || skip "python3 (the JSON and CSV readers) is not installed"
cp -R "$R" "$T/runs"

# report: CSV at full precision, one header, runs and groups apart
"$HB" report --format csv "$T/runs" >"$T/csv" || fail "report --format csv"
"$HB" report --format json "$T/runs" >"$T/json" || fail "report --format json"
python3 -m json.tool "$T/json" >/dev/null || fail "report's JSON is not JSON"
python3 - "$T/csv" "$T/json" "$T/runs" "$A" "$B" "$G" <<'EOF' || fail "report's CSV and JSON disagree"
import csv, json, struct, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
doc = json.load(open(sys.argv[2]))
runs = [r for r in rows if r["row"] == "run"]
groups = [r for r in rows if r["row"] == "group"]
assert [r["run"] for r in runs] == sorted([sys.argv[4], sys.argv[5], sys.argv[6]]), runs
assert [(g["stat"], g["variant"], g["n"]) for g in groups] == [
    ("median", "software", "2"), ("min", "software", "2"), ("max", "software", "2"),
    ("median", "gl", "1"), ("min", "gl", "1"), ("max", "gl", "1")], groups
assert all(g["run"] == "" and g["status"] == "" for g in groups)
assert all(r["stat"] == "" and r["status"] == "ok" for r in runs)
# every number of the CSV is the JSON's double, exactly
byrun = {r["run"]: r for r in doc["runs"]}
for r in runs:
    for k, v in byrun[r["run"]]["metrics"].items():
        assert (r[k] == "" and v is None) or float(r[k]) == v, (r["run"], k, r[k], v)
for g, (game, med) in zip(groups[::3], [(x["game"], x["median"]) for x in doc["groups"]]):
    for k, v in med.items():
        assert (g[k] == "" and v is None) or float(g[k]) == v, (k, g[k], v)
# fps recomputed from frames.bin: presents ending in the window (after
# the warm-up), over the window's seconds
for r in runs:
    d = sys.argv[3] + "/" + r["run"]
    kv = dict(l.rstrip("\n").split("=", 1) for l in open(d + "/bench.txt") if "=" in l)
    ws, we = int(kv["window_start_ns"]), int(kv["window_end_ns"])
    raw = open(d + "/frames.bin", "rb").read()[128:]
    # records from byte 128, 16 bytes each, the present stamp first (0: none)
    t = sorted(struct.unpack_from("<Q", raw, i)[0] for i in range(0, len(raw) // 16 * 16, 16))
    t = [x for x in t if x]
    n = sum(1 for a, b in zip(t, t[1:]) if ws < b <= we)
    assert int(r["frames"]) == n, (r["run"], r["frames"], n)
    assert float(r["fps"]) == n / ((we - ws) / 1e9), (r["run"], r["fps"], n)
# the software group's median fps: the mean of its two runs (an even count)
sw = [float(r["fps"]) for r in runs if r["variant"] == "software"]
assert float(groups[0]["fps"]) == (sw[0] + sw[1]) / 2, (groups[0]["fps"], sw)
EOF

# Markdown: the text table's rows, cell for cell; the definitions are the
# table's '#' notes as a list; --no-notes drops them from both
"$HB" report "$T/runs" >"$T/table" || fail "report"
"$HB" report --format markdown "$T/runs" >"$T/md" || fail "report --format markdown"
"$HB" report --no-notes "$T/runs" >"$T/table.bare" || fail "report --no-notes"
"$HB" report --format markdown --no-notes "$T/runs" >"$T/md.bare" || fail "report --format markdown --no-notes"
expect_eq "markdown heading" "| run | frames | fps | steady | stalls | stall_s | longest | low1 |" "$(head -n 1 "$T/md")"
expect_eq "markdown alignment" "| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" "$(sed -n 2p "$T/md")"
grep -v '^#' "$T/table" | sed 1d | sed 's/  \+/ | /g; s/^/| /; s/$/ |/' >"$T/table.md"
grep '^| ' "$T/md" | sed 1,2d >"$T/md.rows"
diff -u "$T/table.md" "$T/md.rows" || fail "markdown rows differ from the table's"
sed -n 's/^# /- /p' "$T/table" >"$T/notes"
sed -n '/^Definitions:$/,$p' "$T/md" | sed 1d >"$T/md.notes"
diff -u "$T/notes" "$T/md.notes" || fail "markdown definitions differ from the table's notes"
grep -v '^#' "$T/table" | cmp -s - "$T/table.bare" || fail "--no-notes did more than drop the notes"
sed '/^$/,$d' "$T/md" | cmp -s - "$T/md.bare" || fail "markdown --no-notes: $(cat "$T/md.bare")"

# the database of the same runs
db=$T/db.sqlite
"$HB" db import --db "$db" "$T/runs" >/dev/null 2>"$T/err" || fail "db import: $(cat "$T/err")"
"$HB" db info --db "$db" >"$T/info" || fail "db info"
"$HB" db info --db "$db" --format json >"$T/info.json" || fail "db info --format json"
python3 - "$T/info" "$T/info.json" "$db" <<'EOF' || fail "db info JSON: $(cat "$T/info.json")"
import json, sys
kv = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
assert doc == {"format": 1, "database": sys.argv[3], "engine": "sqlite", "schema_version": int(kv["schema_version"]),
               "machine": None, "runs": 3, "metric_values": int(kv["metric_values"])}, doc
assert int(kv["metric_values"]) > 3 * 20, kv
EOF
rc=0; "$HB" db import --db "$db" --format json "$T/runs" >/dev/null 2>&1 || rc=$?
expect_eq "db import --format json" 2 "$rc"

# compare software against gl: UNKNOWN (exit 4) with 2 and 1 runs, in every format
for f in table json markdown; do
	rc=0; "$HB" compare --db "$db" --format $f dsda-doom software gl >"$T/cmp.$f" 2>"$T/err" || rc=$?
	expect_eq "compare --format $f exit status" 4 "$rc"
done
rc=0; "$HB" compare --db "$db" --format csv dsda-doom software gl >/dev/null 2>"$T/err" || rc=$?
expect_eq "compare --format csv" 2 "$rc"
grep -q "unknown format 'csv' (this command prints table, json, markdown)" "$T/err" || fail "$(cat "$T/err")"
python3 - "$T/cmp.json" "$T/csv" "$T/cmp.table" "$T/cmp.markdown" <<'EOF' || fail "compare JSON: $(cat "$T/cmp.json")"
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in csv.DictReader(open(sys.argv[2], newline="")) if r["row"] == "run"]
sw = sorted(float(r["fps"]) for r in rows if r["variant"] == "software")
gl = [float(r["fps"]) for r in rows if r["variant"] == "gl"]
assert doc["format"] == 1 and (doc["game"], doc["metric"], doc["a"], doc["b"]) == ("dsda-doom", "fps", "software", "gl")
assert doc["runs"] == {"a": 2, "b": 1}, doc["runs"]
assert sorted(doc["values"]["a"]) == sw and doc["values"]["b"] == gl, doc["values"]
assert doc["median"] == {"a": (sw[0] + sw[1]) / 2, "b": gl[0]}, doc["median"]
assert doc["ratio"] == gl[0] / ((sw[0] + sw[1]) / 2), doc["ratio"]
assert doc["difference"] == gl[0] - (sw[0] + sw[1]) / 2, doc["difference"]
assert doc["difference_interval"]["lo"] <= doc["difference"] <= doc["difference_interval"]["hi"]
# two runs above one: U of A is 2, and the exact two-sided p of the most extreme of 3 orders is 2/3
assert doc["mann_whitney"] == {"u": 2, "p": 2 / 3, "method": "exact"}, doc["mann_whitney"]
assert doc["kolmogorov_smirnov"]["d"] == 1, doc["kolmogorov_smirnov"]
assert doc["p"] == min(doc["mann_whitney"]["p"], doc["kolmogorov_smirnov"]["p"])
assert doc["verdict"] == "UNKNOWN" and doc["exit_status"] == 4 and doc["better"] is None
assert doc["rounds_needed"]["estimate"] == min(doc["rounds_needed"]["noether"], doc["rounds_needed"]["crossing"])
assert set(doc["definitions"]) >= {"median", "ratio", "mann_whitney", "thresholds"}
# the table and the Markdown say the same, at their decimals
table = open(sys.argv[3]).read()
md = open(sys.argv[4]).read()
med = "%.2f" % doc["median"]["a"], "%.2f" % doc["median"]["b"]
assert ("median %14s %14s" % med) in table.replace("median              ", "median"), table
assert "| median | %s | %s |" % med in md, md
assert "| ratio | | %.4f |" % doc["ratio"] in md and "| verdict | | **UNKNOWN** |" in md, md
assert "| rounds needed | | about %d more of each |" % doc["rounds_needed"]["estimate"] in md, md
EOF
"$HB" compare --db "$db" --format markdown --no-notes dsda-doom software gl >"$T/cmp.bare" 2>/dev/null
# the table's --no-notes: each line cut before its "how" column, the
# lines that were nothing but notes gone
"$HB" compare --db "$db" --no-notes dsda-doom software gl >"$T/cmp.table.bare" 2>/dev/null
python3 - "$T/cmp.table" "$T/cmp.table.bare" <<'EOF' || fail "compare --no-notes: $(cat "$T/cmp.table.bare")"
import sys
full = open(sys.argv[1]).read().split("\n")
bare = open(sys.argv[2]).read().split("\n")
want = [l[:50].rstrip() for l in full if not l.startswith(" " * 53)]
assert bare == want, (bare, want)
assert "how" not in bare[1] and "Pinpoint" not in "".join(bare), bare
EOF
sed '/^Definitions:$/,$d' "$T/cmp.markdown" | sed '$d' | cmp -s - "$T/cmp.bare" ||
	fail "compare markdown --no-notes: $(diff "$T/cmp.markdown" "$T/cmp.bare")"

# regress: one kernel, no change point (exit 0) in every format; its
# median, min and max are the report's group's, to the bit
kernel=$(value kernel_release "$T/runs/$A/bench.txt")
for f in table tsv json; do
	rc=0; "$HB" regress --db "$db" --metric fps --format $f dsda-doom software >"$T/reg.$f" 2>"$T/err" || rc=$?
	expect_eq "regress --format $f exit status" 0 "$rc"
done
python3 - "$T/reg.json" "$T/csv" "$T/reg.tsv" "$kernel" <<'EOF' || fail "regress JSON: $(cat "$T/reg.json")"
import csv, json, sys
doc = json.load(open(sys.argv[1]))
g = {r["stat"]: r for r in csv.DictReader(open(sys.argv[2], newline="")) if r["row"] == "group" and r["variant"] == "software"}
assert doc["format"] == 1 and doc["run_name"] == "software" and doc["runs"] == 2 and doc["change_points"] == 0
k = doc["kernels"]
assert len(k) == 1 and k[0]["kernel"] == sys.argv[4] and k[0]["n"] == 2 and k[0]["change"] is None, k
assert (k[0]["median"], k[0]["min"], k[0]["max"]) == tuple(float(g[s]["fps"]) for s in ("median", "min", "max")), (k, g)
tsv = open(sys.argv[3]).read().split("\n")[1].split("\t")
assert (float(tsv[1]), float(tsv[2]), float(tsv[3])) == (k[0]["median"], k[0]["min"], k[0]["max"]), tsv
assert doc["exit_status"] == 0 and doc["options"]["permutations"] == 199
EOF
"$HB" regress --db "$db" --metric fps --no-notes dsda-doom software >"$T/reg.bare" || fail "regress --no-notes"
grep -q '^change: E-divisive' "$T/reg.table" || fail "regress table has no notes: $(cat "$T/reg.table")"
grep -q 'E-divisive\|^median, min' "$T/reg.bare" && fail "regress --no-notes kept the notes: $(cat "$T/reg.bare")"
head -n 3 "$T/reg.table" | cmp -s - "$T/reg.bare" || fail "regress --no-notes: $(diff "$T/reg.table" "$T/reg.bare")"
exit 0
