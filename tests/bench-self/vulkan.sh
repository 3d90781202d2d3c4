#!/bin/sh
# bench-self, Vulkan: what the hitchbench Vulkan layer costs a present,
# beside MangoHud's Vulkan layer logging every frame, on the same loop.
# A benchmark: it prints figures and fails only when a run fails or the
# layer recorded the wrong number of frames.
#
# The loop is tests/tools/vkpresent: a swapchain on a private Xvfb
# (lavapipe), cleared and presented as fast as it goes. Each round runs
# it three times, one arm after the other, so drift hits all three, the
# order rotated from round to round:
#   bare        no layer of ours nor MangoHud's (the implicit layers every
#               arm has, Mesa's device_select here, stay)
#   hitchbench  HITCHBENCH_VULKAN=1, the uninstalled layer's manifest
#               (XDG_DATA_HOME=build/share), recording into a frame file in
#               /dev/shm; its own cost is what it measured itself (frame
#               file header: cost_ns / cost_samples)
#   MangoHud    MANGOHUD=1, no_display, logging every frame
#               (log_interval=0) to a CSV file
# Every arm has the same environment (a fresh HOME, XDG_DATA_HOME=build/share)
# but for its layer's enable variable, and the same loop: a warm-up of at
# least 1.5 s, then the timed frames. MangoHud starts its log a second
# after it loads, so its log covers the timed frames, and writes the log
# only at a present after log_duration is over: its arm presents on,
# untimed, for that long after the timed frames (--tail-ms).
# Figures are medians over the rounds with [min .. max]; the added time is
# the median of the per-round differences from the bare arm.
#
# Checked in every round: the layer recorded every present of its run
# (vkpresent's presents=), all from vkQueuePresentKHR, in one VkInstance,
# and one swapchain created and destroyed; MangoHud's log has a row per
# frame (the rows' frame times add up to the time the log spans, short
# only by their truncation to whole microseconds). After the rounds, one
# run under the layer recreates its swapchain every FRAMES/5 presents,
# alternating its extent: the layer must log each creation and
# destruction with the extent it had.
#
# Both layers' own code on the same presents: one run with both enabled
# under perf (cpu-clock samples), each layer's samples in its library per
# present; skipped without perf or when it cannot sample.
#
# The layer alone, without a driver's present under it: tests/tools/vkchain
# (a stand-in loader and driver around the layer, no GPU), presenting
# straight to its stub driver (--direct) and through the layer, interleaved;
# each layer run must record every present and allocate nothing in the loop.
#
# Skipped with a line saying why without xvfb-run or when vkpresent cannot
# present (no Vulkan driver); an arm is skipped without its layer (no
# build/share manifest, MangoHud not installed), the layer-alone part
# without vkchain.
#
# Run by tests/bench-self/bench-self.sh (make bench-self), or alone from the
# top of the tree after make all tests; it runs itself again under xvfb-run.
# Environment: HB_BUILD (build), HB_BENCH_ROUNDS (7), HB_BENCH_VK_FRAMES
# (5000 timed presents a run), HB_BENCH_VK_WARMUP_MS (1500),
# HB_BENCH_VK_SIZE (64x64), HB_BENCH_VK_MODE (immediate; mailbox or fifo),
# HB_BENCH_VK_LOG_S (MangoHud's log_duration, 3 s: the timed frames must
# fit in it after the warm-up), HB_BENCH_VK_CHAIN_FRAMES (1000000),
# HB_BENCH_VK_PERF_FRAMES (40000), HB_BENCH_VK_PERF_PERIOD_NS (100000) and
# HB_BENCH_VK_PERF_LOG_S (10) for the sampled run of both layers.

