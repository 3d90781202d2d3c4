#!/bin/sh
# cpu: heavy, about 50 s (the tree cross-built for the target, without the optimizer)
# quick: no (a build of the tree: make check runs it)
# push --arch s390x: the cross build (make ARCH=s390x install PREFIX=...
# DESTDIR=...) staged and copied into a prefix on the test's own sshd.
# The target is this machine, so the pushed program is not run there (push
# says so); qemu-s390x runs it against the cross sysroot instead, and
# push.txt says cross and s390x. Skips while the Makefile has no ARCH=s390x
# (scripts/cross-sysroot.sh) or its sysroot is not made.
# time-limit: 900
. "$(dirname "$0")/../lib.sh"
plain_build_only
command -v rsync >/dev/null || skip "no rsync"
command -v s390x-linux-gnu-gcc >/dev/null || skip "no s390x-linux-gnu-gcc (gcc-s390x-linux-gnu)"
make -s -n -C "$HB_SRCDIR" ARCH=s390x all 2>/dev/null | grep -q s390x-linux-gnu-gcc ||
	skip "the Makefile has no cross build (make ARCH=s390x) yet"
SYSROOT=$HB_SRCDIR/build/cross/s390x/sysroot
[ -d "$SYSROOT" ] || skip "no s390x sysroot: sh scripts/cross-sysroot.sh s390x $SYSROOT"
S=$T/sshd
start_sshd "$S"
trap 'stop_sshd "$S"; rm -rf "$T"' EXIT
export HITCHBENCH_TARGETS=$T/targets.ini
P=$T/prefix-s390x

"$HB" target add x "ssh://root@127.0.0.1:$SSHD_PORT" --prefix "$P" --ssh-config "$SSH_CONFIG" >/dev/null ||
	fail "target add"
before=$(sshd_accepted "$S")
rc=0
# the cross build is what is tested, not its optimizer: without it (as
# t1700 builds it: the first to take the lock builds for both), half the
# CPU time
cross_locked s390x env CFLAGS=-O0 MAKEFLAGS=-j1 "$HB" push --arch s390x x >"$T/out" 2>"$T/err" || rc=$?
cat "$T/out" "$T/err"
[ "$rc" = 0 ] || fail "push --arch s390x: exit $rc"
grep -q "^push x: cross for s390x (host $(dpkg --print-architecture))" "$T/out" || fail "plan: $(cat "$T/out")"
grep -q "ARCH=s390x install PREFIX=$P DESTDIR=" "$T/out" || fail "not the cross build: $(cat "$T/out")"
grep -q "^not run there: built for s390x" "$T/out" || fail "$(cat "$T/out")"
expect_eq "how" cross "$(value how "$P/push.txt")"
expect_eq "arch" s390x "$(value arch "$P/push.txt")"
expect_eq "logins" 1 "$(( $(sshd_accepted "$S") - before ))"
# the ELF header (od, not file(1), which a fresh machine may lack): the
# magic, EI_DATA 2 (big-endian), e_machine 22 (EM_S390) in that order
elf=$(od -An -tx1 -N20 "$P/bin/hitchbench" | tr -d ' \n')
case "$elf" in
7f454c46??02*0016) ;;
*) fail "not a big-endian s390x ELF program: $elf" ;;
esac
if command -v qemu-s390x >/dev/null; then
	qemu-s390x -L "$SYSROOT" "$P/bin/hitchbench" --version >"$T/v" 2>&1 || fail "qemu-s390x: $(cat "$T/v")"
	grep -q "^hitchbench " "$T/v" || fail "qemu-s390x --version: $(cat "$T/v")"
fi
exit 0
