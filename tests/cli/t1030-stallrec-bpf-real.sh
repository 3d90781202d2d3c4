#!/bin/sh
# lane: alone (the BPF recorder follows the game by the kernel's own pids, which a PID namespace of the test's would hide)
# timing: the induced stalls' causes on the live machine
# quick: no (a run of induced stalls, seconds apart, with nothing beside it)
# STALLS=bpf beside the fake game's induced stalls (tests/lib-stallcases.sh:
# cpu, futex, run queue, disk, reclaim, swap): the kernel program loads and
# follows the game, the wait record has the game's waits with their stacks
# and the futex wait's waker, the sampler beside it samples at 100 ms, each
# stall comes out with its cause decided by bpf, the futex stall names its
# waker, and bench.txt and the record's trailer carry the cost (the kernel's
# run time of each program, the user side's CPU). Needs root and a kernel
# with BTF; where either is missing it skips, and t1031 tests the fallback.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "loading BPF programs needs root (t1031 tests the fallback)"
[ -r /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF (/sys/kernel/btf/vmlinux) (t1031 tests the fallback)"
need_game_user
fake_setup

. "$(dirname "$0")/../lib-stallcases.sh"
stall_cases_run "STALLS=bpf"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "the run failed ($rc)"; }
no_fakegame_left
b="$rundir/bench.txt"
expect_eq "run name" "base@bpf" "$(value run_name "$b")"
cost=$(value stallbpf "$b")
case $cost in
fallback*) cat "$rundir/stallrec.log" >&2; fail "BPF fell back here: $cost" ;;
*" waits and "*" block requests recorded "*"ns a run"*) ;;
*) fail "bench.txt has no BPF cost: '$cost'" ;;
esac
grep -q "stallbpf: .* waits and" "$T/err" || fail "the run did not say what BPF cost"
expect_eq "the record in bench.txt" "waits.rec.zst" "$(value stallbpf_record "$b")"
[ -s "$rundir/waits.rec.zst" ] || fail "no waits.rec.zst"
[ -s "$rundir/stalls.rec.zst" ] || fail "no stalls.rec.zst beside it"
"$HB_BUILD/tests/recdump" "$rundir/stalls.rec.zst" | grep -q "^meta period_us=100000" ||
	fail "the sampler beside BPF does not sample every 100 ms"
ls /dev/shm | grep -q "waits" && fail "a live wait record was left in /dev/shm"

zstd -dcq "$rundir/waits.rec.zst" >"$T/w" || fail "waits.rec.zst does not decompress"
head -n 1 "$T/w" | grep -q "^hbwaits	2$" || fail "not a wait record: $(head -n 1 "$T/w")"
pid=$(awk -F'\t' '$1 == "follow" { print $2; exit }' "$T/w")
[ -n "$pid" ] || fail "the record follows no process"
# the game's main thread slept in the kernel's futex code for the futex
# stall, and a thread of the game woke it: its off line names the waker
awk -F'\t' -v p="$pid" '
	$1 == "stack" { futex[$2] = ($0 ~ /futex_wait/) }
	$1 == "off" && $2 == p && $6 == "S" && futex[$7] && $3 + 0 > 0 && ($4 - $3) > 250000000 &&
	    $8 > 0 && $8 != p { found = 1 }
	END { exit !found }' "$T/w" || { grep -v "^stack" "$T/w" | head -50 >&2; fail "no futex wait of ~300 ms with its waker"; }
grep -q "^trailer	prog.hb_switch.runs=[1-9]" "$T/w" || fail "no kernel run count of the switch program"
grep -q "^trailer	kernel_cpu_pct=" "$T/w" && grep -q "^trailer	user_cpu_pct=" "$T/w" ||
	fail "the trailer has no cost"

"$HB" stalls "$rundir" >"$T/stalls" 2>&1 || { cat "$T/stalls" >&2; fail "hitchbench stalls failed"; }
stall_cases_check
# every window stall decided by the kernel's events
awk '/^  window/ { w = 1; next } /^  [a-z]/ { w = 0 } w && $1 ~ /^[+-][0-9]/ && $4 != "bpf" { bad = 1 }
     END { exit bad }' "$T/stalls" || { cat "$T/stalls" >&2; fail "a window stall not decided by bpf"; }
grep -q "futex, woken by fakegame" "$T/stalls" || { cat "$T/stalls" >&2; fail "the futex stall does not name its waker"; }
"$HB" report --stalls --format csv "$rundir" >"$T/csv" || fail "report --stalls failed"
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } NR == 2 { print $k }' "$T/csv"; }
[ -n "$(col stall_cpu_s)" ] && [ "$(col stall_why)" != "" ] || fail "the report has no stall columns"

[ "$disk_case" = yes ] || echo "not tested here: disk ($disk_case)"
[ "$mem_case" = yes ] || echo "not tested here: reclaim and swap_zram ($mem_case)"
exit 0
