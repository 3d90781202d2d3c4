#!/bin/sh
# Runs every test: the Check unit tests (build/tests/unit-tests), then each
# tests/*/tNNNN-*.sh script (tests/README.md describes the families). A
# script exits 0 (passed), 77 (skipped: its last line says why) or anything
# else (failed). A unit test that cannot run here prints "SKIP file:test:
# why" and is counted as skipped, not as one of the passes Check counts it
# among. Ends with one line "N passed, N failed, N skipped" and exits 1 if
# anything failed.
#
#   sh tests/run.sh [-j N] [--quick] [PATTERN]
#       PATTERN: only scripts whose name contains it ("unit-tests": only
#       the unit tests); --quick: no script that says "# quick: no" in its
#       header (the real games, the builds of the whole tree); -j N: at most
#       N tests at once (HB_TEST_JOBS; default 3 a CPU)
#
# How tests run beside each other (tests/README.md, "Running side by
# side"): every script runs in a PID namespace of its own, with its own
# /proc and /dev/shm (tests/isolate.sh), so a watched run's interference
# watcher sees its test's processes and nothing else, and the kernel ends
# whatever a test leaves behind. Scripts that need the machine's own
# namespace (the proc connector, BPF programs, the watcher's own tests) or
# the machine to themselves (a live recorder's causes) say "# lane: alone
# (why)" in their header and run first, one at a time, with nothing beside
# them. The scripts that keep a CPU busy throughout (every
# real game in tests/game/, and those whose header says "# cpu: heavy": the
# builds of the whole tree, Chromium, vkcube) run as many at once as the
# machine has CPUs, so each game gets about a CPU of its own; beside them
# the light ones (the unit tests, the fake game's runs, the commands) fill
# the rest of the N slots. Each lane starts its longest first, by what
# the headers say ("# cpu: heavy, about N s", "# wall: about N s"). Without root (no namespaces) every test runs
# alone, one after the other, as before.
#
# Every binary's exit status counts: unit-tests exiting non-zero fails the
# run even when Check's summary shows no failure, and no summary at all is
# a failure. Each script runs under a time limit, $HB_TEST_TIMEOUT seconds
# (600 unless set), or what its own header asks for in a comment line
# "# time-limit: SECONDS" among its first 20 lines; the unit tests get
# $HB_TEST_TIMEOUT too. At the limit the script's process group gets
# SIGTERM, SIGKILL 15 s later; the script fails with TIMEOUT and its log
# shown. A script after which the machine is not as it found it (a sysctl,
# a governor, a thaw journal left: machine_state below) fails, saying what
# changed.
set -u
cd "$(dirname "$0")/.." || exit 1
SRCDIR=$(pwd)
export HB_SRCDIR="$SRCDIR"
export HB_BUILD="${HB_BUILD:-$SRCDIR/build}"
export HB="$HB_BUILD/hitchbench"
export HB_FIXTURES="$SRCDIR/tests/fixtures"
export HB_TESTDATA="${HB_TESTDATA:-$SRCDIR/tests/fixtures/testdata}"
# The harness's marker (tests/lib.sh) in each script's environment from
# its start: the watcher reads /proc/PID/environ, which holds what a
# process was started with, so a shell that only exported it later forks
# subshells ($(...)) the watcher counts as outside the run.
export HITCHBENCH_HARNESS=tests
default_limit=${HB_TEST_TIMEOUT:-600}
grace=15

case $default_limit in
'' | *[!0-9]* | 0) echo "run.sh: HB_TEST_TIMEOUT must be a number of seconds, not '$default_limit'" >&2; exit 2 ;;
esac
command -v timeout >/dev/null || { echo "run.sh: no 'timeout' (coreutils) on the PATH" >&2; exit 2; }

# header_value FILE KEY: the value of a "# KEY: VALUE" line among its
# first 20 lines (its first word)
header_value() {
	head -n 20 "$1" | sed -n "s/^# $2: *\\([^ ]*\\).*/\\1/p" | head -n 1
}

# children_cpu: the CPU seconds (user + system, in ticks) of this shell's
# waited-for children so far, from its own proc/PID/stat (cutime, cstime)
children_cpu() {
	awk '{ sub(/.*\) /, ""); print $14 + $15 }' "/proc/$$/stat"
}

