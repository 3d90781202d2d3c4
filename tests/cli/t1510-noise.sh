#!/bin/sh
# Host noise (docs/formats.md, "Host noise (noise.*)"): a real run of the
# fake game burning 2 ms of CPU a frame has every noise.* key, with values
# that fit what the game did; a quiet profile whose [noise] allows no
# foreign CPU, with a CPU hog of the test's own running through the window,
# marks the run invalid with the reason, and --rerun-invalid runs it once
# more.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
# 100 frames a second, 2 ms of CPU each: ~200 ms of game CPU a second
fake_recipe busy "--fps 100 --busy-us 2000" "warmup = 2" "window = 3" "stop_grace = 0.5"

# ---- the keys, without a profile
hb_run "$T/busy.ini" base 1 --switches INTF=0
expect_eq "exit status" 0 "$rc"
b="$rundir/bench.txt"
for k in t0_ns t1_ns cpus steal_pct steal irq_pct softirq_pct foreign_cpu_pct run_cpu_ms game_cpu_ms \
	cost_us limits; do
	[ -n "$(value "noise.$k" "$b")" ] || fail "no noise.$k in bench.txt: $(grep '^noise' "$b")"
done
if [ -n "$(value noise.game_runq "$b")" ]; then
	echo "no schedstat here: $(value noise.game_runq "$b")"
else
	[ -n "$(value noise.game_runq_ms_per_s "$b")" ] || fail "neither noise.game_runq_ms_per_s nor why"
fi
expect_eq "noise.limits" "none (no quiet profile: --no-quieting)" "$(value noise.limits "$b")"
expect_eq "noise.cpus" "$(grep -c '^cpu[0-9]' /proc/stat)" "$(value noise.cpus "$b")"
t0=$(value noise.t0_ns "$b")
t1=$(value noise.t1_ns "$b")
ws=$(value window_start_ns "$b")
we=$(value window_end_ns "$b")
# the snapshots are taken when the runner wakes at the window's edges:
# after them, and soon (0.3 s allows for a loaded machine)
awk "BEGIN { exit !($t0 >= $ws && $t0 - $ws < 3e8) }" || fail "t0 $t0 is not just after window_start $ws"
awk "BEGIN { exit !($t1 >= $we && $t1 - $we < 3e8) }" || fail "t1 $t1 is not just after window_end $we"
game=$(value noise.game_cpu_ms "$b")
run=$(value noise.run_cpu_ms "$b")
foreign=$(value noise.foreign_cpu_pct "$b")
# 3 s of 2 ms a frame at up to 100 fps: up to 600 ms (fewer frames on a busy machine)
awk "BEGIN { exit !($game > 100 && $game < 1500) }" || fail "implausible noise.game_cpu_ms $game"
awk "BEGIN { exit !($run >= $game) }" || fail "the run's CPU $run is less than the game's $game"
awk "BEGIN { exit !($foreign >= 0 && $foreign <= 100) }" || fail "implausible noise.foreign_cpu_pct $foreign"
case "$(value noise.steal "$b")" in
"proc/stat steal; worst cpu"*) awk "BEGIN { exit !($(value noise.steal_pct "$b") >= 0) }" ||
	fail "bad noise.steal_pct" ;;
"no steal clock: "*) expect_eq "noise.steal_pct without a steal clock" - "$(value noise.steal_pct "$b")" ;;
*) fail "noise.steal: $(value noise.steal "$b")" ;;
esac
grep -q "ok: .*; noise steal .* foreign .*%" "$T/err" || fail "no noise on the run's line: $(cat "$T/err")"
grep -q "^1 done .* ok; noise steal .* foreign " "$batchdir/runs.txt" ||
	fail "no noise in runs.txt: $(cat "$batchdir/runs.txt")"
echo "a fake-game run here: $(grep '^noise\.' "$b" | tr '\n' ' ')"

# ---- a profile that changes nothing on the machine, and allows no foreign CPU
export HITCHBENCH_STATE_DIR="$T/state"
inert_profile "$T/strict.ini" "steal_pct_max =" "foreign_cpu_pct_max = 0"
# a CPU hog of the test's own (not of the run) from before the first
# window to after it; the rerun may find the machine quiet or not
(env -u HITCHBENCH_HARNESS sh -c 'end=$(($(date +%s) + 6)); while [ "$(date +%s)" -lt "$end" ]; do :; done') &
hog=$!
rm -rf "$T/runs"
rc=0
"$HB" run --profile "$T/strict.ini" --rerun-invalid --display :99 --out "$T/runs" --no-db "$T/busy.ini" base 1 \
	--switches INTF=0 >"$T/out" 2>"$T/err" || rc=$?
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null
expect_eq "exit status with the profile" 0 "$rc"
batch=$(ls -d "$T"/runs/*/)
expect_eq "runs.txt" "1 started
1 invalid
1 rerun
1 started" "$(cut -d' ' -f1,2 "$batch/runs.txt" | head -n 4)"
first=$(run_dirs "$T/runs" | head -n 1)
second=$(run_dirs "$T/runs" | tail -n 1)
[ "$first" != "$second" ] || fail "expected two run directories"
expect_eq "first run invalid" 1 "$(value invalid "$first/bench.txt")"
value invalid_reason "$first/bench.txt" | grep -q "^noise: foreign CPU [0-9.]*% over the profile's 0%$" ||
	fail "invalid reason: $(value invalid_reason "$first/bench.txt")"
expect_eq "the profile's limits" "foreign_cpu_pct_max=0 (profile $T/strict.ini)" \
	"$(value noise.limits "$first/bench.txt")"
grep -q "^1 invalid .* noise: foreign CPU .*; noise steal" "$batch/runs.txt" ||
	fail "runs.txt: $(cat "$batch/runs.txt")"
grep -q "!! .*noise: foreign CPU.*THIS RUN IS INVALID" "$T/err" || fail "no loud invalid line: $(cat "$T/err")"
grep -q "invalid, run once more now" "$T/err" || fail "no word of the rerun"
expect_eq "rerun attempt" 2 "$(value batch_attempt "$second/bench.txt")"
exit 0
