#!/bin/sh
# cpu: heavy, about 15 s (vkcube on lavapipe)
# timing: how many frames MangoHud logs beside the layer in its seconds
# The hook as a Vulkan layer under the real loader: vkcube on lavapipe in
# an Xvfb of the test's own, the layer found through the build tree's
# manifest (XDG_DATA_HOME=build/share) and enabled by HITCHBENCH_VULKAN=1.
# vkcube --c N presents exactly N times: N frames from vkQueuePresentKHR,
# and its one swapchain made and destroyed, with its extent and mode. Not
# enabled (or disabled), the loader does not load the layer. With
# MangoHud's layer in the chain too, both see every frame; preloaded as
# the GL hook as well (as the runner does), the frames count once.
. "$(dirname "$0")/../lib.sh"

HOOK=$HB_BUILD/hitchbench-hook.so
MKFRAMES=$HB_BUILD/tests/mkframes
MANIFEST=$HB_BUILD/share/vulkan/implicit_layer.d/VkLayer_hitchbench.json
for f in "$HOOK" "$MKFRAMES" "$MANIFEST"; do
	[ -e "$f" ] || skip "'$f' is not built (make all tests)"
done
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
command -v vkcube >/dev/null || skip "vkcube is not installed (vulkan-tools)"
ICD=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n 1)
[ -n "$ICD" ] || skip "the lavapipe ICD is not installed (mesa-vulkan-drivers)"

CUBE_ARGS=
start_xvfb
# the machine's own Vulkan settings stay out: lavapipe alone, this build's
# manifest first, no other layer unless asked
cube_env() {
	env -u HITCHBENCH_VULKAN -u HITCHBENCH_VULKAN_DISABLE -u MANGOHUD -u LD_PRELOAD -u VK_INSTANCE_LAYERS \
		DISPLAY=":$n" VK_ICD_FILENAMES="$ICD" XDG_DATA_HOME="$HB_BUILD/share" "$@"
}
# cube NAME PRESENTS [ENV...]: vkcube --c PRESENTS $CUBE_ARGS, recording
# into $T/NAME ($f), with the loader's layer log in $T/NAME.err; $f.stat what
# the file holds
cube() {
	f=$T/$1
	c=$2
	shift 2
	"$MKFRAMES" --capacity 100000 "$f" || fail "mkframes cannot create '$f'"
	rc=0
	# the environment after timeout: a hook preloaded into it would count
	cube_env timeout 120 env HITCHBENCH_FRAMES="$f" VK_LOADER_DEBUG=layer "$@" \
		vkcube --c "$c" --width 128 --height 96 $CUBE_ARGS >"$f.out" 2>"$f.err" || rc=$?
	expect_eq "vkcube's exit status ($*)" 0 "$rc"
	"$MKFRAMES" --stat "$f" >"$f.stat" || fail "mkframes --stat '$f'"
}
inserted() { # LAYER: whether the loader put LAYER in the instance's chain ($f.err)
	grep -q "Insert instance layer \"$1\"" "$f.err"
}
event() { # I KEY: KEY's value in event I of $f.stat
	sed -n "s/^event\.$1=//p" "$f.stat" | tr ' ' '\n' |
		awk -v k="$2" 'NR == 1 { if (k == "kind") print; next } { split($0, kv, "="); if (kv[1] == k) print kv[2] }'
}

# 1. Enabled: 300 presents, 300 frames, the swapchain's life as two events.
cube on 300 HITCHBENCH_VULKAN=1
grep "Insert instance layer \"VK_LAYER_HITCHBENCH_frames\"" "$f.err" | grep -qF "$HB_BUILD/share/vulkan" ||
	fail "the loader did not insert this build's layer: $(grep -i hitchbench "$f.err" | head -n 5)"