B=${HB_BUILD:-build}
ROUNDS=${HB_BENCH_ROUNDS:-7}
FRAMES=${HB_BENCH_VK_FRAMES:-5000}
WARMUP_MS=${HB_BENCH_VK_WARMUP_MS:-1500}
SIZE=${HB_BENCH_VK_SIZE:-64x64}
MODE=${HB_BENCH_VK_MODE:-immediate}
LOG_S=${HB_BENCH_VK_LOG_S:-3}
CHAIN_FRAMES=${HB_BENCH_VK_CHAIN_FRAMES:-1000000}

die() {
	echo "bench-self: vulkan: $*" >&2
	exit 1
}

B=$(cd "$B" 2>/dev/null && pwd) || die "no build directory (run make first)"
VKPRESENT=$B/tests/vkpresent
VKCHAIN=$B/tests/vkchain
PERF_FRAMES=${HB_BENCH_VK_PERF_FRAMES:-40000}
PERF_PERIOD_NS=${HB_BENCH_VK_PERF_PERIOD_NS:-100000}
PERF_LOG_S=${HB_BENCH_VK_PERF_LOG_S:-10}
MKFRAMES=$B/tests/mkframes
MANIFEST=$B/share/vulkan/implicit_layer.d/VkLayer_hitchbench.json
for f in "$VKPRESENT" "$MKFRAMES"; do
	[ -x "$f" ] || die "'$f' is not built (make all tests)"
done

title="vulkan present on Xvfb"
# The measurement runs under a private X server: this script again, under
# xvfb-run (HB_VK_XVFB=1 says it is there).
if [ -z "${HB_VK_XVFB:-}" ]; then
	if ! command -v xvfb-run >/dev/null 2>&1; then
		echo "$title: skipped: xvfb-run is not installed (apt-get install xvfb)"
		exit 0
	fi
	HB_VK_XVFB=1 exec xvfb-run -a -s "-nolisten tcp -screen 0 640x480x24" sh "$0" "$@"
fi

shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$shm/hitchbench-vulkan.XXXXXX") || die "cannot make a directory in $shm"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# value TEXT KEY: the value of KEY=value in TEXT (words or lines).
value() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# figures FILE EXPR [DIGITS]: "median [min .. max]" of an awk expression
# over the rows of FILE, DIGITS (1) after the point; middle FILE EXPR: the
# median alone.
figures() {
	awk "{ print $2 }" "$1" | sort -g |
		awk -v d="${3:-1}" '{ x[NR] = $1 } END {
			m = (x[int((NR + 1) / 2)] + x[int(NR / 2) + 1]) / 2
			printf "%9." d "f  [%." d "f .. %." d "f]", m, x[1], x[NR] }'
}
middle() {
	figures "$1" "$2" | awk '{ print $1 }'
}

# The environment every arm shares; an arm adds its enable variable.
mkdir -p "$tmp/home"
loop() { # extra-vkpresent-args... (the arm's variables before, as env arguments)
	env -u MANGOHUD -u MANGOHUD_CONFIG -u MANGOHUD_CONFIGFILE -u DISABLE_MANGOHUD -u HITCHBENCH_VULKAN \
		-u HITCHBENCH_VULKAN_DISABLE -u HITCHBENCH_FRAMES -u LD_PRELOAD HOME="$tmp/home" XDG_DATA_HOME="$B/share" "$@"
}
LOOP_ARGS="--frames $FRAMES --warmup 100 --warmup-ms $WARMUP_MS --size $SIZE --mode $MODE"

# A first run tells whether Vulkan presents here at all.
if ! probe=$(loop "$VKPRESENT" --frames 10 --size "$SIZE" --mode "$MODE" 2>"$tmp/probe.err"); then
	echo "$title: skipped: vkpresent cannot present here: $(tail -n 1 "$tmp/probe.err")"
	exit 0
fi
device=$(loop vulkaninfo --summary 2>/dev/null | sed -n 's/^[[:space:]]*deviceName *= *//p' | head -n 1)
mode=$(value "$probe" mode)

