#!/bin/sh
# Stall causes from the wait record (STALLS=bpf) end to end, on a run made
# from a hand-made record (tests/fixtures/waitrec/handmade.waits, its
# README says what each stall holds) and frames presented by pid 4242:
# hitchbench stalls names each stall's cause decided by bpf, lists its
# waits (the waker by name) and the recorder's cost; the JSON carries the
# same; report --stalls's columns come from the record; a bad line of the
# record is named by file and line.
. "$(dirname "$0")/../lib.sh"
command -v zstd >/dev/null || skip "no zstd program to pack the record with"
R="$T/runs/b1/bpf"
mkdir -p "$R"
S=1000000000000         # the pass's launch, ns; times below are ms after it
# frames every 20 ms from 400 ms, but over the stalls: (600, 740] (1200,
# 1450] (1990, 2190] (2590, 2790] (3190, 3390]
awk -v s=$S 'function run(a, b) { for (t = a; t <= b; t += 20) printf "%.0f 4242\n", s + t * 1000000 }
	BEGIN { run(400, 600); run(740, 1200); run(1450, 1990); run(2190, 2590); run(2790, 3190); run(3390, 4010) }' \
	>"$T/frames.txt"
"$HB_BUILD/tests/mkframes" --text "$T/frames.txt" "$R/frames.bin" || fail "mkframes --text"
cat >"$R/bench.txt" <<EOB
format=1
run_id=00000000000000000000000000000bpf
game=stallgame
variant=base
run_name=bpf
status=ok
batch_id=b1
kernel_release=6.1.0
started_utc=2026-12-01T10:00:00Z
clock_pair=999800000000 1699999999800000000
pass.1.start_ns=$S
first_frame_ns=$((S + 400000000))
window_start_ns=$((S + 1000000000))
window_end_ns=$((S + 4000000000))
EOB
{ cat "$HB_FIXTURES/waitrec/handmade.waits"
  printf 'trailer\tevents=off 9 bio 6\ntrailer\tlost=3\ntrailer\tuser_cpu_us=500\n'
  printf 'trailer\tprog.sched_switch.run_ns=16000000\ntrailer\tprog.sched_switch.runs=20000\n'
  printf 'trailer\tprog.sched_waking.run_ns=5600000\ntrailer\tprog.sched_waking.runs=10600\n'
  printf 'trailer\tns_per_event=705.9\ntrailer\tkernel_cpu_pct=0.432\ntrailer\tuser_cpu_pct=0.010\n'
  printf 'trailer\twall_us=5000000\ntrailer\tstop=the game ended\n'
} | zstd -q -o "$R/waits.rec.zst" || fail "zstd"

"$HB" stalls "$R" >"$T/out" 2>"$T/err" || fail "stalls failed: $(cat "$T/err")"
# each stall's cause and decider, section by section
awk '/^  (load|warm-up|window) /{sec=$1; next} sec && /^ +[+-][0-9]/{print sec, $3, $4}' "$T/out" >"$T/got"
cat >"$T/want" <<EOW
load disk bpf
warm-up gpu bpf
window wait bpf
window disk bpf
window runq bpf
window reclaim bpf
EOW
diff -u "$T/want" "$T/got" || fail "causes differ: $(cat "$T/out")"
# the waits, worked out from the fixture's lines:
# load: the fault (50, 355] with its reads, runnable to 360; running to 400;
#   no line before 50 ms
# warm-up: running (600, 610], the fence (610, 732], runnable to 735, running to 740
# futex: running (1200, 1210], asleep to 1422, runnable to 1425, running to
#   1430, preempted to 1445, running to 1450: wait 212, runq 18, cpu 20
# disk: running 5, the fault (1995, 2180] with 3 reads, runnable 5, running 5
# runq: running 10, preempted 160, running 30
# reclaim: the 240 ms between 3180 and 3420 ran 240 ms, of which the delay
#   counters say 160 reclaimed; the stall holds 200/240 of it
cat >"$T/want" <<EOW
      - disk: vda, 3 reads 96 KiB, 305 ms, runnable 5 ms
      - running 40 ms between the recorded waits
      - no line of the record speaks for 50 ms
      - gpu (dma_fence_default_wait), woken by an interrupt or the idle task after 122 ms, runnable 3 ms
      - running 15 ms between the recorded waits
      - futex, woken by llvmpipe-3 (4243) after 212 ms, runnable 3 ms
      - runnable 15 ms (preempted)
      - running 20 ms between the recorded waits
      - disk: vda, 3 reads 96 KiB, 185 ms, runnable 5 ms
      - running 10 ms between the recorded waits
      - runnable 160 ms (preempted)
      - running 40 ms between the recorded waits
      - running 67 ms, reclaim 133 ms (delay accounting) between the recorded waits