expect_eq "frames of vkcube --c 300" 300 "$(value records "$f.stat")"
expect_eq "frames from vkQueuePresentKHR" 300 "$(value src_vkQueuePresentKHR "$f.stat")"
expect_eq "VkInstances" 1 "$(value vk_instances "$f.stat")"
expect_eq "hooked processes" 1 "$(value hooked_procs "$f.stat")"
expect_eq events 2 "$(value events "$f.stat")"
expect_eq "event 0" "create 0x0 128x96 fifo 44" \
	"$(for k in kind old extent mode format; do event 0 $k; done | xargs)"
min=$(event 0 min_images)
got=$(event 0 images)
[ "$min" -ge 2 ] && [ "$got" -ge "$min" ] || fail "swapchain images: asked $min, got $got"
expect_eq "event 1" "destroy $(event 0 swapchain)" "$(event 1 kind) $(event 1 swapchain)"


# 2. The present mode as asked (lavapipe's X11 surfaces offer MAILBOX).
CUBE_ARGS="--present_mode 1"
cube mailbox 30 HITCHBENCH_VULKAN=1
CUBE_ARGS=
expect_eq "frames of vkcube --c 30 in MAILBOX" 30 "$(value records "$f.stat")"
expect_eq "mode of vkcube --present_mode 1" mailbox "$(event 0 mode)"

# 3. Not enabled, or enabled and disabled: the loader leaves the layer out.
cube off 30
inserted VK_LAYER_HITCHBENCH_frames && fail "the layer was loaded without HITCHBENCH_VULKAN"
expect_eq "frames without HITCHBENCH_VULKAN" 0 "$(value records "$f.stat")"
expect_eq "hooked processes without HITCHBENCH_VULKAN" 0 "$(value hooked_procs "$f.stat")"
cube disabled 30 HITCHBENCH_VULKAN=1 HITCHBENCH_VULKAN_DISABLE=1
inserted VK_LAYER_HITCHBENCH_frames && fail "the layer was loaded with HITCHBENCH_VULKAN_DISABLE=1"
expect_eq "frames with HITCHBENCH_VULKAN_DISABLE=1" 0 "$(value records "$f.stat")"

# 4. Preloaded as the GL hook too: one object, each frame once.
cube preloaded 300 HITCHBENCH_VULKAN=1 LD_PRELOAD="$HOOK"
inserted VK_LAYER_HITCHBENCH_frames || fail "the layer was not inserted beside the preloaded hook"
expect_eq "frames, layer and preloaded hook" 300 "$(value records "$f.stat")"
expect_eq "hooked processes, layer and preloaded hook" 1 "$(value hooked_procs "$f.stat")"

# 5. Beside MangoHud's layer (logging every frame, no overlay): both in the
#    chain, every frame ours, vkcube unharmed. MangoHud 0.6.8 starts its log
#    1 s in and logs 1 s, so the run is long enough for it.
if [ -e /usr/share/vulkan/implicit_layer.d/MangoHud.json ]; then
	mkdir -p "$T/mh"
	cube mangohud 15000 HITCHBENCH_VULKAN=1 MANGOHUD=1 \
		MANGOHUD_CONFIG="output_folder=$T/mh,autostart_log=1,log_duration=1,log_interval=0,no_display"
	inserted VK_LAYER_MANGOHUD_overlay || fail "MangoHud's layer was not inserted"
	inserted VK_LAYER_HITCHBENCH_frames || fail "the layer was not inserted beside MangoHud's"
	expect_eq "frames beside MangoHud" 15000 "$(value records "$f.stat")"
	# its second of frames: a row for each frame vkcube drew then, thousands
	# on an idle machine, one on a busy one where lavapipe still compiles
	# its shaders then (a 73 ms frame, seen), never none
	log=$(ls "$T"/mh/vkcube_*.csv 2>/dev/null | grep -v _summary | head -n 1)
	rows=$([ -n "$log" ] && awk 'rows { n++ } /^fps,/ { rows = 1 } END { print n + 0 }' "$log")
	[ "${rows:-0}" -ge 1 ] ||
		fail "MangoHud logged ${rows:-no} frames beside the layer: $(ls "$T/mh"; [ -n "$log" ] && head -n 5 "$log")"
else
	echo "(MangoHud's layer is not installed: the chain with it is not checked)" >&2
fi
exit 0
