#!/bin/sh
# hitchbench export: a recorded run written as a MangoHud log (and its
# summary), a PresentMon CSV and a CapFrameX JSON capture, each named as
# its tool names its files, each imported again with `hitchbench import
# --format ...` and giving back the same frames to the ns and so the same
# per-frame metrics (frames, percentiles, lows, every peer's figures). The
# window's edges are not in a frame log: the import's window runs from the
# present before its first frame to its last, so window_s and fps differ
# by less than a frame's time, and are held to that. The MangoHud summary
# written beside the log is what the import computes by MangoHud 0.8's
# formula; --window run exports every frame; the bytes each tool writes
# (PresentMon's BOM and CRLF) are there; bad arguments are usage errors.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed (the metrics are compared from report's JSON)"
R=$HB_FIXTURES/runs/20261130T120707Z-dsda-doom-software
[ -d "$R" ] || fail "no recorded run $R"

"$HB" report --format json "$R" >"$T/orig.json" || fail "report of the recorded run failed"

# roundtrip FORMAT FILE: imports FILE, compares its metrics with the run's
roundtrip() {
	out=$("$HB" import --format "$1" --out "$T/runs" --no-db "$2" 2>"$T/err") ||
		fail "$1: the export does not import: $(cat "$T/err")"
	"$HB" report --format json "$out" >"$T/$1.json" || fail "$1: report of the import failed"
	python3 - "$T/orig.json" "$T/$1.json" "$1" <<'EOF' || fail "$1: the metrics differ after the round trip"
import json, sys
a = json.load(open(sys.argv[1]))["runs"][0]["metrics"]
b = json.load(open(sys.argv[2]))["runs"][0]["metrics"]
fmt = sys.argv[3]
same = ["frames", "stalls", "stall_s", "longest_ms", "p50_ms", "p99_ms", "p999_ms", "low1", "low01",
        "low1_avg", "low01_avg", "low1_integral", "smooth_fps", "steady_fps", "frameview_low1",
        "frameview_low01", "capframex_p5", "capframex_p1", "capframex_p01",
        "presentmon_min", "presentmon_p1", "presentmon_p5", "presentmon_max"]
if fmt != "mangohud":  # a MangoHud 0.8 log's mangohud_* follow 0.8's formula (checked apart)
    same += ["mangohud_low01", "mangohud_low1", "mangohud_p97", "mangohud_avg"]
bad = [k for k in same if a[k] is None or a[k] != b[k]]
# the window: less than the longest frame apart
if abs(a["window_s"] - b["window_s"]) >= a["longest_ms"] / 1e3:
    bad.append("window_s")
if abs(a["fps"] - b["fps"]) / a["fps"] > a["longest_ms"] / 1e3 / a["window_s"]:
    bad.append("fps")
for k in bad:
    print(f"{fmt}: {k}: {a[k]} exported, {b[k]} imported", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

# MangoHud: the log, its summary, named GAME_DATE_TIME
"$HB" export --format mangohud --out "$T/mh" "$R" >"$T/out" 2>"$T/err" || fail "mangohud export failed: $(cat "$T/err")"
L=$T/mh/dsda-doom_2026-11-30_12-07-07.csv
S=$T/mh/dsda-doom_2026-11-30_12-07-07_summary.csv
expect_eq "mangohud files" "$L
$S" "$(cat "$T/out")"
grep -q "^hitchbench: note: $R: wrote $L (mangohud, 731 frames of its window) and $S\$" "$T/err" ||
	fail "no note of what was written: $(cat "$T/err")"
expect_eq "system header" "os,cpu,gpu,ram,kernel,driver,cpuscheduler" "$(sed -n 1p "$L")"
expect_eq "kernel" "6.18.44-fc-v657" "$(sed -n 2p "$L" | cut -d, -f5)"
expect_eq "columns" "fps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed" \
	"$(sed -n 3p "$L")"
expect_eq "rows" 731 "$(($(wc -l <"$L") - 3))"
expect_eq "first row" "94.9874,10.527713,0,0,0,0,0,0,0,0,0,0,0,0,10527713" "$(sed -n 4p "$L")"
roundtrip mangohud "$L"
# the summary is MangoHud 0.8's, as the import of the log computes it
python3 - "$S" "$T/mangohud.json" <<'EOF' || fail "the summary and the import's mangohud_* differ"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
m = json.load(open(sys.argv[2]))["runs"][0]["metrics"]
s = dict(zip(rows[0], rows[1]))
want = {"0.1% Min FPS": "mangohud_low01", "1% Min FPS": "mangohud_low1", "97% Percentile FPS": "mangohud_p97"}
bad = [k for k, v in want.items() if float(s[k]) != float("%g" % m[v])]
if "%.1f" % m["mangohud_avg"] != s["Average FPS"]:
    bad.append("Average FPS")
for k in bad:
    print(f"summary {k}: {s[k]}, import {m[want.get(k, 'mangohud_avg')]}", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# PresentMon: BOM, CRLF, its default columns; NA where nothing was measured
"$HB" export --format presentmon --out "$T/pm" "$R" >"$T/out" 2>"$T/err" || fail "presentmon export failed: $(cat "$T/err")"
P=$T/pm/PresentMon-2026-11-30T120707.csv
expect_eq "presentmon file" "$P" "$(cat "$T/out")"
expect_eq "BOM" "efbbbf" "$(head -c 3 "$P" | od -An -tx1 | tr -d ' \n')"
expect_eq "CRLF lines" 732 "$(grep -c "$(printf '\r')\$" "$P")"
head -1 "$P" | grep -q ',TimeInSeconds,MsBetweenSimulationStart,MsBetweenPresents,.*,CPUStartTimeInSeconds,MsBetweenAppStart,' ||
	fail "presentmon header: $(head -1 "$P")"
expect_eq "presentmon row" "dsda-doom,0,0x0,Other,0,0,0,Unknown,Application,0.01052771300000,NA,10.52771300000000,NA" \
	"$(sed -n 2p "$P" | cut -d, -f1-13)"
roundtrip presentmon "$P"

# CapFrameX: its session layout, one entry a frame in every CaptureData array
"$HB" export --format capframex --out "$T/cx" "$R" >"$T/out" 2>"$T/err" || fail "capframex export failed: $(cat "$T/err")"
C=$T/cx/CapFrameX-dsda-doom.exe-2026-11-30T1277.json
expect_eq "capframex file" "$C" "$(cat "$T/out")"
python3 - "$C" <<'EOF' || fail "the CapFrameX capture's layout"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["Info"]["GameName"] == "dsda-doom" and d["Info"]["AppVersion"] == "0.0", d["Info"]
cd = d["Runs"][0]["CaptureData"]
assert all(len(v) == 731 for v in cd.values()), {k: len(v) for k, v in cd.items()}
assert cd["MsBetweenPresents"][0] == 10.527713, cd["MsBetweenPresents"][0]
EOF
roundtrip capframex "$C"

# --window run: every frame of the run, the warm-up's too
"$HB" export --format mangohud --window run --out "$T/all" "$R" >/dev/null 2>&1 || fail "--window run failed"
expect_eq "run's rows" 865 "$(($(wc -l <"$T/all/dsda-doom_2026-11-30_12-07-07.csv") - 3))"

# a file already there is never replaced: the second export of a run (or
# another run that started in the same second) gets STEM-2, its summary too
"$HB" export --format mangohud --window run --out "$T/all" "$R" >"$T/again" 2>/dev/null || fail "second export failed"
expect_eq "second export's files" "$T/all/dsda-doom_2026-11-30_12-07-07-2.csv
$T/all/dsda-doom_2026-11-30_12-07-07-2_summary.csv" "$(cat "$T/again")"
expect_eq "the first left whole" 868 "$(wc -l <"$T/all/dsda-doom_2026-11-30_12-07-07.csv")"

# usage errors
for args in "" "--format nvidia $R" "--format mangohud" "--format mangohud --window all $R"; do
	# shellcheck disable=SC2086
	"$HB" export $args >/dev/null 2>&1
	expect_eq "exit of 'export $args'" 2 $?
done
"$HB" export --format mangohud --out "$T/x" "$T/nowhere" >/dev/null 2>"$T/err" && fail "a missing run exported"
grep -q "nowhere" "$T/err" || fail "no word of the missing run: $(cat "$T/err")"
exit 0
