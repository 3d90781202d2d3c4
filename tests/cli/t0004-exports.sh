#!/bin/sh
# What a unit exports, something else uses (docs/layout.md, "Shape"):
# scripts/exports.sh over this build's objects finds no exported function
# or variable that only its own file uses. First a small tree made here,
# with one such name, shows that the check finds it.
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
C
printf 'int lib_used(void);\nint main(void) { return lib_used(); }\n' >"$X/bench/main.c"
printf 'extern int (*keep)(void);\nint user(void);\nint user(void) { return keep != 0; }\n' >"$X/harness/h.c"
for f in common/lib bench/main harness/h; do
	cc -c -o "$X/b/$f.o" "$X/$f.c" || fail "cc $f.c"
done
cd "$X"
if sh "$HB_SRCDIR/scripts/exports.sh" b >"$T/out"; then fail "exports.sh passed an unused export"; fi
expect_eq "the breach" "common/lib.c: lib_alone is exported but used nowhere else" "$(cat "$T/out")"

cd "$HB_SRCDIR"
sh scripts/exports.sh "$HB_BUILD" || fail "exported names that only their own file uses (above)"
exit 0
