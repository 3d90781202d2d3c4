#!/bin/sh
# wall: about 35 s (batches of fake-game runs)
# compare and regress on a database of fake-game batches: variants at 120
# and 80 fps are DIFFERENT (exit 3), two at 120 are UNKNOWN after five
# rounds (exit 4, with the rounds still needed) and SAME when only a large
# difference matters (exit 0); runs from another boot are refused unless
# --cross-boot; regress orders kernels by version and finds the one where
# the numbers drop. Runs from another boot or kernel are copies of real
# runs with bench.txt edited, imported with 'db import'.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe ab "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5" \
	"[variant a]" "args = --fps 120" "[variant b]" "args = --fps 80" "[variant c]" "args = --fps 120"
hb_run "$T/ab.ini" "a b c" 5
expect_eq "batch exit status" 0 "$rc"
db="$T/db.sqlite"
batch=$(basename "$batchdir")

# DIFFERENT: 120 against 80
rc=0; "$HB" compare --db "$db" ab a b >"$T/out" 2>"$T/err" || rc=$?
expect_eq "a against b" 3 "$rc"
grep -q '^verdict *DIFFERENT$' "$T/out" || fail "no DIFFERENT verdict: $(cat "$T/out")"
grep -q '^runs  *5  *5 ' "$T/out" || fail "not five runs a side: $(cat "$T/out")"
grep -q '^ratio  *0\.6[0-9]* ' "$T/out" || fail "ratio of 80 to 120: $(cat "$T/out")"
grep -q 'percentile bootstrap, 10000 resamples' "$T/out" || fail "the interval does not say how"
grep -q 'Kolmogorov-Smirnov' "$T/out" || fail "no KS line"
# the same within the batch, and reproducible
rc=0; "$HB" compare --db "$db" --batch "$batch" ab a b >"$T/out2" 2>&1 || rc=$?
expect_eq "a against b in the batch" 3 "$rc"
"$HB" compare --db "$db" ab a b >"$T/out3" 2>&1
cmp -s "$T/out" "$T/out3" || fail "compare is not reproducible: $(diff "$T/out" "$T/out3")"
# ... as JSON and Markdown: the same verdict and exit status, A better (higher fps)
rc=0; "$HB" compare --db "$db" --format json ab a b >"$T/json" 2>"$T/err" || rc=$?
expect_eq "a against b, json" 3 "$rc"
python3 - "$T/json" "$T/out" <<'EOF' || fail "compare JSON: $(cat "$T/json")"
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
assert doc["format"] == 1 and doc["verdict"] == "DIFFERENT" and doc["exit_status"] == 3 and doc["better"] == "A", doc
assert doc["runs"] == {"a": 5, "b": 5} and len(doc["values"]["a"]) == 5, doc["runs"]
for side in "ab":
    assert doc["median"][side] == statistics.median(doc["values"][side]), (side, doc["median"])
assert doc["ratio"] == doc["median"]["b"] / doc["median"]["a"] and 0.6 < doc["ratio"] < 0.7, doc["ratio"]
assert "%.4f" % doc["ratio"] in table and doc["rounds_needed"] is None
EOF
rc=0; "$HB" compare --db "$db" --format markdown ab a b >"$T/md" 2>"$T/err" || rc=$?
expect_eq "a against b, markdown" 3 "$rc"
grep -qx '| verdict | | \*\*DIFFERENT\*\* |' "$T/md" || fail "markdown verdict: $(cat "$T/md")"
grep -qx '| better | | A |' "$T/md" || fail "markdown better: $(cat "$T/md")"

# UNKNOWN: 120 against 120 after five rounds; SAME when only 3 IQR matter
rc=0; "$HB" compare --db "$db" ab a c >"$T/out" 2>"$T/err" || rc=$?
expect_eq "a against c" 4 "$rc"
grep -q '^verdict *UNKNOWN$' "$T/out" || fail "no UNKNOWN verdict: $(cat "$T/out")"
grep -q '^rounds needed *about [0-9]* more of each' "$T/out" || fail "no rounds estimate: $(cat "$T/out")"
rc=0; "$HB" compare --db "$db" --magnitude 3 ab a c >"$T/out" 2>"$T/err" || rc=$?
expect_eq "a against c, magnitude 3" 0 "$rc"
grep -q '^verdict *SAME$' "$T/out" || fail "no SAME verdict: $(cat "$T/out")"

# usage and nothing to compare
rc=0; "$HB" compare --db "$db" ab a >/dev/null 2>&1 || rc=$?
expect_eq "two names missing one" 2 "$rc"
rc=0; "$HB" compare --db "$db" --metric nosuch ab a b >/dev/null 2>&1 || rc=$?
expect_eq "unknown metric" 2 "$rc"
rc=0; "$HB" compare --db "$db" ab a nosuch >/dev/null 2>"$T/err" || rc=$?
expect_eq "no runs of one side" 1 "$rc"
grep -q "no valid runs of ab 'nosuch'" "$T/err" || fail "no reason: $(cat "$T/err")"

