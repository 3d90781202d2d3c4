#!/bin/sh
# lab cancel on the test's one-node Slurm (tests/lib-slurm.sh): a running
# job and one waiting behind it (the node is exclusive) cancelled by id
# and by --all; the running batch stops and the finished runs stay; lab
# status says cancelled; a bad id is a usage error.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-slurm.sh"
lab_test_setup
OPTS="--no-quieting --display :99"

"$HB" lab submit "$T/fake.ini" base 20 --db "$DB" $OPTS >"$T/out" 2>"$T/err" || fail "submit: $(cat "$T/err")"
J1=$(submitted "$T/out") || exit 1
"$HB" lab submit "$T/fake.ini" base 1 --db "$DB" $OPTS >"$T/out" 2>"$T/err" || fail "submit: $(cat "$T/err")"
J2=$(submitted "$T/out") || exit 1
wait_job "$J1" RUNNING
"$HB" lab status "$J2" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
grep -q "^job $J2 $T/fake.ini \"base\" x1: waiting" "$T/st" || fail "status of the waiting job: $(cat "$T/st")"
JD=$T/results/lab/jobs/$J1
for i in $(seq 1 300); do
	grep -q "^1 \(done\|invalid\)" "$JD"/*/runs.txt 2>/dev/null && break
	sleep 0.1
done
grep -q "^1 \(done\|invalid\)" "$JD"/*/runs.txt || fail "no run finished: $(cat "$JD.log")"
"$HB" lab status "$J1" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
grep -q "^job $J1 $T/fake.ini \"base\" x20 on node1: running, run \([2-9]\|1[0-9]\) of 20\$" "$T/st" ||
	fail "status of the running job: $(cat "$T/st")"

rc=0
"$HB" lab cancel x1 >"$T/out" 2>"$T/err" || rc=$?
expect_eq "bad id: exit" 2 "$rc"
"$HB" lab cancel "$J2" >"$T/out" 2>"$T/err" || fail "cancel: $(cat "$T/err")"
grep -q "^cancelled job $J2: " "$T/out" || fail "cancel said: $(cat "$T/out")"
"$HB" lab cancel --all >"$T/out" 2>"$T/err" || fail "cancel --all: $(cat "$T/err")"
expect_eq "cancel --all" "cancelled job $J1: its batch stops, the finished runs stay ('hitchbench lab results $J1')" "$(cat "$T/out")"
wait_job "$J1" CANCELLED
wait_job "$J2" CANCELLED
# the runner stopped the game on SIGTERM and ended its batch as interrupted
t_procs_gone "the cancelled job"
BD=$(dirname "$(ls "$JD"/*/runs.txt)")
expect_eq "cancelled batch" interrupted "$(value status "$BD/batch.txt")"
done_n=$(grep -c "^[0-9]* \(done\|invalid\) " "$BD/runs.txt")
[ "$done_n" -ge 1 ] && [ "$done_n" -lt 20 ] || fail "runs done in the cancelled batch: $done_n"
"$HB" lab status >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
grep -q "^job $J1 $T/fake.ini \"base\" x20 on node1: cancelled, $done_n of 20 run(s) done\$" "$T/st" ||
	fail "status of the cancelled job: $(cat "$T/st")"
grep -q "^job $J2 $T/fake.ini \"base\" x1: cancelled\$" "$T/st" || fail "status of the cancelled waiting job: $(cat "$T/st")"
"$HB" lab cancel --all >"$T/out" 2>"$T/err" || fail "cancel --all with none: $(cat "$T/err")"
expect_eq "cancel --all with none" "no job of the lab is pending or running" "$(cat "$T/out")"
exit 0
