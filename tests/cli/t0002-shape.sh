#!/bin/sh
# The tree keeps the house's shape (docs/layout.md): scripts/shape.sh finds
# no function over 100 lines, no file over 800 lines without its reason and
# no unit without a header. First it is shown each breach, made on purpose,
# so a clean verdict on the tree means something.
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

cd "$HB_SRCDIR"
sh scripts/shape.sh || fail "the tree breaks the house's shape (above)"
exit 0
