#!/bin/sh
# bench-self's report benchmark on a small scale: mkframes --synth makes
# the same run from the same seed (frame file and CSV agree), hitchbench
# report reads it, and report-pandas.py (when pandas is installed: deps.sh
# ensure bench) prints the same numbers to hitchbench's digits.
. "$(dirname "$0")/../lib.sh"
MKFRAMES=$HB_BUILD/tests/mkframes
PYTHON=${HB_PYTHON:-/usr/bin/python3}

mkdir -p "$T/a/synthetic" "$T/b"
"$MKFRAMES" --synth 20001 --seed 7 --csv "$T/a/frames.csv" "$T/a/synthetic/frames.bin" ||
	fail "mkframes --synth failed"
"$MKFRAMES" --synth 20001 --seed 7 --csv "$T/b/frames.csv" "$T/b/frames.bin" || fail "mkframes --synth failed"
cmp -s "$T/a/synthetic/frames.bin" "$T/b/frames.bin" || fail "the same seed made another frame file"
cmp -s "$T/a/frames.csv" "$T/b/frames.csv" || fail "the same seed made another CSV"
"$MKFRAMES" --stat "$T/a/synthetic/frames.bin" >"$T/stat" || fail "mkframes --stat failed"
expect_eq "records" 20001 "$(value records "$T/stat")"
expect_eq "CSV lines" 20002 "$(wc -l <"$T/a/frames.csv" | tr -d ' ')"
expect_eq "CSV header" t_ns "$(head -n 1 "$T/a/frames.csv")"
expect_eq "first present" "$(value first_ns "$T/stat")" "$(sed -n 2p "$T/a/frames.csv")"
expect_eq "last present" "$(value last_ns "$T/stat")" "$(tail -n 1 "$T/a/frames.csv")"
"$MKFRAMES" --synth 0 "$T/c.bin" 2>/dev/null && fail "--synth 0 was accepted"

printf 'format=1\nrun_id=t0390\ngame=synthetic\nvariant=seed7\nstatus=ok\nwindow_start_ns=%s\nwindow_end_ns=%s\n' \
	"$(value first_ns "$T/stat")" "$(value last_ns "$T/stat")" >"$T/a/synthetic/bench.txt"
"$HB" report --format csv "$T/a/synthetic" >"$T/hb.csv" || fail "report failed"
awk -F, 'NR == 1 { for (i = 8; i <= NF; i++) h[i] = $i }
	$1 == "run" && $3 == "synthetic" { for (i = 8; i <= NF; i++) print h[i] "=" $i }' "$T/hb.csv" >"$T/hb.out"
expect_eq "frames" 20000 "$(value frames "$T/hb.out")"

"$PYTHON" -c 'import numpy, pandas' 2>/dev/null ||
	skip "mkframes and report checked; $PYTHON cannot import pandas (sh scripts/deps.sh ensure bench)"
"$PYTHON" "$HB_SRCDIR/tests/bench-self/report-pandas.py" "$T/a/synthetic/bench.txt" "$T/a/frames.csv" \
	>"$T/pd.out" || fail "report-pandas.py failed"
# the metrics the pandas script computes (hitchbench has more), the CSV's
# full precision rounded to the decimals the script prints (the table's)
awk -F= 'NR == FNR { split($2, p, "."); d[$1] = length(p[2]); next }
	($1 in d) { printf("%s=%." d[$1] "f\n", $1, $2) }' "$T/pd.out" "$T/hb.out" >"$T/hb.cmp"
mv "$T/hb.cmp" "$T/hb.out"
cmp -s "$T/hb.out" "$T/pd.out" || fail "hitchbench and pandas differ: $(paste "$T/hb.out" "$T/pd.out")"
