#!/bin/sh
# The frame hook makes no system call per frame: under strace, a program
# presenting 1000 times and one presenting 20000 times through the hook
# make the same number of system calls, give or take a stray one (setting
# up and tearing down cost the same; presenting costs none). The same with
# the SLOWDOWN switch's spin, which reads the clock through the vDSO.
. "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || skip "strace is not installed (sh scripts/deps.sh ensure)"
strace -f -c -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not allowed)"
HOOK=$HB_BUILD/hitchbench-hook.so

syscalls() {
	f=$T/frames.$1
	rm -f "$f"
	"$HB_BUILD/tests/mkframes" --capacity 100000 "$f" || fail "mkframes"
	env HITCHBENCH_FRAMES="$f" LD_PRELOAD="$HOOK" ${SLOW:+HITCHBENCH_SLOWDOWN_PCT=$SLOW} strace -f -c -o "$T/strace.$1" \
		"$HB_BUILD/tests/present" --stub --frames "$1" >"$T/out.$1" || fail "present --stub --frames $1"
	"$HB_BUILD/tests/mkframes" --stat "$f" >"$T/stat.$1"
	expect_eq "frames recorded of $1" "$1" "$(value records "$T/stat.$1")"
	awk '$NF == "total" { print $(NF - 2) }' "$T/strace.$1"
}
for SLOW in "" 50; do
	few=$(syscalls 1000)
	many=$(syscalls 20000)
	[ -n "$few" ] && [ -n "$many" ] || fail "no strace summary: $(cat "$T/strace.1000")"
	# nothing may grow with frames: 19000 more presents, at most a stray call or
	# two more (the allocator or the dynamic loader may differ run to run)
	[ "$many" -le $((few + 2)) ] ||
		fail "system calls grow with presents${SLOW:+ under SLOWDOWN=$SLOW}: $few for 1000, $many for 20000"
done
# the spin happened: every present but the first spun
expect_eq "presents that spun" 19999 "$(value spin_presents "$T/stat.20000")"
exit 0
