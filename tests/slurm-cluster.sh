# A private Slurm cluster on this machine, for the lab's tests and
# benchmarks (sourced by tests/cli/t1870-*.sh and
# tests/bench-self/slurmd-cost.sh): munged with its own key and socket,
# slurm.conf for a slurmctld and one slurmd on 127.0.0.1 with free ports and
# every file under one directory. Root only (slurmd must be). The caller
# starts the daemons and stops them by their pid files.

# cluster_munge DIR: munged with DIR/munge/munge.key (0700) and its socket
# DIR/msock/munge.socket; its pid file DIR/msock/munged.pid. Fails when
# munged does not start.
cluster_munge() {
	mkdir -p "$1/munge" "$1/msock" "$1/log"
	chmod 755 "$1/msock"
	dd if=/dev/urandom of="$1/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 700 "$1/munge" && chmod 400 "$1/munge/munge.key"
	munged --key-file="$1/munge/munge.key" --socket="$1/msock/munge.socket" --log-file="$1/log/munged.log" \
		--pid-file="$1/msock/munged.pid" --seed-file="$1/munge/seed" || return 1
	_i=0
	while [ ! -s "$1/msock/munged.pid" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -s "$1/msock/munged.pid" ]
}

# cluster_port FROM: the first TCP port from FROM up that nothing listens on
cluster_port() {
	_p=$1
	while ss -Htln "sport = :$_p" 2>/dev/null | grep -q .; do _p=$((_p + 1)); done
	echo "$_p"
}

# cluster_conf NAME DIR CPORT DPORT MUNGE_SOCKET: the slurm.conf lines every
# such cluster has (the caller adds its settings, NodeName and PartitionName):
# state, spool, pid files and logs under DIR, no accounting, no cgroups
cluster_conf() {
	cat <<EOC
ClusterName=$1
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$3
SlurmdPort=$4
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$5
StateSaveLocation=$2/state
SlurmdSpoolDir=$2/spool
SlurmctldPidFile=$2/slurmctld.pid
SlurmdPidFile=$2/slurmd.pid
SlurmctldLogFile=$2/slurmctld.log
SlurmdLogFile=$2/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/linear
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
EOC
}
