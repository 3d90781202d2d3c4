# Shared by the tests/*/tNNNN-*.sh scripts (sourced). Each script runs in a
# fresh $TMPDIR (tests/run.sh makes one) and exits 0 (pass), 1 (fail) or
# 77 (skip, with the reason as its last line).
set -u
: "${HB:?run through tests/run.sh}"
# The tests drive hitchbench: their own commands (pgrep loops, kill,
# sleep) are the harness's, not someone using the machine, and the
# interference watcher lets them pass. A test that plays the stranger
# runs its command with `env -u HITCHBENCH_HARNESS`.
export HITCHBENCH_HARNESS=tests
T=${TMPDIR:-/tmp}/t.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$*" >&2
	exit 77
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# recorded_runs: the real recorded runs (tests/fixtures/runs/README.md):
# R their directory, A and B the two software runs, G the gl run
recorded_runs() {
	R=$HB_FIXTURES/runs
	A=20261130T120707Z-dsda-doom-software
	B=20261130T120724Z-dsda-doom-software
	G=20261130T120715Z-dsda-doom-gl
}

# value KEY FILE: the value of the first KEY= line of a key=value file
value() {
	sed -n "s/^$1=//p" "$2" | head -n 1
}

# run_apis CSV: "RUN API" for each run line of a report's CSV (its api
# column: the graphics API of the run's window), one a line, sorted
run_apis() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "api") c = i } $1 == "run" { print $3, $c }' "$1" | sort
}

# ab_test_lines OUT: the sequential test's lines of an ab or compare --paired
# output (the batch's report sits between the pairs and the verdict)
ab_test_lines() {
	grep -E '^(# paired|# H1|# pair|  |verdict|estimate)' "$1"
}

# cross_locked ARCH COMMAND...: COMMAND with the checkout's cross build
# directory (build/cross/ARCH) to itself: the tests that make the cross
# build run side by side (tests/run.sh), and two makes in one directory
# would write the same objects at once. The second finds it built.
cross_locked() {
	mkdir -p "$HB_SRCDIR/build/cross"
	_arch=$1
	shift
	flock "$HB_SRCDIR/build/cross/$_arch.lock" "$@"
}

# The fake game runs as the unprivileged game user, who may not reach the
# checkout (a 0700 /root) nor a 0700 mktemp directory: copies it may read.
# Search and read permission are added, nothing taken away: a test run by
# hand without tests/run.sh's TMPDIR must leave /tmp 1777 (a 755 /tmp once
# kept apt's sandbox user from writing there).
fake_setup() {
	chmod a+rx "$T" "${TMPDIR:-/tmp}" 2>/dev/null
	mkdir -p "$T/game"
	cp "$HB_BUILD/tests/fakegame" "$HB_BUILD/tests/libhbstub.so" "$T/game/"
	chmod -R a+rX "$T/game"
}

# fake_recipe NAME "FAKEGAME ARGS" [more recipe lines...]: a recipe in $T
fake_recipe() {
	name=$1
	args=$2
	shift 2
	{
		echo "[recipe]"
		echo "name = $name"
		echo "command = $T/game/fakegame $args"
		echo "env = HB_STUB=$T/game/libhbstub.so"
		for line in "$@"; do
			echo "$line"
		done
	} >"$T/$name.ini"
}

# run_dirs DIR: the run directories of the batches under DIR (DIR/BATCH/RUN),
# one a line, in name (time) order
run_dirs() {
	for d in "$1"/*/*/; do
		[ -f "$d/bench.txt" ] && echo "${d%/}"
	done
	return 0
}

