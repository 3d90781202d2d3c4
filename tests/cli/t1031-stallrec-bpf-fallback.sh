#!/bin/sh
# lane: alone (the BPF recorder's fallback is judged on the kernel's own pids too)
# STALLS=bpf where BPF cannot start: the recorder says why, samples every
# STALLS_MS (10 ms) as STALLS=1 would, and the run goes on. Two real
# reasons: a user who may not load BPF programs (the recorder run as the
# unprivileged game user, and a whole run as that user where it can read
# the build: bench.txt and the terminal say so, and no wait record is
# claimed), and a kernel without BTF (the recorder under a /proc
# and /sys tree without /sys/kernel/btf/vmlinux, the fsroot).
. "$(dirname "$0")/../lib.sh"
fake_setup

# no BTF: the recorder alone, below a root that lacks it
mkdir -p "$T/root/proc/sys/kernel"
echo 6.1.0-nobtf >"$T/root/proc/sys/kernel/osrelease"
HITCHBENCH_ROOT=$T/root "$HB_BUILD/hitchbench-stallrec" --out "$T/nb.rec.zst" --bpf "$T/nbw.rec.zst" \
	--bpf-live "$T/nbw.live" --live "$T/nb.live" --duration 1 2>"$T/nb.err" ||
	{ cat "$T/nb.err" >&2; fail "the recorder failed without BTF"; }
grep -q "^stallbpf: fallback: the kernel has no BTF (/sys/kernel/btf/vmlinux is missing" "$T/nb.err" ||
	{ cat "$T/nb.err" >&2; fail "no BTF: the fallback's reason is not said"; }
[ ! -e "$T/nbw.rec.zst" ] || fail "a wait record without BPF"
"$HB_BUILD/tests/recdump" "$T/nb.rec.zst" >"$T/nb.dump" || fail "the fallback's stall record does not read"
grep -q "^meta period_us=10000$" "$T/nb.dump" || fail "the fallback does not sample every 10 ms"
grep -q "^meta sources.bpf=no (the kernel has no BTF" "$T/nb.dump" || fail "the record does not say BPF was off"

# not allowed: a whole run as the unprivileged game user (as the user
# himself when this test is not root)
as_game() { "$@"; }
if [ "$(id -u)" = 0 ]; then
	getent passwd hitchbench >/dev/null || skip "no unprivileged game user (run 'sh scripts/deps.sh ensure' as root)"
	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	as_game() { setpriv --reuid=hitchbench --regid=hitchbench --clear-groups "$@"; }
	chmod -R a+rwX "$T"
fi
# the recorder alone, a copy the game user can run wherever this build is
mkdir -p "$T/bin" "$T/na"
cp "$HB_BUILD/hitchbench-stallrec" "$T/bin/"
chmod -R a+rwX "$T/bin" "$T/na"
as_game "$T/bin/hitchbench-stallrec" --out "$T/na/s.rec.zst" --bpf "$T/na/w.rec.zst" \
	--bpf-live "$T/na/w.live" --live "$T/na/s.live" --duration 1 2>"$T/na.err" ||
	{ cat "$T/na.err" >&2; fail "the recorder failed as the game user"; }
grep -q "^stallbpf: fallback: not allowed to load BPF programs (.*): needs root, or CAP_BPF and CAP_PERFMON; sampling every 10 ms instead$" "$T/na.err" ||
	{ cat "$T/na.err" >&2; fail "not allowed: the fallback's reason is not said"; }
[ ! -e "$T/na/w.rec.zst" ] || fail "a wait record without BPF"
"$HB_BUILD/tests/recdump" "$T/na/s.rec.zst" | grep -q "^meta period_us=10000$" ||
	fail "the recorder as the game user does not sample every 10 ms"

# a whole run, where the game user can read this build (a checkout under a
# directory only root may enter cannot be run by anyone else)
if ! as_game test -r "$HB_BUILD/hitchbench-hook.so" || ! as_game test -x "$HB"; then
	echo "not tested here: a whole run as the game user (it cannot read the build $HB_BUILD)"
	exit 0
fi
fake_recipe short "--fps 60" "warmup = 0.5" "window = 1.5"
rc=0
as_game "$HB" run --no-quieting --display :99 --out "$T/runs" --db "$T/db.sqlite" "$T/short.ini" \
	--switches "STALLS=bpf" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "the run as the game user failed ($rc)"; }
rundir=$(run_dirs "$T/runs" | tail -n 1)
b="$rundir/bench.txt"
expect_eq "status" "ok" "$(value status "$b")"
expect_eq "run name" "base@bpf" "$(value run_name "$b")"
value stallbpf "$b" | grep -q "^fallback: not allowed to load BPF programs (.*): needs root, or CAP_BPF and CAP_PERFMON; sampling every 10 ms instead$" ||
	fail "bench.txt: stallbpf='$(value stallbpf "$b")'"
grep -q "stallbpf: fallback: not allowed" "$T/err" || fail "the terminal was not told of the fallback"
expect_eq "the wait record" "none (BPF fell back to sampling)" "$(value stallbpf_record "$b")"
[ ! -e "$rundir/waits.rec.zst" ] || fail "a wait record from a fallback"
"$HB_BUILD/tests/recdump" "$rundir/stalls.rec.zst" | grep -q "^meta period_us=10000$" ||
	fail "the fallback run does not sample every 10 ms"
value stallrec "$b" | grep -q "samples, own CPU" || fail "the fallback run has no sampler cost"
exit 0
