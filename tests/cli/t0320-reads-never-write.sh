#!/bin/sh
# Reads never write. In a fresh empty directory, every command that only
# reads (report, matrix, compare, regress, db info, stalls, plot, frames,
# interference-scan) and the writers' input checks (import, db import)
# refuse a missing database or input path with exit 2 and one message, and
# leave the directory as it was: no database, no results/, no missing parent
# made, the default database (results/hitchbench.db) included. On an
# existing database a read leaves its bytes, its mtime and its directory
# unchanged (no -journal), and one of an older schema is refused, not
# upgraded, until 'db upgrade'. Only run, import and db import make one.
. "$(dirname "$0")/../lib.sh"
R="$HB_FIXTURES/runs"
W="$T/w"
mkdir -p "$W"
cd "$W" || fail "cannot enter $W"
# the default database, results/hitchbench.db, is $W's
export HITCHBENCH_RESULTS="$W/results"

# refused WHAT MESSAGE ARGS...: exit 2, MESSAGE as the first line on
# stderr, nothing on stdout, and not a file more or less under $W
refused() {
	what=$1
	msg=$2
	shift 2
	find . | sort >"$T/before"
	rc=0
	"$HB" "$@" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$what: exit" 2 "$rc"
	expect_eq "$what: message" "hitchbench: $msg" "$(head -n 1 "$T/err")"
	[ ! -s "$T/out" ] || fail "$what: printed $(cat "$T/out")"
	find . | sort >"$T/after"
	cmp -s "$T/before" "$T/after" || fail "$what: the directory changed: $(diff "$T/before" "$T/after")"
}

# a missing database: relative with a missing parent, absolute, the default
def="$W/results/hitchbench.db"
for db in nodir/x.db "$W/nodir2/x.db" x.db; do
	refused "report --db $db" "no such database: $db" report --db "$db"
	refused "matrix --db $db" "no such database: $db" matrix --db "$db" --out m
	refused "compare --db $db" "no such database: $db" compare --db "$db" dsda-doom software gl
	refused "regress --db $db" "no such database: $db" regress --db "$db" --metric fps dsda-doom software
	refused "db info --db $db" "no such database: $db" db info --db "$db"
	refused "db upgrade --db $db" "no such database: $db" db upgrade --db "$db"
done
refused "matrix, default database" "no such database: $def" matrix
refused "compare, default database" "no such database: $def" compare dsda-doom software gl
refused "regress, default database" "no such database: $def" regress --metric fps dsda-doom software
refused "db info, default database" "no such database: $def" db info
[ ! -e "$W/nodir2" ] || fail "the missing parent was made"

# a missing input path: the same words and exit everywhere
nope="cannot open 'nope': No such file or directory"
refused "report" "$nope" report nope
refused "report, one of two" "$nope" report "$R" nope
refused "matrix" "$nope" matrix --out m nope
refused "stalls" "$nope" stalls nope
refused "frames" "$nope" frames nope
refused "plot frames" "$nope" plot frames nope --out p
refused "plot percentiles" "$nope" plot percentiles nope --out p
refused "plot matrix" "cannot open 'nope.csv': No such file or directory" plot matrix nope.csv --out p
refused "plot trend" "cannot open 'nope.tsv': No such file or directory" plot trend nope.tsv --out p
refused "interference-scan" "$nope" interference-scan nope
refused "report --interfered" "cannot open 'nope.txt': No such file or directory" \
	report --interfered nope.txt "$R"
# writers too: a typo makes no run directory and no database
refused "import" "cannot open 'nope.csv': No such file or directory" import --format mangohud nope.csv
refused "db import" "$nope" db import --db x.db nope
refused "db import, default database" "$nope" db import nope
# a directory that holds no run: usage, said as such
mkdir empty
refused "report of an empty directory" "'empty' is not a run directory nor a directory of them" report empty
refused "frames of an empty directory" "'empty' is not a run directory (no bench.txt)" frames empty
rmdir empty
expect_eq "the directory is still empty" "" "$(ls -A "$W")"

# an existing database: the writer makes it (and its directory), readers
# leave every byte, the mtime and the directory as they were
cp -R "$R" "$T/runs"
"$HB" db import --db "$T/db/x.db" "$T/runs" >/dev/null || fail "db import failed"
[ -f "$T/db/x.db" ] || fail "db import made no database"
cp -p "$T/db/x.db" "$T/copy.db"
stamp=$(stat -c %y "$T/db/x.db")
# unchanged WHAT ARGS...: the command ran (exit 0, 3 or 4) and left the database alone
unchanged() {
	what=$1
	shift
	rc=0
	"$HB" "$@" >"$T/out" 2>"$T/err" || rc=$?
	case $rc in 0|3|4) ;; *) fail "$what: exit $rc: $(cat "$T/err")" ;; esac
	cmp -s "$T/db/x.db" "$T/copy.db" || fail "$what changed the database's bytes"
	expect_eq "$what: mtime" "$stamp" "$(stat -c %y "$T/db/x.db")"
	expect_eq "$what: files beside it" "x.db" "$(ls -A "$T/db")"
}
unchanged "db info" db info --db "$T/db/x.db"
grep -q '^runs=3$' "$T/out" || fail "db info: $(cat "$T/out")"
unchanged "report --db" report --db "$T/db/x.db"
grep -q '^median dsda-doom software (n=2) ' "$T/out" || fail "report --db: $(cat "$T/out")"
unchanged "report --db --format json" report --db "$T/db/x.db" --format json
unchanged "matrix --db" matrix --db "$T/db/x.db" --by kernel --out "$T/m"
[ -s "$T/m/fps.csv" ] || fail "matrix wrote no fps.csv"
unchanged "compare --db" compare --db "$T/db/x.db" dsda-doom software gl
grep -q '^verdict ' "$T/out" || fail "compare: $(cat "$T/out")"
unchanged "regress --db" regress --db "$T/db/x.db" --metric fps dsda-doom software
# while a reader holds it, the writer still gets in (no lock left behind)
"$HB" db import --db "$T/db/x.db" "$T/runs" >/dev/null || fail "db import after the reads failed"

# a database of the first schema: refused by a reader as it is, upgraded
# only when asked
command -v sqlite3 >/dev/null || skip "everything above passed; sqlite3 (the CLI) is needed for the old-schema part"
sqlite3 "$T/old.db" <"$HB_SRCDIR/bench/db/schema/0001-init.sql" || fail "cannot make a schema-1 database"
sqlite3 "$T/old.db" 'PRAGMA user_version = 1' || fail "cannot set its version"
cp -p "$T/old.db" "$T/old-copy.db"
rc=0; "$HB" report --db "$T/old.db" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "old schema: exit" 1 "$rc"
grep -qF "database '$T/old.db' has schema version 1, older than this hitchbench reads" "$T/err" ||
	fail "old schema message: $(cat "$T/err")"
grep -qF "'hitchbench db upgrade --db $T/old.db' upgrades it (a read never does)" "$T/err" ||
	fail "old schema message says not what to do: $(cat "$T/err")"
cmp -s "$T/old.db" "$T/old-copy.db" || fail "a reader changed the old database"
"$HB" db upgrade --db "$T/old.db" >"$T/out" || fail "db upgrade failed"
grep -q '^schema_version=[2-9]' "$T/out" || fail "db upgrade: $(cat "$T/out")"
"$HB" db info --db "$T/old.db" >"$T/out" || fail "db info after the upgrade"
grep -q '^runs=0$' "$T/out" || fail "db info after the upgrade: $(cat "$T/out")"
exit 0
