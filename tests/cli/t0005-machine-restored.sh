#!/bin/sh
# tests/run.sh checks every script for a restored machine: the values that
# quieting and the switches change (kernel.task_delayacct, the governors,
# transparent_hugepage, the thaw journal, ...) are read before and after
# each script, and one that differs fails the script with what changed,
# even a script that passed or skipped; a script that changes a value and
# puts it back passes. The machine here is a tree in $T (HB_MACHINE_ROOT):
# nothing touches the real one.
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
	HB_MACHINE_ROOT=$M sh "$HB_SRCDIR/tests/run.sh" --one "$T/R" "$T/scripts/$1.sh" machine >"$T/out" 2>&1
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
exit 0
