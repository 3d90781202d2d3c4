#!/bin/sh
# bench-self, the waker and the probe (hitchbench-waker; the WAKER and
# PROBE switches): what each costs in its own CPU time per second of
# running, on this machine with nothing else of ours running. ROUNDS
# short runs of each, interleaved (sleep 10 ms, kick 10 ms, probe 1.37 ms,
# sleep, kick, probe, ...) so drift hits all three; each run's figure is
# the CPU time it reports itself (getrusage, every thread) over its wall
# time. Medians with [min .. max]. A benchmark: it prints figures and fails
# only when a run fails.
#
# Run by tests/bench-self/bench-self.sh (make bench-self). Environment:
# HB_BUILD (build), HB_BENCH_WAKER_ROUNDS (5), HB_BENCH_WAKER_SECONDS (3).

B=${HB_BUILD:-build}
ROUNDS=${HB_BENCH_WAKER_ROUNDS:-5}
SECS=${HB_BENCH_WAKER_SECONDS:-3}
W=$B/hitchbench-waker

[ -x "$W" ] || { echo "waker: no $W" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { # FILE
	sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() { # FILE
	sort -g "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print "[" lo " .. " hi "]" }'
}

echo "waker and probe (hitchbench-waker): their own CPU per second, $ROUNDS runs of $SECS s each, interleaved"
if [ "$(id -u)" != 0 ]; then
	echo "  skipped: the probe's SCHED_FIFO and mlockall need root"
	exit 0
fi
: >"$tmp/sleep"
: >"$tmp/kick"
: >"$tmp/probe"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for m in sleep kick; do
		"$W" -m "$m" -i 10 -t "$SECS" -o "$tmp/$m.txt" || { echo "  the $m run failed" >&2; exit 1; }
		sed -n 's/^self\.cpu_ms_per_s=//p' "$tmp/$m.txt" >>"$tmp/$m"
	done
	"$W" -m probe -i 1.37 -t "$SECS" -o "$tmp/probe.txt" >/dev/null || { echo "  the probe run failed" >&2; exit 1; }
	awk '$1 == "self_cpu_ns" { c = $2 } $1 == "start_ns" { s = $2 } $1 == "end_ns" { e = $2 }
		END { printf "%.4f\n", c / 1e6 / ((e - s) / 1e9) }' "$tmp/probe.txt" >>"$tmp/probe"
	r=$((r + 1))
done
ncpu=$(getconf _NPROCESSORS_ONLN)
echo "  sleep 10 ms        $(median "$tmp/sleep") ms CPU a second $(range "$tmp/sleep")  (one thread, 100 wakeups a second)"
echo "  kick 10 ms         $(median "$tmp/kick") ms CPU a second $(range "$tmp/kick")  (the kicker and $ncpu sleepers, $ncpu x 100 wakeups a second)"
echo "  probe 1.37 ms      $(median "$tmp/probe") ms CPU a second $(range "$tmp/probe")  ($ncpu SCHED_FIFO sleepers, $ncpu x 730 wakeups a second)"
echo "  (each run's own getrusage, every thread, over its wall time: starting and stopping its threads included)"
exit 0
