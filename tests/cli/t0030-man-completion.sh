#!/bin/sh
# cpu: heavy, about 35 s (every command and helper asked for its help, and zsh)
# The manual pages and the shell completions against the programs they
# describe, so that neither drifts: every command `hitchbench help` lists
# and every helper program has a page; every option its --help shows is in
# that page and among what the bash completion offers for the command; the
# completion offers no option its page does not have; the pages render
# without a warning and lexgrog reads their NAME; the bash completion,
# sourced into bash and called as TAB calls it, offers the commands, the
# recipes and their variants, the metrics, the targets, the switches and
# each --format's values the program itself names; the zsh completion
# parses and, in an interactive zsh, completes the same things.
. "$(dirname "$0")/../lib.sh"
plain_build_only

MAN=$T/man
BASHC=$HB_SRCDIR/completion/hitchbench.bash
ZSHC=$HB_SRCDIR/completion/_hitchbench
command -v man >/dev/null && command -v lexgrog >/dev/null ||
	skip "no man or lexgrog (Debian's man-db: scripts/deps.sh ensure)"
command -v bash >/dev/null || skip "no bash"
# the pages as make man builds them (the build directory may be the
# sanitizer's, which has none)
command -v scdoc >/dev/null || fail "no scdoc: it builds the manual pages (scripts/deps.sh ensure)"
mkdir -p "$MAN"
for s in "$HB_SRCDIR"/docs/man/*.scd; do
	p=$(basename "$s" .scd)
	scdoc <"$s" >"$MAN/$p" 2>"$T/err" || fail "scdoc $s: $(cat "$T/err")"
done
[ -f "$BASHC" ] && [ -f "$ZSHC" ] || fail "the completions are missing from the checkout"

# Completions are asked from an empty directory, so that a file or directory
# argument offers nothing of the checkout's; the targets from a config of
# the test's own.
mkdir -p "$T/cwd"
cat >"$T/targets.ini" <<'INI'
version = 1
[ps3]
url = ssh://root@ps3.lan
[board-2]
url = ssh://pi@10.0.0.9:2222
INI
export HITCHBENCH_TARGETS="$T/targets.ini"

# comp WORD...: what the bash completion offers, one a line, sorted
comp() {
	(cd "$T/cwd" && bash "$HB_SRCDIR/tests/tools/complete.bash" "$BASHC" "$@") | sort -u
}

# The options a --help shows: every --long one, and the short ones of its
# usage lines (its first paragraph: elsewhere "-n" may be rsync's)
help_options() {
	grep -o -- '--[a-z][a-z0-9-]*' "$1"
	sed '/^$/q' "$1" | grep -oE -- '(^|[[ (|])-[a-zA-Z]([] ,|)]|$)' | grep -oE -- '-[a-zA-Z]'
}

# Options a --help names as another command's, not its own: said, and
# checked below to be neither offered by the completion nor shown by the
# page as an option of this command
#   calibrate --batch, --resume  "'hitchbench run --resume' finishes it,
#                                'report' and 'compare --batch' read it"
#   ab --paired                  "as compare --paired --format json"
#   plot --format                "('regress --format tsv')"
#   push --prefix                "(target add --prefix; ...)"
not_own() {
	case "$1 $2" in
	"ab --paired" | "calibrate --batch" | "calibrate --resume" | "plot --format" | "push --prefix") return 0 ;;
	esac
	return 1
}

# page_options PAGE: the options the page (scdoc's roff) shows in bold, as
# an option is written (*--db*), past its SYNOPSIS: where it describes
# them; one a line, sorted for comm
page_options() {
	awk '/^\.SH / { syn = $2 == "SYNOPSIS" } !syn' "$1" | grep -o -- '\\fB-[-a-zA-Z0-9]*\\fR' |
		sed 's/^\\fB//; s/\\fR$//' | LC_ALL=C sort -u
}

# check_page PAGE NAME: renders without a warning, lexgrog reads its NAME
check_page() {
	[ -f "$1" ] || fail "no manual page docs/man/$(basename "$1").scd for $2"
	man --warnings -l "$1" >/dev/null 2>"$T/warn" || fail "man -l $1 failed: $(cat "$T/warn")"
	[ ! -s "$T/warn" ] || fail "$1 renders with warnings: $(cat "$T/warn")"
	lexgrog "$1" >"$T/lex" 2>&1 || fail "lexgrog cannot read $1: $(cat "$T/lex")"
	grep -q ": \"$2 - " "$T/lex" || fail "$1: NAME is not '$2 - ...': $(cat "$T/lex")"
}

# in_both A B: the lines of sorted A that sorted B has too, joined by a
# space; only_in A B: those B lacks
in_both() {
	LC_ALL=C comm -12 "$1" "$2" | paste -sd ' ' -
}
only_in() {
	LC_ALL=C comm -23 "$1" "$2" | paste -sd ' ' -
}

# check_options WHAT HELP PAGE OFFERED: each of HELP's options in PAGE and
# OFFERED (the completion's options, one a line); each offered one in PAGE.
# Set against set (comm), not option by option: a process for each would
# make this test the suite's slowest.
check_options() {
	what=$1 cmd=${1#hitchbench }
	help_options "$2" | LC_ALL=C sort -u >"$T/opts"
	[ -s "$T/opts" ] || [ "$cmd" = thaw ] || [ "$cmd" = hitchbench-wadlump ] ||
		fail "$what --help shows no option: the parse is broken"
	page_options "$3" >"$T/page_opts"
	LC_ALL=C sort -u "$4" >"$T/offered_opts"
	: >"$T/own"
	: >"$T/others"
	while read -r o; do
		if not_own "$cmd" "$o"; then echo "$o" >>"$T/others"; else echo "$o" >>"$T/own"; fi
	done <"$T/opts"
	bad=$(in_both "$T/others" "$T/offered_opts")
	[ -z "$bad" ] || fail "the bash completion offers $bad for $what, another command's option"
	bad=$(in_both "$T/others" "$T/page_opts")
	[ -z "$bad" ] || fail "$3 shows $bad, another command's option, as an option of $what"
	bad=$(only_in "$T/own" "$T/page_opts")
	[ -z "$bad" ] || fail "$what --help shows $bad, its manual page $3 does not"
	bad=$(only_in "$T/own" "$T/offered_opts")
	[ -z "$bad" ] || fail "$what --help shows $bad, the bash completion does not offer it"
	bad=$(only_in "$T/offered_opts" "$T/page_opts")
	[ -z "$bad" ] || fail "the bash completion offers $bad for $what, its manual page $3 does not have it"
	checked=$((checked + $(wc -l <"$T/opts")))
}

# offered WORD...: the options the bash completion offers after WORD...,
# and after each subcommand it offers there (db import, plot frames, ...:
# every non-option it offers at the subcommand's place)
offered() {
	comp "$@" - | grep -- "^-"
	comp "$@" '' | grep -v -- '^-' | while read -r sub; do
		comp "$@" "$sub" - | grep -- "^-"
	done
}

checked=0
"$HB" help >"$T/help" || fail "hitchbench help failed"
cmds=$(sed -n 's/^   \([a-z-]*\) .*/\1/p' "$T/help")
[ "$(echo "$cmds" | wc -l)" -ge 19 ] || fail "help lists too few commands: $cmds"

