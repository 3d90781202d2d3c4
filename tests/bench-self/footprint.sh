#!/bin/sh
# bench-self, the footprint: what a run costs the machine it runs on (a
# PS3 target has 256 MB). One batch of one run of the default recipe
# (dsda-doom, a short window) with every observer on: the sensor sampler
# and the interference watcher (on by default), the stall recorder
# (STALLS=1), the wakeup-lateness probe (PROBE=1) and a 10 ms waker
# (WAKER=10); then a table of each process: its peak resident set, its CPU
# time and that CPU per second of the run, from the run's own bench.txt
# (footprint.*, docs/formats.md): the rusage wait4() gave when the runner
# reaped it (ru_maxrss; ru_utime + ru_stime), the program's own peak
# (VmHWM of /proc/PID/status just before it was stopped), and the
# runner's getrusage(RUSAGE_SELF) at the run's end. No quieting (the
# machine is left as it is), no database. A benchmark: it prints figures
# and fails only when the run fails.
#
# Run by tests/bench-self/bench-self.sh (make bench-self). Environment:
# HB_BUILD (build), HB_BENCH_FOOTPRINT_RECIPE (dsda-doom),
# HB_BENCH_FOOTPRINT_WARMUP (5), HB_BENCH_FOOTPRINT_WINDOW (40).

B=${HB_BUILD:-build}
HB=$B/hitchbench
RECIPE=${HB_BENCH_FOOTPRINT_RECIPE:-dsda-doom}
WARMUP=${HB_BENCH_FOOTPRINT_WARMUP:-5}
WINDOW=${HB_BENCH_FOOTPRINT_WINDOW:-40}

[ -x "$HB" ] || { echo "footprint: no $HB" >&2; exit 1; }
echo "footprint of a run: $RECIPE, warm-up $WARMUP s, window $WINDOW s, every observer on"
if ! getent passwd hitchbench >/dev/null && [ -z "${SUDO_USER:-}" ]; then
	echo "  skipped: no unprivileged game user (sh scripts/deps.sh ensure)"
	exit 0
fi
game=$(sed -n 's/^command = \([^ ]*\).*/\1/p' "recipes/$RECIPE.ini" 2>/dev/null)
if [ -n "$game" ] && ! [ -x "$game" ]; then
	echo "  skipped: $game is not installed (sh scripts/deps.sh ensure)"
	exit 0
fi
token="WAKER=10"
if [ "$(id -u)" = 0 ]; then
	token="STALLS=1+PROBE=1+$token"
else
	echo "  (not root: without the stall recorder and the probe, which need it)"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rc=0
"$HB" run --no-quieting --no-db --out "$tmp/runs" --warmup "$WARMUP" --window "$WINDOW" "$RECIPE" \
	--switches "$token" >"$tmp/out" 2>"$tmp/err" || rc=$?
run=$(ls -d "$tmp"/runs/*/*/ 2>/dev/null | tail -n 1)
b=${run%/}/bench.txt
if [ ! -f "$b" ]; then
	echo "  the run failed (exit $rc):" >&2
	cat "$tmp/err" >&2
	exit 1
fi
value() {
	sed -n "s/^$1=//p" "$b" | head -n 1
}
t0=$(date -u -d "$(value started_utc)" +%s)
t1=$(date -u -d "$(value ended_utc)" +%s)
wall=$((t1 - t0))
echo "  run $(basename "${run%/}"): status $(value status), invalid=$(value invalid), interfered=$(value interfered), $wall s from its start to its end (bench.txt started_utc .. ended_utc)"
[ "$(value status)" = ok ] || echo "  (the run's own status: $(value status_detail))"

# one row per process, in bench.txt's order
grep '^footprint\.[^.]*\.maxrss_kb=' "$b" | sed 's/^footprint\.\([^.]*\)\..*/\1/' >"$tmp/names"
printf '  %-10s %14s %14s %10s %14s\n' process "peak RSS (MB)" "own peak (MB)" "CPU ms" "CPU ms a second"
while read -r name; do
	rss=$(value "footprint.$name.maxrss_kb")
	hwm=$(value "footprint.$name.hwm_kb")
	cpu=$(value "footprint.$name.cpu_ms")
	awk -v n="$name" -v r="$rss" -v h="$hwm" -v c="$cpu" -v w="$wall" 'BEGIN {
		printf "  %-10s %14.1f %14s %10.0f %14.2f\n", n, r / 1024, h == "" ? "-" : sprintf("%.1f", h / 1024),
			c, w > 0 ? c / w : 0 }'
done <"$tmp/names"
awk -F= '/^footprint\.[^.]*\.maxrss_kb=/ && $1 !~ /runner/ { s += $2 } END {
	printf "  sum of the peaks, every process but the runner: %.1f MB (an upper bound: the peaks need not coincide)\n", s / 1024 }' "$b"
echo "  peak RSS: ru_maxrss of wait4() when the runner reaped it (kB; the game: the largest of its passes and"
echo "  orphans; it counts at least the runner's anonymous pages fork() copied, exec keeps the high-water mark);"
echo "  own peak: VmHWM of /proc/PID/status just before the runner stopped it (the game: its first process);"
echo "  CPU: ru_utime + ru_stime (the game: summed over its processes); runner: getrusage(RUSAGE_SELF) at the"
echo "  run's end; a second = of the run's $wall s (X, load, warm-up, window and stop; helpers live a little less)"
exit 0
