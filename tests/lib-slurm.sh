# A one-node Slurm cluster of the test's own, on localhost (sourced by the
# tests/cli/t18NN-lab-*.sh scripts after tests/lib.sh): munged with its own
# key and socket, slurmctld and slurmd on private ports, every state, spool
# and log file under $T/slurm, from the slurm.conf `hitchbench lab init`
# writes (so the generator is tested for real). /etc/slurm and the
# system's munge are never touched. Needs root (slurmd runs jobs as their
# user) and Debian's slurmctld, slurmd, slurm-client and munge; skips
# (77) without them.

# need_slurm: skip unless this machine can run the test cluster
need_slurm() {
	[ "$(id -u)" = 0 ] || skip "a Slurm cluster of the test's own needs root (slurmd runs the jobs)"
	for p in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol; do
		command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
			skip "no $p (slurmctld, slurmd, slurm-client, munge: sh scripts/deps.sh ensure)"
	done
	PATH=$PATH:/usr/sbin
}

# slurm_start [NODE_FEATURES]: munged, slurmctld and slurmd of node1 (CPUs
# and memory this machine has), waiting until node1 is idle. Sets S (the
# cluster's directory), SLURM_CONF (exported: every Slurm command of the
# test, and the jobs, use it) and SLURM_PORT; installs an EXIT trap that
# stops it all (slurm_stop).
slurm_start() {
	S=$T/slurm
	mkdir -p "$S/munge" "$S/msock" "$S/state/log" "$S/conf"
	chmod 700 "$S/munge"
	chmod 755 "$S" "$S/msock"
	mungekey -c -k "$S/munge/munge.key" || fail "mungekey"
	munged -f --key-file="$S/munge/munge.key" --socket="$S/msock/munge.socket" \
		--log-file="$S/state/log/munged.log" --pid-file="$S/msock/munged.pid" \
		--seed-file="$S/munge/seed" || fail "munged did not start: $(cat "$S/state/log/munged.log")"
	trap 'slurm_stop; rm -rf "$T"' EXIT
	cpus=$(nproc)
	mem=$(( $(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024 / 2 ))
	cat >"$S/machines" <<EOF
hitchbench-machines 1
# the test's own cluster: this machine is the controller and node1
controller $(hostname -s) 127.0.0.1
node node1 127.0.0.1 ${1:-fake} $cpus $mem
EOF
	export SLURM_CONF=$S/conf/slurm.conf
	# slurmctld listens on SLURM_PORT and slurmd on the next one; either
	# may be taken by another test's cluster between the choice and the
	# bind, so a bind that fails tries again with other ports
	for _try in 1 2 3 4 5 6; do
		SLURM_PORT=$(free_port 2)
		"$HB" lab init "$S/machines" --out "$S/conf" --port "$SLURM_PORT" --state-dir "$S/state" \
			--munge-socket "$S/msock/munge.socket" --slurm-user root --cluster "hbt$$" \
			>"$S/init.out" 2>&1 || fail "lab init: $(cat "$S/init.out")"
		slurmctld -i >"$S/slurmctld.out" 2>&1 || fail "slurmctld: $(cat "$S/slurmctld.out")"
		for _i in $(seq 1 50); do
			scontrol ping >/dev/null 2>&1 && break
			sleep 0.1
		done
		if scontrol ping 2>/dev/null | grep -q "is UP"; then
			slurmd_try && return 0
			grep -q "Unable to bind listen port" "$S/state/log/slurmd-node1.log" 2>/dev/null ||
				fail "node1 did not come up: $(sinfo -N 2>&1; tail -n 20 "$S/state/log/slurmd-node1.log")"
			slurm_stop_daemon slurmd
			: >"$S/state/log/slurmd-node1.log"
		fi
		slurm_stop_daemon slurmctld
	done
	fail "the test's cluster did not start in six tries: $(tail -n 20 "$S/state/log/slurmctld.log"; tail -n 20 "$S/state/log/slurmd-node1.log" 2>&1)"
}

# slurmd_try: slurmd of node1 (again); 0 once the node is idle, 1 when it
# does not come up in ten seconds
slurmd_try() {
	slurmd -N node1 >"$S/slurmd.out" 2>&1 || fail "slurmd: $(cat "$S/slurmd.out")"
	for _i in $(seq 1 100); do
		sinfo -h -n node1 -o %T 2>/dev/null | grep -q '^\(idle\|allocated\|mixed\)' && return 0
		sleep 0.1
	done
	return 1
}

# slurmd_start: slurmd of node1 (again), waiting until the node is idle
slurmd_start() {
	slurmd_try ||
		fail "node1 did not come up: $(sinfo -N 2>&1; tail -n 20 "$S/state/log/slurmd-node1.log")"
}

# alive PID: the process runs (a zombie no one reaps is gone)
alive() {
	_stat=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$_stat" ] && [ "${_stat#Z}" = "$_stat" ]
}

# slurm_stop_daemon NAME: stops the daemon whose pid file is ours
slurm_stop_daemon() {
	case $1 in
	slurmctld) _pf=$S/state/slurmctld.pid ;;
	slurmd) _pf=$S/state/slurmd-node1.pid ;;
	munged) _pf=$S/msock/munged.pid ;;
	esac
	[ -s "$_pf" ] || return 0
	_p=$(cat "$_pf")
	kill "$_p" 2>/dev/null || return 0
	for _i in $(seq 1 50); do
		alive "$_p" || return 0
		sleep 0.1
	done
	kill -9 "$_p" 2>/dev/null
	return 0
}

