#!/bin/sh
# lab submit --kernels on the test's one-node Slurm (tests/lib-slurm.sh):
# one job a kernel. The job of the kernel this machine runs passes
# 'lab ensure-kernel' (exit 0) and its batch records kernel_wanted beside
# kernel_release; the job of a kernel that is not installed fails before
# measuring anything (ensure-kernel's exit 1), its batch never made. (The
# reboot path, exit 75, is t1870's, with a stand-in RebootProgram.) The
# jobs ask for the node's feature (--constraint); a feature no node has,
# or a node the cluster has not, is refused at submit.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-slurm.sh"
lab_test_setup
# the kernel wish file of ensure-kernel: the test's own, not /var/lib's
export HITCHBENCH_KERNEL_WISH=$T/kernel-wish
K=$(uname -r)

"$HB" lab submit "$T/fake.ini" base 1 --kernels "$K 0.0.0-none" --constraint fake --db "$DB" --no-quieting --display :99 \
	>"$T/out" 2>"$T/err" || fail "submit: $(cat "$T/err")"
grep -q "^2 job(s) submitted" "$T/out" || fail "submit: $(cat "$T/out")"
JK=$(sed -n "s/^job \([0-9]*\): .* on kernel $K, .*/\1/p" "$T/out")
JN=$(sed -n 's/^job \([0-9]*\): .* on kernel 0.0.0-none, .*/\1/p' "$T/out")
[ -n "$JK" ] && [ -n "$JN" ] || fail "submit's lines: $(cat "$T/out")"
expect_eq "record's kernel" "$K" "$(value kernel "$T/results/lab/jobs/$JK.txt")"
grep -q -- "--constraint=fake .*--kernel=0.0.0-none --" "$T/results/lab/jobs/$JN.txt" ||
	fail "sbatch line: $(cat "$T/results/lab/jobs/$JN.txt")"
expect_eq "record's constraint" fake "$(value constraint "$T/results/lab/jobs/$JN.txt")"
wait_job "$JK" COMPLETED
wait_job "$JN" FAILED
B=$(ls -d "$T/results/lab/jobs/$JK"/*/)
expect_eq "kernel_wanted" "$K" "$(value kernel_wanted "$B/batch.txt")"
for d in $(run_dirs "$T/results/lab/jobs/$JK"); do
	expect_eq "$d kernel_wanted" "$K" "$(value kernel_wanted "$d/bench.txt")"
	expect_eq "$d kernel_release" "$K" "$(value kernel_release "$d/bench.txt")"
done
[ -z "$(ls "$T/results/lab/jobs/$JN" 2>/dev/null)" ] || fail "the failed kernel job made a batch"
grep -q "ensure-kernel 0.0.0-none' failed (exit 1): the batch does not run" "$T/results/lab/jobs/$JN.log" ||
	fail "the failed job's log: $(cat "$T/results/lab/jobs/$JN.log")"
"$HB" lab status >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
grep -q "^job $JK $T/fake.ini \"base\" x1 kernel $K on node1: finished, 1 of 1 run(s) done\$" "$T/st" ||
	fail "status: $(cat "$T/st")"
grep -q "^job $JN $T/fake.ini \"base\" x1 kernel 0.0.0-none on node1: failed (exit 1:0)\$" "$T/st" ||
	fail "status of the failed job: $(cat "$T/st")"

rc=0
"$HB" lab submit "$T/fake.ini" base 1 --constraint ps3 --db "$DB" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "unknown feature: exit" 1 "$rc"
grep -q "^hitchbench: sbatch refused the job of $T/fake.ini: .*Invalid feature specification" "$T/err" ||
	fail "unknown feature: $(cat "$T/err")"
rc=0
"$HB" lab submit "$T/fake.ini" base 1 --nodes node1,ghost --db "$DB" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "unknown node: exit" 2 "$rc"
grep -q "^hitchbench: --nodes: 'ghost' is not a node of the cluster" "$T/err" || fail "unknown node: $(cat "$T/err")"
rc=0
"$HB" lab submit "$T/fake.ini" base 1 --nodes node1 --constraint fake >"$T/out" 2>"$T/err" || rc=$?
expect_eq "--nodes and --constraint: exit" 2 "$rc"
rc=0
"$HB" lab submit "$T/fake.ini" base 2 --rounds 3 >"$T/out" 2>"$T/err" || rc=$?
expect_eq "ROUNDS and --rounds: exit" 2 "$rc"
printf '[game ./fake.ini]\nvariants = base\n' >"$T/m.ini"
rc=0
"$HB" lab submit "$T/m.ini" --switches - >"$T/out" 2>"$T/err" || rc=$?
expect_eq "a matrix with --switches: exit" 2 "$rc"
# --rounds and --switches are the batch's: in the record, and the job's batch
"$HB" lab submit "$T/fake.ini" base --rounds 1 --switches - --nodes node1 --db "$DB" --no-quieting --display :99 \
	>"$T/out" 2>"$T/err" || fail "submit --nodes: $(cat "$T/err")"
J=$(submitted "$T/out") || exit 1
R=$T/results/lab/jobs/$J.txt
grep -q -- "--nodelist=node1 " "$R" || fail "--nodes node1: $(cat "$R")"
expect_eq "record's rounds" 1 "$(value rounds "$R")"
expect_eq "record's tokens" - "$(value tokens "$R")"
wait_job "$J" COMPLETED
exit 0
