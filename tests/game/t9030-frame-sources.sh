#!/bin/sh
# cpu: heavy, about 30 s (a real game)
# timing: two tools stamping the same presents of a real game, beside whatever else runs
# The default recipe with `frames = mangohud` and with `frames = gallium-hud`:
# dsda-doom under a fresh Xvfb (llvmpipe, a Gallium driver) as the
# unprivileged user, a short window. Each run is ok, its frames.bin came
# from the tool's log (frame_source, source_file, align.*), the hook's own
# frames are kept as hook-frames.bin, the fps is plausible, and the log
# counts the window's frames as the hook does, give or take 2%.
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/dsda-doom ] || skip "dsda-doom is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/doom/freedoom2.wad ] || skip "freedoom is not installed (sh scripts/deps.sh ensure)"
recipes="$HB_SRCDIR/recipes"

ran=0
for src in mangohud gallium-hud; do
	if [ "$src" = mangohud ] && ! ls /usr/lib/*/mangohud/libMangoHud.so >/dev/null 2>&1; then
		echo "mangohud is not installed (sh scripts/deps.sh ensure): its run skipped" >&2
		continue
	fi
	sed "s/^frames = hook\$/frames = $src/" "$recipes/dsda-doom.ini" >"$T/dsda-doom-$src.ini"
	grep -q "^frames = $src\$" "$T/dsda-doom-$src.ini" || fail "the recipe has no 'frames = hook' line to change"
	rc=0
	# warm-up 2 s: MangoHud logs from 1 s after it loads
	"$HB" run --no-quieting "$T/dsda-doom-$src.ini" software 1 --warmup 2 --window 4 \
		--out "$T/runs-$src" --no-db >"$T/out" 2>"$T/err" || rc=$?
	# the report first, the runner's lines last: a long output is cut in the middle
	cat "$T/out" "$T/err"
	rundir=$(ls -d "$T/runs-$src"/*/*-software)
	expect_eq "$src: status ($(value status_detail "$rundir/bench.txt"))" ok "$(value status "$rundir/bench.txt")"
	expect_eq "$src: exit status" 0 "$rc"
	expect_eq "$src: frame_source" "$src" "$(value frame_source "$rundir/bench.txt")"
	expect_eq "$src: frame_source_kind" frames "$(value frame_source_kind "$rundir/bench.txt")"
	[ -s "$rundir/hook-frames.bin" ] || fail "$src: the hook's frames were not kept"
	log=$(value source_file "$rundir/bench.txt")
	[ -s "$rundir/$log" ] || fail "$src: the log '$log' is not in the run directory"
	[ -n "$(value align.residual_ns "$rundir/bench.txt")" ] || fail "$src: no align.* keys"
	fps=$(value fps "$rundir/result.txt")
	awk "BEGIN { exit !($fps >= 5 && $fps <= 2000) }" || fail "$src: implausible fps $fps"
	from_log=$(window_frames "$rundir" "$rundir/frames.bin")
	from_hook=$(window_frames "$rundir" "$rundir/hook-frames.bin")
	echo "$src: $from_log frames in the window from the log, $from_hook from the hook, fps $fps"
	awk "BEGIN { d = $from_log - $from_hook; if (d < 0) d = -d; exit !($from_hook >= 40 && d <= 0.02 * $from_hook + 1) }" ||
		fail "$src: the log counts $from_log frames in the window, the hook $from_hook"
	[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || skip "no frame source could run"
exit 0