# leftovers DIR: processes that still name DIR (command line, environment
# or working directory): what a killed test of the machine's own namespace
# started outside its group (a namespace's processes end with it)
leftovers() {
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[ "$pid" = "$$" ] && continue
		if { tr '\0' '\n' <"$p/cmdline"; } 2>/dev/null | grep -qF "$1" ||
			{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qF "$1"; then
			echo "$pid"
		else
			case $(readlink "$p/cwd" 2>/dev/null) in "$1"*) echo "$pid" ;; esac
		fi
	done
}

# The machine a test must leave as it found it. Quieting (bench/quiet/:
# kernel.task_delayacct, every CPU's scaling_governor, the systemd units a
# quiet profile stops, the VT of the banner) and the switches' knobs (a
# /proc/sys or /sys file, transparent_hugepage's the usual) change the real
# machine unless a test points them at a copy (quiet_root: HITCHBENCH_ROOT);
# a batch journals each change (the thaw journal, /var/lib/hitchbench for
# root) and puts it back at its end, and a test that kills one must thaw.
# A killed test once left kernel.task_delayacct at 1. So every script is
# checked: machine_state before and after it, and a value that differs, or
# a thaw journal left, fails the test with what changed; side by side, it
# is judged when the lanes end (lanes_restored). HB_MACHINE_ROOT
# (unset: /) makes the check read a copy (the check's own test, t0006).
# vm's *_reserve_kbytes and min_free_kbytes are left out: the kernel
# recomputes them when memory is added or removed, and no switch writes them.
machine_root=${HB_MACHINE_ROOT:-}
quiet_units=$(sed -n 's/^services *= *//p' recipes/quiet/*.ini 2>/dev/null | tr '\n' ' ')
# where a batch of another user than root journals (bench/quiet/thaw.c)
user_journal=
[ -n "$machine_root" ] || [ "$(id -u)" = 0 ] ||
	user_journal=${XDG_STATE_HOME:-${HOME:-/}/.local/state}/hitchbench/thaw.state

# machine_state: those values, "PATH: VALUE" a line (about 60 small reads
# in one grep: a few ms a test)
machine_state() {
	_r=$machine_root
	grep -s -H '' "$_r"/proc/sys/kernel/task_delayacct "$_r"/proc/sys/kernel/sched_* "$_r"/proc/sys/vm/* \
		"$_r"/sys/devices/system/cpu/online "$_r"/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor \
		"$_r"/sys/kernel/mm/transparent_hugepage/enabled "$_r"/sys/kernel/mm/transparent_hugepage/defrag \
		"$_r"/sys/class/tty/tty0/active |
		sed "s|^$_r||; s|:|: |" | grep -v '^/proc/sys/vm/\(admin_reserve_kbytes\|user_reserve_kbytes\|min_free_kbytes\):'
	for _j in "$_r/var/lib/hitchbench/thaw.state" $user_journal; do
		if [ -e "$_j" ]; then echo "thaw journal ${_j#"$_r"}: left"; else echo "thaw journal ${_j#"$_r"}: none"; fi
	done
	# the units a quiet profile stops, where systemd runs (one call)
	if [ -z "$_r" ] && [ -d /run/systemd/system ] && [ -n "$quiet_units" ] && command -v systemctl >/dev/null; then
		# shellcheck disable=SC2086
		systemctl is-active $quiet_units 2>/dev/null | {
			for _u in $quiet_units; do
				read -r _s || _s=unknown
				echo "unit $_u: $_s"
			done
		}
	fi
}

# machine_changes BEFORE AFTER: "PATH: was X, now Y" for each value that
# differs (nothing when the machine is as it was)
machine_changes() {
	awk -F': ' '{ v = substr($0, length($1) + 3) }
		NR == FNR { was[$1] = v; next }
		!($1 in was) { print $1 ": was absent, now " v; next }
		was[$1] != v { print $1 ": was " was[$1] ", now " v }
		{ delete was[$1] }
		END { for (k in was) print k ": was " was[k] ", now absent" }' "$1" "$2"
}

# not_restored CHANGES: what a test that left the machine changed is told
not_restored() {
	echo "run.sh: the machine is not as the test found it (quieting or a switch not undone;"
	echo "run.sh: 'hitchbench thaw' restores what a journal holds):"
	echo "$1" | sed 's/^/run.sh:   /'
}

# lanes_restored RESULTS: after the side-by-side lanes, the machine against
# RESULTS/lanes.before (read as they began); its lines in RESULTS/lanes.why. A value still changed fails the
# scripts that saw that very change begin and end around them (one of them
# made it: those beside it saw it too only if they ran across it), or,
# when none did, the lanes as a whole. A change made and undone within
# the lanes (a real game's quieted batch, thawed at its end) fails nothing.
lanes_restored() {
	machine_state >"$1/lanes.after"
	machine_changes "$1/lanes.before" "$1/lanes.after" >"$1/lanes.changed"
	[ -s "$1/lanes.changed" ] || return 0
	while IFS= read -r line; do
		blamed=
		for f in "$1"/*.machine; do
			if [ ! -e "$f" ] || ! grep -qxF "$line" "$f"; then
				continue
			fi
			blamed=1
			res=${f%.machine}.res
			read -r _ _ _ secs cpu name <"$res"
			echo "0 1 0 $secs $cpu $name" >"$res"
			echo "FAIL $name: $(not_restored "$line" | tail -n 1 | sed 's/^run.sh: *//') (or a test beside it)"
		done
		if [ -z "$blamed" ]; then
			echo "0 1 0 0 0 the-side-by-side-lanes" >"$1/lanes.res"
			echo "FAIL the side-by-side lanes: $(echo "$line" | sed 's/^ *//') (no one script saw it made)"
		fi
	done <"$1/lanes.changed" >"$1/lanes.why"
}

