#!/bin/sh
# cpu: heavy, about 40 s (Chromium; the report of every batch drawn by gnuplot)
# time-limit: 300 (Chromium's first start on a cold cache)
# The lab's site (hitchbench site) as a person sees it, from a real
# database: the recorded runs (tests/fixtures/runs) copied into batches on
# two machines and five kernels, lab-1's software fps halving between
# 6.18.41 and 6.18.44 (the gl run's frames relabelled as software, as
# t0800 does), imported with db import. The site is built; every link is
# followed offline from its index and none is broken, no page is out of
# reach (tests/tools/linkcheck.py, shown its faults by t0383); Chromium
# loads the index and lab-1's fps trend and finds nothing wrong
# (tests/tools/chromium-check.py, as t0381); the index names the change
# point with its machine and the kernels on either side. Built again with
# nothing changed, no page is written; after one new batch on lab-2, some
# pages are written and not all, lab-1's own pages are not among them, and
# the new batch's page is there and linked. The same batches in a
# PostgreSQL of the test's own give the same site, but for what names the
# database. Without Chromium or a PostgreSQL server the rest still runs,
# then the test skips saying what it could not do.
. "$(dirname "$0")/../lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (Debian: gnuplot-nox): the batches' pages draw with it"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY to run the link checker (Debian: python3)"
LINKCHECK="$HB_SRCDIR/tests/tools/linkcheck.py"
trap 'stop_postgres; rm -rf "$T"' EXIT
recorded_runs
not_run=

# set_key FILE KEY VALUE: KEY=VALUE in the key=value FILE, replaced or added
set_key() {
	if grep -q "^$2=" "$1"; then
		sed -i "s|^$2=.*|$2=$3|" "$1"
	else
		echo "$2=$3" >>"$1"
	fi
}

# mk_batch HHMM HOST KERNEL SRC...: a batch directory in $T/lab made by
# hand as the runner lays one out (batch.txt, runs.txt, one round of a
# run per SRC, each a copy of a recorded run measured as dsda-doom's
# software run on machine HOST under KERNEL); its id in $batch
mk_batch() {
	stamp=$1
	host=$2
	kernel=$3
	shift 3
	batch="20261201T${stamp}00Z-dsda-doom"
	hhmm="${stamp%??}:${stamp#??}"
	b="$T/lab/$batch"
	mkdir -p "$b"
	: >"$b/runs.txt"
	k=0
	for src in "$@"; do
		k=$((k + 1))
		ss=$(printf %02d "$k")
		run="20261201T$stamp${ss}Z-dsda-doom-software"
		cp -r "$R/$src" "$b/$run"
		f="$b/$run/bench.txt"
		for kv in "run_id=$batch-$k" "variant=software" "run_name=software" "kernel_release=$kernel" \
			"host=$host" "machine_id=$(echo "$host" | md5sum | cut -c1-32)" "batch_id=$batch" \
			"batch_round=$k" "batch_rounds=$#" "batch_position=1" "started_utc=2026-12-01T$hhmm:${ss}Z"; do
			set_key "$f" "${kv%%=*}" "${kv#*=}"
		done
		echo "$k done $run ok" >>"$b/runs.txt"
	done
	printf 'format=1\nbatch_id=%s\ngame=dsda-doom\nvariants=software\ntokens=-\nrounds=%d\norder=rotate\nseed=0\n' \
		"$batch" "$#" >"$b/batch.txt"
	printf 'started_utc=2026-12-01T%s:00Z\nended_utc=2026-12-01T%s:59Z\nstatus=complete\nhost=%s\n' \
		"$hhmm" "$hhmm" "$host" >>"$b/batch.txt"
	printf 'kernel_release=%s\nmachine_id=%s\nstall_ms=100\npercentile=nearest-rank\n' \
		"$kernel" "$(echo "$host" | md5sum | cut -c1-32)" >>"$b/batch.txt"
}

# lab-1: about 120 fps on 6.18.40 and 6.18.41, about 56 from 6.18.44 on;
# lab-2: about 120 throughout
mk_batch 0100 lab-1 6.18.40 "$A" "$B" "$A" "$B"
mk_batch 0200 lab-1 6.18.41 "$B" "$A" "$B" "$A"
mk_batch 0300 lab-1 6.18.44 "$G" "$G" "$G" "$G"
mk_batch 0400 lab-1 6.18.45 "$G" "$G" "$G" "$G"
lab1_batches="20261201T010000Z-dsda-doom 20261201T020000Z-dsda-doom 20261201T030000Z-dsda-doom 20261201T040000Z-dsda-doom"
mk_batch 0500 lab-2 6.18.40 "$A" "$B" "$A"
mk_batch 0600 lab-2 6.18.44 "$B" "$A" "$B"
db="$T/db.sqlite"
"$HB" db import --db "$db" "$T/lab" >"$T/imp" 2>&1 || fail "db import: $(cat "$T/imp")"
expect_eq "batches in the database" 6 "$(sqlite3 "$db" 'SELECT count(*) FROM batches')"
expect_eq "runs in the database" 22 "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok'")"
# the change is there to be found: regress sees it on lab-1 (exit 3), not on lab-2
rc=0; "$HB" regress --db "$db" --machine lab-1 --metric fps dsda-doom software >"$T/regress" 2>&1 || rc=$?
expect_eq "regress on lab-1 (a change; $(cat "$T/regress"))" 3 "$rc"
rc=0; "$HB" regress --db "$db" --machine lab-2 --metric fps dsda-doom software >"$T/regress" 2>&1 || rc=$?
expect_eq "regress on lab-2 (no change; $(cat "$T/regress"))" 0 "$rc"

