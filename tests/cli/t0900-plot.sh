#!/bin/sh
# hitchbench plot draws each picture as a PNG (its magic bytes) and an SVG
# (an XML document holding the picture's title), from the recorded runs
# and the hand-made matrix and trend in tests/fixtures/plot; prints the
# paths it wrote; refuses bad input files with file:line and exit 2.
. "$(dirname "$0")/../lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (Debian: gnuplot-nox)"
R="$HB_FIXTURES/runs"
P="$HB_FIXTURES/plot"
SW="$R/20261130T120707Z-dsda-doom-software"
GL="$R/20261130T120715Z-dsda-doom-gl"

# check_pictures NAME TITLE: $T/out/NAME.png and .svg are what they say
check_pictures() {
	png="$T/out/$1.png"
	svg="$T/out/$1.svg"
	[ -s "$png" ] || fail "$1.png is missing or empty"
	magic=$(od -An -t x1 -N 8 "$png" | tr -d ' \n')
	expect_eq "$1.png magic" "89504e470d0a1a0a" "$magic"
	[ -s "$svg" ] || fail "$1.svg is missing or empty"
	head -c 64 "$svg" | grep -q '^<?xml\|^<svg' || fail "$1.svg does not start as XML: $(head -n 1 "$svg")"
	grep -q '</svg>' "$svg" || fail "$1.svg is not closed"
	grep -qF "$2" "$svg" || fail "$1.svg does not hold its title '$2'"
	grep -qxF "$png" "$T/stdout" || fail "the PNG's path was not printed: $(cat "$T/stdout")"
	grep -qxF "$svg" "$T/stdout" || fail "the SVG's path was not printed"
}

"$HB" plot frames "$GL" --out "$T/out" >"$T/stdout" || fail "plot frames failed"
check_pictures frames-20261130T120715Z-dsda-doom-gl "dsda-doom gl: 20261130T120715Z-dsda-doom-gl"
grep -qF "stall (frame over 100 ms): 2" "$T/out/frames-20261130T120715Z-dsda-doom-gl.svg" ||
	fail "the frames picture does not mark the two stalls"
grep -qF "warm-up" "$T/out/frames-20261130T120715Z-dsda-doom-gl.svg" || fail "no warm-up in the legend"

"$HB" plot percentiles "$SW" "$GL" --out "$T/out" >"$T/stdout" || fail "plot percentiles failed"
check_pictures percentiles "frame-time percentiles of each run's measured window"
grep -qF "20261130T120715Z-dsda-doom-gl (335 frames)" "$T/out/percentiles.svg" ||
	fail "the percentile legend does not name the gl run"

# a directory of runs is every run in it
"$HB" plot percentiles "$R" --out "$T/out" --name all >"$T/stdout" || fail "plot percentiles DIR failed"
expect_eq "runs in the legend" 3 "$(grep -c ' frames)<' "$T/out/all.svg")"

"$HB" plot matrix "$P/p99_ms.csv" --out "$T/out" >"$T/stdout" || fail "plot matrix failed"
check_pictures matrix-p99_ms "p99_ms: median of each cell's runs"

"$HB" plot trend "$P/p99_ms.tsv" --out "$T/out" --name kernels >"$T/stdout" || fail "plot trend failed"
check_pictures kernels "p99_ms over kernel versions"
grep -qF "+4.4 ms" "$T/out/kernels.svg" || fail "the change point's size is not drawn"

# the default directory: results/plots under HITCHBENCH_RESULTS
HITCHBENCH_RESULTS="$T/results" "$HB" plot trend "$P/p99_ms.tsv" >"$T/stdout" || fail "plot trend (default out)"
[ -s "$T/results/plots/trend-p99_ms.png" ] || fail "no results/plots/trend-p99_ms.png: $(cat "$T/stdout")"

# bad input: file:line, exit 2; a missing gnuplot: exit 1 and says so
printf 'game,run,a.median,a.min,a.max,a.n\ndoom,sw,1,x,1,1\n' >"$T/bad.csv"
rc=0
"$HB" plot matrix "$T/bad.csv" --out "$T/out" 2>"$T/err" || rc=$?
expect_eq "bad matrix exit" 2 "$rc"
grep -qF "$T/bad.csv:2: column 'a'" "$T/err" || fail "bad matrix message: $(cat "$T/err")"
rc=0
HITCHBENCH_GNUPLOT="$T/no-gnuplot" "$HB" plot trend "$P/p99_ms.tsv" --out "$T/out" 2>"$T/err" || rc=$?
expect_eq "no gnuplot exit" 1 "$rc"
grep -qF "cannot run '$T/no-gnuplot'" "$T/err" || fail "no gnuplot message: $(cat "$T/err")"
rc=0
"$HB" plot pie "$SW" 2>"$T/err" || rc=$?
expect_eq "unknown plot exit" 2 "$rc"
exit 0