# hb_run ARGS...: hitchbench run with a display that needs no X server
# (the fake game never connects), results in $T; sets $rc and $rundir
# (the last run directory) and $batchdir (the last batch)
hb_run() {
	rc=0
	"$HB" run --no-quieting --display :99 --out "$T/runs" --db "$T/db.sqlite" "$@" >"$T/out" 2>"$T/err" || rc=$?
	rundir=$(run_dirs "$T/runs" | tail -n 1)
	batchdir=$(ls -d "$T"/runs/*/ 2>/dev/null | tail -n 1)
	batchdir=${batchdir%/}
}

# no process of the fake game may be left
no_fakegame_left() {
	if pgrep -f "$T/game/fakegame" >/dev/null; then
		pgrep -af "$T/game/fakegame" >&2
		pkill -9 -f "$T/game/fakegame"
		fail "processes of the fake game were left running"
	fi
}

# glgame_setup: the real-GL fake game (tests/tools/glgame.c) in $T/game for
# the game user, after a probe on an Xvfb of its own: a skip with glgame's
# reason where there is no GL to render with, a failure where it cannot
# draw three frames
glgame_setup() {
	command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
	[ -x "$HB_BUILD/tests/glgame" ] || fail "no $HB_BUILD/tests/glgame (make tests)"
	start_xvfb
	rc=0
	DISPLAY=":$n" "$HB_BUILD/tests/glgame" --frames 3 >"$T/probe.out" 2>"$T/probe.err" || rc=$?
	kill "$xpid" 2>/dev/null
	[ "$rc" != 77 ] || skip "no GL to render with on Xvfb: $(cat "$T/probe.err")"
	expect_eq "glgame alone ($(cat "$T/probe.err"))" 0 "$rc"
	fake_setup
	cp "$HB_BUILD/tests/glgame" "$T/game/"
	chmod a+rx "$T/game/glgame"
}

need_game_user() {
	if [ "$(id -u)" = 0 ] && ! getent passwd hitchbench >/dev/null && [ -z "${SUDO_USER:-}" ]; then
		skip "no unprivileged game user (run 'sh scripts/deps.sh ensure' as root)"
	fi
}

# staging_of PID: the staging directories runner PID made (other tests may
# be running on this machine: only this test's runner counts)
staging_of() {
	for d in /dev/shm/hitchbench-* "${TMPDIR:-/tmp}"/hitchbench-*; do
		[ -f "$d/runner.pid" ] && [ "$(head -n 1 "$d/runner.pid")" = "$1" ] && echo "$d"
	done
	return 0
}

# dead_staging: staging directories whose runner is gone (what a finished
# run must never leave; runs of other tests still going are alive)
dead_staging() {
	for d in /dev/shm/hitchbench-* "${TMPDIR:-/tmp}"/hitchbench-*; do
		[ -f "$d/runner.pid" ] || continue
		kill -0 "$(head -n 1 "$d/runner.pid")" 2>/dev/null || echo "$d"
	done
	return 0
}

# hb_run_bg ARGS...: hitchbench run (no database, fake display) in the
# background, output in $T/out and $T/err; sets $pid and returns once the
# fake game is up (fails if it never comes)
hb_run_bg() {
	"$HB" run --display :99 --out "$T/runs" --no-db "$@" >"$T/out" 2>"$T/err" &
	pid=$!
	for i in $(seq 1 100); do
		pgrep -f "$T/game/fakegame" >/dev/null && return 0
		sleep 0.1
	done
	fail "the game never started: $(cat "$T/err")"
}

# quiet_root: the machine for quiet and thaw tests, all of it in $T: a
# copy of tests/fixtures/quiet-root (HITCHBENCH_ROOT, made by fresh_root),
# the thaw journal's directory, and a fake systemctl first in PATH whose
# units are files in $T/units
quiet_root() {
	FIX="$HB_SRCDIR/tests/fixtures/quiet-root"
	export HITCHBENCH_ROOT="$T/root" HITCHBENCH_STATE_DIR="$T/state" FAKE_SYSTEMD_DIR="$T/units"
	mkdir -p "$T/bin"
	ln -sf "$HB_SRCDIR/tests/tools/fake-systemctl" "$T/bin/systemctl"
	PATH="$T/bin:$PATH"
	J="$T/state/thaw.state"
}

# start_xvfb [ARG...]: an Xvfb of the test's own (640x480x24, no TCP, the
# arguments added), its display number in $n and its pid in $xpid; the
# EXIT trap stops it (a test that sets a trap of its own kills $xpid there)
start_xvfb() {
	exec 3>"$T/displayfd"
	Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp "$@" >"$T/xvfb.log" 2>&1 &
	xpid=$!
	trap 'kill $xpid 2>/dev/null; rm -rf "$T"' EXIT
	for i in $(seq 1 100); do
		[ -s "$T/displayfd" ] && break
		sleep 0.1
	done
	n=$(head -n 1 "$T/displayfd")
	[ -n "$n" ] || fail "Xvfb did not start: $(cat "$T/xvfb.log")"
}

# plain_build_only: the start of a test of the tree, the build or its
# documents rather than of what the programs do (the clang build, the
# layers' walls, the shape, the manual pages, builds on a target): on the
# sanitizer build it skips, as it would find the same there
plain_build_only() {
	[ -z "${HB_SANITIZE:-}" ] || skip "a test of the tree and its build: run once, on the plain build"
}

# recipe_smoke RECIPE: the start of a recipe's smoke test (tests/game/t91*):
# skips on the sanitizer build (the games are the same in both runs, and
# the runner under ASan is covered by t9000-t9050) and when the recipe's
# packages are not installed; sets $RECIPE to the recipe's path
recipe_smoke() {
	RECIPE="$HB_SRCDIR/recipes/$1.ini"
	[ -r "$RECIPE" ] || fail "no recipe $RECIPE"
	[ -z "${HB_SANITIZE:-}" ] || skip "recipe smoke tests run once, on the plain build"
	need_game_user
	command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
	for p in $(sed -n 's/^packages *= *//p' "$RECIPE"); do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
			skip "$p is not installed (sh scripts/deps.sh ensure)"
	done
}

# window_frames RUNDIR FRAMEFILE: the frames of FRAMEFILE that end in the
# run's measured window (hitchbench frames --window on a copy of the run's
# bench.txt beside it): how two frame sources of one run are compared
window_frames() {
	rm -rf "$T/count"
	mkdir -p "$T/count"
	cp "$1/bench.txt" "$T/count/bench.txt"
	cp "$2" "$T/count/frames.bin"
	"$HB" frames --window "$T/count" | grep -v '^#' | awk -F'\t' '$NF == 1' | wc -l
}

# free_port N: a TCP port P such that P .. P+N-1 have no listener now, drawn
# at random from 20000-31999 (below the kernel's ephemeral ports). Every
# test script runs in a PID namespace of its own, so $$ is no seed: the
# draw is from /dev/urandom. Another test may still take a port between the
# draw and the bind; the callers try again when a bind fails.
free_port() {
	while :; do
		_p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 12000 ))
		_busy=
		_k=0
		while [ "$_k" -lt "$1" ]; do
			_hex=$(printf '%04X' $((_p + _k)))
			# /proc/net/tcp{,6}: local address:port in hex, state 0A is LISTEN
			cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
				awk -v h=":$_hex" '$4 == "0A" && substr($2, length($2) - 4) == h { f = 1 } END { exit !f }' &&
				_busy=1
			_k=$((_k + 1))
		done
		[ -z "$_busy" ] && { echo "$_p"; return 0; }
	done
}

