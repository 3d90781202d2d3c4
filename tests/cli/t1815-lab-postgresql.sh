#!/bin/sh
# wall: about 25 s (Slurm and PostgreSQL of its own)
# lab submit --db postgresql://... on the test's one-node Slurm
# (tests/lib-slurm.sh) and the test's own PostgreSQL (start_postgres): the
# URL goes to the job's runs unchanged, the job's runs end up in the lab's
# database, lab results reads them from there, and the job's refresh of
# the lab's site (--site) reads them from there too.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-slurm.sh"
lab_test_setup
start_postgres "$T/pg"
trap 'slurm_stop; stop_postgres; rm -rf "$T"' EXIT

"$HB" lab submit "$T/fake.ini" base 2 --db "$PGURL" --site "$T/site" --no-quieting --display :99 >"$T/out" 2>"$T/err" ||
	fail "submit: $(cat "$T/err")"
J=$(submitted "$T/out") || exit 1
expect_eq "the record's database" "$PGURL" "$(value db "$T/results/lab/jobs/$J.txt")"
grep -qF -- "--db=$PGURL" "$T/results/lab/jobs/$J.txt" || fail "sbatch line: $(cat "$T/results/lab/jobs/$J.txt")"
wait_job "$J" COMPLETED
B=$(basename "$(ls -d "$T/results/lab/jobs/$J"/*/)")
expect_eq "runs of the batch in PostgreSQL" 2 "$(psql_hb "SELECT count(*) FROM runs WHERE batch_uuid = '$B'")"
"$HB" lab results "$J" --db "$PGURL" >"$T/res" 2>&1 || fail "results: $(cat "$T/res")"
grep -qF "# job $J: 2 run(s) of batch $B in $PGURL" "$T/res" || fail "results: $(cat "$T/res")"
grep -q "^median fake base (n=[12])" "$T/res" || {
	cat "$T/results/lab/jobs/$J"/*/*/interference.log >&2
	fail "results without the group: $(cat "$T/res")"
}
expect_eq "the site's refresh" refreshed "$(value status "$T/results/lab/jobs/$J.site")"
expect_eq "the site's database" "$PGURL" "$(value db "$T/results/lab/jobs/$J.site")"
grep -rqF "$B" "$T/site" || fail "the site has no page naming batch $B: $(cat "$T/results/lab/jobs/$J.log")"
exit 0
