#!/bin/sh
# hitchbench import: real MangoHud and PresentMon logs become complete run
# directories (bench.txt with the log's provenance, frames.bin, result.txt),
# indexed in the database; report and frames read them like any run; an
# interval log says so; a file in the wrong format is refused with
# FILE:LINE and exit 2. What a crashed game leaves (a last row cut short)
# imports with the row dropped and said; rows that are no frame are counted
# in bench.txt; a header without frametime needs --interval; PresentMon
# keeps the game, not the compositor; a warm-up longer than the log, or
# seconds no option means, are refused. Without --format each file's
# format is told from its marks, and said.
. "$(dirname "$0")/../lib.sh"
D=${HB_TESTDATA:?}
[ -d "$D/mangohud-0.6.8-here" ] || fail "no MangoHud logs in $D"
M=$D/mangohud-0.6.8-here/dsda-doom_2026-11-30_10-02-37.csv

out=$("$HB" import --format mangohud --out "$T/runs" --db "$T/db.sqlite" "$M") || fail "import failed"
[ -d "$out" ] || fail "import printed '$out', not a directory"
for f in bench.txt frames.bin result.txt; do
	[ -s "$out/$f" ] || fail "the run directory lacks $f"
done
b=$out/bench.txt
expect_eq game dsda-doom "$(value game "$b")"
expect_eq status ok "$(value status "$b")"
expect_eq frame_source mangohud "$(value frame_source "$b")"
expect_eq frame_source_kind frames "$(value frame_source_kind "$b")"
expect_eq source_sha256 "$(sha256sum "$M" | cut -d' ' -f1)" "$(value source_sha256 "$b")"
expect_eq log.kernel 6.18.44-fc-v782 "$(value log.kernel "$b")"
expect_eq log.frametime_unit us "$(value log.frametime_unit "$b")"
[ -n "$(value imported_utc "$b")" ] || fail "no imported_utc"
expect_eq frames 1212.000000 "$(value frames "$out/result.txt")"

# report and frames read it like a run of the runner
"$HB" report "$out" >"$T/report" || fail "report failed"
grep -q 'dsda-doom' "$T/report" || fail "report: $(cat "$T/report")"
expect_eq "frames lines" 1212 "$("$HB" frames "$out" | grep -vc '^[#t]')"
expect_eq "first frame" 42.449 "$("$HB" frames "$out" | grep -v '^#' | sed -n 2p | cut -f2)"

# the database has it, with its provenance
expect_eq "db runs" 1 "$(sqlite3 "$T/db.sqlite" 'select count(*) from runs')"
sqlite3 "$T/db.sqlite" .dump | grep -q 'log.kernel' || fail "the database lacks the log's provenance"

# an interval log (log_interval=100) is marked
out=$("$HB" import --format mangohud --game choc --variant iv --out "$T/runs" --no-db \
	"$D/mangohud-0.6.8-here/chocolate-doom_2026-11-30_11-07-09.csv") || fail "interval import failed"