# start_sshd DIR: an OpenSSH server of the test's own on 127.0.0.1, a free
# port, with a throwaway host key and a throwaway user key made in DIR
# (root logs in by that key only). sshd runs without the harness's marker
# (it plays the target's own sshd: what it starts for a login is someone
# else's, as on a real target) and logs every connection (LogLevel VERBOSE)
# to DIR/sshd.log, each line after the CLOCK_REALTIME ns it came at
# (build/tests/tstamp). DIR/ssh_config names it: Host hbtarget, and every
# host with the key and DIR/known_hosts. Sets SSHD_PORT, SSHD_PID and
# SSH_CONFIG; the caller's EXIT trap calls stop_sshd DIR. Skips (77) when
# sshd or ssh-keygen is not installed. SSHD_SETENV="NAME=VALUE ...", when
# set, goes into every login's environment (sshd's SetEnv).
start_sshd() {
	_d=$1
	[ -x /usr/sbin/sshd ] || skip "no /usr/sbin/sshd (openssh-server; sh scripts/deps.sh ensure)"
	command -v ssh-keygen >/dev/null || skip "no ssh-keygen (openssh-client)"
	[ "$(id -u)" = 0 ] || skip "sshd on a private port logs in as root only when started as root"
	mkdir -p "$_d" /run/sshd
	chmod 700 "$_d"
	ssh-keygen -q -t ed25519 -N '' -C hbtest-host -f "$_d/host_key" || fail "ssh-keygen (host key)"
	ssh-keygen -q -t ed25519 -N '' -C hbtest-user -f "$_d/id_ed25519" || fail "ssh-keygen (user key)"
	cp "$_d/id_ed25519.pub" "$_d/authorized_keys"
	for _try in 1 2 3 4 5 6 7 8; do
		SSHD_PORT=$(free_port 1)
		cat >"$_d/sshd_config" <<CFG
ListenAddress 127.0.0.1:$SSHD_PORT
HostKey $_d/host_key
PidFile $_d/sshd.pid
AuthorizedKeysFile $_d/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel VERBOSE
MaxSessions 20
MaxStartups 20:30:60
${SSHD_SETENV:+SetEnv $SSHD_SETENV}
CFG
		: >"$_d/sshd.log"
		(env -u HITCHBENCH_HARNESS /usr/sbin/sshd -D -e -f "$_d/sshd_config" 2>&1 |
			"$HB_BUILD/tests/tstamp" >>"$_d/sshd.log") &
		for _i in $(seq 1 50); do
			grep -q "Server listening\|Bind to port\|Cannot bind" "$_d/sshd.log" && break
			sleep 0.1
		done
		if grep -q "Server listening" "$_d/sshd.log"; then
			SSHD_PID=$(cat "$_d/sshd.pid" 2>/dev/null)
			break
		fi
		SSHD_PORT=
		sleep 0.2
	done
	[ -n "$SSHD_PORT" ] || fail "sshd did not start: $(cat "$_d/sshd.log")"
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1-2 "$_d/host_key.pub")" >"$_d/known_hosts"
	cat >"$_d/ssh_config" <<CFG
