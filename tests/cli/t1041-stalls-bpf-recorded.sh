#!/bin/sh
# The causes of a run recorded with STALLS=bpf (tests/fixtures/stallrun-bpf:
# t1030's induced stalls, recorded on a real kernel), read where the
# recorder itself cannot run: every stall of the window with its cause,
# decided by bpf, the futex stall's waker named, the wait lines, the cost
# line, and the report's stall columns from the same record; and on a second
# recording (stallrun-bpf/thirds), where delay accounting saw a third of the
# reclaim and a tenth of the swap-ins, the same causes by the fault rule.
. "$(dirname "$0")/../lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 to compare the table's three outputs (Debian: python3; sh scripts/deps.sh ensure)"
cp -r "$HB_FIXTURES/stallrun-bpf/run" "$T/run"
"$HB" stalls "$T/run" >"$T/stalls" 2>&1 || { cat "$T/stalls" >&2; fail "hitchbench stalls failed"; }
expect="3:cpu 4:wait 5:runq 6:disk 7:reclaim 9:swap_zram"
stall_cases_check
awk '/^  window/ { w = 1; next } /^  [a-z]/ { w = 0 } w && $1 ~ /^[+-][0-9]/ && $4 != "bpf" { bad = 1 }
     END { exit bad }' "$T/stalls" || { cat "$T/stalls" >&2; fail "a window stall not decided by bpf"; }
grep -q "^      - futex, woken by fakegame ([0-9]*) after 30[0-9] ms" "$T/stalls" ||
	{ cat "$T/stalls" >&2; fail "the futex stall does not name its waker"; }
grep -q "^      - runnable [0-9]* ms (preempted [0-9]* times)" "$T/stalls" || fail "no run-queue wait line"
grep -q "^  stallbpf: [0-9]* ns an event in the kernel (bpf_stats), [0-9.]*% of one CPU (kernel [0-9.]*% + user [0-9.]*%)" "$T/stalls" || fail "no cost line"
"$HB" report --stalls --format csv "$T/run" >"$T/csv" || fail "report --stalls failed"
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } NR == 2 { print $k }' "$T/csv"; }
for c in stall_cpu_s stall_wait_s stall_disk_s stall_reclaim_s stall_swap_s stallbpf_cpu_pct; do
	v=$(col "$c")
	awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "report: $c is '$v', not above 0"
done

# the run where delay accounting saw a third of the reclaim and a tenth of
# the swap-ins (stallrun-bpf/thirds): the fault rule calls both by what the
# thread was doing, serving faults, and says so
cp -r "$HB_FIXTURES/stallrun-bpf/thirds" "$T/thirds"
"$HB" stalls "$T/thirds" >"$T/stalls" 2>&1 || { cat "$T/stalls" >&2; fail "hitchbench stalls (thirds) failed"; }
stall_cases_check
grep -q "^      - runnable [0-9]* ms, reclaim 2[0-9][0-9] ms (delay accounting), reclaim [0-9]* ms of the running ([0-9]* faults, [0-9]* a ms: serving them) between the recorded waits$" \
	"$T/stalls" || { cat "$T/stalls" >&2; fail "thirds: no line of the reclaim's running"; }
grep -q "swap_zram [0-9]* ms of the running ([0-9]* faults, [0-9]* a ms: serving them)" "$T/stalls" ||
	{ cat "$T/stalls" >&2; fail "thirds: no line of the swap-ins' running"; }

# the stall table's three outputs (analysis/stalls/stalltable.h) on the run
# with both records, with its wait record alone and with its stall record
# alone: the same stalls, causes, evidence, waits and seconds per cause in
# text, JSON and the HTML page, which names the records the run has and no
# samples it lacks (tests/tools/stalls-agree.py). The page is made with a
# gnuplot that is not there: its pictures are said missing (exit 1) and
# nothing else is, the stall table needs none.
mkdir "$T/agree"
cp -r "$T/run" "$T/agree/both"
cp -r "$T/run" "$T/agree/waits" && rm "$T/agree/waits/stalls.rec.zst"
cp -r "$T/run" "$T/agree/stalls" && rm "$T/agree/stalls/waits.rec.zst"
for kind in both waits stalls; do
	d="$T/agree/$kind"
	"$HB" stalls "$d" >"$d.txt" || fail "stalls of $kind failed"
	"$HB" stalls --format json "$d" >"$d.json" || fail "stalls --format json of $kind failed"
	rc=0
	HITCHBENCH_GNUPLOT="$T/no-gnuplot" "$HB" report --format html --interfered /dev/null "$d" \
		>"$d.html" 2>"$T/err" || rc=$?
	expect_eq "report --format html of $kind without gnuplot" 1 "$rc"
	grep -v "^hitchbench: the HTML report lacks [0-9]* parts*:$" "$T/err" | grep -v "^cannot draw " |
		grep -q . && fail "report --format html of $kind: $(cat "$T/err")"
	/usr/bin/python3 "$HB_SRCDIR/tests/tools/stalls-agree.py" "$d.txt" "$d.json" "$d.html" "$kind" \
		>"$T/differs" || fail "the stall table of $kind differs between text, JSON and HTML: $(cat "$T/differs")"
done
exit 0
