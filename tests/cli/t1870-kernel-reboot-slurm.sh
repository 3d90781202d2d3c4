#!/bin/sh
# wall: about 25 s (two requeues through a real Slurm)
# time-limit: 900 (two requeues through a real slurmctld and slurmd)
# The kernel campaign's reboot path through a real Slurm 22.05, on a
# private cluster of the test's own (munged, slurmctld, slurmd -N hbk on
# 127.0.0.1, free ports, all state in $T) whose RebootProgram is a
# stand-in: it runs hitchbench-reboot --dry-run on a copy of
# tests/fixtures/kernel-root (recording the commands), then "boots" the
# root into the kernel grub-reboot named (a new boot id, osrelease) and
# restarts slurmd with -b (node rebooted), as a machine coming back would.
# A job wanting 6.1.0-17-amd64 on the node running 6.1.0-18-amd64: the
# first run exits 75 (reboot asked, job requeued), the node "reboots", the
# requeued run finds its kernel and measures. A job wanting
# 6.1.0-13-amd64+rt on a node whose boot ignores the entry: the requeued run
# says "asked to boot K, booted into X" and the job fails, with one reboot,
# not a loop. Nothing reboots this machine: hitchbench-reboot only prints.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../slurm-cluster.sh"
[ "$(id -u)" = 0 ] || skip "not root: slurmd runs as root"
PATH=$PATH:/usr/sbin
for p in munged slurmctld slurmd sbatch scontrol squeue; do
	command -v $p >/dev/null || skip "no $p (scripts/deps.sh: slurmctld slurmd slurm-client munge)"
done
R=$HB_BUILD/hitchbench-reboot
[ -x "$R" ] || fail "build first"
# munged wants its socket's directories searchable by all (fake_setup's rule:
# add search and read permission, take none away)
chmod a+rx "$T" "${TMPDIR:-/tmp}" 2>/dev/null
cp -R "$HB_FIXTURES/kernel-root" "$T/root"
mkdir -p "$T/root/var/lib/hitchbench" "$T/root/var/log" "$T/state" "$T/spool" "$T/jobs"
WISH=$T/root/var/lib/hitchbench/kernel-wish

DPIDF=$T/slurmd.pid CPIDF=$T/slurmctld.pid MPIDF=$T/msock/munged.pid
stop() {
	[ -f "$CPIDF" ] && SLURM_CONF=$T/slurm.conf scancel -p k 2>/dev/null
	sleep 1
	for f in "$DPIDF" "$CPIDF" "$MPIDF"; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 1
	rm -rf "$T"
}
trap stop EXIT

cluster_munge "$T" || fail "munged did not start: $(tail -n 3 "$T/log/munged.log")"
cport=$(cluster_port 28817)
dport=$(cluster_port $((cport + 1)))

# The stand-in RebootProgram: slurmd runs it as root with its own
# environment and no arguments.
cat >"$T/reboot-standin" <<EOS
#!/bin/sh
exec >>"$T/standin.log" 2>&1
echo "called with [\$*] as uid \$(id -u)"
HITCHBENCH_ROOT=$T/root "$R" --dry-run >"$T/reboot-cmds.txt"
k=\$(sed -n "s/^grub-reboot '.*, with Linux \\(.*\\)'\\\$/\\1/p" "$T/reboot-cmds.txt")
[ -f "$T/boot-ignores-entry" ] && k=
echo "\${k:-6.1.0-18-amd64}" >"$T/root/proc/sys/kernel/osrelease"
cat /proc/sys/kernel/random/uuid >"$T/root/proc/sys/kernel/random/boot_id"
echo "booted \$(cat "$T/root/proc/sys/kernel/osrelease")"
setsid sh -c 'sleep 1; kill \$(cat "$DPIDF"); sleep 2; cd "$T/spool" && slurmd -b -N hbk -f "$T/slurm.conf"' \
	</dev/null >/dev/null 2>&1 &
EOS
chmod 755 "$T/reboot-standin"

{
	cluster_conf hbk "$T" "$cport" "$dport" "$T/msock/munge.socket"
	cat <<EOC
RebootProgram=$T/reboot-standin
ResumeTimeout=120
NodeName=hbk NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=k Nodes=hbk Default=YES MaxTime=INFINITE State=UP
EOC
} >"$T/slurm.conf"
export SLURM_CONF=$T/slurm.conf
slurmctld -i -f "$SLURM_CONF" || fail "slurmctld did not start"
(cd "$T/spool" && slurmd -N hbk -f "$SLURM_CONF") || fail "slurmd did not start"

