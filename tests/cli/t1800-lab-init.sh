#!/bin/sh
# lab init: a machines file becomes slurm.conf (the nodes with their
# features, the controller, the settings that keep slurmd quiet, requeue,
# our RebootProgram) and the steps to bring the lab up; a bad line is
# refused as FILE:LINE: what is wrong, exit 2, and nothing is written.
# (t1810 and t1820 start a real Slurm from what it writes.)
. "$(dirname "$0")/../lib.sh"

cat >"$T/machines" <<'EOF2'
# the lab
hitchbench-machines 1
controller ctl 10.0.0.1
node ps3 10.0.0.10 ps3,ppc64 6 256    # the console
node gamingpc 10.0.0.11 gamingpc 16 32768
node spare 10.0.0.12 - 4 8000
EOF2
"$HB" lab init "$T/machines" --out "$T/conf" >"$T/out" 2>"$T/err" || fail "lab init: $(cat "$T/err")"
C=$T/conf/slurm.conf
grep -q "^wrote $C (3 node(s), controller ctl)" "$T/out" || fail "output: $(cat "$T/out")"
for step in "1. munge: one key on every machine" "2. $T/conf/slurm.conf goes to /etc/slurm/slurm.conf" \
	"4. Start slurmctld on ctl, and slurmd on each node: ps3 gamingpc spare."; do
	grep -qF "$step" "$T/out" || fail "no step '$step': $(cat "$T/out")"
done
expect_eq "nodes" "NodeName=ps3 NodeAddr=10.0.0.10 CPUs=6 RealMemory=256 Features=ps3,ppc64 State=UNKNOWN
NodeName=gamingpc NodeAddr=10.0.0.11 CPUs=16 RealMemory=32768 Features=gamingpc State=UNKNOWN
NodeName=spare NodeAddr=10.0.0.12 CPUs=4 RealMemory=8000 State=UNKNOWN" "$(grep '^NodeName=' "$C")"
for line in "SlurmctldHost=ctl(10.0.0.1)" "SlurmctldPort=6817" "SlurmdPort=6818" "SlurmUser=slurm" \
	"HealthCheckInterval=0" "JobAcctGatherType=jobacct_gather/none" "JobAcctGatherFrequency=0" \
	"AcctGatherEnergyType=acct_gather_energy/none" "AcctGatherProfileType=acct_gather_profile/none" \
	"SlurmdTimeout=3600" "JobRequeue=1" "ReturnToService=2" "RebootProgram=$HB_BUILD/hitchbench-reboot" \
	"JobCompType=jobcomp/filetxt" "JobCompLoc=/var/log/slurm/jobcomp.txt" "StateSaveLocation=/var/spool/slurmctld" \
	"PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE"; do
	grep -qxF "$line" "$C" || fail "slurm.conf lacks '$line'"
done
# every setting says why it is there: a comment before each group
[ "$(grep -c '^#' "$C")" -ge 30 ] || fail "slurm.conf explains too little: $(cat "$C")"
"$HB" lab init "$T/machines" --out "$T/conf2" --port 7000 --state-dir "$T/st" --munge-socket /x/m.sock \
	--slurm-user root --cluster c1 >/dev/null 2>"$T/err" || fail "lab init with options: $(cat "$T/err")"
for line in "SlurmctldPort=7000" "SlurmdPort=7001" "AuthInfo=socket=/x/m.sock" "StateSaveLocation=$T/st/slurmctld" \
	"SlurmdSpoolDir=$T/st/slurmd-%n" "JobCompLoc=$T/st/log/jobcomp.txt" "ClusterName=c1" "SlurmUser=root"; do
	grep -qxF "$line" "$T/conf2/slurm.conf" || fail "slurm.conf with options lacks '$line'"
done

# refused: each bad file, its message, exit 2, nothing written
refuse() {
	printf "$1" >"$T/bad"
	rc=0
	"$HB" lab init "$T/bad" --out "$T/badconf" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "exit for '$2'" 2 "$rc"
	expect_eq "message" "$2" "$(cat "$T/err")"
	[ ! -e "$T/badconf" ] || fail "a refused file wrote $T/badconf"
}
H='hitchbench-machines 1\n'
refuse 'controller a 1.2.3.4\n' "$T/bad:1: the first line must be 'hitchbench-machines 1'"
refuse 'hitchbench-machines 2\n' "$T/bad:1: machines format '2' is not one this hitchbench reads (1)"
refuse "${H}controller a 1.2.3.4\nnode n1 1.2.3.5 f 4\n" \
	"$T/bad:3: a node line is 'node NAME ADDRESS FEATURES CPUS MEMORY_MB' (fields missing)"
refuse "${H}controller a 1.2.3.4\nnode n1 1.2.3.5 f 4 100 x\n" \
	"$T/bad:3: a node line is 'node NAME ADDRESS FEATURES CPUS MEMORY_MB' (too many fields)"
refuse "${H}controller a 1.2.3.4\n\n# c\nnode n1 1.2.3.5 f four 100\n" "$T/bad:5: CPUs wants a count from 1 to 65536, not 'four'"
refuse "${H}controller a 1.2.3.4\nnode n1 1.2.3.5 f 4 0\n" "$T/bad:3: MEMORY_MB wants megabytes over 0, not '0'"
refuse "${H}controller a 1.2.3.4\nnode n[1-2] 1.2.3.5 f 4 10\n" \
	"$T/bad:3: node name 'n[1-2]' is not a name Slurm takes (letters, digits, '-', '_', '.')"
refuse "${H}controller a 1.2.3.4\nnode n1 1.2.3.5 a,,b 4 10\n" \
	"$T/bad:3: features 'a,,b' are not a comma list of names (or '-' for none)"
refuse "${H}controller a 1.2.3.4\nnode n1 1.2.3.5 - 4 10\nnode n1 1.2.3.6 - 4 10\n" "$T/bad:4: node 'n1' is named twice"
refuse "${H}controller a 1.2.3.4\ncontroller b 1.2.3.4\n" "$T/bad:3: a second controller line (one controller: 'a')"
refuse "${H}gateway g 1.2.3.4\n" "$T/bad:2: 'gateway' is not a line of a machines file (controller or node)"
refuse "${H}node n1 1.2.3.5 - 4 10\n" "$T/bad: no controller line ('controller NAME ADDRESS')"
refuse "${H}controller a 1.2.3.4\n" "$T/bad: no node line ('node NAME ADDRESS FEATURES CPUS MEMORY_MB')"
refuse "" "$T/bad: empty: the first line must be 'hitchbench-machines 1'"
rc=0
"$HB" lab init "$T/none" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "missing file: exit" 2 "$rc"
grep -q "cannot read '$T/none': No such file or directory" "$T/err" || fail "missing file: $(cat "$T/err")"
exit 0