# the overview page, and the commands the completion offers
check_page "$MAN/hitchbench.1" hitchbench
printf '%s\nhelp\n' "$cmds" | sort -u >"$T/want"
comp "$HB" '' >"$T/got"
cmp -s "$T/want" "$T/got" || fail "the bash completion's commands are not help's: $(diff "$T/want" "$T/got")"
for c in $cmds; do
	grep -qF "\\fB$c\\fR" "$MAN/hitchbench.1" || fail "hitchbench(1) does not list the command $c"
done

for c in $cmds; do
	page=$MAN/hitchbench-$c.1
	check_page "$page" "hitchbench-$c"
	"$HB" "$c" --help >"$T/h" || fail "$c --help failed"
	offered "$HB" "$c" | sort -u >"$T/offered"
	check_options "hitchbench $c" "$T/h" "$page" "$T/offered"
done

# the helper programs: the ones the build makes, each with a page
helpers=$(cd "$HB_BUILD" && ls hitchbench-* | grep -v '\.so$')
[ "$(echo "$helpers" | wc -l)" -ge 8 ] || fail "too few helper programs in $HB_BUILD: $helpers"
for h in $helpers; do
	page=$(ls "$MAN/$h".[18] 2>/dev/null | head -n 1)
	check_page "${page:-$MAN/$h.1}" "$h"
	"$HB_BUILD/$h" --help >"$T/h" || fail "$h --help failed"
	offered "$HB_BUILD/$h" | sort -u >"$T/offered"
	check_options "$h" "$T/h" "$page" "$T/offered"
	grep -qF "\\fB$h\\fR" "$MAN/hitchbench.1" || fail "hitchbench(1) does not list the helper $h"
