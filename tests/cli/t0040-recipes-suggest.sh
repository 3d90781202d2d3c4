#!/bin/sh
# hitchbench recipes: every recipe of recipes/ (and not the matrix file
# beside them) with its variants, the default first; --names; a recipe that
# does not load said with its file:line (exit 2). And "did you mean" for a
# mistyped command, recipe, variant and metric.
. "$(dirname "$0")/../lib.sh"

"$HB" recipes --names >"$T/names" || fail "recipes --names failed"
want=$(cd "$HB_SRCDIR/recipes" && for f in *.ini; do
	grep -q '^\[recipe\]' "$f" && echo "${f%.ini}"; done | LC_ALL=C sort)
expect_eq "recipes --names" "$want" "$(cat "$T/names")"
grep -qx matrix "$T/names" && fail "the matrix file is listed as a recipe"

"$HB" recipes >"$T/all" || fail "recipes failed"
# one entry per recipe, each with its file
expect_eq "entries" "$(wc -l <"$T/names")" "$(grep -c '^  file: ' "$T/all")"
# dsda-doom: its two variants, the default (software) first
sed -n '/^dsda-doom /,/^$/p' "$T/all" >"$T/dsda"
grep -q "^  variants: software (default): " "$T/dsda" || fail "dsda-doom's default variant: $(cat "$T/dsda")"
grep -q "^            gl: " "$T/dsda" || fail "dsda-doom's gl variant: $(cat "$T/dsda")"
grep -q "^  frames hook; warm-up 10 s, window 60 s, ends when the window is full$" "$T/dsda" ||
	fail "dsda-doom's frames line: $(cat "$T/dsda")"
grep -q "^  packages: dsda-doom freedoom$" "$T/dsda" || fail "dsda-doom's packages: $(cat "$T/dsda")"

# named ones only, by name and by path; a broken one is said, the others listed
cat >"$T/bad.ini" <<'EOI'
[recipe]
name = bad
command = /bin/true
windw = 10
EOI
rc=0; "$HB" recipes dsda-doom "$T/bad.ini" vkcube >"$T/some" 2>"$T/err" || rc=$?
expect_eq "a broken recipe's exit" 2 "$rc"
grep -q "bad.ini:4: " "$T/err" || fail "the broken recipe's file:line: $(cat "$T/err")"
expect_eq "listed beside it" "dsda-doom vkcube" "$(sed -n 's/^\([a-z][a-z-]*\)  .*/\1/p' "$T/some" | tr '\n' ' ' | sed 's/ $//')"

# did you mean
rc=0; "$HB" staals 2>"$T/err" || rc=$?
expect_eq "mistyped command" 2 "$rc"
expect_eq "its hint" "hitchbench: 'staals' is not a hitchbench command; did you mean 'stalls'?" "$(cat "$T/err")"
rc=0; "$HB" run dsda-dom --no-db --out "$T/runs" 2>"$T/err" || rc=$?
expect_eq "mistyped recipe" 2 "$rc"
grep -q "no recipe 'dsda-dom' .*; did you mean 'dsda-doom'?" "$T/err" || fail "recipe hint: $(cat "$T/err")"
rc=0; "$HB" run dsda-doom softwar --plan --no-db --out "$T/runs" 2>"$T/err" || rc=$?
expect_eq "mistyped variant" 2 "$rc"
grep -q "has no variant 'softwar' (it has: base, software, gl); did you mean 'software'?" "$T/err" ||
	fail "variant hint: $(cat "$T/err")"
rc=0; "$HB" report --metric p99ms "$T" 2>"$T/err" || rc=$?
expect_eq "mistyped metric" 2 "$rc"
grep -q "unknown metric 'p99ms'; did you mean 'p99_ms'? the metrics are:" "$T/err" ||
	fail "metric hint: $(cat "$T/err")"
# nothing near: no guess, the pointer to the list instead
rc=0; "$HB" run zzzzzzzz --no-db --out "$T/runs" 2>"$T/err" || rc=$?
grep -q "no recipe 'zzzzzzzz' .*; 'hitchbench recipes' lists them" "$T/err" || fail "no hint: $(cat "$T/err")"
# and the subcommands of db, lab and target
for c in "db inof:unknown db subcommand 'inof'; did you mean 'info'?" \
	"lab stauts:'stauts' is not a lab subcommand; did you mean 'status'?" \
	"target lsit:'lsit' is not a target subcommand; did you mean 'list'?" \
	"lab zzzzz:'zzzzz' is not a lab subcommand"; do
	rc=0; "$HB" ${c%%:*} 2>"$T/err" || rc=$?
	expect_eq "${c%%:*}: exit" 2 "$rc"
	expect_eq "${c%%:*}: message" "hitchbench: ${c#*:}" "$(head -n 1 "$T/err")"
done
