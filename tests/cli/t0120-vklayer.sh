#!/bin/sh
# The hook as a Vulkan layer (harness/framehook-vk.c), alone: vkchain plays
# the loader and the driver around it. Every vkQueuePresentKHR is one frame
# of source vkQueuePresentKHR (a call presenting two swapchains, or one
# nesting another present, included); swapchains made, remade and destroyed
# are events with their fields; presenting allocates nothing and makes no
# system call; without a frame file the layer stays out of the way.
. "$(dirname "$0")/../lib.sh"

HOOK=$HB_BUILD/hitchbench-hook.so
VKCHAIN=$HB_BUILD/tests/vkchain
MKFRAMES=$HB_BUILD/tests/mkframes
for f in "$HOOK" "$VKCHAIN" "$MKFRAMES"; do
	[ -e "$f" ] || skip "'$f' is not built (make tests)"
done

# chain NAME VKCHAIN-ARGS...: vkchain recording into a fresh $T/NAME; its
# line in $out, what the file holds in $T/NAME.stat
chain() {
	f=$T/$1
	shift
	"$MKFRAMES" --capacity 100000 "$f" || fail "mkframes cannot create '$f'"
	out=$(env HITCHBENCH_FRAMES="$f" "$VKCHAIN" "$@" 2>"$T/err") || fail "vkchain $*: $(cat "$T/err")"
	[ -s "$T/err" ] && fail "vkchain $* printed: $(cat "$T/err")"
	"$MKFRAMES" --stat "$f" >"$f.stat" || fail "mkframes --stat '$f'"
}
# field KEY: KEY's value in vkchain's line $out
field() {
	printf '%s\n' "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
# event I KEY: KEY's value in event I of $f.stat (KEY kind: create or destroy)
event() {
	sed -n "s/^event\.$1=//p" "$f.stat" | tr ' ' '\n' |
		awk -v k="$2" 'NR == 1 { if (k == "kind") print; next } { split($0, kv, "="); if (kv[1] == k) print kv[2] }'
}
# How many of N presents the hook times (as t0100 counts them).
expected_samples() {
	awk -v n="$1" 'BEGIN { c = 0; for (b = 0; 64 * b < n; b++) if (64 * b + (37 * b) % 64 < n) c++; print c }'
}

# 1. 1010 presents with the swapchain remade 3 times on the way: 1010
#    frames, all from vkQueuePresentKHR, none allocating; the swapchain's
#    life as 8 events: made, 3 times remade from the one before (and that
#    one destroyed), destroyed.
chain remade --frames 1000 --warmup 10 --recreate 3
expect_eq "layer exports only vkNegotiateLoaderLayerInterfaceVersion" yes "$(field only_export)"
expect_eq "layer hands out its vkQueuePresentKHR" yes "$(field intercepted)"
expect_eq "allocations while presenting" 0 "$(field allocs_in_loop)"
expect_eq "frames of 1010 presents" 1010 "$(value records "$f.stat")"
expect_eq "frames from vkQueuePresentKHR" 1010 "$(value src_vkQueuePresentKHR "$f.stat")"
expect_eq "driver presents" 1010 "$(field driver_presents)"
expect_eq "frame file version" 2 "$(value version "$f.stat")"
expect_eq "VkInstances" 1 "$(value vk_instances "$f.stat")"
expect_eq "hooked processes" 1 "$(value hooked_procs "$f.stat")"
expect_eq "cost samples" "$(expected_samples 1010)" "$(value cost_samples "$f.stat")"
expect_eq events 8 "$(value events "$f.stat")"
expect_eq "events dropped" 0 "$(value events_dropped "$f.stat")"
expect_eq "event 0" "create 0x0 640x480 fifo 2 3 44 vulkan" \
	"$(for k in kind old extent mode min_images images format api; do event 0 $k; done | xargs)"
first=$(event 0 swapchain)
expect_eq "event 1" "create $first 656x488 mailbox 3 4 44" \
	"$(for k in kind old extent mode min_images images format; do event 1 $k; done | xargs)"
expect_eq "event 2" "destroy $first" "$(event 2 kind) $(event 2 swapchain)"
expect_eq "event 3" "create $(event 1 swapchain) 672x496 fifo" \
	"$(for k in kind old extent mode; do event 3 $k; done | xargs)"
expect_eq "event 5 (third remake)" "create 688x504 mailbox" "$(for k in kind extent mode; do event 5 $k; done | xargs)"
expect_eq "event 7 (the last destroyed)" "destroy $(event 5 swapchain)" "$(event 7 kind) $(event 7 swapchain)"
[ "$(event 0 surface)" = "$(event 5 surface)" ] || fail "a remade swapchain changed surface"
"$MKFRAMES" --dump "$f" | awk '$3 != "vkQueuePresentKHR" { print "slot " NR ": " $0; exit 1 }' >"$T/bad" ||
	fail "a record not from vkQueuePresentKHR: $(cat "$T/bad")"

# 2. One call presenting two swapchains is one frame.
chain two --frames 500 --swapchains 2
expect_eq "frames of 500 presents of 2 swapchains" 500 "$(value records "$f.stat")"
expect_eq "events of 2 swapchains made and destroyed" 4 "$(value events "$f.stat")"

# 3. A present made inside the driver's present (as another layer or a
#    driver over Vulkan may) is not a frame of its own.
chain nested --frames 700 --nested
expect_eq "nested presents that ran" 700 "$(field nested_calls)"
expect_eq "driver presents (outer and nested)" 1400 "$(field driver_presents)"
expect_eq "frames of 700 presents nesting 700" 700 "$(value records "$f.stat")"

# 4. Without a frame file, or with one the hook refuses (one line said),
#    the layer chains the instance and device but hands out the driver's
#    own present.
out=$(env -u HITCHBENCH_FRAMES "$VKCHAIN" --frames 1000 --recreate 1 2>"$T/err") || fail "vkchain without a frame file"
[ -s "$T/err" ] && fail "the layer printed without a frame file: $(cat "$T/err")"
expect_eq "present handed out without a frame file" no "$(field intercepted)"
head -c 4096 /dev/urandom >"$T/garbage"
out=$(env HITCHBENCH_FRAMES="$T/garbage" "$VKCHAIN" --frames 1000 2>"$T/err") || fail "vkchain with a bad frame file"
expect_eq "present handed out with a bad frame file" no "$(field intercepted)"
expect_eq "lines from the hook with a bad frame file" 1 "$(grep -c '^hitchbench-hook: ' "$T/err")"

# 5. No system call per present: 1000 and 20000 presents (and a remake)
#    make as many, give or take a stray one.
if ! command -v strace >/dev/null; then
	echo "(strace is not installed: the system call count is not checked)" >&2
elif ! strace -f -c -o /dev/null true 2>/dev/null; then
	echo "(strace cannot trace here: the system call count is not checked)" >&2
else
	for n in 1000 20000; do
		rm -f "$T/s.$n"
		"$MKFRAMES" --capacity 100000 "$T/s.$n" || fail mkframes
		env HITCHBENCH_FRAMES="$T/s.$n" strace -f -c -o "$T/strace.$n" "$VKCHAIN" --frames "$n" --recreate 1 \
			>/dev/null || fail "vkchain --frames $n under strace"
		expect_eq "frames under strace" "$n" "$("$MKFRAMES" --stat "$T/s.$n" | sed -n 's/^records=//p')"
	done
	few=$(awk '$NF == "total" { print $(NF - 2) }' "$T/strace.1000")
	many=$(awk '$NF == "total" { print $(NF - 2) }' "$T/strace.20000")
	[ -n "$few" ] && [ -n "$many" ] || fail "no strace summary: $(cat "$T/strace.1000")"
	[ "$many" -le $((few + 2)) ] || fail "system calls grow with Vulkan presents: $few for 1000, $many for 20000"
fi
exit 0