Host hbtarget
	HostName 127.0.0.1
	Port $SSHD_PORT
	User root
Host *
	IdentityFile $_d/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $_d/known_hosts
	GlobalKnownHostsFile /dev/null
CFG
	SSH_CONFIG=$_d/ssh_config
}

# stop_sshd DIR: stops start_sshd's server (the sessions it started end with it)
stop_sshd() {
	[ -s "$1/sshd.pid" ] && kill "$(cat "$1/sshd.pid")" 2>/dev/null
	return 0
}

# sshd_accepted DIR: how many logins the test's sshd accepted so far
sshd_accepted() {
	grep -c "Accepted publickey" "$1/sshd.log"
}

# sshd_accepted_between DIR T0_NS T1_NS: those accepted within [T0, T1]
# (CLOCK_REALTIME ns, as tstamp stamped them)
sshd_accepted_between() {
	awk -v a="$2" -v b="$3" '/Accepted publickey/ && $1 + 0 >= a + 0 && $1 + 0 <= b + 0 { n++ } END { print n + 0 }' "$1/sshd.log"
}

# start_postgres DIR: a PostgreSQL 15 server of the test's own (Debian's
# postgresql-15), its data and its socket in DIR, no TCP port at all
# (listen_addresses empty: only the socket directory), fsync off (a test's
# data need not survive a power cut). The server runs as the user
# postgres, which needs search permission on DIR's parents (fake_setup's
# chmod). Sets PGURL (postgresql:///hb?host=DIR/sock&user=postgres, the
# database hb made empty), PGBIN and PGDATA; the caller's EXIT trap calls
# stop_postgres DIR. Skips (77) without the server or root.
start_postgres() {
	_d=$1
	PGBIN=/usr/lib/postgresql/15/bin
	[ -x "$PGBIN/initdb" ] || skip "no PostgreSQL 15 server in $PGBIN (postgresql-15; sh scripts/deps.sh ensure)"
	[ "$(id -u)" = 0 ] || skip "the test's PostgreSQL runs as the user postgres: starting it needs root"
	getent passwd postgres >/dev/null || skip "no user postgres (postgresql-common makes it)"
	mkdir -p "$_d/sock"
	chmod a+rx "$T" "$_d" 2>/dev/null
	chown postgres "$_d" "$_d/sock"
	PGDATA=$_d/data
	runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA" -A trust -U postgres -E UTF8 --no-sync \
		>"$_d/initdb.log" 2>&1 || fail "initdb: $(tail -n 5 "$_d/initdb.log")"
	PGDIR=$_d
	restart_postgres
	runuser -u postgres -- "$PGBIN/createdb" -h "$_d/sock" hb || fail "createdb hb"
	PGURL="postgresql:///hb?host=$_d/sock&user=postgres"
}

# restart_postgres: starts start_postgres's server again (after a stop)
restart_postgres() {
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDIR/server.log" -w -t 60 \
		-o "-c listen_addresses='' -k $PGDIR/sock -c fsync=off -c max_connections=50" start \
		>/dev/null 2>&1 || fail "PostgreSQL did not start: $(tail -n 5 "$PGDIR/server.log")"
}

# stop_postgres [MODE]: stops start_postgres's server, fast (open sessions
# are ended) or as MODE says (immediate: as if its machine died), and
# says nothing
stop_postgres() {
	[ -n "${PGDATA:-}" ] && [ -f "$PGDATA/postmaster.pid" ] &&
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -m "${1:-fast}" -w stop >/dev/null 2>&1
	return 0
}