# one RESULTS TEST WHERE: runs TEST (a script's path, or "unit-tests") in
# its own PID namespace (WHERE=own) or the machine's (WHERE=machine), under
# its time limit, its own TMPDIR and log; prints its line (and a failure's
# log) at once, whole, and leaves RESULTS/NAME.res: "passed failed skipped
# secs cpu" for the summary.
one() {
	R=$1 t=$2 where=$3
	if [ "$t" = unit-tests ]; then
		name=unit-tests lim=$default_limit
		set -- "$HB_BUILD/tests/unit-tests"
	else
		name=${t#tests/}
		lim=$(header_value "$t" time-limit)
		lim=${lim:-$default_limit}
		set -- sh "$t"
	fi
	log=$R/$(echo "$name" | tr '/' '_').log
	tmp=$(mktemp -d)
	[ "$where" = own ] && set -- unshare --pid --fork --mount-proc --kill-child sh "$SRCDIR/tests/isolate.sh" "$@"
	[ "$name" = unit-tests ] || machine_state >"$log.before"
	start=$(date +%s)
	cpu0=$(children_cpu)
	TMPDIR=$tmp timeout -k "$grace" "$lim" "$@" </dev/null >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	# a script that leaves the machine changed fails, saying what changed;
	# beside others (HB_SIDE_BY_SIDE) a change may be another's, made and
	# undone while this one ran: it is noted, and judged when the lanes end
	if [ "$name" != unit-tests ]; then
		machine_state >"$log.after"
		changed=$(machine_changes "$log.before" "$log.after")
		if [ -n "$changed" ] && [ -n "${HB_SIDE_BY_SIDE:-}" ]; then
			echo "$changed" >"$R/$(echo "$name" | tr '/' '_').machine"
		elif [ -n "$changed" ]; then
			not_restored "$changed" >>"$log"
			[ "$rc" != 0 ] && [ "$rc" != 77 ] || rc=1
		fi
		rm -f "$log.before" "$log.after"
	fi
	cpu=$((($(children_cpu) - cpu0) / $(getconf CLK_TCK)))
	timed_out=0
	if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$secs" -ge "$lim" ]; then
		timed_out=1
		left=$(leftovers "$tmp" | tr '\n' ' ')
		if [ -n "$left" ]; then
			# shellcheck disable=SC2086
			kill -9 $left 2>/dev/null
			echo "run.sh: killed what the test left running: $left" >>"$log"
		fi
	fi
	rm -rf "$tmp"
	if [ "$name" = unit-tests ]; then
		unit_result
	else
		script_result
	fi >"$log.out"
	echo "$counts $secs $cpu $name" >"$R/$(echo "$name" | tr '/' '_').res"
	# a failure's gist again at the end, where a log's tail (all CI shows
	# of a long run) has it: a unit test's failed checks, a script's last
	# lines
	# shellcheck disable=SC2086
	set -- $counts
	if [ "$2" != 0 ]; then
		echo "why $name failed:"
		if [ "$name" = unit-tests ]; then
			grep -E ':[EF]:|^FAIL ' "$log.out" | head -n 20
		else
			grep -v '^ok ' "$log.out" | tail -n 12
		fi | sed 's/^/  /'
	fi >"$R/$(echo "$name" | tr '/' '_').why"
	# one test's lines at once, whole, whatever else is finishing
	flock "$R/.print" cat "$log.out"
	rm -f "$log" "$log.out"
}

# is_heavy TEST: whether it keeps a CPU busy throughout (a real game, or
# "# cpu: heavy" in its header)
is_heavy() {
	case $1 in
	tests/game/*) return 0 ;;
	unit-tests) return 1 ;;
	esac
	case $(header_value "$1" cpu) in heavy*) return 0 ;; esac
	return 1
}

# longest_first DEFAULT TEST...: the tests, those whose header says they
# take longest first ("# cpu: heavy, about N s" of a heavy one, "# wall:
# about N s" of a light one that waits long; DEFAULT seconds when it says
# neither), so that a lane does not end on a long one alone
longest_first() {
	d=$1
	shift
	for t in "$@"; do
		s=
		if [ "$t" = unit-tests ]; then
			s=15
		elif [ -f "$t" ]; then
			s=$(head -n 20 "$t" | sed -n 's/^# \(cpu: heavy, \|wall: \)about \([0-9]*\) s.*/\2/p' | head -n 1)
		fi
		echo "${s:-$d} $t"
	done | sort -k1,1nr -k2,2 | cut -d' ' -f2
}

# script_result: the line of a script, and its log when it failed; sets counts
script_result() {
	if [ "$timed_out" = 1 ]; then
		echo "FAIL $name: TIMEOUT after ${secs}s (limit ${lim}s; a script may ask for more with '# time-limit: N')"
		sed 's/^/    | /' "$log"
		counts="0 1 0"
		return
	fi
	case $rc in
	0) echo "ok   $name (${secs}s, cpu ${cpu}s)"; counts="1 0 0" ;;
	77) echo "skip $name: $(tail -n 1 "$log")"; counts="0 0 1" ;;
	*)
		echo "FAIL $name (exit $rc, ${secs}s)"
		sed 's/^/    | /' "$log"
		counts="0 1 0"
		;;
	esac
}