have_hb=1
why_no_hb=
if [ ! -e "$MANIFEST" ] || [ ! -e "$B/hitchbench-hook.so" ]; then
	have_hb=0
	why_no_hb="no layer manifest '$MANIFEST' (make all builds it with the hook)"
fi
have_mh=0
why_no_mh="MangoHud's Vulkan layer is not installed (apt-get install mangohud)"
for m in /usr/share/vulkan/implicit_layer.d/MangoHud*.json /usr/local/share/vulkan/implicit_layer.d/MangoHud*.json \
	/etc/vulkan/implicit_layer.d/MangoHud*.json; do
	[ -e "$m" ] && have_mh=1
done

# frame_check STAT PRESENTS SWAPCHAINS: "" when the layer recorded each of
# PRESENTS presents once, from vkQueuePresentKHR, in one instance, and
# SWAPCHAINS creations and destructions; else what it recorded.
frame_check() {
	creates=$(printf '%s\n' "$1" | grep -c '^event\.[0-9]*=create ')
	destroys=$(printf '%s\n' "$1" | grep -c '^event\.[0-9]*=destroy ')
	srcs=$(printf '%s\n' "$1" | grep '^src_' | tr '\n' ' ')
	if [ "$(value "$1" records)" != "$2" ] || [ "$srcs" != "src_vkQueuePresentKHR=$2 " ] ||
		[ "$(value "$1" dropped)" != 0 ] || [ "$(value "$1" vk_instances)" != 1 ] ||
		[ "$creates" != "$3" ] || [ "$destroys" != "$3" ] || [ "$(value "$1" events_dropped)" != 0 ]; then
		echo "$2 presents and $3 swapchains, but the layer recorded:" \
			"$(printf '%s\n' "$1" | grep -e '^records=' -e '^dropped=' -e '^src_' -e '^vk_instances=' \
				-e '^events' | tr '\n' ' ')with $creates creations and $destroys destructions"
	fi
}

# mh_rows LOG: "ROWS SPAN_US SHORT_US_PER_ROW" of MangoHud's per-frame log:
# its rows, the time from the first row's frame start to the last row's
# (elapsed is ns since the log began, frametime us since the frame before),
# and how much less than that span the frame times add up to, per row.
mh_rows() {
	awk -F, 'f && NF > 11 { n++; s += $2; if (n == 1) { e0 = $12; f0 = $2 } e = $12 }
		/^fps,/ { f = 1 }
		END { span = (e - e0) / 1000 + f0; printf "%d %.0f %.3f\n", n, span, n ? (span - s) / n : 0 }' "$1"
}

