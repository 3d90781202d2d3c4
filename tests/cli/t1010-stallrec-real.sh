#!/bin/sh
# lane: alone (the causes of its induced stalls are the live machine's: another test's load beside it is a run queue of its own)
# timing: the induced stalls' causes on the live machine
# quick: no (a run of induced stalls, seconds apart, with nothing beside it)
# The real stall recorder (STALLS=1) beside the fake game, which stalls
# 300 ms in real ways: major faults on a file dropped from the page cache
# (disk), a busy loop (cpu), a futex wait (wait), hogs on its CPU (runq)
# and, where this machine allows, allocation in a memory cgroup at its
# limit with zram swap (reclaim) and touching that memory again
# (swap_zram). Each stall must come out with its cause, the frames and t0
# alignments within one period, and the recorder's cost in bench.txt.
# STALLS_NOWRITE=1 samples without a record. Cases this machine cannot
# make say why and are left out; without root the test skips.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "the recorder reads the game's wait channel and system call: needs root"
need_game_user
fake_setup

. "$(dirname "$0")/../lib-stallcases.sh"
stall_cases_run "STALLS=1"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "the run failed ($rc)"; }
no_fakegame_left
b="$rundir/bench.txt"
expect_eq "run name" "base@rec10" "$(value run_name "$b")"
[ -s "$rundir/stalls.rec.zst" ] || fail "no stalls.rec.zst"
value stallrec "$b" | grep -q "^[0-9]* samples, own CPU .* us a sample" ||
	fail "bench.txt has no cost: '$(value stallrec "$b")'"
grep -q "stallrec: .* samples, own CPU" "$T/err" || fail "the run did not say what the recorder cost"
# the game had a cgroup of its own where cgroup v2 is mounted, for its PSI,
# and it is gone with the run
cg=$(value stallrec_cgroup "$b")
if grep -q " cgroup2 " /proc/self/mounts; then
	case $cg in /*) ;; *) fail "no cgroup for the game with cgroup v2 mounted: '$cg'" ;; esac
	[ ! -d "$cg" ] || fail "the game's cgroup $cg was left behind"
	"$HB_BUILD/tests/recdump" "$rundir/stalls.rec.zst" | grep -q "^meta sources.psi=cgroup $cg" ||
		fail "the record's PSI is not the game's cgroup's"
else
	echo "not tested here: the game's own cgroup (no cgroup v2: '$cg')"
fi

"$HB" stalls "$rundir" >"$T/stalls" 2>&1 || { cat "$T/stalls" >&2; fail "hitchbench stalls failed"; }
stall_cases_check
# both alignments within one period (10 ms): the sample that counts a
# present comes at most a period after it, give or take how late that
# sample woke up (a few ms on a busy machine)
awk '/alignment \(frames\)/ { for (i = 1; i <= NF; i++) if ($i == "max") { v = $(i + 1); exit } }
     END { exit !(v != "" && v + 0 >= 0 && v + 0 <= 15) }' "$T/stalls" ||
	fail "the frames alignment is not within a period: $(grep 'alignment (frames)' "$T/stalls")"
awk '/alignment \(t0\)/ { v = $(NF - 1); if (v < 0) v = -v; ok = v <= 10 } END { exit !ok }' "$T/stalls" ||
	fail "the t0 alignment is not within a period: $(grep 'alignment (t0)' "$T/stalls")"
# the report's columns come from the same record
"$HB" report --stalls --format csv "$rundir" >"$T/csv" || fail "report --stalls failed"
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } NR == 2 { print $k }' "$T/csv"; }
[ -n "$(col stall_cpu_s)" ] && [ "$(col stall_why)" != "" ] || fail "the report has no stall columns"

# STALLS_NOWRITE: samples, says what it cost, writes no record
fake_recipe short "--fps 60" "warmup = 0.5" "window = 1"
rm -rf "$T/runs"
hb_run "$T/short.ini" --switches "STALLS=1+STALLS_NOWRITE=1"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "the nowrite run failed ($rc)"; }
expect_eq "nowrite run name" "base@rec10nw" "$(value run_name "$rundir/bench.txt")"
[ ! -e "$rundir/stalls.rec.zst" ] || fail "STALLS_NOWRITE=1 wrote a record"
value stallrec "$rundir/bench.txt" | grep -q "samples, own CPU" || fail "the nowrite run has no cost"
ls /dev/shm | grep -q "stalls.live" && fail "a live record was left in /dev/shm"

# a recorder killed mid-run (SIGKILL: no chance to pack): the runner packs
# what it left in /dev/shm, and says so
fake_recipe killed "--fps 60" "warmup = 0.5" "window = 3"
rm -rf "$T/runs"
hb_run_bg --no-quieting "$T/killed.ini" --switches "STALLS=1"
for i in $(seq 100); do
	pkill -9 -f "$HB_BUILD/hitchbench-stallrec" && break
	sleep 0.05
done
sleep 1
pkill -9 -f "$HB_BUILD/hitchbench-stallrec"
wait "$pid" || fail "the run with a killed recorder failed"
rundir=$(run_dirs "$T/runs" | tail -n 1)
value stallrec_record "$rundir/bench.txt" | grep -q "packed by the runner" ||
	fail "the killed recorder's record: '$(value stallrec_record "$rundir/bench.txt")'"
"$HB_BUILD/tests/recdump" "$rundir/stalls.rec.zst" >"$T/k" || fail "the packed live record does not read"
[ "$(sed -n 's/^rows //p' "$T/k")" -gt 0 ] || fail "the packed live record has no rows"
grep -q "^trailer stop=the recorder did not end cleanly" "$T/k" || fail "the record does not say how it ended"

[ "$disk_case" = yes ] || echo "not tested here: disk ($disk_case)"
[ "$mem_case" = yes ] || echo "not tested here: reclaim and swap_zram ($mem_case)"
exit 0