# t_procs: the processes naming the test's directory (the jobs' runners,
# games and scripts) but the cluster's munged; the test script itself
# does not name it
t_procs() {
	ps -eo pid,args | awk -v t="$T/" 'index($0, t) && !/awk -v t=/ && !/^ *[0-9]+ munged / { print $1 }'
}

# t_procs_gone WHAT: waits (10 s at most) until no process names the
# test's directory; fails naming those left by WHAT
t_procs_gone() {
	for _i in $(seq 1 100); do
		[ -z "$(t_procs)" ] && return 0
		sleep 0.1
	done
	fail "$1 left processes: $(ps -o pid,args -p "$(t_procs | tr '\n' ',')0")"
}

# slurm_stop: the jobs cancelled and every daemon of the test's cluster stopped
slurm_stop() {
	[ -n "${S:-}" ] || return 0
	scancel -u root >/dev/null 2>&1
	for _i in $(seq 1 50); do
		[ -z "$(t_procs)" ] && break
		sleep 0.1
	done
	slurm_stop_daemon slurmd
	slurm_stop_daemon slurmctld
	_left=$(t_procs)
	[ -z "$_left" ] || kill -9 $_left 2>/dev/null
	slurm_stop_daemon munged
	return 0
}

# job_state ID: the job's state as squeue says it (empty when forgotten)
job_state() {
	squeue -h -t all -j "$1" -o %T 2>/dev/null
}

# wait_job ID STATE... [-- SECONDS]: until the job is in one of the states
wait_job() {
	_id=$1
	shift
	for _i in $(seq 1 600); do
		_st=$(job_state "$_id")
		for _want in "$@"; do
			[ "$_st" = "$_want" ] && return 0
		done
		case $_st in FAILED|CANCELLED|NODE_FAIL|TIMEOUT|BOOT_FAIL|OUT_OF_MEMORY) break ;; esac
		sleep 0.1
	done
	fail "job $_id never reached $*: it is '$_st'; its log: $(cat "${HITCHBENCH_RESULTS:-$T}/lab/jobs/$_id.log" 2>&1)"
}

# lab_test_setup: what the lab's job tests share: the cluster, the fake
# game (a 0.5 s warm-up, a 1 s window), results in $T/results and the
# lab's database $DB
lab_test_setup() {
	need_slurm
	need_game_user
	fake_setup
	slurm_start
	export HITCHBENCH_RESULTS=$T/results
	fake_recipe fake "--fps 100" "warmup = 0.5" "window = 1" "stop_grace = 1"
	DB=$T/lab.sqlite
}

# submitted OUTFILE: the job id of the first "job ID: ..." line lab submit printed
submitted() {
	_j=$(sed -n 's/^job \([0-9]*\): .*/\1/p' "$1" | head -n 1)
	[ -n "$_j" ] || fail "no job id in lab submit's output: $(cat "$1")"
	echo "$_j"
}
