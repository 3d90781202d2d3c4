#!/bin/sh
# bench-quiet: does quieting the machine make runs agree better? A
# benchmark, not a test. The default recipe (dsda-doom software) run
# ROUNDS times quieted (the default quiet profile) and ROUNDS times not,
# interleaved A B A B so that drift hits both, each run a batch of its own
# (quieting is per batch). Prints, for each side, the steady fps (1000 /
# median frame time over the measured window) of every run, their mean,
# standard deviation (n-1) and coefficient of variation (sd / mean), and
# the per-round differences.
#
# Run by 'make bench-quiet' as root (quieting writes /proc/sys) after make
# built everything. It changes the machine while it runs and gives every
# setting back (the thaw journal; 'hitchbench thaw' if it is killed).
#
# Environment: HB_BUILD (default build), HB_QUIET_ROUNDS (5),
# HB_QUIET_WARMUP (5), HB_QUIET_WINDOW (30), HB_QUIET_PROFILE (default).
set -u
B=${HB_BUILD:-build}
ROUNDS=${HB_QUIET_ROUNDS:-5}
WARMUP=${HB_QUIET_WARMUP:-5}
WINDOW=${HB_QUIET_WINDOW:-30}
PROFILE=${HB_QUIET_PROFILE:-default}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

[ "$(id -u)" = 0 ] || { echo "bench-quiet: run as root (quieting writes /proc/sys)" >&2; exit 1; }

one() { # SIDE ARGS...: one run, its steady fps appended to $tmp/SIDE
	side=$1
	shift
	if ! "$B/hitchbench" run dsda-doom software 1 --warmup "$WARMUP" --window "$WINDOW" \
		--out "$tmp/$side" --no-db --quiet "$@" >"$tmp/out" 2>"$tmp/err"; then
		cat "$tmp/err" >&2
		echo "bench-quiet: a $side run failed" >&2
		exit 1
	fi
	d=$(ls -d "$tmp/$side"/*/*/ | tail -n 1)
	sed -n 's/^steady_fps=//p' "$d/result.txt" >>"$tmp/$side.fps"
	idle=$(sed -n 's/^quiet.idle=//p' "$d/bench.txt")
	echo "  round $r $side: steady $(tail -n 1 "$tmp/$side.fps") fps${idle:+ (idle $idle)}"
}

stats() { # SIDE
	awk -v side="$1" '{ v[NR] = $1; s += $1 } END {
		m = s / NR; for (i = 1; i <= NR; i++) q += (v[i] - m) ^ 2
		sd = NR > 1 ? sqrt(q / (NR - 1)) : 0
		printf "%-8s n=%d  steady fps mean %.2f  sd %.2f  CV %.2f %%  [", side, NR, m, sd, 100 * sd / m
		for (i = 1; i <= NR; i++) printf "%s%.1f", (i > 1 ? " " : ""), v[i]
		printf "]\n"
	}' "$tmp/$1.fps"
}

echo "bench-quiet: dsda-doom software, warm-up $WARMUP s, window $WINDOW s, $ROUNDS rounds, quiet profile '$PROFILE'"
for r in $(seq 1 "$ROUNDS"); do
	one quiet --profile "$PROFILE"
	one plain --no-quieting
done
echo "steady fps = 1000 / median frame time (nearest-rank) over each run's measured window"
stats quiet
stats plain
# the machine drifts between rounds (both sides with it): the per-round
# difference says what quieting changed, apart from the drift
paste "$tmp/quiet.fps" "$tmp/plain.fps" | awk '{ d[NR] = $1 - $2; s += d[NR] } END {
	m = s / NR; for (i = 1; i <= NR; i++) q += (d[i] - m) ^ 2
	printf "quiet - plain, per round: mean %+.2f fps, sd %.2f  [", m, (NR > 1 ? sqrt(q / (NR - 1)) : 0)
	for (i = 1; i <= NR; i++) printf "%s%+.1f", (i > 1 ? " " : ""), d[i]
	printf "]\n"
}'