expect_eq "interval kind" interval "$(value frame_source_kind "$out/bench.txt")"
grep -q '^frame_time=.*samples, not frames' "$out/result.txt" || fail "result.txt does not say samples"
case $out in */*-choc-iv) ;; *) fail "run directory name: $out" ;; esac

# PresentMon: the process with the most frames, or the one asked for
out=$("$HB" import --format presentmon --out "$T/runs" --no-db "$D/presentmon/carhol_csgo_presentmon1x.csv") ||
	fail "presentmon import failed"
expect_eq "pm game" csgo "$(value game "$out/bench.txt")"
expect_eq "pm window" 36.168414 "$(value window_s "$out/result.txt")"
out=$("$HB" import --format presentmon --process PresentBench.exe --warmup 1 --out "$T/runs" --no-db \
	"$D/presentmon/presentmon_gold_test_case_5.csv") || fail "presentmon --process failed"
expect_eq "pm process" 24892 "$(value log.process_id "$out/bench.txt")"
[ "$(value window_start_ns "$out/bench.txt")" = 2000000000 ] || fail "--warmup 1 did not move the window"

# the default of a multi-process capture: not dwm.exe (358 presents) but
# PresentBench.exe (265), and said
out=$("$HB" import --format presentmon --out "$T/runs" --no-db "$D/presentmon/presentmon_gold_test_case_5.csv" \
	2>"$T/err") || fail "presentmon default failed: $(cat "$T/err")"
expect_eq "pm default process" PresentBench.exe "$(value log.application "$out/bench.txt")"
grep -q '^hitchbench: note: .*kept PresentBench.exe (24892), the process with the most presents (265 of 647) that is not a compositor; --process NAME or PID keeps another$' \
	"$T/err" || fail "no note of the process kept: $(cat "$T/err")"

# a quoted comma in a field shifts no column
printf 'Application,ProcessID,PresentMode,MsBetweenPresents\r\n"Game, The.exe",5,"Hardware: Independent Flip",NA\r\n"Game, The.exe",5,"Hardware: Independent Flip",16.5\r\n"Game, The.exe",5,"Hardware: Independent Flip",17.5\r\n' \
	>"$T/quoted.csv"
out=$("$HB" import --format presentmon --game q --out "$T/runs" --no-db "$T/quoted.csv") || fail "quoted import failed"
expect_eq "quoted application" "Game, The.exe" "$(value log.application "$out/bench.txt")"
expect_eq "quoted window" 0.034000 "$(value window_s "$out/result.txt")"

# a real log cut in the middle of its last row: imported, the row dropped and said
head -c -40 "$M" >"$T/cut.csv"
out=$("$HB" import --format mangohud --game cut --out "$T/runs" --no-db "$T/cut.csv" 2>"$T/err") ||
	fail "cut log refused: $(cat "$T/err")"
grep -qx "hitchbench: warning: $T/cut.csv:1215: last row cut short (3 of 12 fields): dropped" "$T/err" ||
	fail "no warning of the cut row: $(cat "$T/err")"
expect_eq "cut rows_dropped" 1 "$(value log.rows_dropped "$out/bench.txt")"
expect_eq "cut first_dropped" "1215: last row cut short (3 of 12 fields)" "$(value log.first_dropped "$out/bench.txt")"
expect_eq "cut frames" 1211.000000 "$(value frames "$out/result.txt")"
expect_eq "whole log rows_dropped" 0 "$(value log.rows_dropped "$b")"

# a frame time of -5 is counted, not lost
printf 'v1\n0.7.2\nfps,frametime,cpu_load,elapsed\n60,16,1,16000000\n60,-5,1,32000000\n60,17,1,48000000\n' >"$T/neg.csv"
out=$("$HB" import --format mangohud --game neg --out "$T/runs" --no-db "$T/neg.csv" 2>"$T/err") || fail "neg import failed"
expect_eq "neg rows_dropped" 1 "$(value log.rows_dropped "$out/bench.txt")"
expect_eq "neg first_dropped" "5: frame time -5 ms is not positive" "$(value log.first_dropped "$out/bench.txt")"
grep -q "neg.csv: 1 row dropped, not frames (the first, line 5: frame time -5 ms is not positive)" "$T/err" ||
	fail "the drop is not said: $(cat "$T/err")"

# a misspelt frametime column: refused, unless an interval import is asked for
printf 'fps,frametme,cpu_load,elapsed\n60,16,1,16000000\n60,17,1,33000000\n' >"$T/typo.csv"
rc=0; "$HB" import --format mangohud --out "$T/runs" --no-db "$T/typo.csv" 2>"$T/err" || rc=$?
expect_eq "typo exit" 2 "$rc"
grep -q "typo.csv:1: expected a 'frametime' column in MangoHud's column header; it has fps,frametme,cpu_load,elapsed" \
	"$T/err" || fail "typo message: $(cat "$T/err")"
out=$("$HB" import --format mangohud --interval --game typo --out "$T/runs" --no-db "$T/typo.csv") ||
	fail "--interval refused"
expect_eq "typo kind" interval "$(value frame_source_kind "$out/bench.txt")"

# a warm-up not shorter than the log, and seconds no option means
printf '16.6\n17.1\n' >"$T/short"
n=$(ls -A "$T/runs" | wc -l)
rc=0; "$HB" import --format gallium-hud --hud-period 0 --warmup 999 --out "$T/runs" --no-db "$T/short" 2>"$T/err" || rc=$?
expect_eq "long warm-up exit" 2 "$rc"
grep -q "short: --warmup 999 s is not shorter than the log (0.034 s of frames)" "$T/err" ||
	fail "long warm-up message: $(cat "$T/err")"
for w in 1e308 0x1p3 inf nan -1; do
	rc=0; "$HB" import --format gallium-hud --warmup "$w" --out "$T/runs" --no-db "$T/short" 2>"$T/err" || rc=$?
	expect_eq "--warmup $w exit" 2 "$rc"
	grep -q -- "--warmup wants seconds from 0 to" "$T/err" || fail "--warmup $w: $(cat "$T/err")"
done
expect_eq "nothing written by refusals" "$n" "$(ls -A "$T/runs" | wc -l)"

# gallium-hud: a dump directory
mkdir -p "$T/hud"
printf '16.6\n17.1\n40\n' >"$T/hud/frametime_(ms)"
out=$("$HB" import --format gallium-hud --hud-period 0 --game g --out "$T/runs" --no-db "$T/hud") ||
	fail "gallium import failed"
expect_eq "gallium frames" 3.000000 "$(value frames "$out/result.txt")"

# a file in the wrong format: exit 2, FILE:LINE, nothing left behind
n=$(ls -A "$T/runs" | wc -l)
rc=0; "$HB" import --format mangohud --out "$T/runs" --no-db "$D/presentmon/carhol_csgo_presentmon1x.csv" \
	>"$T/out" 2>"$T/err" || rc=$?
expect_eq "bad file exit" 2 "$rc"
grep -q "carhol_csgo_presentmon1x.csv:1: expected MangoHud's column header" "$T/err" || fail "message: $(cat "$T/err")"
expect_eq "nothing written" "$n" "$(ls -A "$T/runs" | wc -l)"
# no --format: each file's format told from its marks, said with why;
# what no tool wrote is refused (exit 2) and the others still imported
rc=0; "$HB" import --out "$T/auto" --no-db "$M" "$D/presentmon/presentmon_gold_test_case_0_v2.csv" "$T/hud" \
	"$HB_SRCDIR/README.md" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "detected import exit (a README among them)" 2 "$rc"
grep -q "dsda-doom_2026-11-30_10-02-37.csv: read as mangohud: its first line is MangoHud's system header" "$T/err" ||
	fail "mangohud not said: $(cat "$T/err")"
grep -q "test_case_0_v2.csv: read as presentmon: PresentMon's columns (Application, FrameTime)" "$T/err" ||
	fail "presentmon not said: $(cat "$T/err")"
grep -q "hud: read as gallium-hud: a GALLIUM_HUD_DUMP_DIR directory" "$T/err" || fail "gallium not said: $(cat "$T/err")"
grep -q "README.md: not a log of a format this version reads (no tool's marks: its first line is '# " "$T/err" ||
	fail "README not refused: $(cat "$T/err")"
expect_eq "runs imported beside the refusal" 3 "$(wc -l <"$T/out")"
# MangoHud's _summary.csv beside the log: its figures said beside ours
grep -q "dsda-doom_2026-11-30_10-02-37.csv: the tool's own figures (.*dsda-doom_2026-11-30_10-02-37_summary.csv) against ours: 0.1% Min FPS 8.7, ours 8.7 (mangohud_low01 8.68.*); 1% Min FPS 17.1, ours 17.1 .*Average FPS 43.0, ours 43.0" "$T/err" ||
	fail "MangoHud's own figures not said: $(cat "$T/err")"
d=$(grep dsda-doom "$T/out")
expect_eq "summary kept" 17.1 "$(value log.summary.low1_fps "$d/bench.txt")"
for d in $(cat "$T/out"); do
	case $d in
	*dsda-doom*) expect_eq "$d source" mangohud "$(value frame_source "$d/bench.txt")" ;;
	*Presenter*) expect_eq "$d source" presentmon "$(value frame_source "$d/bench.txt")" ;;
	*) expect_eq "$d source" gallium-hud "$(value frame_source "$d/bench.txt")" ;;
	esac
done
rc=0; "$HB" import --format nosuch "$M" 2>/dev/null || rc=$?
expect_eq "unknown format exit" 2 "$rc"
"$HB" import --help | grep -q 'presentmon' || fail "--help"
exit 0
