#!/bin/sh
# cpu: heavy, about 40 s (a real game)
# timing: a real game's frames in its window
# The warzone2100 recipe under a fresh Xvfb with a short window: prepare
# makes the skirmish save, the game loads it through its Vulkan backend on
# lavapipe, and the run counts only because every frame of the window came
# through the hitchbench layer's vkQueuePresentKHR (frames = vulkan). The
# swapchain is the low variant's (640x480, vsync off: immediate), frames at
# a plausible rate, the window ended the run, one pass and no reload, and
# nothing of the game left running.
. "$(dirname "$0")/../lib.sh"
recipe_smoke warzone2100
[ -x /usr/games/warzone2100 ] || skip "warzone2100 is not installed (sh scripts/deps.sh ensure)"
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 ||
	skip "no lavapipe ICD in /usr/share/vulkan/icd.d (mesa-vulkan-drivers: sh scripts/deps.sh ensure)"
nm -D --defined-only "$HB_BUILD/hitchbench-hook.so" 2>/dev/null | grep -qw vkNegotiateLoaderLayerInterfaceVersion ||
	skip "the frame hook is no Vulkan layer (no vkNegotiateLoaderLayerInterfaceVersion in $HB_BUILD/hitchbench-hook.so)"

# (INTF=0: what is checked is the game and its frames, not a watcher that
# this shared machine may trip)
rc=0
"$HB" run --no-quieting warzone2100 --warmup 5 --window 15 --switches INTF=0 --out "$T/runs" --no-db \
	>"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
expect_eq "exit status" 0 "$rc"
rundir=$(ls -d "$T"/runs/*/*-warzone2100-low*)
for f in bench.txt frames.bin game.log prepare.log result.txt; do
	[ -e "$rundir/$f" ] || fail "run directory lacks $f"
done
expect_eq status ok "$(value status "$rundir/bench.txt")"
expect_eq "result.txt status" ok "$(value status "$rundir/result.txt")"
user=$(value user "$rundir/bench.txt")
[ "$user" != root ] || fail "the game ran as root"
[ -n "$(value package.warzone2100 "$rundir/bench.txt")" ] || fail "no package version"
# prepare saved the skirmish and the game loaded that save, not a map
grep -q 'saveandquit=savegames/skirmish/bench.gam' "$rundir/prepare.log" || fail "prepare.log: $(head -n 3 "$rundir/prepare.log")"
grep -q 'loading: savegames/*skirmish/bench.gam' "$rundir/game.log" || fail "the game did not load the save"
# every frame of the window through the layer, on a 640x480 immediate swapchain
expect_eq frame_source vulkan "$(value frame_source "$rundir/bench.txt")"
expect_eq frames_api vulkan "$(value frames_api "$rundir/bench.txt")"
case "$(value window_sources "$rundir/bench.txt")" in
"vkQueuePresentKHR "[0-9]*) ;;
*) fail "window_sources: $(value window_sources "$rundir/bench.txt")" ;;
esac
"$HB" frames "$rundir" >"$T/frames" 2>&1 || fail "hitchbench frames: $(cat "$T/frames")"
grep -q '^# swapchain .* create .* 640x480 immediate ' "$T/frames" ||
	fail "no 640x480 immediate swapchain: $(grep '^# swapchain' "$T/frames")"
expect_eq end_reason window "$(value end_reason "$rundir/bench.txt")"
expect_eq passes 1 "$(value passes "$rundir/bench.txt")"
expect_eq reload.none yes "$(value reload.none "$rundir/bench.txt")"
# lavapipe drew 13-16 fps here at 640x480 on a quiet machine (6 at
# 1280x720 with shadows); with block-compressed textures it drew 0.6
fps=$(value fps "$rundir/result.txt")
frames=$(value frames "$rundir/result.txt")
awk -v f="$fps" -v n="$frames" 'BEGIN { exit !(f >= 2 && f <= 2000 && n >= 30) }' ||
	fail "implausible: $fps fps, $frames frames in the window"
if pgrep -x -u "$user" warzone2100 >/dev/null; then
	fail "a warzone2100 of the game's user is left running"
fi
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
