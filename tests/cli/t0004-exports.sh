#!/bin/sh
# What a unit exports, something else uses (docs/layout.md, "Shape"):
# scripts/exports.sh over this build's objects finds no exported function
# or variable that only its own file uses, and none that only the tests
# reach without the comment over its declaration saying so. First a small
# tree made here, with one of each, shows that the check finds them.
. "$(dirname "$0")/../lib.sh"
plain_build_only
command -v nm >/dev/null || skip "nm (binutils) is not installed"
command -v cc >/dev/null || skip "no C compiler"
X=$T/x
mkdir -p "$X/common" "$X/analysis" "$X/bench" "$X/harness" "$X/tests/unit" "$X/b/common" \
	"$X/b/analysis" "$X/b/bench" "$X/b/harness" "$X/b/tests/unit"
cat >"$X/common/lib.c" <<'C'
int lib_used(void);
int lib_alone(void);
int lib_used(void) { return 1; }
int lib_alone(void) { return 2; }
static int local(void) { return lib_alone(); }
int (*keep)(void) = local;
int lib_tested(void);
int lib_tested(void) { return 3; }
int lib_marked(void);
int lib_marked(void) { return 4; }
C
printf 'int lib_used(void);\nint lib_tested(void);\n/* for the tests */\nint lib_marked(void);\n' >"$X/common/lib.h"
printf 'int lib_tested(void);\nint lib_marked(void);\nint t(void);\nint t(void) { return lib_tested() + lib_marked(); }\n' \
	>"$X/tests/unit/t.c"
printf 'int lib_used(void);\nint main(void) { return lib_used(); }\n' >"$X/bench/main.c"
printf 'extern int (*keep)(void);\nint user(void);\nint user(void) { return keep != 0; }\n' >"$X/harness/h.c"
for f in common/lib bench/main harness/h tests/unit/t; do
	cc -c -o "$X/b/$f.o" "$X/$f.c" || fail "cc $f.c"
done
cd "$X"
if sh "$HB_SRCDIR/scripts/exports.sh" b >"$T/out"; then fail "exports.sh passed an unused export"; fi
expect_eq "the breaches" "common/lib.c: lib_alone is exported but used nowhere else
common/lib.h:2: lib_tested is reached only by the tests, and the comment over it does not say so" "$(cat "$T/out")"

cd "$HB_SRCDIR"
sh scripts/exports.sh "$HB_BUILD" || fail "exported names that only their own file uses (above)"
exit 0
