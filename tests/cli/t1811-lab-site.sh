#!/bin/sh
# wall: about 25 s (five jobs on the test's cluster, one after the other)
# lab submit --site on the test's one-node Slurm (tests/lib-slurm.sh): a
# job ends by refreshing the lab's site from the database its batch
# stored into ('hitchbench site --db DB --out DIR'); the job's record
# names the site, the job's log has the site's line, JOBID.site says it
# was refreshed and lab status says so. A job whose site cannot be made
# (its DIR under a plain file) still stores its whole batch and ends
# COMPLETED: its log and JOBID.site say the refresh failed, and the next
# job's refresh of the good site has that batch too. A refresh that has
# not ended after --site-minutes (the site's lock held) is killed, and the
# job ends well and says so. A job cancelled
# mid-batch (lab job is then its runner's parent) ends its batch
# interrupted and leaves the site to the next job. A relative --site, or
# /, is refused before anything is submitted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-slurm.sh"
lab_test_setup
OPTS="--no-quieting --display :99"
JOBS=$T/results/lab/jobs

# 1. refused: the job runs elsewhere, a relative DIR would be another place
for bad in site ./site /; do
	rc=0
	"$HB" lab submit "$T/fake.ini" base 1 --db "$DB" --site "$bad" $OPTS >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "--site $bad: exit" 2 "$rc"
	grep -q "^hitchbench: --site wants .*, not '$bad'\$" "$T/err" || fail "--site $bad: $(cat "$T/err")"
done
expect_eq "jobs after the refusals" "" "$(squeue -h -t all -o %i)"

# 2. a job with a site: the site made once its batch is stored
SITE=$T/www/site
"$HB" lab submit "$T/fake.ini" base 2 --db "$DB" --site "$SITE" $OPTS >"$T/out" 2>"$T/err" ||
	fail "submit: $(cat "$T/err")"
J=$(submitted "$T/out") || exit 1
expect_eq "record's site" "$SITE" "$(value site "$JOBS/$J.txt")"
grep -q -- " --site=$SITE -- " "$JOBS/$J.txt" || fail "the job is not given the site: $(cat "$JOBS/$J.txt")"
wait_job "$J" COMPLETED
B=$(basename "$(ls -d "$JOBS/$J"/*/)")
expect_eq "runs of job $J in the database" 2 "$(sqlite3 "$DB" "select count(*) from runs where batch_uuid = '$B'")"
[ -s "$SITE/index.html" ] || fail "no $SITE/index.html after job $J; its log: $(cat "$JOBS/$J.log")"
expect_eq "refresh of job $J" refreshed "$(value status "$JOBS/$J.site")"
expect_eq "site's exit" 0 "$(value exit "$JOBS/$J.site")"
expect_eq "site refreshed" "$SITE" "$(value site "$JOBS/$J.site")"
expect_eq "site's database" "$DB" "$(value db "$JOBS/$J.site")"
line=$(value summary "$JOBS/$J.site")
echo "$line" | grep -q "^site $SITE: [0-9]* pages, [0-9]* written, [0-9]* unchanged, [0-9]* removed; [0-9]* change points ([0-9]* new); [0-9.]* s\$" ||
	fail "the site's line: $line"
grep -qF "hitchbench: lab job $J: $line" "$JOBS/$J.log" || fail "the job's log has no site line: $(cat "$JOBS/$J.log")"
"$HB" lab status "$J" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
expect_eq "status of job $J" "job $J $T/fake.ini \"base\" x2 on node1: finished, 2 of 2 run(s) done; site $SITE refreshed" \
	"$(cat "$T/st")"

# 3. a site the job cannot make: the batch is stored all the same, the job
# ends well, and says the refresh failed
: >"$T/plain"
BAD=$T/plain/site
"$HB" lab submit "$T/fake.ini" base 1 --db "$DB" --site "$BAD" $OPTS >"$T/out" 2>"$T/err" ||
	fail "submit: $(cat "$T/err")"
J2=$(submitted "$T/out") || exit 1
wait_job "$J2" COMPLETED
B2=$(basename "$(ls -d "$JOBS/$J2"/*/)")
expect_eq "batch of job $J2" complete "$(value status "$JOBS/$J2/$B2/batch.txt")"
expect_eq "runs of job $J2 in the database" 1 "$(sqlite3 "$DB" "select count(*) from runs where batch_uuid = '$B2'")"
expect_eq "refresh of job $J2" failed "$(value status "$JOBS/$J2.site")"
rc=$(value exit "$JOBS/$J2.site")
[ "$rc" -ge 1 ] || fail "the failed refresh's exit: $rc"
why=$(value error "$JOBS/$J2.site")
[ -n "$why" ] || fail "the failed refresh says no reason: $(cat "$JOBS/$J2.site")"
grep -qF "hitchbench: warning: lab job $J2: the refresh of the site $BAD failed (exit $rc: $why): the batch is stored, the next job's refresh catches up" \
	"$JOBS/$J2.log" || fail "the job's log does not say the refresh failed: $(cat "$JOBS/$J2.log")"
[ ! -e "$BAD" ] || fail "$BAD was made"
"$HB" lab status "$J2" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
expect_eq "status of job $J2" "job $J2 $T/fake.ini \"base\" x1 on node1: finished, 1 of 1 run(s) done; site $BAD refresh failed (exit $rc: $why)" \
	"$(cat "$T/st")"

