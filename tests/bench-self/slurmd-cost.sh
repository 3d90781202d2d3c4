#!/bin/sh
# bench-self: what Slurm's node daemons do on a lab node during a measured
# window (issue 21), with Slurm's defaults against the settings of a quiet
# lab (docs/lab.md, "slurmd's cost during a window"). A benchmark, not a
# test: it prints figures; it exits 77 (with the reason) when it cannot run
# and 1 when a daemon does not come up.
#
# For each profile it starts a private cluster of its own, everything under
# one temporary directory: munged (its own key and socket), slurmctld and
# slurmd (-N hbcost, 127.0.0.1, free ports), with a slurm.conf it writes;
# submits a job that sleeps through the window (a runner is always inside a
# job: its slurmstepd runs, and job accounting polls it if configured); once
# the job runs, reads the counters of each daemon of this cluster, waits
# WINDOW seconds (30) and reads them again. It stops everything at the end.
# Run as root (slurmd must be), from the top of the tree:
#     sh tests/bench-self/slurmd-cost.sh [WINDOW]
#
# Figures, per daemon (all of its processes: this cluster's slurmd, the job's
# slurmstepd, munged, slurmctld), each a difference between the window's end
# and start:
#   cpu_ms    utime + stime of /proc/PID/stat (fields 14 and 15, clock ticks
#             of getconf CLK_TCK, to ms): the process's threads, living and
#             exited, as the kernel sums them
#   switches  voluntary_ctxt_switches + nonvoluntary_ctxt_switches of
#             /proc/PID/task/TID/status summed over the threads alive at
#             both reads: each switch-in after a sleep is a wakeup; threads
#             that come and go inside the window (slurmd's one per RPC) are
#             missed, so this is a lower bound
#   wakeups   nr_wakeups of /proc/PID/task/TID/sched summed the same way,
#             when the kernel shows it (schedstats on); else '-'
#   per_s     switches / WINDOW
#   perf_cs   context switches perf counted over the window (perf stat -e
#             context-switches -p PIDS -- sleep WINDOW): every thread of the
#             processes, those created in the window too, and the children
#             they fork (inherited counters); '-' without perf
#   perf_ms   task-clock of the same, ms: the CPU time, to the nanosecond
# DEBUG=1 also prints the raw samples; PROFILES="quiet" runs only some.
# Profiles:
#   default   only what a cluster needs (auth, ports, paths, the node):
#             22.05's defaults for the rest (SlurmdTimeout=300, so slurmctld
#             pings slurmd every 100 s; HealthCheckInterval=0;
#             JobAcctGatherType=jobacct_gather/none)
#   site      what sites commonly set: a health check every 30 s,
#             job accounting by jobacct_gather/linux every 10 s,
#             SlurmdTimeout=30 (a ping every 10 s)
#   quiet     the lab's: HealthCheckInterval=0, JobAcctGatherType=jobacct_gather/none,
#             JobAcctGatherFrequency=0, AcctGatherNodeFreq=0, SlurmdTimeout=3600,
#             InactiveLimit=0
set -u
WINDOW=${1:-30}
[ "$(id -u)" = 0 ] || { echo "not root: slurmd must run as root" >&2; exit 77; }
for p in munged slurmctld slurmd sbatch scontrol squeue; do
	command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] ||
		{ echo "no $p (apt install slurmctld slurmd slurm-client munge)" >&2; exit 77; }
done
PATH=$PATH:/usr/sbin
. "$(dirname "$0")/../slurm-cluster.sh"
D=$(mktemp -d /tmp/hb-slurmd-cost.XXXXXX)
chmod 755 "$D"
HZ=$(getconf CLK_TCK)
MPID= CPID= DPID=
# my_stepds: this cluster's slurmstepd processes (slurmstepd clears its
# environment, but keeps slurmd's working directory, which is the profile's)
my_stepds() {
	for p in $(pgrep -x slurmstepd); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "${P:-/nonexistent}" ] && echo "$p"
	done
	return 0
}
stop_all() {
	[ -n "${SLURM_CONF:-}" ] && [ -n "$CPID" ] && scancel -p cost 2>/dev/null
	i=0
	while [ -n "$(my_stepds)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	for s in $(my_stepds); do
		for c in $(pgrep -P "$s"); do kill -9 $(pgrep -P "$c") "$c" 2>/dev/null; done
		kill -9 "$s" 2>/dev/null
	done
	for p in $DPID $CPID; do kill "$p" 2>/dev/null; done
	for p in $DPID $CPID; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	DPID= CPID=
}
cleanup() {
	stop_all
	[ -n "$MPID" ] && kill "$MPID" 2>/dev/null
	sleep 0.2
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cluster_munge "$D" || { echo "munged did not start: $(tail -n 3 "$D/log/munged.log")" >&2; exit 1; }
MPID=$(cat "$D/msock/munged.pid")

# conf PROFILE DIR CPORT DPORT: slurm.conf of the profile
conf() {
	cluster_conf hbcost "$2" "$3" "$4" "$D/msock/munge.socket"
	case $1 in
	site)
		echo "HealthCheckInterval=30"
		echo "HealthCheckProgram=/bin/true"
		echo "JobAcctGatherType=jobacct_gather/linux"
		echo "JobAcctGatherFrequency=task=10"
		echo "SlurmdTimeout=30" ;;
	quiet)
		echo "HealthCheckInterval=0"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "JobAcctGatherFrequency=0"
		echo "AcctGatherNodeFreq=0"
		echo "SlurmdTimeout=3600"
		echo "InactiveLimit=0" ;;
	esac
	echo "NodeName=hbcost NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN"
	echo "PartitionName=cost Nodes=hbcost Default=YES MaxTime=INFINITE State=UP"
}