# One run of each arm; each sets its figures (nan: the arm is skipped).
run_bare() {
	# shellcheck disable=SC2086
	a=$(loop "$VKPRESENT" $LOOP_ARGS) || die "round $r: vkpresent $LOOP_ARGS failed"
	bare=$(value "$a" ns_per_frame)
	bare_cpu=$(value "$a" cpu_ns_per_frame)
}
run_hitchbench() {
	hb=nan
	hb_cost=nan
	hb_cpu=nan
	[ "$have_hb" = 1 ] || return 0
	f=$tmp/vk.frames
	rm -f "$f"
	# room for a warm-up of 10 us frames, whatever the machine does
	"$MKFRAMES" --capacity $((FRAMES + 100 + WARMUP_MS * 100)) "$f" || die "cannot create '$f'"
	# shellcheck disable=SC2086
	b=$(loop HITCHBENCH_VULKAN=1 HITCHBENCH_FRAMES="$f" "$VKPRESENT" $LOOP_ARGS) ||
		die "round $r: vkpresent under the hitchbench layer failed"
	s=$("$MKFRAMES" --stat "$f") || die "cannot read '$f'"
	what=$(frame_check "$s" "$(value "$b" presents)" 1)
	if [ -n "$what" ]; then
		echo "bench-self: vulkan round $r: $what" >&2
		bad=1
	fi
	hb=$(value "$b" ns_per_frame)
	hb_cpu=$(value "$b" cpu_ns_per_frame)
	hb_cost=$(value "$s" cost_ns_per_sample)
	value "$b" presents >>"$tmp/hb.presents"
	printf '%s\n' "$s" | sed -n 's/^event\.0=create .* images=\([0-9]*\) .*/\1/p' >"$tmp/hb.images"
}
run_mangohud() {
	mh=nan
	mh_cpu=nan
	[ "$have_mh" = 1 ] || return 0
	d=$tmp/mh.$r
	mkdir -p "$d"
	# shellcheck disable=SC2086
	c=$(loop MANGOHUD=1 \
		MANGOHUD_CONFIG="no_display,output_folder=$d,autostart_log=1,log_interval=0,log_duration=$LOG_S" \
		"$VKPRESENT" $LOOP_ARGS --tail-ms $((LOG_S * 1000)) 2>"$tmp/mh.err") ||
		die "round $r: vkpresent under MangoHud failed: $(tail -n 1 "$tmp/mh.err")"
	mh=$(value "$c" ns_per_frame)
	mh_cpu=$(value "$c" cpu_ns_per_frame)
	log=
	for l in "$d"/*.csv; do
		case $l in *_summary.csv) ;; *) [ -e "$l" ] && log=$l ;; esac
	done
	if [ -n "$log" ]; then
		mh_rows "$log" >>"$tmp/mh.rows"
	else
		echo "0 0 0" >>"$tmp/mh.rows"
	fi
}

# The arms in turn, the order rotated each round (bare first in the first,
# hitchbench in the second, ...) so that no arm always follows the same one.
bad=0
: >"$tmp/rounds"
: >"$tmp/hb.presents"
: >"$tmp/mh.rows"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	case $((r % 3)) in
	1) order="bare hitchbench mangohud" ;;
	2) order="hitchbench mangohud bare" ;;
	0) order="mangohud bare hitchbench" ;;
	esac
	for arm in $order; do
		"run_$arm"
	done
	echo "$bare $hb $mh $hb_cost $bare_cpu $hb_cpu $mh_cpu" >>"$tmp/rounds"
	r=$((r + 1))
done

f=$tmp/rounds
echo "$title ($device), $SIZE $mode, $FRAMES timed presents a run after a warm-up of ${WARMUP_MS} ms or more:"
echo "medians over $ROUNDS interleaved rounds (bare, hitchbench, MangoHud; then hitchbench, MangoHud, bare; ...), [min .. max]"
echo "  bare        $(figures "$f" '$1') ns/frame"
# arm NAME COLUMN [BASECOLUMN [WHAT [BASE]]]: the arm's lines in $f
# against BASECOLUMN (1: the bare arm's wall time), whose spread says what
# is too small to resolve; WHAT the unit, BASE the base arm's name.
arm() {
	bc=${3:-1}
	what=${4:-ns/frame}
	base=${5:-bare}
	echo "  $(printf '%-11s' "$1") $(figures "$f" "\$$2") $what"
	echo "    added     $(figures "$f" "\$$2 - \$$bc") $what   (median of the $ROUNDS per-round differences)"
	echo "    ratio     $(awk -v a="$(middle "$f" "\$$bc")" -v b="$(middle "$f" "\$$2")" \
		'BEGIN { printf "%9.3f", b / a }')             (median $1 / median $base)"
	added=$(middle "$f" "\$$2 - \$$bc")
	sp=$(awk -v c="$bc" '{ print $c }' "$f" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print hi - lo }')
	if awk -v a="$added" -v s="$sp" 'BEGIN { exit !((a < 0 ? -a : a) < s / 2) }'; then
		echo "    (the added time is inside the $base runs' own spread, $sp ns: too small to resolve here)"
	fi
}
if [ "$have_hb" = 1 ]; then
	arm hitchbench 2
	echo "    layer says $(figures "$f" '$4') ns/present (its own time outside the real call, one present in 64)"
	if [ "$bad" = 0 ]; then
		echo "    recorded  every present of each run, all from vkQueuePresentKHR, in one VkInstance:"
		echo "              $(figures "$tmp/hb.presents" '$1' 0 | sed 's/^ *//') presents a run (the" \
			"warm-up's count varies); one swapchain"
		echo "              of $(cat "$tmp/hb.images") images created and destroyed in each"
	fi
