# The induced stalls of the recorders' real tests (t1010: STALLS=1,
# t1030: STALLS=bpf), sourced after lib.sh, fake_setup and the root check.
# stall_cases_run SWITCHES runs the fake game with 300 ms stalls made in
# real ways: a busy loop (cpu), a futex wait another thread ends (wait),
# hogs on its CPU (runq), major faults on a file dropped from the page
# cache (disk), and, where this machine allows, allocation in a memory
# cgroup at its limit with zram swap (reclaim) and touching that memory
# again (swap_zram). It sets $expect ("SEC:CAUSE ..."), $disk_case and
# $mem_case ("yes" or why not), and hb_run's $rc, $rundir; the cleanup
# trap restores what it changed.

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

stall_cases_run() {
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
	hb_run "$T/stalls.ini" --switches "$1"
	wait
}
