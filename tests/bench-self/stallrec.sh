#!/bin/sh
# bench-self, the stall recorder: what it costs beside a real game, what
# its record weighs, and how fast the record reads. A benchmark: it prints
# figures and fails only when a run fails.
#
#   1. the floor: a thread that only sleeps to 10 ms deadlines, its CPU a
#      wakeup, and one read of its /proc stat file after each wakeup against
#      the same read back to back (tests/tools/sleeper), ROUNDS runs of 5 s;
#   2. the default recipe (dsda-doom, software renderer, a real game under
#      Xvfb) with STALLS=1 for a WINDOW s window, ROUNDS runs (not
#      quieted): from each record's trailer, its own CPU a sample (wakeups
#      included), the sampling itself (light and full rows), the parts of a
#      full row, and the packed record's bytes a sample;
#   3. the reader: the same game recorded at 1 ms for 30 s (as many samples
#      as 5 minutes at 10 ms), decoded by recdump (the reader alone) and by
#      hitchbench stalls (reading, classifying, printing), the median wall
#      time of ROUNDS runs each.
#
# Run by tests/bench-self/bench-self.sh (make bench-self). Environment:
# HB_BUILD (build), HB_BENCH_STALL_ROUNDS (3), HB_BENCH_STALL_WINDOW (30),
# HB_BENCH_RECIPE (dsda-doom).

B=${HB_BUILD:-build}
ROUNDS=${HB_BENCH_STALL_ROUNDS:-3}
WINDOW=${HB_BENCH_STALL_WINDOW:-30}
RECIPE=${HB_BENCH_RECIPE:-dsda-doom}
GOAL_US=10

B=$(cd "$B" 2>/dev/null && pwd) || { echo "stallrec: no build directory" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { # FILE AWK-EXPR
	awk "{ print $2 }" "$1" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() { # FILE AWK-EXPR
	awk "{ print $2 }" "$1" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print "[" lo " .. " hi "]" }'
}
trailer() { # RECORD KEY
	"$B/tests/recdump" "$1" | sed -n "s/^trailer $2=//p"
}

echo "stall recorder (STALLS=1): its cost beside a real game, its record, its reader"
if [ "$(id -u)" != 0 ]; then
	echo "  skipped: the recorder reads the game's wait channel and system call: needs root"
	exit 0
fi

# 1. the floor
: >"$tmp/floor"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	"$B/tests/sleeper" 10 500 /proc/thread-self/stat |
		awk -F= '{ v[$1] = $2 } END { print v["us_per_wakeup"], v["us_per_read_cold"], v["us_per_read_hot"] }' \
		>>"$tmp/floor"
	r=$((r + 1))
done
echo "  the floor on this machine (tests/tools/sleeper, median of $ROUNDS runs of 500 wakeups at 10 ms):"
echo "    a bare wakeup        $(median "$tmp/floor" '$1') us of CPU $(range "$tmp/floor" '$1')  (what any 100 Hz observer pays before it reads anything)"
echo "    one /proc stat read  $(median "$tmp/floor" '$2') us right after a wakeup $(range "$tmp/floor" '$2'), $(median "$tmp/floor" '$3') us back to back $(range "$tmp/floor" '$3')"

# 2. beside the game
: >"$tmp/runs.txt"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if ! "$B/hitchbench" run --no-quieting --no-db --out "$tmp/runs" --warmup 3 --window "$WINDOW" \
		"$RECIPE" --switches "STALLS=1" >"$tmp/run.out" 2>&1; then
		echo "  the $RECIPE run failed:"
		tail -n 5 "$tmp/run.out" | sed 's/^/    /'
		exit 1
	fi
	d=$(ls -d "$tmp"/runs/*/*/ | tail -n 1)
	rec=$d/stalls.rec.zst
	n=$(trailer "$rec" samples)
	bytes=$(stat -c %s "$rec")
	echo "$(trailer "$rec" us_per_sample) $(trailer "$rec" work_us_per_sample)" \
		"$(trailer "$rec" work_us_light) $(trailer "$rec" work_us_full) $(trailer "$rec" full_samples) $n" \
		"$(awk -v b="$bytes" -v n="$n" 'BEGIN { printf "%.2f", b / n }')" \
		"$(sed -n 's/^fps=//p' "$d/result.txt" | awk '{ printf "%.1f", $1 }')" >>"$tmp/runs.txt"
	"$B/tests/recdump" "$rec" | sed -n 's/^trailer cost\.\(.*\)_ns=/\1 /p' >>"$tmp/parts.txt"
	rm -rf "$tmp/runs"
	r=$((r + 1))
done
f=$tmp/runs.txt
echo "  beside $RECIPE ($(sed -n 's/^command = //p' "recipes/$RECIPE.ini" | awk '{ print $1 }'), a ${WINDOW} s window," \
	"$ROUNDS runs, not quieted; medians [min .. max]):"
echo "    own CPU a sample     $(median "$f" '$1') us $(range "$f" '$1')  (its thread's CPU over the run / samples, wakeups included)"
echo "    the sampling itself  $(median "$f" '$2') us $(range "$f" '$2')  (CPU inside the samples; goal <= $GOAL_US us:" \
	"$(awk -v v="$(median "$f" '$2')" -v g="$GOAL_US" 'BEGIN { print (v <= g ? "met" : "NOT met") }'))"
echo "      light rows         $(median "$f" '$3') us $(range "$f" '$3')  (the main thread's stat and schedstat)"
echo "      full rows          $(median "$f" '$4') us $(range "$f" '$4')  ($(median "$f" '$5') of $(median "$f" '$6') samples a run)"
printf '      a full row by part (median over the runs):'
for p in main proc delay psi vmstat disks x kswapd gpu stack; do
	printf ' %s %s' "$p" "$(awk -v p="$p" '$1 == p { print $2 / 1000 }' "$tmp/parts.txt" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", v[int((NR + 1) / 2)] }')"
done
echo " us"
echo "    record               $(median "$f" '$7') bytes a sample $(range "$f" '$7')  (stalls.rec.zst / samples; goal <= 8:" \
	"$(awk -v v="$(median "$f" '$7')" 'BEGIN { print (v <= 8 ? "met" : "NOT met") }'))"
echo "    the game's fps       $(median "$f" '$8') $(range "$f" '$8')"

# 3. the reader, on 30000 samples
if ! "$B/hitchbench" run --no-quieting --no-db --out "$tmp/long" --warmup 3 --window 30 "$RECIPE" \
	--switches "STALLS=1+STALLS_MS=1" >"$tmp/run.out" 2>&1; then
	echo "  the reader: the 1 ms run failed"
	exit 1
fi
d=$(ls -d "$tmp"/long/*/*/ | tail -n 1)
rec=$d/stalls.rec.zst
n=$(trailer "$rec" samples)
: >"$tmp/read.txt"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	t0=$(date +%s%N)
	"$B/tests/recdump" "$rec" >/dev/null || exit 1
	t1=$(date +%s%N)
	"$B/hitchbench" stalls "$d" >/dev/null || exit 1
	t2=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000000 )) $(( (t2 - t1) / 1000000 ))" >>"$tmp/read.txt"
	r=$((r + 1))
done
echo "  reading a record of $n samples ($(stat -c %s "$rec") bytes; 5 minutes at 10 ms is 30000):"
echo "    decode (recdump)     $(median "$tmp/read.txt" '$1') ms $(range "$tmp/read.txt" '$1')  (wall, process start to exit)"
echo "    hitchbench stalls    $(median "$tmp/read.txt" '$2') ms $(range "$tmp/read.txt" '$2')  (decode, classify every sample and stall, print)"
exit 0