else
	echo "  hitchbench  skipped: $why_no_hb"
fi
if [ "$have_mh" = 1 ]; then
	arm MangoHud 3
	if [ "$have_hb" = 1 ]; then
		echo "    vs hitchbench $(figures "$f" '$3 - $2') ns/frame   (MangoHud - hitchbench, median of the per-round differences)"
	fi
	rows=$tmp/mh.rows
	if awk '$1 == 0 { exit 1 }' "$rows"; then
		ms=$(awk -v n="$FRAMES" -v ns="$(middle "$f" '$3')" 'BEGIN { printf "%.0f", n * ns / 1e6 }')
		# runs whose timed frames outlasted the log after the warm-up
		late=$(awk -v n="$FRAMES" -v s="$LOG_S" -v w="$WARMUP_MS" \
			'n * $3 / 1e6 > s * 1000 - (w - 1000) { k++ } END { print k + 0 }' "$f")
		echo "    logged    $(figures "$rows" '$1' 0 | sed 's/^ *//') frames a run over its ${LOG_S} s log:" \
			"a row per frame (the frame"
		echo "              times add up to the log's span but for $(figures "$rows" '$3' 2 | sed 's/^ *//')" \
			"us a row, their truncation"
		echo "              to whole us; a frame left out would add about" \
			"$(middle "$f" '$3' | awk '{ printf "%.0f", $1 / 1000 }') us)"
		if [ "$late" != 0 ]; then
			echo "    (in $late of the $ROUNDS runs the $FRAMES timed frames outlasted the log after the warm-up,"
			echo "    so not all of them were logged: raise HB_BENCH_VK_LOG_S)"
		else
			echo "              the $FRAMES timed frames took $ms ms (the median run): inside the log in every run"
		fi
		if awk '$3 > 1.0 { bad = 1 } END { exit !bad }' "$rows"; then
			echo "    (MangoHud's log misses frames in some run: its frame times fall short by more than 1 us a row)"
		fi
	else
		echo "    logged    MangoHud wrote no log in some run (its layer did not load, or its log never ended)"
	fi
else
	echo "  MangoHud    skipped: $why_no_mh"
fi

# The same rounds in the presenting thread's CPU time (vkpresent's
# cpu_ns_per_frame): what a layer does at a present is done on that
# thread, which spends none of its CPU time waiting for the driver.
echo "  the presenting thread's CPU time a frame (CLOCK_THREAD_CPUTIME_ID over the timed frames / frames),"
echo "  the same runs:"
echo "  bare        $(figures "$f" '$5') cpu ns/frame"
[ "$have_hb" = 1 ] && arm hitchbench 6 5 "cpu ns/frame"
[ "$have_mh" = 1 ] && arm MangoHud 7 5 "cpu ns/frame"
if [ "$have_hb" = 1 ] && [ "$have_mh" = 1 ]; then
	echo "    vs hitchbench $(figures "$f" '$7 - $6') cpu ns/frame   (MangoHud - hitchbench, median of the per-round differences)"
fi

