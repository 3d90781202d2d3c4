#!/bin/sh
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

restore=""
cleanup() {
	eval "$restore"
	rm -rf "$T"
}
trap cleanup EXIT

# delay accounting on for the run, as a quieted batch has it
old_dacct=$(cat /proc/sys/kernel/task_delayacct 2>/dev/null || echo "")
if [ -n "$old_dacct" ]; then
	echo 1 >/proc/sys/kernel/task_delayacct
	restore="echo $old_dacct >/proc/sys/kernel/task_delayacct; $restore"
fi

# the fault stall's file: on a disk, not in memory
F=/var/tmp/hb-t1010-$$.dat
disk_case=yes
case $(stat -f -c %T /var/tmp) in
tmpfs|ramfs) disk_case="no: /var/tmp is in memory, not on a disk" ;;
esac
if [ "$disk_case" = yes ]; then
	dd if=/dev/urandom of="$F" bs=1M count=96 conv=fsync status=none || fail "cannot write $F"
	chmod 644 "$F"
	restore="rm -f $F; $restore"
fi

# reclaim and swap-in: zram swap and a memory cgroup with a limit
mem_case="no"
zram_ready() {
	[ -b /dev/zram0 ] || { mem_case="no: no /dev/zram0"; return 1; }
	[ "$(cat /sys/block/zram0/disksize)" = 0 ] || { mem_case="no: zram0 is in use"; return 1; }
	[ "$(wc -l </proc/swaps)" -le 1 ] || { mem_case="no: a swap is already on"; return 1; }
	command -v mkswap >/dev/null || { mem_case="no: no mkswap"; return 1; }
	echo 1G >/sys/block/zram0/disksize 2>/dev/null || { mem_case="no: cannot size zram0"; return 1; }
	restore="echo 1 >/sys/block/zram0/reset; $restore"
	mkswap /dev/zram0 >/dev/null 2>&1 && swapon /dev/zram0 2>/dev/null ||
		{ mem_case="no: cannot swap on zram0"; return 1; }
	restore="swapoff /dev/zram0; $restore"
}
memcg_ready() {
	if [ -d /sys/fs/cgroup/memory ]; then
		CG=/sys/fs/cgroup/memory/hb-t1010-$$
		mkdir "$CG" && echo 48M >"$CG/memory.limit_in_bytes" ||
			{ mem_case="no: cannot make a cgroup v1 memory limit"; return 1; }
	elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		CG=/sys/fs/cgroup/hb-t1010-$$
		mkdir "$CG" && echo 48M >"$CG/memory.max" ||
			{ mem_case="no: cannot make a cgroup v2 memory limit"; return 1; }
	else
		mem_case="no: no memory cgroup controller"
		return 1
	fi
	restore="rmdir $CG 2>/dev/null; $restore"
	mem_case=yes
}
zram_ready && memcg_ready

args="--fps 60 --stall-at 2:300:busy --stall-at 3:300:futex --stall-at 4:300:runq"
expect="3:cpu 4:wait 5:runq"
[ "$disk_case" = yes ] && { args="$args --stall-at 5:300:fault --fault-file $F"; expect="$expect 6:disk"; }
# reclaim runs 900 ms, to push a few hundred MB out to zram: enough that
# touching it again takes all of the 250 ms swap-in stall
[ "$mem_case" = yes ] && { args="$args --stall-at 6:900:reclaim --reclaim-mb 1024 --stall-at 8:250:swapin"
	expect="$expect 7:reclaim 9:swap_zram"; }
fake_recipe stalls "$args" "warmup = 1" "window = 8.5"

# the game joins the memory cgroup as soon as it runs (a root's move), and
# the limit goes once reclaim has pushed its memory out to zram: touching
# it again is then swap-ins alone (under the limit it is mostly reclaim
# making room for them, and the delays say so)
if [ "$mem_case" = yes ]; then
	if [ -f "$CG/memory.limit_in_bytes" ]; then nolimit="echo -1 >$CG/memory.limit_in_bytes"
	else nolimit="echo max >$CG/memory.max"; fi
	(
		trap - EXIT     # the cleanup is the test's, not this helper's
		for i in $(seq 200); do
			p=$(pgrep -f "$T/game/fakegame" | head -n 1)
			if [ -n "$p" ]; then
				echo "$p" >"$CG/cgroup.procs"
				sleep 7.4
				eval "$nolimit"
				exit 0
			fi
			sleep 0.02
		done
	) &
fi
hb_run "$T/stalls.ini" --switches "STALLS=1"
wait
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
# "when" counts from the first present, which comes right after the game's
# start: a stall asked for at SEC ends SEC+0.3 s in (the table's when_s is
# its start: the present before it, about SEC)
awk '/^  window/ { w = 1; next } /^  [a-z]/ { w = 0 } w && $1 ~ /^[+-][0-9]/ { print $1, $3, $4 }' \
	"$T/stalls" >"$T/rows"
for e in $expect; do
	sec=$(( ${e%%:*} - 1 ))
	want=${e#*:}
	got=$(awk -v s="$sec" '{ d = $1 - s; if (d < 0) d = -d; if (d < 0.35) print $2 }' "$T/rows")
	[ "$got" = "$want" ] || { cat "$T/stalls" >&2; fail "the stall at ${sec} s: cause '$got', expected $want"; }
done
[ "$(wc -l <"$T/rows")" -ge "$(echo $expect | wc -w)" ] || fail "fewer stalls than asked"
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
