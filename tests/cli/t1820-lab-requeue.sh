#!/bin/sh
# wall: about 35 s (Slurm requeues a job after its node comes back)
# A lab job whose node dies mid-batch (tests/lib-slurm.sh's one-node
# Slurm): after the batch's first run finished, slurmd, the job's
# slurmstepd, the runner and the game are killed with SIGKILL, as a power
# cut would; slurmd comes back (as at a reboot), Slurm requeues the job,
# and the requeued job resumes its batch (the same directory, found by
# the job id) without redoing a finished run: each slot done once in
# runs.txt, one run directory and one database row a slot, the runs after
# the requeue marked slurm_restart_count=1. lab status says the job was
# requeued. Slurm holds a requeued job for 2 minutes; the test lets it
# start 2 s later (scontrol update StartTime=now).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-slurm.sh"
lab_test_setup
# a run ends done, or invalid when the machine's other work disturbed it
# (the batch goes on either way: no rerun asked for)
ENDED='\(done\|invalid\) '

"$HB" lab submit "$T/fake.ini" base 4 --db "$DB" --no-quieting --display :99 >"$T/out" 2>"$T/err" ||
	fail "submit: $(cat "$T/err")"
J=$(submitted "$T/out") || exit 1
wait_job "$J" RUNNING
started=$(date +%s)
JD=$T/results/lab/jobs/$J
for i in $(seq 1 300); do
	grep -q "^1 $ENDED" "$JD"/*/runs.txt 2>/dev/null && grep -q "^2 started" "$JD"/*/runs.txt && break
	sleep 0.1
done
grep -q "^1 $ENDED" "$JD"/*/runs.txt || fail "the first run never finished: $(cat "$JD.log")"
BD=$(dirname "$(ls "$JD"/*/runs.txt)")
B=$(basename "$BD")

# the node dies: slurmd, the job's slurmstepd (the runner's parent), the
# runner and the game, all at once
runner=$(ps -eo pid,args | awk -v t="$T/" 'index($0, t) && / run / && /hitchbench/ && !/awk/ { print $1 }' | head -n 1)
[ -n "$runner" ] || fail "no runner of the job"
stepd=$(ps -o ppid= -p "$runner" | tr -d ' ')
case $(ps -o args= -p "$stepd") in
"slurmstepd: [$J.batch]") ;;
*) fail "the runner's parent is not the job's slurmstepd: $(ps -o args= -p "$stepd")" ;;
esac
kill -9 "$(cat "$S/state/slurmd-node1.pid")" "$stepd" $(t_procs)
# a reboot empties /run: the next slurmd finds no pid file of a slurmd to
# wait for (here the killed one may linger as a zombie no one reaps)
rm -f "$S/state/slurmd-node1.pid"
sleep 0.5
[ -z "$(t_procs)" ] || fail "processes of the job survived: $(ps -o pid,args -p "$(t_procs | tr '\n' ',')0")"
done_before=$(grep -c "^[0-9]* $ENDED" "$BD/runs.txt")
[ "$done_before" -ge 1 ] || fail "no finished run before the kill"

# slurmd comes back as at a reboot. Slurm takes a job for lost once it has
# been running 20 s (BatchStartTimeout + MessageTimeout) when the node
# registers without it.
while [ $(( $(date +%s) - started )) -lt 22 ]; do
	sleep 0.5
done
slurmd_start
wait_job "$J" PENDING
"$HB" lab status "$J" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
grep -q "^job $J $T/fake.ini \"base\" x4: requeued after its node failed, waiting to start again, $done_before of 4 run(s) done\$" \
	"$T/st" || fail "status of the requeued job: $(cat "$T/st")"
# Slurm's hold protects the restart from the node's revocation of the
# old start's credential (kept by the second): a restart in the same
# second is refused ("Job credential revoked"), one 2 s later is not
sleep 2
scontrol update jobid="$J" StartTime=now || fail "scontrol update StartTime"
wait_job "$J" COMPLETED FAILED
[ "$(job_state "$J")" = COMPLETED ] || fail "the requeued job: $(job_state "$J"); its log: $(cat "$JD.log"; tail -n 25 "$S/state/log/slurmd-node1.log" "$S/state/log/slurmctld.log")"
grep -q "lab job $J (restart 1): resuming batch $BD" "$JD.log" || fail "the job did not resume its batch: $(cat "$JD.log")"

# every slot done once, none redone; one directory and one row a slot
expect_eq "batch status" complete "$(value status "$BD/batch.txt")"
for slot in 1 2 3 4; do
	expect_eq "slot $slot ended" 1 "$(grep -c "^$slot $ENDED" "$BD/runs.txt")"
done
expect_eq "slot 1 started" 1 "$(grep -c "^1 started" "$BD/runs.txt")"
n=0
for d in $(run_dirs "$JD"); do
	n=$((n + 1))
	slot=$(value batch_index "$d/bench.txt")
	if [ "$slot" -le "$done_before" ]; then
		expect_eq "$d restart count" 0 "$(value slurm_restart_count "$d/bench.txt")"
	else
		expect_eq "$d restart count" 1 "$(value slurm_restart_count "$d/bench.txt")"
	fi
	expect_eq "$d job" "$J" "$(value slurm_job_id "$d/bench.txt")"
done
expect_eq "run directories" 4 "$n"
expect_eq "runs in the database" 4 "$(sqlite3 "$DB" "select count(*) from runs where batch_uuid = '$B'")"
"$HB" lab status "$J" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
expect_eq "status at the end" \
	"job $J $T/fake.ini \"base\" x4 on node1: finished, requeued 1 time(s) after its node failed, 4 of 4 run(s) done" \
	"$(cat "$T/st")"
exit 0
