#!/bin/sh
# cpu: heavy, about 70 s (the whole tree built with clang)
# quick: no (a build of the tree: make check runs it)
# The tree builds warning-free (-Wall -Wextra -Werror) with clang too, not
# only with the default gcc.
. "$(dirname "$0")/../lib.sh"
plain_build_only
command -v clang >/dev/null || skip "clang is not installed"
cd "$HB_SRCDIR"
# -O0: clang's warnings come from its front end, whatever the optimizer
# does after it, so the same build without the optimizer says the same
make -s -j1 B="$T/build-clang" CC=clang CFLAGS="-O0" all tests >"$T/log" 2>&1 || { cat "$T/log"; fail "clang build failed"; }
[ -x "$T/build-clang/hitchbench" ] || fail "clang build made no hitchbench"
"$T/build-clang/hitchbench" --help >/dev/null || fail "the clang build does not run"
exit 0
