#!/bin/sh
# bench-self: what the frame hook costs a game per present. A benchmark,
# not a test: it prints figures and fails only if a run fails or the hook
# recorded the wrong number of frames.
#
# Run by 'make bench-self' from the top of the tree, after make built
# everything (this script builds nothing). Two loops, each timed unhooked
# and hooked (LD_PRELOAD=hitchbench-hook.so, recording into a frame file in
# /dev/shm), interleaved A B A B ... over ROUNDS rounds so drift hits both:
#   stub  present --stub: SDL_GL_SwapWindow of the stub library, which calls
#         glXSwapBuffers as SDL does; the hook's cost with nothing around it
#   glx   present --glx: clear and glXSwapBuffers a small window on a
#         private Xvfb (Mesa llvmpipe); skipped when Xvfb is missing
# Then the same for Vulkan, a script with its own header (vulkan.sh): the
# hitchbench Vulkan layer and MangoHud's logging every frame, beside a bare
# run, on one vkQueuePresentKHR loop (lavapipe on its own Xvfb); and in a
# real game (vulkan-game.sh): both layers on Warzone 2100's presents, the
# frames each counted over the window and each one's cost a present.
# Figures are medians over the rounds with [min .. max]; the added time is
# the median of the per-round differences; the hook's own figure is what it
# measured itself (frame file header: cost_ns / cost_samples).
#
# The sensor sampler is an observer too: its own CPU time per sample, from
# the trailer of its file, at the real 500 ms period and at 10 ms (enough
# samples for a steady figure), on this machine's root and on the
# node_exporter fixture root (many sensors: a desktop's worth).
#
# The analysis: `hitchbench report` over a made-up run of a million frames
# (mkframes --synth, a fixed seed) against tests/bench-self/report-pandas.py,
# the same numbers computed with pandas from the same present times as CSV.
# Each is timed from the shell starting it to its exit (reading its file
# included, as a user waits for it), interleaved hitchbench, pandas, ... over
# the rounds; peak RSS is GNU time's %M. Both must print the same numbers to
# hitchbench's digits, or bench-self fails.
#
# Last, scripts with their own headers: the stall recorder
# (stallrec.sh), the profile recorder flipped on and off in one run
# (profile.sh), the interference watcher with ~500 processes on the
# machine (intfwatch.sh), the waker's and the probe's own CPU a second
# (waker.sh), and the footprint of a real run with every observer on: each
# process's peak RSS and CPU (footprint.sh).
#
# And the paired sequential test of 'hitchbench ab' (tests/tools/seqsim.c):
# simulated A/A and A/B sequences at a 3% effect, per noise model and
# scale, with the pairs it took to stop (mean, median, 90th percentile):
# what a verdict costs in runs, by arithmetic alone.
#
# Environment: HB_BUILD (default build), HB_BENCH_ROUNDS (7),
# HB_BENCH_STUB_FRAMES (1000000), HB_BENCH_GLX_FRAMES (5000),
# HB_BENCH_SAMPLER_ROUNDS (3), HB_BENCH_REPORT_FRAMES (1000000),
# HB_BENCH_REPORT_ROUNDS (HB_BENCH_ROUNDS), HB_PYTHON (/usr/bin/python3: the
# Debian interpreter python3-pandas is installed for), HB_TESTDATA
# (tests/fixtures/testdata).

B=${HB_BUILD:-build}
ROUNDS=${HB_BENCH_ROUNDS:-7}
STUB_FRAMES=${HB_BENCH_STUB_FRAMES:-1000000}
GLX_FRAMES=${HB_BENCH_GLX_FRAMES:-5000}
GLX_WARMUP=100
SAMPLER_ROUNDS=${HB_BENCH_SAMPLER_ROUNDS:-3}
REPORT_FRAMES=${HB_BENCH_REPORT_FRAMES:-1000000}
REPORT_ROUNDS=${HB_BENCH_REPORT_ROUNDS:-$ROUNDS}
PYTHON=${HB_PYTHON:-/usr/bin/python3}
REPORT_GOAL=10
TESTDATA=${HB_TESTDATA:-$(dirname "$0")/../fixtures/testdata}

die() {
	echo "bench-self: $*" >&2
	exit 1
}