# wait_for WHAT SECONDS COMMAND...: until COMMAND succeeds
wait_for() {
	_what=$1 _n=$(($2 * 5))
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		_n=$((_n - 1))
		[ $_n -gt 0 ] || fail "$_what: not within the time; slurmctld: $(tail -n 5 "$T/slurmctld.log"); \
slurmd: $(tail -n 5 "$T/slurmd.log"); stand-in: $(cat "$T/standin.log" 2>/dev/null)"
		sleep 0.2
	done
}
node_idle() { sinfo -h -n hbk -o %t | grep -qx idle; }
job_done() { scontrol -o show job "$1" | grep -Eq 'JobState=(COMPLETED|FAILED)'; }
requeued() { scontrol -o show job "$1" | grep -q 'JobState=PENDING.*Restarts=1'; }
# hurry ID: once the job is requeued and its node back, it starts now
# rather than after Slurm's two-minute hold of a requeued job (2 s after
# the requeue: a start in the same second as the requeue is refused,
# "Job credential revoked", t1820)
hurry() {
	wait_for "job $1 requeued" 60 requeued "$1"
	wait_for "the node is back" 60 node_idle
	sleep 2
	scontrol update jobid="$1" StartTime=now || fail "scontrol update StartTime"
}
wait_for "the node comes up" 60 node_idle

# job NAME KERNEL: a campaign job's script (ensure-kernel, then "measure")
job() {
	cat >"$T/jobs/$1.sh" <<EOJ
#!/bin/sh
HITCHBENCH_ROOT=$T/root HITCHBENCH_KERNEL_WISH=$WISH "$HB" lab ensure-kernel $2 2>>"$T/jobs/$1.err"
rc=\$?
echo "restart=\${SLURM_RESTART_COUNT:-0} rc=\$rc" >>"$T/jobs/$1.log"
case \$rc in
0) ;;
75) exit 0 ;;
*) exit 1 ;;
esac
echo "measured on \$(cat $T/root/proc/sys/kernel/osrelease)" >>"$T/jobs/$1.log"
EOJ
	sbatch --parsable --requeue -w hbk -o /dev/null -D "$T/jobs" "$T/jobs/$1.sh"
}

# ---- a kernel that boots
id=$(job good 6.1.0-17-amd64) || fail "sbatch failed"
hurry "$id"
wait_for "job $id ends" 300 job_done "$id"
# the first start's line may be missing: its own 'scontrol requeue' can
# kill the job script before ensure-kernel's exit reaches it (a slow,
# sanitized build sees that), which is why the script must do nothing after
# 75; the reboot asked (below) says the first start ran
expect_eq "job log" "restart=1 rc=0
measured on 6.1.0-17-amd64" "$(grep -vx 'restart=0 rc=75' "$T/jobs/good.log")"
expect_eq "the first start's line, if written" "" "$(grep '^restart=0' "$T/jobs/good.log" | grep -vx 'restart=0 rc=75')"
scontrol -o show job "$id" | grep -q 'JobState=COMPLETED' || fail "job $id: $(scontrol -o show job "$id")"
expect_eq "the commands hitchbench-reboot would have run" \
	"grub-reboot 'Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.1.0-17-amd64'
systemctl reboot" "$(cat "$T/reboot-cmds.txt")"
grep -q '^called with \[\] as uid 0$' "$T/standin.log" || fail "RebootProgram's call: $(cat "$T/standin.log")"
[ ! -e "$WISH" ] || fail "the fulfilled wish is left: $(cat "$WISH")"
grep -q "kernel wish: 6.1.0-17-amd64 by grub (job $id, node hbk)" "$T/root/var/log/hitchbench-reboot.log" ||
	fail "hitchbench-reboot's log: $(cat "$T/root/var/log/hitchbench-reboot.log")"
wait_for "the node is back" 60 node_idle

# ---- a boot that ignores the entry: one reboot, then the job fails
: >"$T/boot-ignores-entry"
id=$(job bad 6.1.0-13-amd64+rt) || fail "sbatch failed"
hurry "$id"
wait_for "job $id ends" 300 job_done "$id"
expect_eq "job log" "restart=1 rc=1" "$(grep -vx 'restart=0 rc=75' "$T/jobs/bad.log")"
expect_eq "the first start's line, if written" "" "$(grep '^restart=0' "$T/jobs/bad.log" | grep -vx 'restart=0 rc=75')"
grep -q "asked to boot 6.1.0-13-amd64+rt, booted into 6.1.0-18-amd64 (the reboot was asked by job $id" \
	"$T/jobs/bad.err" || fail "no reason: $(cat "$T/jobs/bad.err")"
expect_eq "reboots asked" 2 "$(grep -c '^called with' "$T/standin.log")"