# One run under the layer that recreates its swapchain, alternating the
# extent: the events the layer logs against the swapchains vkpresent made.
if [ "$have_hb" = 1 ]; then
	f=$tmp/vk.frames
	rm -f "$f"
	every=$((FRAMES / 5))
	[ "$every" -gt 0 ] || every=1
	"$MKFRAMES" --capacity $((FRAMES + 100)) "$f" || die "cannot create '$f'"
	b=$(loop HITCHBENCH_VULKAN=1 HITCHBENCH_FRAMES="$f" "$VKPRESENT" --frames "$FRAMES" --warmup 100 \
		--size "$SIZE" --mode "$MODE" --recreate-every "$every") ||
		die "vkpresent --recreate-every under the hitchbench layer failed"
	s=$("$MKFRAMES" --stat "$f") || die "cannot read '$f'"
	n=$(value "$b" swapchains)
	what=$(frame_check "$s" "$(value "$b" presents)" "$n")
	extents=$(printf '%s\n' "$s" | sed -n 's/^event\.[0-9]*=create .* extent=\([0-9x]*\) .*/\1/p' | tr '\n' ' ')
	echo "  recreation  a swapchain recreated every $every presents, alternating its extent: $n swapchains,"
	if [ -n "$what" ]; then
		echo "bench-self: vulkan recreation run: $what" >&2
		bad=1
		echo "              the layer's events do not match (see above)"
	else
		echo "              each created and destroyed once in the layer's events; extents ${extents% }"
	fi
fi

# Both layers on the same presents, their own code sampled: one run with
# the hitchbench layer and MangoHud's (logging every frame) both enabled,
# under perf sampling the process's CPU clock every PERF_PERIOD_NS of CPU.
# Samples whose instruction is in a layer's library are that layer's own
# time; a present's cost is their count x the period / the presents (the
# frame file's). What a layer calls into other libraries is not in its
# count: the vDSO's clock (both layers read it) and libstdc++ (MangoHud's
# C++; the hitchbench layer is C) are shown beside, for the whole process.
echo
if [ "$have_hb" != 1 ] || [ "$have_mh" != 1 ]; then
	echo "both layers sampled: skipped: it needs both layers (see above)"
elif ! command -v perf >/dev/null 2>&1; then
	echo "both layers sampled: skipped: perf is not installed (apt-get install linux-perf)"
elif ! perf record -q -e cpu-clock -o "$tmp/perf.probe" true >/dev/null 2>&1; then
	echo "both layers sampled: skipped: perf cannot sample here (kernel.perf_event_paranoid, or no perf events)"
else
	f=$tmp/vk.frames
	d=$tmp/mh.perf
	rm -f "$f"
	mkdir -p "$d"
	"$MKFRAMES" --capacity $((PERF_FRAMES * 3 + 100000)) "$f" || die "cannot create '$f'"
	# shellcheck disable=SC2086
	c=$(loop HITCHBENCH_VULKAN=1 HITCHBENCH_FRAMES="$f" MANGOHUD=1 \
		MANGOHUD_CONFIG="no_display,output_folder=$d,autostart_log=1,log_interval=0,log_duration=$PERF_LOG_S" \
		perf record -q -e cpu-clock -c "$PERF_PERIOD_NS" -o "$tmp/perf.data" \
		"$VKPRESENT" --frames "$PERF_FRAMES" --warmup 0 --warmup-ms "$WARMUP_MS" --size "$SIZE" \
		--mode "$MODE" --tail-ms $((PERF_LOG_S * 1000)) 2>"$tmp/perf.err") ||
		die "vkpresent with both layers under perf failed: $(tail -n 1 "$tmp/perf.err")"
	s=$("$MKFRAMES" --stat "$f") || die "cannot read '$f'"
	presents=$(value "$c" presents)
	what=$(frame_check "$s" "$presents" 1)
	[ -z "$what" ] || { echo "bench-self: vulkan, both layers: $what" >&2; bad=1; }
	perf report -i "$tmp/perf.data" --sort dso --stdio -n -q 2>/dev/null >"$tmp/perf.dso"
	# samples DSO-PATTERN: the samples whose library's name matches
	samples() {
		awk -v p="$1" '$3 ~ p { n += $2 } END { print n + 0 }' "$tmp/perf.dso"
	}
	per() { # samples: ns a present, +- a count's own uncertainty (sqrt)
		awk -v n="$1" -v p="$PERF_PERIOD_NS" -v k="$presents" \
			'BEGIN { printf "%8.0f +- %.0f", n * p / k, sqrt(n) * p / k }'
	}
	hb_n=$(samples 'hitchbench-hook[.]so')
	mh_n=$(samples 'libMangoHud[.]so')
	cxx_n=$(samples 'libstdc[+][+]')
	vdso_n=$(samples 'vdso')
	echo "both layers on the same presents, their own code sampled by perf (cpu-clock every $PERF_PERIOD_NS ns of CPU),"
	echo "one run of $presents presents ($PERF_FRAMES timed, the warm-up and MangoHud's ${PERF_LOG_S} s tail), $SIZE $mode:"
	echo "  hitchbench  $(per "$hb_n") ns/present   ($hb_n samples in hitchbench-hook.so; it says" \
		"$(value "$s" cost_ns_per_sample | awk '{ printf "%.0f", $1 }') ns itself, clock reads included)"
	echo "  MangoHud    $(per "$mh_n") ns/present   ($mh_n samples in libMangoHud.so)"
	echo "  beside      $(per "$cxx_n") ns/present in libstdc++ (MangoHud's C++), $(per "$vdso_n" | sed 's/^ *//')" \
		"in the vDSO's clock (both layers' and the loop's)"
	echo "  (a sample is charged to the library its instruction is in: each layer's calls into other"
	echo "  libraries are left out of its own figure, and the sampling adds its own interrupts to the run)"