# 4. the next job's refresh of the good site catches up: the batch whose
# own refresh failed is there too, and the earlier pages are kept
"$HB" lab submit "$T/fake.ini" base 1 --db "$DB" --site "$SITE" $OPTS >"$T/out" 2>"$T/err" ||
	fail "submit: $(cat "$T/err")"
J3=$(submitted "$T/out") || exit 1
wait_job "$J3" COMPLETED
expect_eq "refresh of job $J3" refreshed "$(value status "$JOBS/$J3.site")"
B3=$(basename "$(ls -d "$JOBS/$J3"/*/)")
for b in "$B" "$B2" "$B3"; do
	grep -rqF "$b" "$SITE" || fail "the site has no page naming batch $b: $(ls -R "$SITE" | head -n 40)"
done
value summary "$JOBS/$J3.site" | grep -q ", [1-9][0-9]* unchanged, " ||
	fail "the second refresh wrote every page again: $(value summary "$JOBS/$J3.site")"

# 5. a refresh that does not end is killed after --site-minutes: the site's
# lock held meanwhile (as a hung refresh of another job would), the job
# ends well all the same, and its log, JOBID.site and status say why
command -v flock >/dev/null || fail "no flock (util-linux) to hold the site's lock"
flock "$SITE/.site.lock" sleep 300 &
holder=$!
"$HB" lab submit "$T/fake.ini" base 1 --db "$DB" --site "$SITE" --site-minutes 0.05 $OPTS >"$T/out" 2>"$T/err" ||
	fail "submit: $(cat "$T/err")"
J5=$(submitted "$T/out") || exit 1
grep -q -- " --site=$SITE --site-minutes=0.05 -- " "$JOBS/$J5.txt" ||
	fail "the job is not given the limit: $(cat "$JOBS/$J5.txt")"
wait_job "$J5" COMPLETED
kill "$holder"
wait "$holder" 2>/dev/null
expect_eq "refresh of job $J5" failed "$(value status "$JOBS/$J5.site")"
expect_eq "killed refresh's exit" -1 "$(value exit "$JOBS/$J5.site")"
why="'hitchbench site' had not ended after 0.05 minute(s) (--site-minutes): killed"
expect_eq "killed refresh's error" "$why" "$(value error "$JOBS/$J5.site")"
grep -qF "hitchbench: warning: lab job $J5: the refresh of the site $SITE failed ($why): the batch is stored" \
	"$JOBS/$J5.log" || fail "the job's log does not say the refresh was killed: $(cat "$JOBS/$J5.log")"
"$HB" lab status "$J5" >"$T/st" 2>&1 || fail "status: $(cat "$T/st")"
expect_eq "status of job $J5" "job $J5 $T/fake.ini \"base\" x1 on node1: finished, 1 of 1 run(s) done; site $SITE refresh failed ($why)" \
	"$(cat "$T/st")"
"$HB" lab submit x --site-minutes 1 >"$T/out" 2>"$T/err" && fail "--site-minutes without --site was taken"
grep -q "^hitchbench: --site-minutes wants --site" "$T/err" || fail "--site-minutes without --site: $(cat "$T/err")"

# 6. a job with a site cancelled mid-batch: lab job waits for its runner
# (its child), which ends the batch interrupted; the job does not refresh
"$HB" lab submit "$T/fake.ini" base 20 --db "$DB" --site "$SITE" $OPTS >"$T/out" 2>"$T/err" ||
	fail "submit: $(cat "$T/err")"
J4=$(submitted "$T/out") || exit 1
wait_job "$J4" RUNNING
for i in $(seq 1 300); do
	grep -q "^1 \(done\|invalid\) " "$JOBS/$J4"/*/runs.txt 2>/dev/null && break
	sleep 0.1
done
grep -q "^1 \(done\|invalid\) " "$JOBS/$J4"/*/runs.txt || fail "no run of job $J4 finished: $(cat "$JOBS/$J4.log")"
runner=$(ps -eo pid,args | awk -v t="$T/" 'index($0, t) && / run / && /hitchbench/ && !/ lab job / && !/awk/ { print $1 }' | head -n 1)
[ -n "$runner" ] || fail "no runner of job $J4"
case $(ps -o args= -p "$(ps -o ppid= -p "$runner" | tr -d ' ')") in
*" lab job "*" --site=$SITE -- "*) ;;
*) fail "the runner's parent is not lab job --site: $(ps -o args= -p "$(ps -o ppid= -p "$runner" | tr -d ' ')")" ;;
esac
"$HB" lab cancel "$J4" >"$T/out" 2>"$T/err" || fail "cancel: $(cat "$T/err")"
wait_job "$J4" CANCELLED
t_procs_gone "the cancelled job"
expect_eq "cancelled batch" interrupted "$(value status "$(dirname "$(ls "$JOBS/$J4"/*/runs.txt)")/batch.txt")"
grep -q "^hitchbench: note: lab job $J4: stopped (signal 15, Terminated): the site $SITE is left to the next job's refresh\$" \
	"$JOBS/$J4.log" || fail "the cancelled job's log: $(cat "$JOBS/$J4.log")"
[ ! -e "$JOBS/$J4.site" ] || fail "the cancelled job refreshed the site: $(cat "$JOBS/$J4.site")"
exit 0
