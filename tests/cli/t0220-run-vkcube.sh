#!/bin/sh
# cpu: heavy, about 12 s (vkcube on lavapipe)
# The runner and the Vulkan layer: a recipe's `frames = vulkan` on the fake
# game, which presents through GL stubs, gives a run that is invalid with
# the reason naming what it presented through; a recipe's XDG_DATA_HOME
# takes the layer's manifest, removed after the run; and recipes/vkcube.ini
# on a fresh Xvfb with lavapipe gives a valid run whose every frame came
# from vkQueuePresentKHR through the layer, its manifest in the game's HOME
# naming the hook the game preloaded.
# time-limit: 300
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
# (INTF=0: what is checked is the frames, not a watcher that this shared
# machine may trip)
SW="INTF=0"

# 1. frames = vulkan on a GL game: status ok in bench.txt, invalid in
# result.txt, with the source named, and in the database
fake_recipe glfake "--fps 100" "frames = vulkan" "warmup = 0.5" "window = 1" "stop_grace = 0.5"
hb_run "$T/glfake.ini" base --switches "$SW"
[ -n "$rundir" ] || fail "no run directory: $(cat "$T/err")"
expect_eq "bench.txt status" ok "$(value status "$rundir/bench.txt")"
expect_eq "frame_source" vulkan "$(value frame_source "$rundir/bench.txt")"
expect_eq "frames_api" opengl "$(value frames_api "$rundir/bench.txt")"
sources=$(value window_sources "$rundir/bench.txt")
n=${sources#SDL_GL_SwapWindow }
case $n in
'' | *[!0-9]*) fail "window_sources: '$sources'" ;;
esac
expect_eq "result.txt status" invalid "$(value status "$rundir/result.txt")"
expect_eq "the reason" "frames = vulkan, but the window's $n presents came from SDL_GL_SwapWindow: the game did not render through Vulkan" \
	"$(value check_failed "$rundir/result.txt")"
grep -q "invalid: frames = vulkan, but .*THIS RUN IS NOT COUNTED" "$T/err" || fail "the run did not say: $(cat "$T/err")"
expect_eq "the database" invalid "$(sqlite3 "$T/db.sqlite" 'select status from runs')"
# the same recipe with frames = hook is fine
sed -i 's/^frames = vulkan$/frames = hook/' "$T/glfake.ini"
rm -rf "$T/runs" "$T/db.sqlite"
hb_run "$T/glfake.ini" base --switches "$SW"
expect_eq "frames = hook result.txt status" ok "$(value status "$rundir/result.txt")"
expect_eq "frames = hook frames_api" opengl "$(value frames_api "$rundir/bench.txt")"

# the rest needs the layer, Vulkan on the CPU and an X server
nm -D --defined-only "$HB_BUILD/hitchbench-hook.so" 2>/dev/null | grep -qw vkNegotiateLoaderLayerInterfaceVersion ||
	skip "the frame hook is no Vulkan layer yet (no vkNegotiateLoaderLayerInterfaceVersion in $HB_BUILD/hitchbench-hook.so)"
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
command -v vkcube >/dev/null || skip "vkcube is not installed (vulkan-tools: sh scripts/deps.sh ensure)"
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 ||
	skip "no lavapipe ICD in /usr/share/vulkan/icd.d (mesa-vulkan-drivers: sh scripts/deps.sh ensure)"

# 2. a recipe's XDG_DATA_HOME: the manifest goes there, and not after the run
rm -rf "$T/runs" "$T/db.sqlite"
mkdir -p "$T/data"
chmod 755 "$T/data"
fake_recipe xdg "--fps 100" "warmup = 0.5" "window = 1" "stop_grace = 0.5" "env = XDG_DATA_HOME=$T/data"
hb_run "$T/xdg.ini" base --switches "$SW"
expect_eq "XDG_DATA_HOME run status" ok "$(value status "$rundir/result.txt")"
expect_eq "vulkan_layer under XDG_DATA_HOME" "$T/data/vulkan/implicit_layer.d/VkLayer_hitchbench.json" \
	"$(value vulkan_layer "$rundir/bench.txt")"
[ ! -e "$T/data/vulkan/implicit_layer.d/VkLayer_hitchbench.json" ] || fail "the manifest outside HOME was left"
[ ! -e "$rundir/home/.local/share/vulkan" ] || fail "a manifest in HOME as well"

# 3. vkcube: every frame of the window through the layer
rm -rf "$T/runs"
rc=0
"$HB" run --no-quieting "$HB_SRCDIR/recipes/vkcube.ini" --warmup 1 --window 3 --switches "$SW" \
	--out "$T/runs" --no-db >"$T/out" 2>"$T/err" || rc=$?
rundir=$(run_dirs "$T/runs" | tail -n 1)
[ -n "$rundir" ] || fail "no vkcube run directory: $(cat "$T/err")"
expect_eq "vkcube exit status ($(value status_detail "$rundir/bench.txt"))" 0 "$rc"
expect_eq "vkcube bench.txt status" ok "$(value status "$rundir/bench.txt")"
expect_eq "vkcube result.txt status ($(value check_failed "$rundir/result.txt"))" ok \
	"$(value status "$rundir/result.txt")"
expect_eq "vkcube frame_source" vulkan "$(value frame_source "$rundir/bench.txt")"
expect_eq "vkcube frames_api" vulkan "$(value frames_api "$rundir/bench.txt")"
value window_sources "$rundir/bench.txt" | grep -Eq '^vkQueuePresentKHR [0-9]+$' ||
	fail "vkcube window_sources: $(value window_sources "$rundir/bench.txt")"
frames=$(value frames "$rundir/result.txt")
awk "BEGIN { exit !($frames >= 50) }" || fail "vkcube: $frames frames in the window"
# the manifest was in the game's HOME (kept in the run's home/), naming
# the staged hook the game preloaded, and the loader took it
rel=.local/share/vulkan/implicit_layer.d/VkLayer_hitchbench.json
expect_eq "vkcube vulkan_layer" "$rel" "$(value vulkan_layer "$rundir/bench.txt")"
m="$rundir/home/$rel"
[ -s "$m" ] || fail "no manifest in the game's HOME"
grep -q '"name": "VK_LAYER_HITCHBENCH_frames"' "$m" || fail "manifest name: $(cat "$m")"
grep -q '"HITCHBENCH_VULKAN": "1"' "$m" || fail "manifest enable_environment: $(cat "$m")"
lib=$(sed -n 's/^ *"library_path": "\(.*\)",$/\1/p' "$m")
staging=$(value staging "$rundir/bench.txt")
case $lib in
"$staging"/hitchbench-*/hitchbench-hook.so) ;;
*) fail "library_path '$lib' is not the staged hook under $staging" ;;
esac
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$m" || fail "the manifest is not JSON"
fi
[ "$(value hook_processes "$rundir/bench.txt")" -ge 1 ] || fail "the hook was not loaded"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
