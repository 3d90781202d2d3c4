#!/bin/sh
# hitchbench import: real MangoHud and PresentMon logs become complete run
# directories (bench.txt with the log's provenance, frames.bin, result.txt),
# indexed in the database; report and frames read them like any run; an
# interval log says so; a file in the wrong format is refused with
# FILE:LINE and exit 2.
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
expect_eq "first frame" 42.449 "$("$HB" frames "$out" | sed -n 6p | cut -f2)"

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
rc=0; "$HB" import --format nosuch "$M" 2>/dev/null || rc=$?
expect_eq "unknown format exit" 2 "$rc"
"$HB" import --help | grep -q 'presentmon' || fail "--help"
exit 0
