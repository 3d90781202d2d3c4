#!/bin/sh
# bench-self, Vulkan in a real game: the hitchbench layer beside MangoHud's
# on the presents of Warzone 2100 (recipes/warzone2100.ini, its Vulkan
# backend on lavapipe). A benchmark: it prints figures and fails only when
# the run fails or the two tools disagree on the window's frames.
#
# One run through the normal runner of the recipe with `frames = mangohud`
# instead of `vulkan` (a copy in a temporary directory): the hitchbench
# layer records every present (kept as hook-frames.bin) and MangoHud's
# layer logs every frame (log_interval=0; its log becomes frames.bin),
# both on the same presents of the same process. It prints:
#   - the frames each counted over the run's measured window (hitchbench
#     frames --window on each file: the window is the runner's, from
#     bench.txt);
#   - the hitchbench layer's own cost a present as it measured it (one
#     present in 64, bench.txt hook_cost_ns_per_frame);
#   - each layer's own code a present, from perf sampling the game's CPU
#     clock (every PERIOD ns of CPU) through the middle of the window: the
#     samples in the layer's library x the period / the presents the hook
#     recorded while perf ran (the times around perf are CLOCK_MONOTONIC,
#     the frame file's clock), +- sqrt(samples) x the period / the presents
#     (a count's own uncertainty). At a game's frame rate a layer runs
#     cold (its code and data out of the caches after a frame's work), so
#     it costs more a present than in vulkan.sh's hot loop.
# The interference watcher is off for the run (INTF=0): perf and this
# script are processes outside the run, on purpose.
#
# Run by tests/bench-self/bench-self.sh, or alone from the top of the tree
# after make all tests. Skipped with a line saying why without the game,
# MangoHud, lavapipe, perf or the game user. Environment: HB_BUILD (build),
# HB_BENCH_VKGAME_WARMUP (10 s), HB_BENCH_VKGAME_WINDOW (30 s),
# HB_BENCH_VKGAME_PERIOD_NS (100000), HB_BENCH_VKGAME_VARIANT (low).

B=${HB_BUILD:-build}
WARMUP=${HB_BENCH_VKGAME_WARMUP:-10}
WINDOW=${HB_BENCH_VKGAME_WINDOW:-30}
PERIOD_NS=${HB_BENCH_VKGAME_PERIOD_NS:-100000}
VARIANT=${HB_BENCH_VKGAME_VARIANT:-low}
title="vulkan in a game (warzone2100 $VARIANT)"

die() {
	echo "bench-self: $title: $*" >&2
	exit 1
}
skip() {
	echo "$title: skipped: $*"
	exit 0
}

B=$(cd "$B" 2>/dev/null && pwd) || die "no build directory (run make first)"
HB=$B/hitchbench
MKFRAMES=$B/tests/mkframes
[ -x /usr/games/warzone2100 ] || skip "warzone2100 is not installed (sh scripts/deps.sh ensure)"
ls /usr/lib/*/mangohud/libMangoHud.so >/dev/null 2>&1 || skip "MangoHud is not installed"
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || skip "no lavapipe ICD (mesa-vulkan-drivers)"
command -v perf >/dev/null 2>&1 || skip "perf is not installed (linux-perf)"
[ "$(id -u)" = 0 ] || skip "perf must sample another user's game: root only"
getent passwd hitchbench >/dev/null || skip "no unprivileged game user (sh scripts/deps.sh ensure)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hitchbench-vkgame.XXXXXX") || die "cannot make a directory"
run_pid=
cleanup() {
	[ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
	[ -n "${HB_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mono_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}

recipes=$(dirname "$0")/../../recipes
cp -R "$recipes/warzone2100" "$tmp/warzone2100"
sed 's/^frames = vulkan$/frames = mangohud/' "$recipes/warzone2100.ini" >"$tmp/warzone2100.ini"
grep -q '^frames = mangohud$' "$tmp/warzone2100.ini" || die "the recipe has no 'frames = vulkan' line to change"

# warm-up at least 2 s: MangoHud logs from 1 s after it loads
"$HB" run --no-quieting --switches INTF=0 "$tmp/warzone2100.ini" "$VARIANT" 1 --warmup "$WARMUP" \
	--window "$WINDOW" --out "$tmp/runs" --no-db >"$tmp/out" 2>&1 &
run_pid=$!

# the game's process, then perf through the middle of the window: from
# 3 s after the warm-up's end (the load is 1-4 s) to 3 s before its end.
# The recipe's prepare runs the game too (it makes the save, 5 s): the
# first frame is in game.log's run, so wait for that, then take the
# newest process of the game.
i=0
while ! grep -q 'first frame' "$tmp/out" 2>/dev/null && [ $i -lt 1200 ]; do
	kill -0 "$run_pid" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
grep -q 'first frame' "$tmp/out" || { cat "$tmp/out" >&2; die "the game did not start"; }
sleep $((WARMUP + 3))
pid=$(pgrep -n -u hitchbench -x warzone2100)
[ -n "$pid" ] || { cat "$tmp/out" >&2; die "the game is not running"; }
t0=$(mono_ns)
perf record -q -e cpu-clock -c "$PERIOD_NS" -p "$pid" -o "$tmp/perf.data" -- sleep $((WINDOW - 6)) \
	>"$tmp/perf.out" 2>&1 || die "perf record failed: $(tail -n 1 "$tmp/perf.out")"
t1=$(mono_ns)
wait "$run_pid" || { cat "$tmp/out" >&2; die "the run failed"; }
run_pid=

rundir=$(ls -d "$tmp"/runs/*/*-"$VARIANT"@nointf)
bench=$rundir/bench.txt
[ "$(sed -n 's/^status=//p' "$bench")" = ok ] || { cat "$tmp/out" >&2; die "the run is not ok"; }
[ -s "$rundir/hook-frames.bin" ] || die "no hook-frames.bin: the layer's frames were not kept"

