#!/bin/sh
# cpu: heavy, about 40 s (a real game)
# timing: a real game's frames in its window
# The hitchbench Vulkan layer beside MangoHud's on a real Vulkan game: the
# warzone2100 recipe with `frames = mangohud` instead of `vulkan`, so that
# both layers see the same presents of one run (MangoHud logging every
# frame, its log becoming frames.bin; the layer's own frames kept as
# hook-frames.bin). The run is ok, MangoHud's log was placed on the layer's
# clock, and both count the window's frames alike, give or take 2% (as
# t9030 checks for GL on the default recipe).
. "$(dirname "$0")/../lib.sh"
recipe_smoke warzone2100
[ -x /usr/games/warzone2100 ] || skip "warzone2100 is not installed (sh scripts/deps.sh ensure)"
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 ||
	skip "no lavapipe ICD in /usr/share/vulkan/icd.d (mesa-vulkan-drivers: sh scripts/deps.sh ensure)"
ls /usr/lib/*/mangohud/libMangoHud.so >/dev/null 2>&1 || skip "mangohud is not installed (sh scripts/deps.sh ensure)"
nm -D --defined-only "$HB_BUILD/hitchbench-hook.so" 2>/dev/null | grep -qw vkNegotiateLoaderLayerInterfaceVersion ||
	skip "the frame hook is no Vulkan layer (no vkNegotiateLoaderLayerInterfaceVersion in $HB_BUILD/hitchbench-hook.so)"

cp -R "$HB_SRCDIR/recipes/warzone2100" "$T/warzone2100"
sed 's/^frames = vulkan$/frames = mangohud/' "$HB_SRCDIR/recipes/warzone2100.ini" >"$T/warzone2100.ini"
grep -q '^frames = mangohud$' "$T/warzone2100.ini" || fail "the recipe has no 'frames = vulkan' line to change"
# warm-up 5 s: MangoHud logs from 1 s after it loads; INTF=0 as in t9200
rc=0
"$HB" run --no-quieting "$T/warzone2100.ini" low 1 --warmup 5 --window 15 --switches INTF=0 --out "$T/runs" \
	--no-db >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-warzone2100-low*)
expect_eq status ok "$(value status "$rundir/bench.txt")"
expect_eq frame_source mangohud "$(value frame_source "$rundir/bench.txt")"
# the layer's frames, before the log replaced them: all Vulkan
expect_eq frames_api vulkan "$(value frames_api "$rundir/bench.txt")"
[ -s "$rundir/hook-frames.bin" ] || fail "the layer's frames were not kept"
[ -n "$(value align.residual_ns "$rundir/bench.txt")" ] || fail "no align.* keys: the log was not placed"
from_log=$(window_frames "$rundir" "$rundir/frames.bin")
from_layer=$(window_frames "$rundir" "$rundir/hook-frames.bin")
echo "warzone2100: $from_log frames in the window from MangoHud's log, $from_layer from the hitchbench layer"
awk "BEGIN { d = $from_log - $from_layer; if (d < 0) d = -d; exit !($from_layer >= 40 && d <= 0.02 * $from_layer + 1) }" ||
	fail "MangoHud's log counts $from_log frames in the window, the layer $from_layer"
[ -z "$(pgrep -u hitchbench -x warzone2100)" ] || fail "a warzone2100 process was left running"
exit 0