# site DIR [ARGS]: hitchbench site of $db into DIR; its one line in $line
# and its counts in $pages $written $unchanged $removed $changes $new
site() {
	_dir=$1
	shift
	rc=0
	"$HB" site --db "$db" --out "$_dir" "$@" >"$T/site.out" 2>"$T/site.err" || rc=$?
	expect_eq "site's exit ($(cat "$T/site.err"))" 0 "$rc"
	expect_eq "site's lines on stdout ($(cat "$T/site.out"))" 1 "$(wc -l <"$T/site.out")"
	line=$(cat "$T/site.out")
	set -- $(echo "$line" | sed -n "s|^site $_dir: \([0-9]*\) pages, \([0-9]*\) written, \([0-9]*\) unchanged, \([0-9]*\) removed; \([0-9]*\) change points (\([0-9]*\) new); [0-9]*\.[0-9] s\$|\1 \2 \3 \4 \5 \6|p")
	[ $# = 6 ] || fail "site's line is not the one its contract says: '$line'"
	pages=$1 written=$2 unchanged=$3 removed=$4 changes=$5 new=$6
}

# check DIR: linkcheck.py on the site in DIR passes
linkcheck() {
	"$PY" "$LINKCHECK" "$1" >"$T/lc.out" 2>"$T/lc.err" ||
		fail "broken links in the site: $(head -n 20 "$T/lc.err") (checked: $(cat "$T/lc.out"))"
	cat "$T/lc.out"
}

# the whole site, at first
S="$T/site"
site "$S"
echo "$line"
expect_eq "pages written by the first build" "$pages 0 0" "$written $unchanged $removed"
[ "$changes" -ge 1 ] || fail "no change point found: $line"
expect_eq "change points new at the first build" "$changes" "$new"
for f in index.html site.state; do
	[ -f "$S/$f" ] || fail "no $f in the site: $(ls "$S")"
done
expect_eq "machine pages" 2 "$(ls "$S"/machine/*.html | wc -l)"
expect_eq "batch pages" 6 "$(ls "$S"/batch/*.html | wc -l)"
[ "$(ls "$S"/trend/*.html | wc -l)" -ge 1 ] || fail "no trend page: $(ls "$S")"
expect_eq "pages said and pages there" "$pages" "$(find "$S" -name '*.html' | wc -l)"
for batch in $lab1_batches; do
	ls "$S"/batch/*"$batch"*.html >/dev/null 2>&1 || fail "no page of batch $batch: $(ls "$S/batch")"
done
linkcheck "$S"
grep -q " 0 pages no link reaches\$" "$T/lc.out" || fail "pages out of reach: $(cat "$T/lc.out")"
# the index as text: the change point, with its machine and the kernels either side
"$PY" -c 'import html, re, sys; t = re.sub(r"<[^>]*>", " ", open(sys.argv[1]).read()); print(re.sub(r"\s+", " ", html.unescape(t)))' \
	"$S/index.html" >"$T/index.txt"
for want in lab-1 lab-2 dsda-doom 6.18.41 6.18.44 fps; do
	grep -qF "$want" "$T/index.txt" || fail "the index does not say '$want': $(cut -c1-600 "$T/index.txt")"
done
grep -qE -- '-(4[5-9]|5[0-9])(\.[0-9]+)?%' "$T/index.txt" ||
	fail "the index does not give the change's size (about -54%): $(cut -c1-600 "$T/index.txt")"
# lab-1's fps trend: the page whose name says fps and which names lab-1's batches
trend=
for f in "$S"/trend/*fps*.html; do
	grep -q "20261201T030000Z-dsda-doom" "$f" && { trend=$f; break; }
done
[ -n "$trend" ] || fail "no fps trend page links lab-1's batch after the change: $(ls "$S/trend")"
for batch in $lab1_batches; do
	grep -q "href=\"[^\"]*$batch[^\"]*\"" "$trend" || fail "the trend's point of $batch links nowhere"
done

# Chromium draws the index and the trend page (t0381's checker)
CHROMIUM=$(command -v chromium || true)
if [ -z "$CHROMIUM" ]; then
	not_run="$not_run; chromium is not installed (Debian: chromium; sh scripts/deps.sh ensure)"
else
	export HOME="$T/home"
	mkdir -p "$HOME"
	for page in "$S/index.html" "$trend"; do
		rc=0
		"$PY" "$HB_SRCDIR/tests/tools/chromium-check.py" --chromium "$CHROMIUM" --shot "$T/shot.png" "$page" \
			>"$T/cc.out" 2>"$T/cc.err" || rc=$?
		if [ "$rc" = 3 ]; then
			not_run="$not_run; Chromium does not run here: $(tail -n 1 "$T/cc.err")"
			break
		fi
		expect_eq "Chromium on ${page#"$S"/} ($(cat "$T/cc.err"))" 0 "$rc"
		echo "${page#"$S"/}: $(head -n 1 "$T/cc.out")"
		grep -q "svgs=[1-9]" "$T/cc.out" || [ "$page" = "$S/index.html" ] || fail "the trend page draws no picture: $(cat "$T/cc.out")"
	done
fi

# again with nothing changed: no page written, none touched
touch -d '1 minute ago' "$T/before"
find "$S" -type f -exec touch -d '2 minutes ago' {} +
site "$S"
echo "$line"
expect_eq "the second build's counts" "$pages 0 $pages 0" "$pages $written $unchanged $removed"
expect_eq "new change points at the second build" 0 "$new"
touched=$(find "$S" -name '*.html' -newer "$T/before")
[ -z "$touched" ] || fail "pages written though nothing changed: $touched"

# one new batch on lab-2, a new kernel: some pages written, not all, none of lab-1's
mk_batch 0700 lab-2 6.18.46 "$A" "$B" "$A"
new_batch=$batch
"$HB" db import --db "$db" "$T/lab/$new_batch" >"$T/imp" 2>&1 || fail "db import of the new batch: $(cat "$T/imp")"
first_pages=$pages
site "$S"
echo "$line"
expect_eq "pages after one new batch" "$((first_pages + 1))" "$pages"
[ "$written" -ge 1 ] && [ "$written" -lt "$pages" ] || fail "not some of the pages written: $line"
expect_eq "written and unchanged make the site" "$pages" "$((written + unchanged))"
page=$(ls "$S"/batch/*"$new_batch"*.html 2>/dev/null | head -n 1)
[ -n "$page" ] || fail "no page of the new batch $new_batch: $(ls "$S/batch")"
touched=$(find "$S" -name '*.html' -newer "$T/before" | sed "s|^$S/||" | sort)
echo "written: $(echo $touched)"
expect_eq "pages touched and pages said written" "$written" "$(echo "$touched" | grep -c .)"
echo "$touched" | grep -q "^${page#"$S"/}\$" || fail "the new batch's page was not written"
for batch in $lab1_batches; do
	! echo "$touched" | grep -q "$batch" || fail "lab-1's batch $batch written again: $touched"
done
! echo "$touched" | grep -q "^machine/.*lab-1" || fail "lab-1's machine page written again: $touched"
linkcheck "$S"
grep -rl --include='*.html' "href=\"[^\"]*${page##*/}\"" "$S" >"$T/linking" || true
[ -s "$T/linking" ] || fail "no page links the new batch's page ${page##*/}"

