#!/bin/sh
# hitchbench plot draws each picture as a PNG (its magic bytes) and an SVG
# (an XML document holding the picture's title), from the recorded runs
# and the hand-made matrix and trend in tests/fixtures/plot; prints the
# paths it wrote; refuses bad input files with file:line and exit 2. The
# frame pictures overlay runs, label them with game, run name and time,
# count stalls as the report does, and fit their axis to the frames.
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
FGL="$T/out/frames-20261130T120715Z-dsda-doom-gl.svg"
check_pictures frames-20261130T120715Z-dsda-doom-gl "frame times: dsda-doom gl 2026-11-30 12:07:15"
grep -qF "warm-up" "$FGL" || fail "no warm-up in the legend"
# the legend's stall count is the report's (stalls in the window), the
# warm-up's two are named as not counted (runs-report.csv: stalls 0, stalls_warm 2)
"$HB" report --format csv "$GL" >"$T/csv" || fail "report failed"
col() { head -n 1 "$T/csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
stalls=$(sed -n 2p "$T/csv" | cut -d, -f"$(col stalls)")
warm=$(sed -n 2p "$T/csv" | cut -d, -f"$(col stalls_warm)")
expect_eq "report stalls, stalls_warm" "0 2" "$stalls $warm"
grep -qF "stalls $stalls (0.00 s); warm-up stalls $warm (not counted)" "$FGL" ||
	fail "the legend's stall counts are not the report's: $(grep -o 'stalls [^<]*' "$FGL" | head -n 3)"
grep -qF "stall outside the window (warm-up, after it): drawn, not counted" "$FGL" ||
	fail "the warm-up stalls are not told apart"
# the SVG is self-contained: no script, nothing linked from outside
grep -q '<script\|gnuplot_svg\|xlink:href="[^#]' "$FGL" && fail "the SVG links or runs something: $(grep -o '<script[^>]*>' "$FGL")"

# two runs over each other, labelled with game, run name and time; the
# software run is smooth in its window: the axis is not forced to the threshold
"$HB" plot frames "$SW" "$GL" --out "$T/out" >"$T/stdout" || fail "plot frames A B failed"
check_pictures frames "frame times: 2 runs of dsda-doom"
grep -qF "dsda-doom software 2026-11-30 12:07:07: 731 frames, median 7.18 ms, p99 25.28 ms" "$T/out/frames.svg" ||
	fail "the software run's label"
grep -qF "dsda-doom gl 2026-11-30 12:07:15: 335 frames" "$T/out/frames.svg" || fail "the gl run's label"
grep -q "20261130T12" "$T/out/frames.svg" && fail "a directory name is a label"
"$HB" plot frames "$R/20261130T120724Z-dsda-doom-software" --out "$T/out" --name smooth \
	>"$T/stdout" || fail "plot frames smooth failed"
grep -qF "stall threshold 100 ms: above this axis" "$T/out/smooth.svg" ||
	fail "a threshold over the frames is not named above the axis"
# its longest frame is 73 ms: the axis's tic labels stay under 100
top=$(grep -o '<text[^>]*>[^<]*</text>' "$T/out/smooth.svg" | sed 's/<[^>]*>//g' |
	awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { if ($1 + 0 > m) m = $1 + 0 } END { print m + 0 }')
[ "$top" -ge 60 ] && [ "$top" -lt 100 ] || fail "the smooth run's axis goes to $top ms, not its frames' 73"

"$HB" plot percentiles "$SW" "$GL" --out "$T/out" >"$T/stdout" || fail "plot percentiles failed"
check_pictures percentiles "frame-time percentiles of each run's measured window"
grep -qF "dsda-doom gl 2026-11-30 12:07:15: 335 frames" "$T/out/percentiles.svg" ||
	fail "the percentile legend does not name the gl run"

# a directory of runs is every run in it; one colour per group, two shades of the software group's
"$HB" plot percentiles "$R" --out "$T/out" --name all >"$T/stdout" || fail "plot percentiles DIR failed"
expect_eq "runs in the legend" 3 "$(grep -c ' frames, median ' "$T/out/all.svg")"

"$HB" plot histogram "$R" --out "$T/out" >"$T/stdout" || fail "plot histogram failed"
check_pictures histogram "frame-time histogram of each group's measured windows: 3 runs of dsda-doom"
grep -qF "dsda-doom software: 2 runs, 1440 frames in the windows, stalls 0 (0.00 s)" "$T/out/histogram.svg" ||
	fail "the histogram does not pool the software group"
grep -qF "dsda-doom gl: 1 run, 335 frames in the windows" "$T/out/histogram.svg" || fail "no gl group"

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