EOW
grep '^      - ' "$T/out" >"$T/got"
diff -u "$T/want" "$T/got" || fail "the waits differ"
grep -q '^  stall record: none (stalls.rec.zst)' "$T/out" || fail "no word of the missing stall record"
grep -q '^  wait record: 9 waits, 6 block requests, 2 threads, 3 events lost (meta min_off_ns 5000000)$' "$T/out" ||
	fail "no wait record line: $(grep 'wait record' "$T/out")"
grep -q '^  stallbpf: 706 ns an event in the kernel (bpf_stats), 0.4420% of one CPU (kernel 0.432% + user 0.010%) over 5.000 s$' "$T/out" ||
	fail "no cost line: $(grep stallbpf "$T/out")"
grep -q "alignment (t0): the wait record's clock pair against bench.txt's: realtime - monotonic differs by +2.000 ms" "$T/out" ||
	fail "no t0 alignment"
grep -q '^ *+0.800    250.0  wait      bpf        wait 85% cpu 8% runq 7% *no stall record: its waits below$' "$T/out" || fail "futex stall's shares: $(grep ' wait ' "$T/out")"

# JSON: the same causes, the waits, shares adding up to each stall
"$HB" stalls --format json "$R" >"$T/json" || fail "stalls --format json"
python3 - "$T/json" <<'PY' || fail "the JSON differs: $(head -c 2000 "$T/json")"
import json, sys
doc = json.load(open(sys.argv[1]))
run = doc["runs"][0]
assert run["stall_record"] is False and run["wait_record"] is True, run
got = [(s["section"], s["cause"], s["decided"]) for s in run["stalls"]]
assert got == [("load", "disk", "bpf"), ("warm-up", "gpu", "bpf"), ("window", "wait", "bpf"),
               ("window", "disk", "bpf"), ("window", "runq", "bpf"), ("window", "reclaim", "bpf")], got
futex = run["stalls"][2]
assert futex["waits"][0] == "futex, woken by llvmpipe-3 (4243) after 212 ms, runnable 3 ms", futex["waits"]
assert abs(futex["share_s"]["wait"] - 0.212) < 1e-9 and abs(futex["share_s"]["runq"] - 0.018) < 1e-9, futex
for s in run["stalls"]:
    assert abs(sum(s["share_s"].values()) - s["ms"] / 1000) < 1e-9, s
PY

# report: the stall columns from the wait record, the recorder's cost
"$HB" report --stalls --format csv "$R" >"$T/csv" || fail "report --stalls"
python3 - "$T/csv" <<'PY' || fail "report --stalls CSV is wrong: $(cat "$T/csv")"
import csv, sys
row = [r for r in csv.DictReader(open(sys.argv[1])) if r["row"] == "run"][0]
want = {"stall_s": 0.85, "stall_wait_s": 0.212, "stall_disk_s": 0.185, "stall_cpu_s": 0.02 + 0.018 + 0.01 + 0.005 + 0.04 + 0.16 + 0.2 * 80 / 240,
        "stall_reclaim_s": 0.2 * 160 / 240, "stall_gpu_s": 0, "stall_swap_s": 0, "stall_io_s": 0, "stall_other_s": 0,
        "load_disk_s": 0.305, "warm_disk_s": 0}
for k, v in want.items():
    assert abs(float(row[k]) - v) < 1e-6, (k, row[k], v)
assert row["stall_why"] == "cpu", row["stall_why"]
PY
"$HB" report --format csv "$R" >"$T/csv2" || fail "report"
python3 - "$T/csv2" <<'PY' || fail "no stallbpf metrics: $(cat "$T/csv2")"
import csv, sys
row = [r for r in csv.DictReader(open(sys.argv[1])) if r["row"] == "run"][0]
assert abs(float(row["stallbpf_ns_per_event"]) - 705.9) < 1e-9, row["stallbpf_ns_per_event"]
assert abs(float(row["stallbpf_cpu_pct"]) - 0.442) < 1e-9, row["stallbpf_cpu_pct"]
assert float(row["stallbpf_events"]) == 30600, row["stallbpf_events"]
PY

# a bad line: named by file and line, exit 1
sed 's/^off\t4242\t1001430000000/off\t4242\tsoon/' "$HB_FIXTURES/waitrec/handmade.waits" | zstd -q -o "$T/bad.zst" || fail zstd
mkdir -p "$T/bad" && cp "$R/bench.txt" "$R/frames.bin" "$T/bad/" && mv "$T/bad.zst" "$T/bad/waits.rec.zst"
rc=0; "$HB" stalls "$T/bad" >/dev/null 2>"$T/err" || rc=$?
expect_eq "a bad wait record" 1 "$rc"
grep -q 'waits.rec.zst:25: ' "$T/err" || fail "the bad line is not named: $(cat "$T/err")"
exit 0
