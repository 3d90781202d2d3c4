#!/bin/sh
# cpu: heavy, about 45 s (the tree built on the target, without the optimizer)
# quick: no (a build of the tree: make check runs it)
# push --build-on-target against the test's own sshd: the source (git
# archive HEAD) copied to PREFIX/src and built there with make install
# PREFIX=...; the installed hitchbench runs, push.txt says target-build and
# the version of the host's checkout. A second push copies no source and
# rebuilds nothing (the build directory there is kept). One login each.
# time-limit: 900
. "$(dirname "$0")/../lib.sh"
plain_build_only
command -v rsync >/dev/null || skip "no rsync"
command -v git >/dev/null || skip "no git"
S=$T/sshd
# the build there is what is tested, not its optimizer: without it, half
# the CPU time; one job (MAKEFLAGS, which push's build there honours), as
# every build in the suite's CPU-heavy lane
SSHD_SETENV="CFLAGS=-O0 MAKEFLAGS=-j1" start_sshd "$S"
trap 'stop_sshd "$S"; rm -rf "$T"' EXIT
export HITCHBENCH_TARGETS=$T/targets.ini
P=$T/prefix2

"$HB" target add tb "ssh://root@127.0.0.1:$SSHD_PORT" --prefix "$P" --ssh-config "$SSH_CONFIG" >/dev/null ||
	fail "target add"
before=$(sshd_accepted "$S")
t0=$(date +%s)
rc=0
"$HB" push --build-on-target tb >"$T/out" 2>"$T/err" || rc=$?
t1=$(date +%s)
cat "$T/out"
[ "$rc" = 0 ] || fail "push --build-on-target: exit $rc: $(cat "$T/out" "$T/err")"
grep -q "^push tb: target-build for $(dpkg --print-architecture)" "$T/out" || fail "plan: $(cat "$T/out")"
grep -q "^building on tb: make install PREFIX=$P\$" "$T/out" || fail "no build there: $(cat "$T/out")"
grep -q "^runs there: hitchbench " "$T/out" || fail "not run there: $(cat "$T/out")"
[ -f "$P/src/Makefile" ] && [ -x "$P/src/build/hitchbench" ] || fail "no source or build in $P/src"
[ -x "$P/bin/hitchbench" ] && [ -f "$P/lib/hitchbench/hitchbench-hook.so" ] || fail "not installed into $P"
expect_eq "how" target-build "$(value how "$P/push.txt")"
expect_eq "version built there (HEAD's)" "$(sh "$HB_SRCDIR/scripts/version.sh" --head "$HB_SRCDIR")" "$(value harness_version "$P/push.txt")"
expect_eq "logins" 1 "$(( $(sshd_accepted "$S") - before ))"
echo "first push --build-on-target: $((t1 - t0)) s"

rc=0
"$HB" push --build-on-target tb >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 0 ] || fail "second push --build-on-target: exit $rc: $(cat "$T/out" "$T/err")"
grep -q "^pushed: 0 file(s) copied" "$T/out" || fail "second push copied source: $(cat "$T/out")"
exit 0