# pids_of NAME: this cluster's processes of the daemon NAME
pids_of() {
	case $1 in
	munged) echo "$MPID" ;;
	slurmctld) echo "$CPID" ;;
	slurmd) echo "$DPID" ;;
	slurmstepd) my_stepds ;;
	esac
	return 0
}

# sample NAME: "PIDS TICKS SWITCHES WAKEUPS" of the daemon's processes now
sample() {
	pids=$(pids_of "$1" | tr '\n' ' ')
	ticks=0 sw=0 wk=0 havewk=0
	for p in $pids; do
		t=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }')
		ticks=$((ticks + ${t:-0}))
		for task in /proc/$p/task/*; do
			s=$(awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }' "$task/status" 2>/dev/null)
			sw=$((sw + ${s:-0}))
			w=$(awk '$1 == "nr_wakeups" { print $3 }' "$task/sched" 2>/dev/null)
			[ -n "$w" ] && { wk=$((wk + w)); havewk=1; }
		done
	done
	[ $havewk = 1 ] || wk=-
	echo "${pids:-none} $ticks $sw $wk"
}

# measure PROFILE: one cluster of that profile, a job, one window
measure() {
	P=$D/$1
	mkdir -p "$P/state" "$P/spool" "$P/job"
	cport=$(cluster_port 27817)
	dport=$(cluster_port $((cport + 1)))
	conf "$1" "$P" "$cport" "$dport" >"$P/slurm.conf"
	export SLURM_CONF=$P/slurm.conf
	slurmctld -D -i -f "$P/slurm.conf" >"$P/slurmctld.out" 2>&1 &
	CPID=$!
	cd "$P" || exit 1
	slurmd -D -N hbcost -f "$P/slurm.conf" >"$P/slurmd.out" 2>&1 &
	DPID=$!
	cd "$OLDPWD" || exit 1
	i=0
	until sinfo -h -n hbcost -o %t 2>/dev/null | grep -qx idle; do
		i=$((i + 1))
		if [ $i -gt 150 ]; then
			echo "$1: the node never came up:" >&2
			tail -n 5 "$P/slurmctld.log" "$P/slurmd.log" >&2
			exit 1
		fi
		sleep 0.2
	done
	job=$(sbatch --parsable -D "$P/job" -o /dev/null --wrap "sleep $((WINDOW + 20))")
	i=0
	until [ "$(squeue -h -j "$job" -o %T 2>/dev/null)" = RUNNING ]; do
		i=$((i + 1))
		[ $i -gt 150 ] && { echo "$1: job $job never ran" >&2; exit 1; }
		sleep 0.2
	done
	sleep 2 # the job's start settles
	for d in slurmd slurmstepd munged slurmctld; do sample $d >"$P/$d.0"; done
	perfs=
	for d in slurmd slurmstepd munged slurmctld; do
		pl=$(pids_of $d | tr '\n' ',' | sed 's/,$//')
		rm -f "$P/$d.perf"
		if [ -n "$PERF" ] && [ -n "$pl" ]; then
			perf stat -x, -o "$P/$d.perf" -e context-switches,task-clock -p "$pl" -- sleep "$WINDOW" &
			perfs="$perfs $!"
		fi
	done
	sleep "$WINDOW"
	[ -z "$perfs" ] || wait $perfs
	for d in slurmd slurmstepd munged slurmctld; do sample $d >"$P/$d.1"; done
	for d in slurmd slurmstepd munged slurmctld; do
		[ -n "${DEBUG:-}" ] && echo "raw $d: $(cat "$P/$d.0") -> $(cat "$P/$d.1")" >&2
		read -r p0 t0 s0 w0 <"$P/$d.0"
		read -r p1 t1 s1 w1 <"$P/$d.1"
		cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$HZ" 'BEGIN { printf "%.0f", (b - a) * 1000 / hz }')
		sw=$((s1 - s0))
		[ "$w0" = - ] || [ "$w1" = - ] && wk=- || wk=$((w1 - w0))
		per=$(awk -v s="$sw" -v w="$WINDOW" 'BEGIN { printf "%.2f", s / w }')
		[ "$p0" = "$p1" ] || p1="$p0->$p1"
		pcs=- pms=-
		if [ -s "$P/$d.perf" ]; then
			# "<not counted>": no thread of them ran at all in the window
			pcs=$(awk -F, '$3 == "context-switches" { print ($1 ~ /not counted/ ? 0 : $1) }' "$P/$d.perf")
			pms=$(awk -F, '$3 == "task-clock" { printf "%.1f", ($1 ~ /not counted/ ? 0 : $1) }' "$P/$d.perf")
		fi
		printf '%-8s %-11s %7s %9s %8s %7s %9s %9s  %s\n' "$1" "$d" "$cpu" "$sw" "$wk" "$per" "${pcs:--}" "${pms:--}" "$p1"
	done
	stop_all
	unset SLURM_CONF
}

echo "# slurmd-cost: Slurm $(slurmd -V | awk '{ print $2 }'), kernel $(uname -r), $(nproc) CPUs, window ${WINDOW}s, CLK_TCK $HZ"
echo "# a job runs through each window; figures are end minus start (see the header of this script)"
PERF=
command -v perf >/dev/null && perf stat -e task-clock -- true >/dev/null 2>&1 && PERF=perf
printf '%-8s %-11s %7s %9s %8s %7s %9s %9s  %s\n' profile daemon cpu_ms switches wakeups per_s perf_cs perf_ms pids
for prof in ${PROFILES:-default site quiet}; do
	measure "$prof"
done
