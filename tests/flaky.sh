#!/bin/sh
# Runs the tests that depend on timing or load many times beside a CPU hog
# (a busy loop on every CPU, as a loaded machine or a noisy neighbour
# would be), and prints a table: test, runs, failures. A test that fails
# here fails by chance on a busy machine: it is to be made to pass every
# time, or split so that what depends on the machine is a benchmark and
# what is logic is a test (tests/README.md, "Flaky tests"). Exits 1 if any
# run failed.
#
#   sh tests/flaky.sh [-n RUNS] [-j N] [--no-hog] [TEST...]
#       TEST: a script's path or name part ("t0810"), or "unit-tests";
#       default: every script whose header says "# timing: ...", and the
#       unit tests. RUNS: runs of each (default 20). N: tests at once
#       (default: one a CPU); a test's runs follow one another, and those
#       of the alone lane ("# lane: alone") run first, with nothing beside
#       them but the hog.
#       --no-hog: the same runs on the machine as it is.
# The failed runs' logs are kept in $HB_BUILD/flaky/ (the last of each).
set -u
cd "$(dirname "$0")/.." || exit 1
SRCDIR=$(pwd)
runs=20 jobs=$(nproc 2>/dev/null || echo 1) hog=1
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:-}; shift 2 ;;
	-j) jobs=${2:-}; shift 2 ;;
	--no-hog) hog=0; shift ;;
	-*) echo "flaky.sh: unknown option '$1' (usage: sh tests/flaky.sh [-n RUNS] [-j N] [--no-hog] [TEST...])" >&2; exit 2 ;;
	*) break ;;
	esac
done
for v in "$runs" "$jobs"; do
	case $v in '' | *[!0-9]* | 0) echo "flaky.sh: -n and -j want a whole number over 0, not '$v'" >&2; exit 2 ;; esac
done
BUILD=${HB_BUILD:-$SRCDIR/build}
export HB_BUILD="$BUILD"

# the tests: the ones named, else those that say they depend on timing
tests=
if [ $# -gt 0 ]; then
	for a in "$@"; do
		if [ "$a" = unit-tests ]; then
			tests="$tests unit-tests"
			continue
		fi
		m=$(ls tests/cli/t[0-9]*-*.sh tests/game/t[0-9]*-*.sh | grep -F -- "$a")
		[ -n "$m" ] || { echo "flaky.sh: no test matches '$a'" >&2; exit 2; }
		tests="$tests $m"
	done
else
	tests=unit-tests
	for t in tests/cli/t[0-9]*-*.sh tests/game/t[0-9]*-*.sh; do
		head -n 20 "$t" | grep -q '^# timing:' && tests="$tests $t"
	done
fi

R=$(mktemp -d) || exit 2
hogs=
stop() {
	# shellcheck disable=SC2086
	[ -z "$hogs" ] || kill $hogs 2>/dev/null
	rm -rf "$R"
}
trap stop EXIT
trap 'exit 130' INT TERM
if [ "$hog" = 1 ]; then
	# one busy loop a CPU, the harness's own (marked: no watcher counts it)
	i=0
	while [ "$i" -lt "$(nproc)" ]; do
		HITCHBENCH_HARNESS=flaky sh -c 'while :; do :; done' &
		hogs="$hogs $!"
		i=$((i + 1))
	done
fi

# many TEST: its runs, one after the other, into R/NAME.tally ("runs failures")
many() {
	t=$1 name=$(echo "${1#tests/}" | tr '/' '_') fails=0 i=0
	where=own
	[ "$t" != unit-tests ] && head -n 20 "$t" | grep -q '^# lane: alone' && where=machine
	mkdir -p "$R/$name"
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		sh tests/run.sh --one "$R/$name" "$t" "$where" >"$R/$name/out" 2>&1
		read -r _ failed _ <"$R/$name/$name.res"
		if [ "$failed" != 0 ]; then
			fails=$((fails + 1))
			mkdir -p "$BUILD/flaky"
			cp "$R/$name/out" "$BUILD/flaky/$name.log"
		fi
	done
	echo "$runs $fails" >"$R/$name.tally"
}

echo "flaky: $(echo $tests | wc -w) test(s), $runs runs each, $jobs at once, $([ "$hog" = 1 ] && echo "beside a busy loop on each of $(nproc) CPUs" || echo "no hog")"
start=$(date +%s)
# the alone lane's tests first, one at a time beside the hogs only (in the
# machine's own namespace they would see the other tests' processes), then
# the others, N at a time
for t in $tests; do
	[ "$t" != unit-tests ] && head -n 20 "$t" | grep -q '^# lane: alone' && many "$t"
done
running=
for t in $tests; do
	[ "$t" != unit-tests ] && head -n 20 "$t" | grep -q '^# lane: alone' && continue
	# at most jobs at once
	while :; do
		alive=
		for p in $running; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
		running=$alive
		[ "$(echo $running | wc -w)" -lt "$jobs" ] && break
		sleep 1
	done
	many "$t" &
	running="$running $!"
done
# the tests' runs (not the hogs, which run until the end: a bare wait, with
# only alone-lane tests asked for, would wait for them)
# shellcheck disable=SC2086
[ -z "$running" ] || wait $running

printf '%-44s %5s %9s\n' test runs failures
bad=0
for t in $tests; do
	name=$(echo "${t#tests/}" | tr '/' '_')
	read -r n f <"$R/$name.tally" 2>/dev/null || { n=0 f=?; }
	printf '%-44s %5s %9s\n' "${t#tests/}" "$n" "$f"
	[ "$f" = 0 ] || bad=1
done
echo "($(($(date +%s) - start)) s; logs of failed runs in $BUILD/flaky/)"
exit "$bad"
