#!/bin/sh
# make bench-matrix: runs the batches a matrix file lists (default
# recipes/matrix.ini; format in recipes/README.md), one per game, then
# writes results/matrix/<metric>.csv with hitchbench matrix.
#
#   MATRIX=FILE   another matrix file
#   QUICK=1       one round of short windows (2 s warm-up, 5 s measured): a
#                 check that the whole chain works, not a measurement
#   HB=PATH       the hitchbench to use (default build/hitchbench)
#   RUN_ARGS=...  more options for every hitchbench run (e.g. --no-quieting)
#
# A batch that fails does not stop the others; the exit status is 1 then.
set -u
HB=${HB:-build/hitchbench}
MATRIX=${MATRIX:-recipes/matrix.ini}
QUICK=${QUICK:-0}
RUN_ARGS=${RUN_ARGS:-}

[ -r "$MATRIX" ] || { echo "bench-matrix: cannot read '$MATRIX'" >&2; exit 2; }

# The file as lines "GAME<TAB>VARIANTS<TAB>TOKENS<TAB>ROUNDS", or
# "FILE:LINE: what is wrong" on stderr and exit 2.
plan=$(awk -v file="$MATRIX" '
	function bad(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; failed = 1; exit 2 }
	function flush() {
		if (game == "") return
		if (variants == "") { NR = start; bad("game " game " has no variants") }
		printf "%s\t%s\t%s\t%s\n", game, variants, tokens == "" ? "-" : tokens, rounds == "" ? default_rounds : rounds
	}
	{ sub(/\r$/, ""); line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line) }
	line == "" || line ~ /^[#;]/ { next }
	line ~ /^\[/ {
		if (line !~ /^\[[^]]*\]$/) bad("not a section header: " line)
		flush(); game = ""; variants = ""; tokens = ""; rounds = ""
		name = substr(line, 2, length(line) - 2)
		if (name == "matrix") { section = "matrix"; next }
		if (name ~ /^game [A-Za-z0-9._-]+$/) { section = "game"; game = substr(name, 6); start = NR; next }
		bad("unknown section [" name "] (want [matrix] or [game NAME])")
	}
	{
		eq = index(line, "=")
		if (!eq) bad("not a key = value line")
		key = substr(line, 1, eq - 1); sub(/[ \t]+$/, "", key)
		value = substr(line, eq + 1); sub(/^[ \t]+/, "", value)
		if (section == "") bad("key before the first section")
		if (key == "rounds") {
			if (value !~ /^[1-9][0-9]*$/) bad("rounds wants a whole number > 0, not \"" value "\"")
			if (section == "matrix") default_rounds = value; else rounds = value
		} else if (key == "variants" && section == "game") {
			variants = value
		} else if (key == "tokens" && section == "game") {
			tokens = value
		} else {
			bad("unknown key \"" key "\" in [" section "]")
		}
	}
	END { if (!failed) { if (default_rounds == "") default_rounds = 5; flush() } }
' "$MATRIX") || exit 2
[ -n "$plan" ] || { echo "$MATRIX: no [game NAME] section" >&2; exit 2; }

quick=""
if [ "$QUICK" = 1 ]; then
	quick="--warmup 2 --window 5"
	echo "bench-matrix: QUICK=1: one round of 5 s windows, a check of the chain, not a measurement"
fi

status=0
tab=$(printf '\t')
echo "$plan" | while IFS="$tab" read -r game variants tokens rounds; do
	[ "$QUICK" = 1 ] && rounds=1
	echo "bench-matrix: $HB run $game \"$variants\" $rounds --switches \"$tokens\" $quick $RUN_ARGS"
	# shellcheck disable=SC2086 # quick and RUN_ARGS are word lists
	"$HB" run "$game" "$variants" "$rounds" --switches "$tokens" $quick $RUN_ARGS || {
		echo "bench-matrix: the $game batch failed (exit $?)" >&2
		exit 1
	}
done || status=1

"$HB" matrix || status=1
exit $status