# unit_result: Check's output, its counts (a skipped test is one of
# Check's passes: counted once, as skipped) and whatever failed; sets counts
unit_result() {
	cat "$log"
	line=$(grep -E '^[0-9]+%: Checks: ' "$log" | tail -n 1)
	nskip=$(grep -c '^SKIP ' "$log")
	if [ "$timed_out" = 1 ]; then
		echo "FAIL unit-tests: TIMEOUT after ${secs}s (limit ${lim}s, HB_TEST_TIMEOUT)"
		counts="0 1 0"
	elif [ -z "$line" ]; then
		echo "FAIL unit-tests: no Check summary (exit $rc)"
		counts="0 1 0"
	else
		checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		bad=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2/')
		nbad=$((${bad% *} + ${bad#* }))
		good=$((checks - nbad - nskip))
		[ "$good" -ge 0 ] || good=0
		if [ "$nbad" -gt 0 ]; then
			counts="$good $nbad $nskip"
		elif [ "$rc" -ne 0 ]; then
			echo "FAIL unit-tests: exit $rc although Check counted no failure"
			counts="$good 1 $nskip"
		else
			echo "ok   unit-tests ($good passed, $nskip skipped, ${secs}s, cpu ${cpu}s)"
			counts="$good 0 $nskip"
		fi
	fi
}

# the lanes' own calls (and the check's test, t0005): one script; the
# machine's state; the judgement after the lanes of RESULTS/lanes.before
case ${1:-} in
--one) one "$2" "$3" "$4"; exit 0 ;;
--machine-state) machine_state; exit 0 ;;
--lanes-restored) lanes_restored "$2"; cat "$2/lanes.why" 2>/dev/null; exit 0 ;;
esac