B=$(cd "$B" 2>/dev/null && pwd) || die "no build directory (run make first)"
HOOK=$B/hitchbench-hook.so
PRESENT=$B/tests/present
MKFRAMES=$B/tests/mkframes
for f in "$HOOK" "$PRESENT" "$MKFRAMES" "$B/tests/libhbstub.so"; do
	[ -e "$f" ] || die "'$f' is not built (make all tests)"
done

shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$shm/hitchbench-self.XXXXXX") || die "cannot make a directory in $shm"
xvfb_pid=
cleanup() {
	if [ -n "$xvfb_pid" ]; then
		kill "$xvfb_pid" 2>/dev/null
		wait "$xvfb_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bad=0

# field TEXT KEY: the value of KEY=value in a line or lines of TEXT.
field() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# One unhooked and one hooked run per round; a line per round in $tmp/$1:
#   unhooked_ns hooked_ns hook_cost_ns_per_sample
# and a check that every hooked run recorded each present once.
measure() { # name presents present-args...
	name=$1
	presents=$2
	shift 2
	: >"$tmp/$name"
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		a=$("$PRESENT" "$@") || die "$name: present $* failed"
		f=$tmp/$name.frames
		rm -f "$f"
		"$MKFRAMES" --capacity "$presents" "$f" || die "$name: cannot create '$f'"
		b=$(env HITCHBENCH_FRAMES="$f" LD_PRELOAD="$HOOK" "$PRESENT" "$@") ||
			die "$name: hooked present $* failed"
		s=$("$MKFRAMES" --stat "$f") || die "$name: cannot read '$f'"
		rec=$(field "$s" records)
		srcs=$(printf '%s\n' "$s" | grep -c '^src_')
		if [ "$rec" != "$presents" ] || [ "$srcs" != 1 ] || [ "$(field "$s" dropped)" != 0 ]; then
			echo "bench-self: $name round $r: $presents presents but the hook recorded:" \
				$(printf '%s\n' "$s" | grep -e '^records=' -e '^dropped=' -e '^src_') >&2
			bad=1
		fi
		src=$(printf '%s\n' "$s" | sed -n 's/^src_\(.*\)=.*/\1/p')
		echo "$(field "$a" ns_per_frame) $(field "$b" ns_per_frame) $(field "$s" cost_ns_per_sample)" \
			>>"$tmp/$name"
		r=$((r + 1))
	done
	echo "$src" >"$tmp/$name.src"
}

# stat FILE AWK-EXPR: "median [min .. max]" of the expression over the rounds.
stat() {
	awk "{ print $2 }" "$1" | sort -g | awk '
		{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%8.1f  [%.1f .. %.1f]", m, v[1], v[NR]
		}'
}
median() {
	awk "{ print $2 }" "$1" | sort -g | awk '
		{ v[NR] = $1 }
		END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

report() { # name title presents-per-run note
	f=$tmp/$1
	echo "$2"
	echo "  unhooked  $(stat "$f" '$1') ns/frame"
	echo "  hooked    $(stat "$f" '$2') ns/frame"
	echo "  added     $(stat "$f" '$2 - $1') ns/frame   (median of the $ROUNDS per-round differences)"
	echo "  ratio     $(awk -v a="$(median "$f" '$1')" -v b="$(median "$f" '$2')" \
		'BEGIN { printf "%8.3f", b / a }')             (median hooked / median unhooked)"
	echo "  hook says $(stat "$f" '$3') ns/present (its own time outside the real call, one present in 64)"
	added=$(median "$f" '$2 - $1')
	spread=$(awk '{ print $1 }' "$f" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print hi - lo }')
	if awk -v a="$added" -v s="$spread" 'BEGIN { exit !((a < 0 ? -a : a) < s / 2) }'; then
		echo "  (the added time is inside the unhooked runs' own spread, $spread ns: too small to resolve here)"
	fi
	if [ "$bad" = 0 ]; then
		echo "  recorded  exactly $3 frames in each hooked run, all from $(cat "$f.src")$4"
	fi
}

echo "hitchbench bench-self: the frame hook's cost per present"
echo "medians over $ROUNDS interleaved rounds (unhooked, hooked, unhooked, hooked, ...), [min .. max]"
echo "frame files in $shm; $(nproc) CPUs; $(uname -sr)"
echo

measure stub "$STUB_FRAMES" --stub --frames "$STUB_FRAMES"
report stub "stub present ($STUB_FRAMES presents a run: SDL_GL_SwapWindow -> glXSwapBuffers via dlsym):" \
	"$STUB_FRAMES" ": the nested glXSwapBuffers is not counted again"
echo

if ! command -v Xvfb >/dev/null 2>&1; then
	echo "glx present: skipped: Xvfb is not installed"
else
	# Xvfb picks a free display and writes its number to fd 3 when ready.
	Xvfb -displayfd 3 -nolisten tcp -screen 0 640x480x24 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
	xvfb_pid=$!
	i=0
	while ! grep -q '^[0-9][0-9]*$' "$tmp/display" 2>/dev/null && [ $i -lt 100 ]; do
		kill -0 "$xvfb_pid" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	if ! grep -q '^[0-9][0-9]*$' "$tmp/display" 2>/dev/null; then
		echo "glx present: skipped: Xvfb did not start: $(tail -1 "$tmp/xvfb.log")"
	else
		DISPLAY=:$(cat "$tmp/display")
		export DISPLAY
		measure glx $((GLX_FRAMES + GLX_WARMUP)) --glx --size 64x64 --frames "$GLX_FRAMES" \
			--warmup "$GLX_WARMUP"
		report glx "glx present on Xvfb, llvmpipe, 64x64 ($GLX_FRAMES timed presents a run after $GLX_WARMUP):" \
			$((GLX_FRAMES + GLX_WARMUP)) " (the warm-up presents included)"
	fi
fi

echo
sh tests/bench-self/vulkan.sh || die "the Vulkan layer's benchmark failed"
echo
sh tests/bench-self/vulkan-game.sh || die "the Vulkan layers' benchmark in a game failed"

# The runner is an observer too: its own CPU time while it watches a game
# (bench.txt runner_cpu_ms_per_s), on the fake game for a 10 s window.
echo
if [ "$(id -u)" = 0 ] && ! getent passwd hitchbench >/dev/null && [ -z "${SUDO_USER:-}" ]; then
	echo "runner: skipped: no unprivileged game user (sh scripts/deps.sh ensure)"
else
	mkdir -p "$tmp/game" && chmod 755 "$tmp" "$tmp/game"
	cp "$B/tests/fakegame" "$B/tests/libhbstub.so" "$tmp/game/"
	chmod -R a+rX "$tmp/game"
	printf '[recipe]\nname = fake\ncommand = %s/game/fakegame --fps 100\nenv = HB_STUB=%s/game/libhbstub.so\nwarmup = 1\nwindow = 10\nstop_grace = 0.5\n' \
		"$tmp" "$tmp" >"$tmp/fake.ini"
	if "$B/hitchbench" run --no-quieting --display :99 --no-db --out "$tmp/runs" "$tmp/fake.ini" >/dev/null 2>&1; then
		b=$(ls -d "$tmp"/runs/*/*/)bench.txt
		echo "runner watching a 100 fps game for a 10 s window (one run):"
		printf '  runner      %s ms of CPU a second (%s s in all)\n' \
			"$(sed -n 's/^runner_cpu_ms_per_s=//p' "$b")" "$(sed -n 's/^runner_cpu_s=//p' "$b")"
		printf '  hook says   %s ns a frame (mean of %s timed presents)\n' \
			"$(sed -n 's/^hook_cost_ns_per_frame=//p' "$b")" "$(sed -n 's/^hook_cost_samples=//p' "$b")"
	else
		echo "runner: the fake game's run failed"
	fi
fi

# The sensor sampler: median over the rounds of the trailer's us_per_sample.
sampler_round() { # root period-ms seconds -> us_per_sample
	HITCHBENCH_ROOT=$1 "$B/hitchbench-sampler" --out "$tmp/s.zst" --period-ms "$2" --duration "$3" \
		2>/dev/null || return 1
	zstdcat "$tmp/s.zst" | tail -n 1 | tr ' ' '\n' | sed -n 's/^us_per_sample=//p'
}
sampler_bench() { # title root
	echo "$1"
	for spec in "500 3" "10 2"; do
		set -- "$1" "$2" $spec
		: >"$tmp/sampler"
		r=1
		while [ "$r" -le "$SAMPLER_ROUNDS" ]; do
			sampler_round "$2" "$3" "$4" >>"$tmp/sampler" || { echo "  the sampler failed"; return; }
			r=$((r + 1))
		done
		printf '  every %3s ms: %s us of CPU a sample  (median of %s runs of %s s, [min .. max] %s)\n' \
			"$3" "$(median "$tmp/sampler" '$1')" "$SAMPLER_ROUNDS" "$4" \
			"$(sort -g "$tmp/sampler" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print "[" lo " .. " hi "]" }')"
	done
}
echo
if [ ! -x "$B/hitchbench-sampler" ] || ! command -v zstdcat >/dev/null 2>&1; then
	echo "sampler: skipped: hitchbench-sampler or zstdcat is missing"
else
	n=$(HITCHBENCH_ROOT=/ "$B/hitchbench-sampler" --once --period-ms 10 | grep -vc '^#')
	sampler_bench "sensor sampler on this machine's root ($n columns), its own thread CPU time:" /
	if [ -d "$TESTDATA/sysfs/node_exporter/sys" ]; then
		# symlinks are links in the checkout; a copy made without them
		# (core.symlinks=false) holds small files naming the target
		mkdir -p "$tmp/root"
		cp -R "$TESTDATA/sysfs/node_exporter/sys" "$TESTDATA/procfs/node_exporter/proc" "$tmp/root/"
		chmod -R u+w "$tmp/root"
		find "$tmp/root/sys" -type f -size -300c | while read -r f; do
			t=$(cat "$f")
			case $t in ../*) [ "$(wc -l <"$f")" = 0 ] && rm "$f" && ln -s "$t" "$f" ;; esac
		done
		n=$(HITCHBENCH_ROOT=$tmp/root "$B/hitchbench-sampler" --once --period-ms 10 | grep -vc '^#')
		sampler_bench "sensor sampler on the node_exporter fixture root ($n columns):" "$tmp/root"
	else
		echo "sampler on the fixture root: skipped: no $TESTDATA/sysfs/node_exporter"
	fi
fi

# hitchbench report against pandas on a million frames.
# timed OUT RSS CMD...: runs CMD with stdout to OUT and GNU time's peak RSS
# (KB) in RSS; prints the wall time in ms, from the shell forking it to its
# exit (the fork and exec of /usr/bin/time, about a millisecond, in both).
timed() {
	out=$1
	rss=$2
	shift 2
	t0=$(date +%s%N)
	/usr/bin/time -f %M -o "$rss" "$@" >"$out" || return 1
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) / 1e6 }'
}
# hitchbench's CSV row of the run as name=value lines, the metrics only
# (the columns after row,stat,run,game,variant,status,n).
csv_metrics() {
	awk -F, -v run="$2" 'NR == 1 { for (i = 8; i <= NF; i++) h[i] = $i }
		$1 == "run" && $3 == run { for (i = 8; i <= NF; i++) print h[i] "=" $i }' "$1"
}
report_bench() {
	rd=$tmp/report/synthetic
	mkdir -p "$rd"
	"$MKFRAMES" --synth $((REPORT_FRAMES + 1)) --seed 1 --csv "$tmp/report/frames.csv" "$rd/frames.bin" ||
		die "report: mkframes --synth failed"
	s=$("$MKFRAMES" --stat "$rd/frames.bin") || die "report: cannot read '$rd/frames.bin'"
	# the window covers every frame: from the first present to the last
	printf 'format=1\nrun_id=bench-self-report\ngame=synthetic\nvariant=seed1\nstatus=ok\nwindow_start_ns=%s\nwindow_end_ns=%s\n' \
		"$(field "$s" first_ns)" "$(field "$s" last_ns)" >"$rd/bench.txt"
	: >"$tmp/report.rounds"
	r=1
	while [ "$r" -le "$REPORT_ROUNDS" ]; do
		a=$(timed "$tmp/hb.csv" "$tmp/hb.rss" "$B/hitchbench" report --format csv "$rd") ||
			die "report: hitchbench report failed"
		b=$(timed "$tmp/pd.out" "$tmp/pd.rss" "$PYTHON" tests/bench-self/report-pandas.py \
			"$rd/bench.txt" "$tmp/report/frames.csv") || die "report: report-pandas.py failed"
		# the metrics the pandas script computes (hitchbench has more), the
		# CSV's full precision rounded to the decimals the script prints
		csv_metrics "$tmp/hb.csv" synthetic |
			awk -F= 'NR == FNR { split($2, p, "."); d[$1] = length(p[2]); next }
				($1 in d) { printf("%s=%." d[$1] "f\n", $1, $2) }' "$tmp/pd.out" - >"$tmp/hb.out"
		[ -s "$tmp/hb.out" ] || die "report: no row for the run in hitchbench's CSV"
		if ! cmp -s "$tmp/hb.out" "$tmp/pd.out"; then
			echo "report: hitchbench and pandas differ (round $r):" >&2
			paste "$tmp/hb.out" "$tmp/pd.out" >&2
			die "report: the two computed different numbers"
		fi
		echo "$a $b $(tail -n 1 "$tmp/hb.rss") $(tail -n 1 "$tmp/pd.rss")" >>"$tmp/report.rounds"
		r=$((r + 1))
	done
	f=$tmp/report.rounds
	ratio=$(awk -v a="$(median "$f" '$1')" -v b="$(median "$f" '$2')" 'BEGIN { printf "%.1f", b / a }')
	echo "report over $REPORT_FRAMES frames: hitchbench report --format csv against pandas (report-pandas.py):"
	echo "  (a made-up run, mkframes --synth seed 1: about 60 fps, 1 frame in 500 a 30-80 ms hitch,"
	echo "  1 in 20000 a 100-600 ms stall; frames.bin and the same present times as CSV, both in $shm)"
	echo "  hitchbench $(stat "$f" '$1') ms   wall time, process start to exit (reading the file included)"
	echo "  pandas     $(stat "$f" '$2') ms   the same from its CSV"
	echo "  ratio      $(printf '%8s' "$ratio")x  (median pandas / median hitchbench; per round $(stat "$f" '$2 / $1' |
		sed 's/^ *[^ ]* *//'); goal >= ${REPORT_GOAL}x:" \
		"$(awk -v r="$ratio" -v g="$REPORT_GOAL" 'BEGIN { print (r >= g ? "met" : "NOT met") }'))"
	echo "  hitchbench $(stat "$f" '$3 / 1024') MiB  peak RSS (GNU time %M: the largest resident set)"
	echo "  pandas     $(stat "$f" '$4 / 1024') MiB"
	echo "  the same numbers in every round, to hitchbench's digits (metric  hitchbench  pandas):"
	paste -d= "$tmp/hb.out" "$tmp/pd.out" | awk -F= '{ printf "    %-11s %12s %12s\n", $1, $2, $4 }'
}
echo
if [ ! -x /usr/bin/time ]; then
	echo "report against pandas: skipped: no /usr/bin/time (sh scripts/deps.sh ensure bench)"
elif ! "$PYTHON" -c 'import numpy, pandas' 2>/dev/null; then
	echo "report against pandas: skipped: $PYTHON cannot import pandas (sh scripts/deps.sh ensure bench)"
else
	report_bench
fi

echo
sh tests/bench-self/stallrec.sh || die "the stall recorder's benchmark failed"

echo
sh tests/bench-self/stallbpf.sh || die "the BPF stall recorder's benchmark failed"

echo
sh tests/bench-self/profile.sh || die "the profile recorder's benchmark failed"

echo
sh tests/bench-self/intfwatch.sh || die "the interference watcher's benchmark failed"

echo
sh tests/bench-self/waker.sh || die "the waker's benchmark failed"

echo
sh tests/bench-self/footprint.sh || die "the footprint benchmark failed"

echo
sh tests/bench-self/lab-db.sh || die "the lab database's benchmark failed"

echo
"$B/tests/seqsim" 2000 0.03 200 || die "the sequential test's simulation failed"

[ "$bad" = 0 ] || die "the hook did not record one frame per present (see above)"
exit 0