# PostgreSQL: the same batches, the same site but for what names the database
if [ "$(id -u)" != 0 ] || [ ! -x /usr/lib/postgresql/15/bin/initdb ] || ! getent passwd postgres >/dev/null; then
	not_run="$not_run; the PostgreSQL half needs root, the user postgres and postgresql-15 (sh scripts/deps.sh ensure)"
else
	start_postgres "$T/pg"
	"$HB" db import --db "$PGURL" "$T/lab" >"$T/imp" 2>&1 || fail "db import into PostgreSQL: $(cat "$T/imp")"
	"$HB" site --db "$T/db.sqlite" --out "$T/site-sq" >"$T/sq.out" 2>&1 || fail "site from SQLite: $(cat "$T/sq.out")"
	"$HB" site --db "$PGURL" --out "$T/site-pg" >"$T/pg.out" 2>&1 || fail "site from PostgreSQL: $(cat "$T/pg.out")"
	echo "PostgreSQL: $(cat "$T/pg.out")"
	expect_eq "the two builds' counts" "$(sed 's/^site [^:]*: //; s/; [0-9.]* s$//' "$T/sq.out")" \
		"$(sed 's/^site [^:]*: //; s/; [0-9.]* s$//' "$T/pg.out")"
	diff -r -I 'db\.sqlite\|postgresql:' "$T/site-sq" "$T/site-pg" >"$T/diff" ||
		fail "the sites from SQLite and PostgreSQL differ: $(head -n 40 "$T/diff")"
fi
[ -z "$not_run" ] || skip "the rest passed; not run:${not_run#;}"
exit 0