# psql_hb SQL: one value (or rows, '|' between columns) of the test's
# database
psql_hb() {
	psql -X -q -A -t "$PGURL" -c "$1"
}

# inert_profile FILE [LINE...]: a quiet profile that changes nothing on the
# machine and waits for no idleness, then its [noise] section of LINEs
inert_profile() {
	_f=$1
	shift
	printf '[quiet]\nservices =\nsync = no\ndrop_caches = 0\ncompact_memory = no\ngovernor =\ndelayacct = no\n' >"$_f"
	printf '[idle]\ntimeout_s = 0\n[noise]\n' >>"$_f"
	for _l in "$@"; do
		echo "$_l" >>"$_f"
	done
}

# html_batch DIR: the runs the HTML report's tests draw (t0380, t0381),
# in DIR: the three recorded dsda-doom runs (two groups: software, gl), a
# copy of one marked interfered=1 by its watcher, a copy whose frames.bin
# is cut short (invalid), a copy whose bench.txt holds markup (user=,
# escaped on the page), and the hand-made stall runs of mkstallrun (one
# game, two groups, each stall's cause).
html_batch() {
	recorded_runs
	mkdir -p "$1"
	cp -r "$R/$A" "$R/$B" "$R/$G" "$1/"
	cp -r "$R/$B" "$1/20261130T120730Z-dsda-doom-software"
	sed -i 's/^run_id=.*/run_id=html0interfered/; s/^status=ok$/interfered=1\ninterfered_reason=a key press on \/dev\/input\/event3\nstatus=ok/' \
		"$1/20261130T120730Z-dsda-doom-software/bench.txt"
	cp -r "$R/$A" "$1/20261130T120740Z-dsda-doom-software"
	sed -i 's/^run_id=.*/run_id=html0cut/' "$1/20261130T120740Z-dsda-doom-software/bench.txt"
	head -c 4096 "$R/$A/frames.bin" >"$1/20261130T120740Z-dsda-doom-software/frames.bin"
	sed -i 's/^run_id=.*/run_id=html0markup/; s/^user=.*/user=<script>alert("x")<\/script> \& <b>bold<\/b>/' \
		"$1/$A/bench.txt"
	"$HB_BUILD/tests/mkstallrun" sampled "$1/sampled" || fail "mkstallrun sampled"
	"$HB_BUILD/tests/mkstallrun" exact "$1/exact" || fail "mkstallrun exact"
}

# stall_cases_check: each stall of $expect ("SEC:CAUSE ...": the fake
# game's stall asked at SEC-1 s, tests/lib-stallcases.sh) in the window of
# `hitchbench stalls` ($T/stalls) has its cause (the table's when_s is the stall's start: the
# present before it, about SEC-1 s after the first present). On a machine
# busy with others' work over the window (the run's noise.foreign_cpu_pct
# 25 or more: make check-flaky's busy loops), the game also waits for a CPU
# after each of its waits: a stall there may come out runq, and its induced
# cause must then hold a quarter of it or more
stall_cases_check() {
	awk '/^  window/ { w = 1; next } /^  [a-z]/ { w = 0 } w && $1 ~ /^[+-][0-9]/ { print }' \
		"$T/stalls" >"$T/rows"
	busy=$(value noise.foreign_cpu_pct "$rundir/bench.txt")
	busy=$(awk -v f="${busy:-0}" 'BEGIN { print (f >= 25) ? 1 : 0 }')
	for e in $expect; do
		sec=$(( ${e%%:*} - 1 ))
		want=${e#*:}
		row=$(awk -v s="$sec" '{ d = $1 - s; if (d < 0) d = -d; if (d < 0.35) print }' "$T/rows")
		got=$(echo "$row" | awk '{ print $3 }')
		[ "$got" = "$want" ] && continue
		share=$(echo "$row" | sed -n "s/.* $want \([0-9]*\)%.*/\1/p")
		if [ "$busy" = 1 ] && [ "$got" = runq ] && [ "${share:-0}" -ge 25 ]; then
			echo "note: the stall at ${sec} s came out runq on a busy machine, $want ${share}%" >&2
			continue
		fi
		cat "$T/stalls" >&2
		fail "the stall at ${sec} s: cause '$got', expected $want"
	done
	[ "$(wc -l <"$T/rows")" -ge "$(echo $expect | wc -w)" ] || fail "fewer stalls than asked"
}