# copy KEY=VALUE... : a copy of run directory $src in its batch, with
# bench.txt's keys replaced and a run_id of its own, imported
n_copy=0
copy() {
	n_copy=$((n_copy + 1))
	dst="$batchdir/copy$n_copy-$(basename "$src")"
	cp -R "$src" "$dst"
	sed -i "s/^run_id=.*/run_id=copy-$n_copy-$$/" "$dst/bench.txt"
	for kv in "$@"; do
		sed -i "s/^${kv%%=*}=.*/$kv/" "$dst/bench.txt"
	done
	rm -f "$dst/SHA256SUMS" # edited by hand: no longer the runner's
	"$HB" db import --db "$db" "$dst" >/dev/null || fail "cannot import $dst"
}

# a run of b from another boot: refused, unless --cross-boot
src=$(grep -l '^run_name=b$' "$batchdir"/*/bench.txt | head -n 1); src=${src%/bench.txt}
copy boot_id=00000000-0000-0000-0000-000000000001
rc=0; "$HB" compare --db "$db" ab a b >"$T/out" 2>"$T/err" || rc=$?
expect_eq "runs of two boots" 2 "$rc"
grep -q "different boots.*--cross-boot" "$T/err" || fail "no reason for the refusal: $(cat "$T/err")"
rc=0; "$HB" compare --db "$db" --cross-boot ab a b >"$T/out" 2>"$T/err" || rc=$?
expect_eq "--cross-boot" 3 "$rc"
grep -q '^runs  *5  *6 ' "$T/out" || fail "the copy is not counted: $(cat "$T/out")"

# a run marked invalid does not count
src=$(grep -l '^run_name=a$' "$batchdir"/*/bench.txt | head -n 1); src=${src%/bench.txt}
copy invalid=1 boot_id=00000000-0000-0000-0000-000000000002
rc=0; "$HB" compare --db "$db" --cross-boot ab a b >"$T/out" 2>"$T/err" || rc=$?
grep -q '^runs  *5  *6 ' "$T/out" || fail "an invalid run counted: $(cat "$T/out")"

# regress: a's runs on this kernel (120), then b's runs relabelled as a on
# kernels 9.9.9 and 10.0.0 (80): one change, where 9.9.9 starts
for src in $(grep -l '^run_name=b$' "$batchdir"/*/bench.txt | grep -v /copy); do
	src=${src%/bench.txt}
	copy run_name=a variant=a kernel_release=9.9.9
	copy run_name=a variant=a kernel_release=10.0.0
done
rc=0; "$HB" regress --db "$db" --metric fps --format tsv ab a >"$T/tsv" 2>"$T/err" || rc=$?
expect_eq "regress exit status" 3 "$rc"
expect_eq "tsv header" "kernel	median	min	max	n	change	p	magnitude" "$(head -n 1 "$T/tsv")"
expect_eq "kernels in version order" "$(uname -r) 9.9.9 10.0.0" "$(sed 1d "$T/tsv" | cut -f1 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "runs per kernel" "5 5 5" "$(sed 1d "$T/tsv" | cut -f5 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "change points" "0 1 0" "$(sed 1d "$T/tsv" | cut -f6 | tr '\n' ' ' | sed 's/ $//')"
awk -F'\t' '$1 == "9.9.9" { exit !($7 <= 0.05 && $8 < -35 && $8 > -45) }' "$T/tsv" ||
	fail "the change's p and magnitude: $(cat "$T/tsv")"
rc=0; "$HB" regress --db "$db" --metric fps ab a >"$T/out" 2>"$T/err" || rc=$?
expect_eq "regress table exit status" 3 "$rc"
grep -q '^9\.9\.9 .* here: -' "$T/out" || fail "the table does not mark the change: $(cat "$T/out")"
grep -q 'E-divisive (Matteson and James 2014)' "$T/out" || fail "the table does not say how"
# as JSON: the same kernels, change and exit status as the TSV
rc=0; "$HB" regress --db "$db" --metric fps --format json ab a >"$T/json" 2>"$T/err" || rc=$?
expect_eq "regress json exit status" 3 "$rc"
python3 - "$T/json" "$T/tsv" <<'EOF' || fail "regress JSON: $(cat "$T/json")"
import json, sys
doc = json.load(open(sys.argv[1]))
tsv = [l.split("\t") for l in open(sys.argv[2]).read().split("\n")[1:] if l]
assert doc["format"] == 1 and doc["exit_status"] == 3 and doc["change_points"] == 1, doc
assert [k["kernel"] for k in doc["kernels"]] == [t[0] for t in tsv]
for k, t in zip(doc["kernels"], tsv):
    assert (k["median"], k["min"], k["max"], k["n"]) == (float(t[1]), float(t[2]), float(t[3]), int(t[4])), (k, t)
    assert (k["change"] is None) == (t[5] == "0"), (k, t)
    if k["change"]:
        assert (k["change"]["p"], k["change"]["magnitude"]) == (float(t[6]), float(t[7])), (k, t)
        assert k["change"]["magnitude"] == k["change"]["median_after"] - k["change"]["median_before"]
EOF
# no change: c alone
rc=0; "$HB" regress --db "$db" --metric fps ab c >"$T/out" 2>"$T/err" || rc=$?
expect_eq "regress without a change" 0 "$rc"
rc=0; "$HB" regress --db "$db" ab c >/dev/null 2>&1 || rc=$?
expect_eq "regress without --metric" 2 "$rc"
exit 0
