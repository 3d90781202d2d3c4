#!/bin/sh
# tests/run.sh checks every script for a restored machine: the values that
# quieting and the switches change (kernel.task_delayacct, the governors,
# transparent_hugepage, the thaw journal, ...) are read before and after
# each script, and one that differs fails the script with what changed,
# even a script that passed or skipped; a script that changes a value and
# puts it back passes. Side by side (HB_SIDE_BY_SIDE) a change is only
# noted, and judged when the lanes end: a value still changed then fails
# the scripts that saw that change made, and a change undone within the
# lanes (a quieted game batch, thawed) fails none. The machine here is a
# tree in $T (HB_MACHINE_ROOT): nothing touches the real one.
. "$(dirname "$0")/../lib.sh"
M=$T/machine
mkdir -p "$M/proc/sys/kernel" "$M/proc/sys/vm" "$M/sys/kernel/mm/transparent_hugepage" \
	"$M/sys/devices/system/cpu/cpu0/cpufreq" "$M/var/lib/hitchbench" "$T/scripts" "$T/R"
echo 0 >"$M/proc/sys/kernel/task_delayacct"
echo 60 >"$M/proc/sys/vm/swappiness"
echo "always [madvise] never" >"$M/sys/kernel/mm/transparent_hugepage/enabled"
echo schedutil >"$M/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"

# script NAME EXIT BODY: a test script that runs BODY, then exits EXIT
script() {
	printf '#!/bin/sh\n%s\nexit %s\n' "$3" "$2" >"$T/scripts/$1.sh"
}
# one NAME: tests/run.sh --one on it against the tree; its line in $T/out
one() {
	env -u HB_SIDE_BY_SIDE HB_MACHINE_ROOT="$M" sh "$HB_SRCDIR/tests/run.sh" --one "$T/R" "$T/scripts/$1.sh" machine >"$T/out" 2>&1
}

script left 0 "echo 1 >$M/proc/sys/kernel/task_delayacct"
one left
grep -q "^FAIL .*left.sh (exit 1" "$T/out" || fail "a script that left delayacct at 1 passed: $(cat "$T/out")"
grep -q "run.sh:   /proc/sys/kernel/task_delayacct: was 0, now 1$" "$T/out" || fail "what changed: $(cat "$T/out")"
echo 0 >"$M/proc/sys/kernel/task_delayacct"

script skipped 77 "echo performance >$M/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor; echo why >&2"
one skipped
grep -q "^FAIL .*skipped.sh" "$T/out" || fail "a skipped script that changed the governor: $(cat "$T/out")"
grep -q "cpu0/cpufreq/scaling_governor: was schedutil, now performance$" "$T/out" || fail "governor: $(cat "$T/out")"
echo schedutil >"$M/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"

script journal 0 "echo format=1 >$M/var/lib/hitchbench/thaw.state; echo never >$M/sys/kernel/mm/transparent_hugepage/enabled"
one journal
grep -q "thaw journal /var/lib/hitchbench/thaw.state: was none, now left$" "$T/out" || fail "journal: $(cat "$T/out")"
grep -q "transparent_hugepage/enabled: was always \[madvise\] never, now never$" "$T/out" || fail "thp: $(cat "$T/out")"
rm "$M/var/lib/hitchbench/thaw.state"
echo "always [madvise] never" >"$M/sys/kernel/mm/transparent_hugepage/enabled"

# changed and put back, and a failure of its own: only what the script says
script restored 0 "echo 10 >$M/proc/sys/vm/swappiness; echo 60 >$M/proc/sys/vm/swappiness"
one restored
grep -q "^ok .*restored.sh" "$T/out" || fail "a script that put the value back: $(cat "$T/out")"
script failed 3 "echo 'its own reason' >&2"
one failed
grep -q "^FAIL .*failed.sh (exit 3" "$T/out" || fail "a failing script: $(cat "$T/out")"
grep -q "not as the test found it" "$T/out" && fail "an unchanged machine blamed: $(cat "$T/out")"

# side by side: the lanes begin; "quiet" quiets and thaws while "beside"
# runs across it, "leaks" leaves the governor changed
rm -rf "$T/R" && mkdir -p "$T/R"
HB_MACHINE_ROOT="$M" sh "$HB_SRCDIR/tests/run.sh" --machine-state >"$T/R/lanes.before"
grep -q "^/proc/sys/kernel/task_delayacct: 0$" "$T/R/lanes.before" || fail "the state: $(cat "$T/R/lanes.before")"
side() {
	HB_SIDE_BY_SIDE=1 HB_MACHINE_ROOT="$M" sh "$HB_SRCDIR/tests/run.sh" --one "$T/R" "$T/scripts/$1.sh" machine >"$T/out" 2>&1
	grep -q "^ok .*$1.sh" "$T/out" || fail "side by side, $1 is judged at once: $(cat "$T/out")"
}
script quiet 0 "echo 1 >$M/proc/sys/kernel/task_delayacct"
side quiet
script beside 0 "echo 0 >$M/proc/sys/kernel/task_delayacct"
side beside
script leaks 0 "echo performance >$M/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
side leaks
HB_MACHINE_ROOT="$M" sh "$HB_SRCDIR/tests/run.sh" --lanes-restored "$T/R" >"$T/out" 2>&1
expect_eq "lines after the lanes" 1 "$(wc -l <"$T/out" | tr -d ' ')"
grep -q "^FAIL .*leaks.sh: .*scaling_governor: was schedutil, now performance (or a test beside it)$" "$T/out" ||
	fail "the leak after the lanes: $(cat "$T/out")"
grep -q "^0 1 0 .*leaks.sh$" "$T"/R/*leaks*.res || fail "the leak not counted failed: $(cat "$T"/R/*leaks*.res)"
grep -q "^1 0 0 .*quiet.sh$" "$T"/R/*quiet*.res || fail "a change undone within the lanes failed: $(cat "$T"/R/*quiet*.res)"
exit 0