fi

# The layer alone: the stand-in chain, straight to its stub driver and
# through the layer, interleaved.
echo
if [ ! -x "$VKCHAIN" ]; then
	echo "vulkan layer alone: skipped: $VKCHAIN is not built"
elif [ "$have_hb" = 0 ]; then
	echo "vulkan layer alone: skipped: $why_no_hb"
else
	: >"$tmp/chain"
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		a=$("$VKCHAIN" --direct --frames "$CHAIN_FRAMES") || die "vkchain --direct failed"
		f=$tmp/chain.frames
		rm -f "$f"
		"$MKFRAMES" --capacity "$CHAIN_FRAMES" "$f" || die "cannot create '$f'"
		b=$(env HITCHBENCH_FRAMES="$f" "$VKCHAIN" --frames "$CHAIN_FRAMES") || die "vkchain failed"
		s=$("$MKFRAMES" --stat "$f") || die "cannot read '$f'"
		if [ "$(value "$s" records)" != "$CHAIN_FRAMES" ] || [ "$(value "$b" intercepted)" != yes ] ||
			[ "$(value "$b" allocs_in_loop)" != 0 ]; then
			echo "bench-self: vkchain round $r: $CHAIN_FRAMES presents, the layer recorded" \
				"$(value "$s" records) (intercepted=$(value "$b" intercepted)," \
				"allocs_in_loop=$(value "$b" allocs_in_loop))" >&2
			bad=1
		fi
		echo "$(value "$a" ns_per_frame) $(value "$b" ns_per_frame) $(value "$s" cost_ns_per_sample)" \
			>>"$tmp/chain"
		r=$((r + 1))
	done
	f=$tmp/chain
	echo "vulkan layer alone (vkchain: a stand-in loader and driver, no GPU, $CHAIN_FRAMES presents a run):"
	echo "  direct      $(figures "$f" '$1') ns/frame   (vkQueuePresentKHR straight to the stub driver)"
	arm layer 2 1 ns/frame direct
	echo "    layer says $(figures "$f" '$3') ns/present (its own time outside the real call, one present in 64)"
	if [ "$bad" = 0 ]; then
		echo "    recorded  exactly $CHAIN_FRAMES frames in each run, with no allocation while presenting"
	fi
fi

[ "$bad" = 0 ] || die "the layer did not record one frame per present (see above)"
exit 0
