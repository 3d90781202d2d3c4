#!/bin/sh
# wall: about 40 s (every breach of the shape tried on a copy of the tree)
# The tree keeps the house's shape (docs/layout.md): scripts/shape.sh finds
# no function over 100 lines, no file over 800 lines without its reason, no
# unit without a header, no unit outside a room, no room name in two
# layers, no library code that prints, no runner unit that includes a
# command's header and no sleep beside sleep_ms(). First it is shown each
# breach, made on purpose, so a clean verdict on the tree means something.
. "$(dirname "$0")/../lib.sh"
plain_build_only
mkdir -p "$T/x"
{
	echo '/* a file that breaks every rule */'
	echo 'int long_one(void)'
	echo '{'
	i=0
	while [ $i -lt 100 ]; do echo '	;'; i=$((i + 1)); done
	echo '	return 0;'
	echo '}'
	i=0
	while [ $i -lt 700 ]; do echo ''; i=$((i + 1)); done
} >"$T/x/big.c"
cd "$T"
if sh "$HB_SRCDIR/scripts/shape.sh" x >"$T/out"; then fail "shape.sh passed a breaking file"; fi
grep -q '^x/big.c:3: long_one is 103 lines (at most 100)$' "$T/out" || { cat "$T/out"; fail "the long function"; }
grep -q '^x/big.c:1: 805 lines' "$T/out" || { cat "$T/out"; fail "the long file"; }
grep -q '^x/big.c:1: no header' "$T/out" || { cat "$T/out"; fail "the missing header"; }

# a reason and a header make the file's length and the unit acceptable
sed -i '1s|.*|/*\n * Long because: a test says so.\n */|' "$T/x/big.c"
touch "$T/x/big.h"
sh "$HB_SRCDIR/scripts/shape.sh" x >"$T/out"
expect_eq "what is left" "x/big.c:5: long_one is 103 lines (at most 100)" "$(cat "$T/out")"

# the rooms and who may print, in a tree of three layers
Y=$T/y
mkdir -p "$Y/common/base" "$Y/analysis/base" "$Y/bench/cmd" "$Y/bench/runner"
printf '/* a unit outside a room */\nint stray(void);\nint stray(void) { return 0; }\n' >"$Y/common/stray.c"
touch "$Y/common/stray.h"
printf '#include <stdio.h>\n/* "printf" in a comment is no print */\nvoid say(void);\nvoid say(void)\n{\n\tfprintf(stderr, "x");\n}\n' \
	>"$Y/analysis/base/say.c"
printf '#include "cmd/cmd.h"\nvoid tell(void);\nvoid tell(void)\n{\n\terror_msg("%%s", "x");\n}\n' >"$Y/bench/runner/tell.c"
printf '#include <stdio.h>\nvoid ok(void);\nvoid ok(void)\n{\n\tfprintf(stderr, "a command may");\n}\n' >"$Y/bench/cmd/ok.c"
printf '#include <unistd.h>\nvoid nap(void);\nvoid nap(void)\n{\n\tusleep(1000);\n}\n' >"$Y/bench/runner/nap.c"
touch "$Y/bench/runner/nap.h"
touch "$Y/analysis/base/say.h" "$Y/bench/runner/tell.h" "$Y/bench/cmd/ok.h"
cd "$Y"
if sh "$HB_SRCDIR/scripts/shape.sh" common analysis bench >"$T/out"; then fail "shape.sh passed a tree of breaches"; fi
grep -q '^common/stray.c:1: not in a room' "$T/out" || { cat "$T/out"; fail "the unit outside a room"; }
grep -q '^common/base analysis/base .*rooms of one name in two layers' "$T/out" || { cat "$T/out"; fail "the room in two layers"; }
grep -q '^analysis/base/say.c:6:.*library code prints' "$T/out" || { cat "$T/out"; fail "the analysis printing"; }
grep -q '^bench/runner/tell.c:5:.*library code prints' "$T/out" || { cat "$T/out"; fail "the runner calling error_msg"; }
grep -q '^bench/runner/tell.c:1:.*only the commands include cmd/' "$T/out" || { cat "$T/out"; fail "the runner including cmd/"; }
grep -q '^bench/runner/nap.c:5:.*a bare sleep' "$T/out" || { cat "$T/out"; fail "the bare sleep"; }
grep -q 'bench/cmd/ok.c' "$T/out" && { cat "$T/out"; fail "a command's print was taken for a breach"; }
grep -q 'say.c:2' "$T/out" && { cat "$T/out"; fail "a comment was taken for a print"; }
[ "$(wc -l <"$T/out")" = 7 ] || { cat "$T/out"; fail "more breaches than were made"; }

# docs/layout.md's table of rooms is the tree on disk: every room it names
# exists, and every room on disk is in it
cd "$HB_SRCDIR"
sed -n 's/^| `\(\(common\|analysis\|bench\)\/[a-z]*\)\/` |.*/\1/p' docs/layout.md | sort >"$T/doc-rooms"
for d in common analysis bench; do find "$d" -mindepth 1 -maxdepth 1 -type d; done | grep -v '/schema$' | sort >"$T/disk-rooms"
[ -s "$T/doc-rooms" ] || fail "docs/layout.md draws no rooms"
diff -u "$T/doc-rooms" "$T/disk-rooms" >"$T/rooms.diff" ||
	{ cat "$T/rooms.diff" >&2; fail "docs/layout.md's rooms (-) are not the tree's (+)"; }
sh scripts/shape.sh || fail "the tree breaks the house's shape (above)"
exit 0
