#!/bin/sh
# A run an observer marks invalid: the sensor sampler with
# SENSORS_THROTTLE=invalid sees a CPU's throttle counter move during the
# run (a fixture sysfs tree under HITCHBENCH_ROOT, its counter bumped
# mid-run). The run is kept, marked invalid, left out of the medians and,
# with --rerun-invalid (or RERUN_INTERFERED=1), run once more at once.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe hot "--fps 100" "warmup = 0" "window = 3" "stop_grace = 0.5"
cp -R "$HB_FIXTURES/sysfs-cpufreq" "$T/root"
counter="$T/root/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count"
[ -f "$counter" ] || fail "the fixture has no throttle counter"
token="SENSORS=1+SENSORS_MS=100+SENSORS_THROTTLE=invalid"

# the counter moves 1.5 s into the first run only
start=$(cat "$counter")
(sleep 1.5; echo $((start + 3)) >"$counter") &
bump=$!
rc=0
RERUN_INTERFERED=1 HITCHBENCH_ROOT="$T/root" "$HB" run --no-quieting --display :99 --out "$T/runs" \
	--db "$T/db.sqlite" "$T/hot.ini" base 1 --switches "$token" >"$T/out" 2>"$T/err" || rc=$?
wait "$bump"
expect_eq "exit status" 0 "$rc"
batch=$(ls -d "$T"/runs/*/)
expect_eq "runs.txt" "1 started
1 invalid
1 rerun
1 started
1 done" "$(cut -d' ' -f1,2 "$batch/runs.txt")"
first=$(run_dirs "$T/runs" | head -n 1)
second=$(run_dirs "$T/runs" | tail -n 1)
[ "$first" != "$second" ] || fail "expected two run directories"
expect_eq "first run invalid" 1 "$(value invalid "$first/bench.txt")"
value invalid_reason "$first/bench.txt" | grep -q "a CPU throttled during the run (throttle.cpu0.core +3)" ||
	fail "invalid reason: $(value invalid_reason "$first/bench.txt")"
expect_eq "first run throttle delta" 3 "$(value sensors.throttle.cpu0.core.delta "$first/bench.txt")"
expect_eq "rerun valid" 0 "$(value invalid "$second/bench.txt")"
expect_eq "rerun attempt" 2 "$(value batch_attempt "$second/bench.txt")"
grep -q "!! .*THIS RUN IS INVALID" "$T/err" || fail "no loud invalid line: $(cat "$T/err")"
grep -q "invalid, run once more now" "$T/err" || fail "no word of the rerun"
grep -q "^median hot base@sens100thr (n=1)" "$T/out" || grep -q "base@sens100thr.*n=1" "$T/out" ||
	fail "the invalid run was counted: $(cat "$T/out")"
grep -q "invalid" "$T/out" || fail "the report does not show the invalid run"
expect_eq "database invalid flags" "1
0" "$(sqlite3 "$T/db.sqlite" "select invalid from runs order by started_utc, name")"

# without the rerun: the invalid run stays the slot's only run
rm -rf "$T/runs"
(sleep 1.5; echo $((start + 9)) >"$counter") &
bump=$!
rc=0
HITCHBENCH_ROOT="$T/root" "$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/hot.ini" base 1 \
	--switches "$token" >"$T/out" 2>"$T/err" || rc=$?
wait "$bump"
expect_eq "exit status without rerun" 0 "$rc"
expect_eq "runs without rerun" 1 "$(run_dirs "$T/runs" | wc -l)"
expect_eq "runs.txt without rerun" "1 started
1 invalid" "$(cut -d' ' -f1,2 "$(ls -d "$T"/runs/*/)/runs.txt")"

# SENSORS=0: no sampler, and the run's name says so
hb_run "$T/hot.ini" base 1 --switches SENSORS=0
expect_eq "SENSORS=0 exit" 0 "$rc"
expect_eq "SENSORS=0 name" "base@nosensors" "$(value run_name "$rundir/bench.txt")"
[ ! -e "$rundir/sensors.tsv.zst" ] || fail "SENSORS=0 still sampled"
exit 0