jobs=${HB_TEST_JOBS:-} quick=0 pattern=
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=${2:-}; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--quick) quick=1; shift ;;
	-*) echo "run.sh: unknown option '$1' (usage: sh tests/run.sh [-j N] [--quick] [PATTERN])" >&2; exit 2 ;;
	*) pattern=$1; shift ;;
	esac
done
[ -n "$jobs" ] || jobs=$((3 * $(nproc 2>/dev/null || echo 1)))
case $jobs in
'' | *[!0-9]* | 0) echo "run.sh: -j wants a number of tests at once, not '$jobs'" >&2; exit 2 ;;
esac

# Namespaces need root (CAP_SYS_ADMIN) and unshare; without them every
# test runs in the machine's namespace, one at a time.
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v flock >/dev/null ||
	! unshare --pid --fork --mount-proc true 2>/dev/null; then
	[ "$jobs" = 1 ] || echo "run.sh: no PID namespaces here (root and unshare are needed): the tests run one at a time"
	jobs=1 isolate=0
else
	isolate=1
fi

# The tests to run: the alone lane first, then the heavy and the light
# side by side (the games first among the heavy: the longest).
alone= heavy= light=
[ -n "$pattern" ] && [ "$pattern" != unit-tests ] || light=unit-tests
for t in tests/game/t[0-9][0-9][0-9][0-9]-*.sh tests/cli/t[0-9][0-9][0-9][0-9]-*.sh; do
	[ -e "$t" ] || continue
	[ "$pattern" = unit-tests ] && break
	case "$t" in *"$pattern"*) ;; *) continue ;; esac
	if [ "$quick" = 1 ]; then
		case $t in tests/game/*) continue ;; esac
		[ "$(header_value "$t" quick)" = no ] && continue
	fi
	if [ "$(header_value "$t" lane)" = alone ] || [ "$isolate" = 0 ]; then
		alone="$alone $t"
	elif is_heavy "$t"; then
		heavy="$heavy $t"
	else
		light="$light $t"
	fi
done
cpus=$(nproc 2>/dev/null || echo 1)
[ "$cpus" -lt "$jobs" ] || cpus=$((jobs > 1 ? jobs - 1 : 1))

R=$(mktemp -d) || exit 2
trap 'rm -rf "$R"' EXIT
start=$(date +%s)
for t in $alone; do
	one "$R" "$t" machine
done
# lane NAMES N: the tests NAMES, N at a time, each in its own namespace
lane() {
	[ -n "$1" ] || return 0
	# shellcheck disable=SC2086
	printf '%s\n' $1 | xargs -P "$2" -I{} sh "$SRCDIR/tests/run.sh" --one "$R" {} own
}
if [ "$jobs" = 1 ]; then
	# shellcheck disable=SC2086
	lane "$(longest_first 20 $heavy) $(longest_first 5 $light)" 1
else
	machine_state >"$R/lanes.before"
	export HB_SIDE_BY_SIDE=1
	# shellcheck disable=SC2086
	lane "$(longest_first 20 $heavy)" "$cpus" &
	heavy_pid=$!
	# shellcheck disable=SC2086
	lane "$(longest_first 5 $light)" "$((jobs - cpus))"
	wait "$heavy_pid"
	unset HB_SIDE_BY_SIDE
	sh "$SRCDIR/tests/run.sh" --lanes-restored "$R"
fi

passed=0 failed=0 skipped=0 failed_names="" n=0
for f in "$R"/*.res; do
	[ -e "$f" ] || continue
	read -r p fl s _ _ name <"$f"
	passed=$((passed + p)) failed=$((failed + fl)) skipped=$((skipped + s)) n=$((n + 1))
	[ "$fl" = 0 ] || failed_names="$failed_names $name"
done
cat "$R"/*.why 2>/dev/null
[ -z "$failed_names" ] || echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped ($n jobs, $(($(date +%s) - start)) s, $jobs at once)"
[ "$failed" -eq 0 ]
