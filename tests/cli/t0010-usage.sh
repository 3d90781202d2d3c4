#!/bin/sh
# The command table: help, usage errors (exit 2), unknown commands and
# recipes, and a bad recipe refused before anything starts; what the table's
# runner does for every command: stdout checked once (a full disk is exit 1
# with one message, for help and data alike) and the shared --db taken in
# each of getopt's spellings.
. "$(dirname "$0")/../lib.sh"

"$HB" >/dev/null 2>&1 && fail "no command should be a usage error"
rc=0; "$HB" >/dev/null 2>&1 || rc=$?
expect_eq "exit without a command" 2 "$rc"

"$HB" --help >"$T/help" || fail "--help failed"
for c in run report db frames quiet thaw; do
	grep -q "^   $c " "$T/help" || fail "--help does not list '$c'"
done
# every command the table lists: its --help, and 'help CMD' the same
cmds=$(sed -n 's/^   \([a-z-]*\) .*/\1/p' "$T/help")
[ "$(echo "$cmds" | wc -l)" -ge 13 ] || fail "--help lists too few commands: $cmds"
for c in $cmds; do
	"$HB" $c --help >"$T/h" || fail "$c --help failed"
	grep -q "^usage: hitchbench $c" "$T/h" || fail "$c --help has no usage line"
	"$HB" help $c >"$T/h2" 2>"$T/err" || fail "help $c failed: $(cat "$T/err")"
	cmp -s "$T/h" "$T/h2" || fail "help $c is not $c --help: $(diff "$T/h" "$T/h2")"
done
"$HB" help >"$T/h" || fail "help failed"
cmp -s "$T/help" "$T/h" || fail "help is not --help"
rc=0; "$HB" help frobnicate 2>"$T/err" || rc=$?
expect_eq "help of an unknown command" 2 "$rc"
grep -q "'frobnicate' is not a hitchbench command" "$T/err" || fail "help frobnicate: $(cat "$T/err")"

rc=0; "$HB" frobnicate 2>"$T/err" || rc=$?
expect_eq "unknown command" 2 "$rc"
grep -q "'frobnicate' is not a hitchbench command" "$T/err" || fail "unknown command message"

rc=0; "$HB" run no-such-game --out "$T/runs" --no-db 2>"$T/err" || rc=$?
expect_eq "unknown recipe" 2 "$rc"
grep -q "no recipe 'no-such-game'" "$T/err" || fail "unknown recipe message: $(cat "$T/err")"

rc=0; "$HB" run --rounds 0 x 2>"$T/err" || rc=$?
expect_eq "--rounds 0" 2 "$rc"

# getopt's prefix of ab's options: "--me" is --metric, for ab and for run,
# which refuses it by that name ("--m" is ambiguous: --min-frames too)
rc=0; "$HB" run --me fps x 2>"$T/err" || rc=$?
expect_eq "run --me: exit" 2 "$rc"
expect_eq "run --me: message" "hitchbench: --metric is an option of 'hitchbench ab', not of run" \
	"$(head -n 1 "$T/err")"
rc=0; "$HB" ab --me fps x 2>"$T/err" || rc=$?
expect_eq "ab --me: exit" 2 "$rc"
expect_eq "ab --me: message" "hitchbench: ab wants a recipe and two cells, A and B" "$(head -n 1 "$T/err")"

cat >"$T/bad.ini" <<'EOF'
[recipe]
name = bad
command = /bin/true
windw = 10
EOF
rc=0; "$HB" run "$T/bad.ini" --out "$T/runs" --db "$T/db.sqlite" 2>"$T/err" || rc=$?
expect_eq "bad recipe" 2 "$rc"
expect_eq "bad recipe message" "$T/bad.ini:4: unknown key 'windw'" "$(cat "$T/err")"
[ ! -e "$T/runs" ] || fail "a refused recipe created run directories"
[ ! -e "$T/db.sqlite" ] || fail "a refused recipe created the database"

rc=0; "$HB" run "$HB_SRCDIR/recipes/dsda-doom.ini" no-such-variant --no-db 2>"$T/err" || rc=$?
expect_eq "unknown variant" 2 "$rc"
grep -q "has no variant 'no-such-variant' (it has: base, software, gl)" "$T/err" || fail "variant message: $(cat "$T/err")"

rc=0; "$HB" report "$T/nothing" 2>"$T/err" || rc=$?
expect_eq "report of nothing" 2 "$rc"
expect_eq "report of nothing: message" "hitchbench: cannot open '$T/nothing': No such file or directory" \
	"$(cat "$T/err")"

# stdout that cannot be written: exit 1, one message (with its cause when
# the last flush found it: report's own flush finds it first), whatever the command
if [ -w /dev/full ]; then
	for args in "--help" "--version" "help report" "report --help" "report $HB_FIXTURES/runs"; do
		rc=0; "$HB" $args >/dev/full 2>"$T/err" || rc=$?
		expect_eq "$args >/dev/full: exit" 1 "$rc"
		expect_eq "$args >/dev/full: lines on stderr" 1 "$(wc -l <"$T/err")"
		grep -q '^hitchbench: cannot write to standard output' "$T/err" ||
			fail "$args >/dev/full: $(cat "$T/err")"
	done
fi
# a stdout the caller closed: an error when something was written to it, not
# when nothing was (the command's own exit status and message stand)
rc=0; "$HB" --version >&- 2>"$T/err" || rc=$?
expect_eq "--version >&-: exit" 1 "$rc"
grep -q '^hitchbench: cannot write to standard output' "$T/err" || fail "--version >&-: $(cat "$T/err")"
rc=0; "$HB" report "$T/nothing" >&- 2>"$T/err" || rc=$?
expect_eq "report of nothing >&-: exit" 2 "$rc"
expect_eq "report of nothing >&-: message" "hitchbench: cannot open '$T/nothing': No such file or directory" \
	"$(cat "$T/err")"
# --db PATH, --db=PATH and getopt's prefix --d, anywhere before a '--'
db="$T/none.db"
for args in "--db $db" "--db=$db" "--d $db" "--d=$db" "--game g --db $db" "--db x --db $db"; do
	rc=0; "$HB" report $args >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "report $args: exit" 2 "$rc"
	expect_eq "report $args: message" "hitchbench: no such database: $db" "$(cat "$T/err")"
done
rc=0; "$HB" report --db 2>"$T/err" || rc=$?
expect_eq "--db without a path: exit" 2 "$rc"
expect_eq "--db without a path: message" \
	"hitchbench: option '--db' wants a path or URL; see 'hitchbench report --help'" "$(cat "$T/err")"
rc=0; "$HB" report -- --db "$db" 2>"$T/err" || rc=$?
expect_eq "--db after --: exit" 2 "$rc"
expect_eq "--db after --: a run directory" "hitchbench: cannot open '--db': No such file or directory" \
	"$(cat "$T/err")"
# a command whose --db is its own (run's, with --no-db) is not the table's
rc=0; "$HB" frames --db "$db" 2>"$T/err" || rc=$?
expect_eq "frames --db: exit" 2 "$rc"
grep -q "unrecognized option '--db'" "$T/err" || fail "frames --db: $(cat "$T/err")"
exit 0
