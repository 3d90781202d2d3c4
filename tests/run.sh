#!/bin/sh
# Runs every test: the Check unit tests (build/tests/unit-tests), then each
# tests/*/tNNNN-*.sh script in name order (tests/README.md describes the
# families). A script exits 0 (passed), 77 (skipped: its last line says
# why) or anything else (failed). A unit test that cannot run here prints
# "SKIP file:test: why" and is counted as skipped, not as one of the
# passes Check counts it among. Ends with one line
# "N passed, N failed, N skipped" and exits 1 if anything failed.
#
#   sh tests/run.sh [PATTERN]     only scripts whose name contains PATTERN;
#                                 "unit-tests" runs only the unit tests
#
# Every binary's exit status counts: unit-tests exiting non-zero fails the
# run even when Check's summary shows no failure, and no summary at all is
# a failure. Each script runs under a time limit, $HB_TEST_TIMEOUT seconds
# (600 unless set), or what its own header asks for in a comment line
# "# time-limit: SECONDS" among its first 20 lines; the unit tests get
# $HB_TEST_TIMEOUT too. At the limit the script's process group gets
# SIGTERM, SIGKILL 15 s later, and any process left with the script's
# temporary directory in its command line, environment or working
# directory is killed; the script fails with TIMEOUT and its log shown.
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
pattern=${1:-}
passed=0 failed=0 skipped=0 failed_names=""
grace=15

case $default_limit in
'' | *[!0-9]* | 0) echo "run.sh: HB_TEST_TIMEOUT must be a number of seconds, not '$default_limit'" >&2; exit 2 ;;
esac
command -v timeout >/dev/null || { echo "run.sh: no 'timeout' (coreutils) on the PATH" >&2; exit 2; }

# limit_of SCRIPT: its "# time-limit: N" header, else the default
limit_of() {
	l=$(head -n 20 "$1" | sed -n 's/^# time-limit: *\([0-9][0-9]*\).*/\1/p' | head -n 1)
	echo "${l:-$default_limit}"
}

# leftovers DIR: processes that still name DIR (command line, environment
# or working directory) — what a killed test started outside its group
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

# children_cpu: the CPU seconds (user + system, in ticks) of this shell's
# waited-for children so far, from its own proc/PID/stat (cutime, cstime)
children_cpu() {
	awk '{ sub(/.*\) /, ""); print $14 + $15 }' "/proc/$$/stat"
}

# limited SECONDS LOG TMP CMD...: CMD with TMPDIR=TMP, its output in LOG,
# stopped at the limit; sets rc, secs, cpu (its processes' CPU seconds, those
# it waited for) and timed_out (1 or 0)
limited() {
	lim=$1 log=$2 tmp=$3
	shift 3
	start=$(date +%s)
	cpu0=$(children_cpu)
	TMPDIR=$tmp timeout -k "$grace" "$lim" "$@" </dev/null >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	cpu=$(( ($(children_cpu) - cpu0) / $(getconf CLK_TCK) ))
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
}

fail_with() {
	failed=$((failed + 1))
	failed_names="$failed_names $1"
}

if [ -z "$pattern" ] || [ "$pattern" = unit-tests ]; then
	out=$(mktemp)
	tmp=$(mktemp -d)
	limited "$default_limit" "$out" "$tmp" "$HB_BUILD/tests/unit-tests"
	rm -rf "$tmp"
	cat "$out"
	line=$(grep -E '^[0-9]+%: Checks: ' "$out" | tail -n 1)
	nskip=$(grep -c '^SKIP ' "$out")
	if [ "$timed_out" = 1 ]; then
		echo "FAIL unit-tests: TIMEOUT after ${secs}s (limit ${default_limit}s, HB_TEST_TIMEOUT)"
		fail_with unit-tests
	elif [ -z "$line" ]; then
		echo "FAIL unit-tests: no Check summary (exit $rc)"
		fail_with unit-tests
	else
		checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		bad=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2/')
		nbad=$(( ${bad% *} + ${bad#* } ))
		# a skipped test is one of Check's passes: count it once, as skipped
		good=$((checks - nbad - nskip))
		[ "$good" -ge 0 ] || good=0
		passed=$((passed + good))
		skipped=$((skipped + nskip))
		failed=$((failed + nbad))
		if [ "$nbad" -gt 0 ]; then
			failed_names="$failed_names unit-tests"
		elif [ "$rc" -ne 0 ]; then
			echo "FAIL unit-tests: exit $rc although Check counted no failure"
			fail_with unit-tests
		else
			echo "ok   unit-tests ($good passed, $nskip skipped, ${secs}s)"
		fi
	fi
	rm -f "$out"
fi

for t in tests/*/t[0-9][0-9][0-9][0-9]-*.sh; do
	[ -e "$t" ] || continue
	[ "$pattern" = unit-tests ] && break
	case "$t" in *"$pattern"*) ;; *) continue ;; esac
	name=${t#tests/}
	log=$(mktemp)
	tmp=$(mktemp -d)
	lim=$(limit_of "$t")
	limited "$lim" "$log" "$tmp" sh "$t"
	rm -rf "$tmp"
	if [ "$timed_out" = 1 ]; then
		echo "FAIL $name: TIMEOUT after ${secs}s (limit ${lim}s; a script may ask for more with '# time-limit: N')"
		sed 's/^/    | /' "$log"
		fail_with "$name"
	else
		case $rc in
		0)
			echo "ok   $name (${secs}s, cpu ${cpu}s)"
			passed=$((passed + 1))
			;;
		77)
			echo "skip $name: $(tail -n 1 "$log")"
			skipped=$((skipped + 1))
			;;
		*)
			echo "FAIL $name (exit $rc, ${secs}s)"
			sed 's/^/    | /' "$log"
			fail_with "$name"
			;;
		esac
	fi
	rm -f "$log"
done

[ -z "$failed_names" ] || echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