done

# no page of a command or helper that is no more
for p in "$HB_SRCDIR"/docs/man/hitchbench-*.[18].scd; do
	n=$(basename "$p"); n=${n%.[18].scd}; n=${n#hitchbench-}
	echo "$cmds" | grep -qx -- "$n" || echo "$helpers" | grep -qx -- "hitchbench-$n" ||
		fail "$p is the page of '$n', neither a command nor a helper program"
done
for p in hitchbench-recipe.5 hitchbench-targets.5; do
	check_page "$MAN/$p" "${p%.5}"
done

# --format: the values each --help names (a|b|c; import's list of formats)
for c in $cmds; do
	"$HB" "$c" --help >"$T/h"
	if [ "$c" = import ]; then
		want=$(sed -n '/FORMAT is one of:/,/^$/s/^    \([a-z-][a-z-]*\) .*/\1/p' "$T/h" | sort)
	else
		want=$(grep -o -- '--format [a-z|]*|[a-z|]*' "$T/h" | head -n 1 | sed 's/--format //' | tr '|' '\n' | sort)
	fi
	[ -n "$want" ] || continue
	not_own "$c" --format && continue
	expect_eq "$c --format values" "$want" "$(comp "$HB" "$c" --format '')"
	formats=$((${formats:-0} + 1))
done
[ "${formats:-0}" -ge 3 ] || fail "only ${formats:-0} commands' --format values were checked"

# recipes: the checkout's (hitchbench recipes --names), those with a
# [recipe] section (recipes/matrix.ini is none); variants from the files
want=$(grep -l '^\[recipe\]' "$HB_SRCDIR"/recipes/*.ini | sed 's|.*/||; s|\.ini$||' | sort)
expect_eq "recipes offered" "$want" "$(comp "$HB" run '')"
expect_eq "recipes offered by prefix" "dsda-doom" "$(comp "$HB" calibrate dsd)"
expect_eq "recipes of recipes" "$want" "$(comp "$HB" recipes --names '')"
expect_eq "variants of dsda-doom" "base
gl
software" "$(comp "$HB" run dsda-doom '')"
expect_eq "ab's B" "base
gl
software" "$(comp "$HB" ab --metric fps dsda-doom software '')"
expect_eq "variants after options" "software" "$(comp "$HB" run --rounds 3 dsda-doom so)"

# metrics: the list an unknown --metric is refused with
rc=0; "$HB" report --metric no-such-metric "$T" 2>"$T/err" >/dev/null || rc=$?
expect_eq "unknown metric" 2 "$rc"
n=$(sed -n '/the metrics are:/,/^[^ ]/s/^  //p' "$T/err" | wc -w)
[ "$n" -ge 40 ] || fail "the metrics' list of an unknown --metric: $(cat "$T/err")"
expect_eq "metrics offered" "$n" "$(comp "$HB" compare --metric '' | wc -l)"
expect_eq "a metric by prefix" "stall_disk_s" "$(comp "$HB" report --metric=stall_d)"

# targets, switches, quiet profiles, a subcommand's values
expect_eq "targets offered" "board-2
ps3" "$(comp "$HB" push '')"
expect_eq "run --target" "ps3" "$(comp "$HB" run --target p)"
comp "$HB" run dsda-doom --switches 'GAMECPU=1+STA' >"$T/got"
grep -qx 'GAMECPU=1+STALLS=' "$T/got" || fail "--switches GAMECPU=1+STA: $(cat "$T/got")"
"$HB" run --help | sed -n '/^switches:/,$s/^  *\([A-Z][A-Z_]*\) .*/\1=/p' | sort >"$T/want"
comp "$HB" run --switches '' | grep -v '^-$' >"$T/got"
cmp -s "$T/want" "$T/got" || fail "the switches offered are not run --help's: $(diff "$T/want" "$T/got")"
comp "$HB" quiet --profile '' | grep -qx default || fail "quiet --profile does not offer 'default'"
expect_eq "plot's pictures" "--help
frames
histogram
matrix
percentiles
trend" "$(comp "$HB" plot '')"

# zsh: the file parses, and an interactive zsh completes with it
if ! command -v zsh >/dev/null; then
	echo "note: no zsh (Debian's zsh: scripts/deps.sh ensure): its completion was not checked" >&2
	echo "t0030: $checked options checked against pages and the bash completion"
	exit 0
fi
zsh -n "$ZSHC" 2>"$T/err" || fail "zsh -n $ZSHC: $(cat "$T/err")"
# each command's and helper's options in its branch of the zsh file: from
# its "  (NAME)" line to the next one at that indent, with the arrays of
# shared options it uses (run's holds the other two)
zsh_branch() {
	awk -v n="($1)" '$1 == n && /^  \(/ { on = 1; print; next } on && /^  \(/ { exit } on' "$ZSHC" >"$T/b0"
	cat "$T/b0"
	for a in batch order run; do
		if grep -q "_hitchbench_${a}_opts" "$T/b0" || grep -q '_hitchbench_run_opts' "$T/b0"; then
			sed -n "/^_hitchbench_${a}_opts=(/,/^)/p" "$ZSHC"
		fi
	done
}
for c in $cmds $helpers; do
	zsh_branch "$c" >"$T/branch"
	[ -s "$T/branch" ] || fail "the zsh completion has no branch for $c"
	if echo "$helpers" | grep -qx -- "$c"; then "$HB_BUILD/$c" --help; else "$HB" "$c" --help; fi >"$T/h"
	help_options "$T/h" | LC_ALL=C sort -u | while read -r o; do
		not_own "$c" "$o" || [ "$o" = --help ] || echo "$o"
	done >"$T/zsh_want"
	# an option as the branch offers it: after one of '{,*) and before one
	# of ]=[,} (commas doubled: one ends an option, the next begins one)
	sed 's/,/,,/g' "$T/branch" | grep -oE -- "['{,*)]-[-a-zA-Z0-9]*[]=[,}]" | sed 's/^.//; s/.$//' |
		LC_ALL=C sort -u >"$T/zsh_opts"
	bad=$(only_in "$T/zsh_want" "$T/zsh_opts")
	[ -z "$bad" ] || fail "the zsh completion does not offer $bad for $c"
done
zc() {
	zsh -f "$HB_SRCDIR/tests/tools/complete.zsh" "$HB_SRCDIR/completion" "$T/cwd" "$1" | tr -d '\r' | tail -n 1
}
for l in "$HB ru|$HB run " "$HB run dsda-doom so|$HB run dsda-doom software " \
	"$HB report --metric=stall_d|$HB report --metric=stall_disk_s " "$HB db imp|$HB db import " \
	"$HB push ps|$HB push ps3 " "$HB run --switches GAMEC|$HB run --switches GAMECPU=" \
	"$HB_BUILD/hitchbench-waker --dma|$HB_BUILD/hitchbench-waker --dma-latency "; do
	got=$(zc "${l%%|*}")
	case "$got" in
	*"${l#*|}") ;;
	*) fail "zsh: '${l%%|*}' TAB: expected '${l#*|}', got: $got" ;;
	esac
done
echo "t0030: $checked options checked against pages and the bash completion; zsh completes"
