#!/bin/sh
# Runs every test: the Check unit tests (build/tests/unit-tests), then each
# tests/*/tNNNN-*.sh script in name order. A script exits 0 (passed), 77
# (skipped: it says why on stderr) or anything else (failed). Ends with one
# line "N passed, N failed, N skipped" and exits 1 if anything failed.
#
#   sh tests/run.sh [PATTERN]     only scripts whose name contains PATTERN
set -u
cd "$(dirname "$0")/.." || exit 1
SRCDIR=$(pwd)
export HB_SRCDIR="$SRCDIR"
export HB_BUILD="${HB_BUILD:-$SRCDIR/build}"
export HB="$HB_BUILD/hitchbench"
export HB_FIXTURES="$SRCDIR/tests/fixtures"
export HB_TESTDATA="${HB_TESTDATA:-$SRCDIR/../shared/testdata}"
pattern=${1:-}
passed=0 failed=0 skipped=0 failed_names=""

if [ -z "$pattern" ]; then
	out=$(mktemp)
	"$HB_BUILD/tests/unit-tests" >"$out" 2>&1
	rc=$?
	cat "$out"
	line=$(grep -E '^[0-9]+%: Checks: ' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "FAIL unit-tests: no Check summary (exit $rc)"
		failed=$((failed + 1))
		failed_names="$failed_names unit-tests"
	else
		checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		bad=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2/')
		nbad=$(( ${bad% *} + ${bad#* } ))
		passed=$((passed + checks - nbad))
		failed=$((failed + nbad))
		[ "$nbad" -eq 0 ] || failed_names="$failed_names unit-tests"
	fi
fi

for t in tests/*/t[0-9][0-9][0-9][0-9]-*.sh; do
	[ -e "$t" ] || continue
	case "$t" in *"$pattern"*) ;; *) continue ;; esac
	name=${t#tests/}
	log=$(mktemp)
	start=$(date +%s)
	TMPDIR=$(mktemp -d) sh "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0)
		echo "ok   $name (${secs}s)"
		passed=$((passed + 1))
		;;
	77)
		echo "skip $name: $(tail -n 1 "$log")"
		skipped=$((skipped + 1))
		;;
	*)
		echo "FAIL $name (exit $rc, ${secs}s)"
		sed 's/^/    | /' "$log"
		failed=$((failed + 1))
		failed_names="$failed_names $name"
		;;
	esac
	rm -f "$log"
done

[ -z "$failed_names" ] || echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
