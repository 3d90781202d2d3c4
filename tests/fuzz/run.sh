#!/bin/sh
# make fuzz: runs each fuzz target for a few seconds on a copy of its seed
# corpus and prints one line per target and a total (tests/fuzz/README.md).
#
#   sh tests/fuzz/run.sh FUZZ_DIR SECONDS NAME...
#   FUZZ_JOBS=N sh tests/fuzz/run.sh ...   N targets at a time
#
# FUZZ_DIR holds the targets (fuzz-NAME); the seeds are tests/fuzz/corpus/NAME/
# and stay untouched: the fuzzer grows a copy in a temporary directory. What
# it finds (crash-*, leak-*, timeout-*, oom-*) is kept in
# FUZZ_DIR/findings/NAME/, emptied first, so it holds this run's findings
# only. Exit 1 when any target found something (or did not run), 2 on usage.
set -u
[ $# -ge 2 ] || { echo "usage: run.sh FUZZ_DIR SECONDS NAME..." >&2; exit 2; }
dir=$1 secs=$2
shift 2
case "$secs" in ''|*[!0-9]*) echo "run.sh: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;; esac
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hb-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

# a slow input past FUZZ_TIMEOUT seconds is a finding (a hang), as is more
# than FUZZ_RSS_MB of memory (an allocation trusted from the input)
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}

# FUZZ_JOBS targets run at once (1 unless set): each gets its SECONDS of
# wall time all the same, and a share of the CPUs, which its executions show
jobs=${FUZZ_JOBS:-1}
case "$jobs" in ''|*[!0-9]*|0) echo "run.sh: FUZZ_JOBS must be a whole number above 0, not '$jobs'" >&2; exit 2 ;; esac

# run_one NAME: the target's line into $work/NAME.line, its executions and
# findings into $work/NAME.sum
run_one() {
	name=$1
	bin=$dir/fuzz-$name
	out=$dir/findings/$name
	rm -rf "$out"
	mkdir -p "$out" "$work/$name"
	[ -d "$src/corpus/$name" ] && cp -R "$src/corpus/$name/." "$work/$name/"
	log=$dir/findings/$name.log
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$bin" -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb="$rss" \
		-malloc_limit_mb="$rss" -detect_leaks=1 -print_final_stats=1 \
		-artifact_prefix="$out/" "$work/$name" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	corpus=$(find "$work/$name" -type f | wc -l)
	finds=$(find "$out" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) | sort)
	n=$(printf '%s' "$finds" | grep -c . || true)
	if [ "$n" = 0 ] && [ "$rc" != 0 ]; then
		finds="exit $rc without an artefact: see $log"
		n=1
	fi
	printf '%-16s %12s %9s %7s  %s\n' "$name" "${execs:-?}" "${rate:-?}" "$corpus" \
		"$( [ "$n" = 0 ] && echo 0 || echo "$n: $(echo $finds)")" >"$work/$name.line"
	echo "${execs:-0} $n" >"$work/$name.sum"
}

printf '%-16s %12s %9s %7s  %s\n' target executions exec/s corpus findings
total_exec=0 total_find=0 failed=0 running=0 batch=""
for name in "$@"; do
	run_one "$name" &
	running=$((running + 1))
	batch="$batch $name"
	[ "$running" -lt "$jobs" ] && continue
	wait
	for b in $batch; do cat "$work/$b.line"; done
	running=0 batch=""
done
wait
for b in $batch; do cat "$work/$b.line"; done
for name in "$@"; do
	read -r execs n <"$work/$name.sum" || { execs=0 n=1; }
	total_exec=$((total_exec + execs))
	total_find=$((total_find + n))
	[ "$n" = 0 ] || failed=1
done
printf '%-16s %12s %9s %7s  %s\n' "total ($#)" "$total_exec" "" "" "$total_find"
[ "$failed" = 0 ] || echo "run.sh: findings above; reproduce one with $dir/fuzz-NAME FILE (tests/fuzz/README.md)" >&2
exit "$failed"