# window_frames FRAMEFILE: its frames in the run's window
window_frames() {
	mkdir -p "$tmp/count"
	cp "$bench" "$tmp/count/bench.txt"
	cp "$1" "$tmp/count/frames.bin"
	"$HB" frames --window "$tmp/count" | grep -v '^#' | awk -F'\t' '$NF == 1' | wc -l
}
from_log=$(window_frames "$rundir/frames.bin")
from_hook=$(window_frames "$rundir/hook-frames.bin")
presents=$("$MKFRAMES" --dump "$rundir/hook-frames.bin" |
	awk -v a="$t0" -v b="$t1" '$1 > a && $1 <= b { n++ } END { print n + 0 }')
[ "$presents" -gt 0 ] || die "no present recorded while perf ran"
perf report -i "$tmp/perf.data" --sort dso --stdio -n -q 2>/dev/null >"$tmp/perf.dso"
samples() {
	awk -v p="$1" '$3 ~ p { n += $2 } END { print n + 0 }' "$tmp/perf.dso"
}
# per SAMPLES: ns a present, +- the counting error (a count of N
# independent samples is uncertain by about sqrt(N))
per() {
	awk -v n="$1" -v p="$PERIOD_NS" -v k="$presents" \
		'BEGIN { printf "%8.0f +- %.0f", n * p / k, sqrt(n) * p / k }'
}
hb_n=$(samples 'hitchbench-hook[.]so')
mh_n=$(samples 'libMangoHud[.]so')
all_n=$(awk '{ n += $2 } END { print n + 0 }' "$tmp/perf.dso")
fps=$(sed -n 's/^fps=//p' "$rundir/result.txt")

echo "$title: one run, frames = mangohud (the hitchbench layer and MangoHud's on the same presents),"
echo "warm-up $WARMUP s, window $WINDOW s, $fps fps:"
echo "  frames in the window   $from_hook by the hitchbench layer, $from_log by MangoHud's log"
echo "  hitchbench says        $(sed -n 's/^hook_cost_ns_per_frame=//p' "$bench") ns a present" \
	"(its own time, mean of $(sed -n 's/^hook_cost_samples=//p' "$bench") timed presents)"
echo "  sampled by perf        $presents presents over $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }') s" \
	"of the window, the game's CPU every $PERIOD_NS ns ($all_n samples in all;"
echo "  the sampling itself slows the game: the fps above is not the recipe's):"
echo "    hitchbench           $(per "$hb_n") ns/present   ($hb_n samples in hitchbench-hook.so)"
echo "    MangoHud             $(per "$mh_n") ns/present   ($mh_n samples in libMangoHud.so)"
echo "    (a sample is charged to the library its instruction is in: a layer's calls into libc,"
echo "    libstdc++ or the vDSO are not in its figure)"
d=$((from_log - from_hook))
[ "${d#-}" -le $((from_hook / 50 + 1)) ] || die "the log counts $from_log frames in the window, the layer $from_hook"
exit 0
