#!/bin/sh
# The Debian package, end to end (`make check-package`; not part of `make
# check`: it takes minutes and needs root): builds it from a copy of this
# tree with dpkg-buildpackage, runs lintian (its output printed; an error
# fails), makes a clean Debian 12 root from Debian's packages (mmdebstrap
# bookworm, this machine's apt sources, the .debs apt already has here
# linked in so only what is missing is fetched), installs the package there
# through apt with its dependencies, and runs the default recipe from it
# (`hitchbench run dsda-doom`, short windows, --no-quieting: a chroot must
# not change the host's settings). The run must be valid, stored under
# /var/lib/hitchbench (root's results directory of an installed tree) and
# in its database, and nothing written to the current directory.
#
# The root's mounts (/proc, /sys, /dev, a tmpfs on /dev/shm) are made in a
# mount namespace of the script's own and unmounted by a trap however the
# script ends. Exit 0 passed, 1 failed, 77 cannot run here (the reason as
# the last line). HB_PKG_KEEP=1 keeps the work directory.
set -eu

start=$(date +%s)
top=$(cd "$(dirname "$0")/../.." && pwd)

skip() {
	echo "check-package: skipped: $*" >&2
	exit 77
}
fail() {
	echo "check-package: FAIL: $*" >&2
	exit 1
}

if [ "${HB_PKG_IN_NS:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || skip "not root (mmdebstrap, chroot and mounts need root)"
	for t in dpkg-buildpackage dh lintian mmdebstrap unshare chroot; do
		command -v "$t" >/dev/null ||
			skip "no $t here (apt-get install debhelper lintian mmdebstrap: sh scripts/deps.sh ensure package)"
	done
	# the rest in a mount namespace of its own: whatever happens, no mount
	# made below can outlive the script or reach the host's tree
	rc=0
	HB_PKG_IN_NS=1 unshare --mount --propagation private sh "$0" "$@" || rc=$?
	echo "check-package: $(($(date +%s) - start)) s"
	exit $rc
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/hb-package.XXXXXX")
R=$W/root
cleanup() {
	for m in dev/shm dev/pts dev sys proc; do
		mountpoint -q "$R/$m" 2>/dev/null && umount -l "$R/$m"
	done
	if [ "${HB_PKG_KEEP:-}" = 1 ]; then
		echo "check-package: kept $W" >&2
	else
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. the package, from a copy of the tree as it is (tracked and new files,
# not what git ignores), with its version: dpkg-buildpackage writes into
# the parent directory, which must be ours, not the checkout's
echo "== dpkg-buildpackage -us -uc -b"
mkdir -p "$W/src/hitchbench"
(cd "$top" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -x -C "$W/src/hitchbench"
sh "$top/scripts/version.sh" "$top" >"$W/src/hitchbench/VERSION"
t0=$(date +%s)
(cd "$W/src/hitchbench" && dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1 ||
	{ tail -n 40 "$W/build.log"; fail "dpkg-buildpackage failed (its log's end above)"; }
deb=$(ls "$W"/src/hitchbench_*.deb)
echo "built $(basename "$deb") in $(($(date +%s) - t0)) s; hitchbench --version there: $(grep -A1 '^build/hitchbench --version' "$W/build.log" | tail -n 1)"

# 2. lintian over everything the build made
echo "== lintian"
rc=0
lintian -I --pedantic --show-overrides --fail-on error "$W"/src/hitchbench_*.changes >"$W/lintian.txt" 2>&1 || rc=$?
# each override's reason once, not once per file it covers
grep -v '^running with root privileges' "$W/lintian.txt" | awk '!/^N: / || !seen[$0]++' || true
[ "$rc" = 0 ] || fail "lintian reports an error (exit $rc)"
echo "lintian: no error"

# 3. a clean Debian 12 root: apt alone, this machine's sources; the .debs of
# apt's cache here are hard links in the root's cache, so apt fetches only
# what is missing (and what it fetched is linked back for the next time)
echo "== mmdebstrap bookworm"
sources=
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && grep -q '^[^#]' "$f" && sources="$sources $f"
done
[ -n "$sources" ] || skip "this machine has no apt sources to make the root from"
t0=$(date +%s)
# shellcheck disable=SC2086
mmdebstrap --quiet --variant=apt --skip=cleanup/apt \
	--setup-hook='mkdir -p "$1/var/cache/apt/archives" && find /var/cache/apt/archives -maxdepth 1 -name "*.deb" -exec ln -f -t "$1/var/cache/apt/archives" {} +' \
	bookworm "$R" $sources >"$W/mmdebstrap.log" 2>&1 ||
	{ tail -n 30 "$W/mmdebstrap.log"; fail "mmdebstrap failed"; }
echo "root made in $(($(date +%s) - t0)) s"

mount -t proc proc "$R/proc"
mount --rbind /sys "$R/sys"
mount --rbind /dev "$R/dev"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$R/dev/shm"

# 4. the package and its dependencies (Recommends too, as a user's apt
# installs them: the default recipe's game and data) through apt
echo "== apt-get install $(basename "$deb")"
cp "$deb" "$R/tmp/"
t0=$(date +%s)
chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/$(basename "$deb")" >"$W/apt.log" 2>&1 ||
	{ tail -n 30 "$W/apt.log"; fail "apt-get install of the package failed"; }
echo "installed with $(grep -c '^Setting up' "$W/apt.log") packages in $(($(date +%s) - t0)) s"
find "$R/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -links 1 -exec cp -n -t /var/cache/apt/archives {} + 2>/dev/null || true
chroot "$R" getent passwd hitchbench >/dev/null || fail "the package did not create the user hitchbench"
[ -d "$R/var/lib/hitchbench" ] || fail "the package did not make /var/lib/hitchbench"
for f in /usr/bin/hitchbench /usr/lib/hitchbench/hitchbench-hook.so /usr/lib/hitchbench/hitchbench-wadlump \
	/usr/share/hitchbench/recipes/dsda-doom.ini; do
	[ -e "$R$f" ] || fail "the package has no $f"
done

# 5. the default recipe, from the installed package, in a directory of its own
echo "== hitchbench run dsda-doom (in the root)"
mkdir -p "$R/tmp/cwd"
rc=0
chroot "$R" sh -c 'cd /tmp/cwd && HITCHBENCH_HARNESS=package-test hitchbench run dsda-doom --no-quieting --warmup 3 --window 10' \
	>"$W/run.out" 2>"$W/run.err" || rc=$?
cat "$W/run.err" "$W/run.out"
[ "$rc" = 0 ] || fail "hitchbench run exited $rc"
[ -z "$(ls -A "$R/tmp/cwd")" ] || fail "the installed hitchbench wrote into the current directory: $(ls -A "$R/tmp/cwd")"
rundir=$(ls -d "$R"/var/lib/hitchbench/runs/*/*-dsda-doom-software 2>/dev/null | tail -n 1)
[ -n "$rundir" ] || fail "no run directory under /var/lib/hitchbench/runs"
value() { sed -n "s/^$1=//p" "$2" | head -n 1; }
[ "$(value status "$rundir/result.txt")" = ok ] || fail "the run's status is '$(value status "$rundir/result.txt")'"
[ "$(value invalid "$rundir/bench.txt")" != 1 ] || fail "the run is invalid: $(grep '^invalid' "$rundir/bench.txt")"
[ "$(value user "$rundir/bench.txt")" = hitchbench ] || fail "the game ran as '$(value user "$rundir/bench.txt")', not hitchbench"
[ "$(value frames_recorded "$rundir/bench.txt")" -gt 40 ] || fail "the installed hook recorded too few frames"
for f in sensors.tsv.zst intfwatch.log; do   # the sampler and the watcher, from /usr/lib/hitchbench
	[ -s "$rundir/$f" ] || fail "the run has no $f: a helper of /usr/lib/hitchbench did not run"
done
# The interference watcher sees the whole machine: a process started outside
# the root without the harness's marker during the window marks the run
# interfered. A run made from the package must be a valid one, so that
# fails; on a machine shared with other work (a developer's, where other
# commands run meanwhile) HB_PACKAGE_ALLOW_INTERFERENCE=1 reports it
# instead, and the run is then stored and listed as excluded. CI runs what
# it starts beside this test with the marker exported (.ci/run).
run=$(basename "$rundir")
if [ "$(value interfered "$rundir/bench.txt")" = 1 ]; then
	echo "check-package: the run was marked interfered, by processes started on this machine during it:" \
		"$(value interfered_reason "$rundir/bench.txt"); the first:"
	grep -m 3 '^!' "$rundir/interference.log" || true
	[ "${HB_PACKAGE_ALLOW_INTERFERENCE:-0}" = 1 ] ||
		fail "the installed run was interfered (HB_PACKAGE_ALLOW_INTERFERENCE=1 on a shared machine)"
	echo "== its numbers, interference or not (hitchbench report --include-interfered RUNDIR, in the root)"
	chroot "$R" hitchbench report --include-interfered "/var/lib/hitchbench/runs/$(basename "$(dirname "$rundir")")/$run" ||
		fail "report of the run directory failed"
	stored="^excluded $run: interfered=1"
else
	stored='^median dsda-doom software (n=1)'
fi
echo "== hitchbench report (the database, in the root)"
chroot "$R" hitchbench report --db /var/lib/hitchbench/hitchbench.db >"$W/report.out" 2>&1 || { cat "$W/report.out"; fail "report of the database failed"; }
cat "$W/report.out"
grep -q "$stored" "$W/report.out" || fail "the run is not in /var/lib/hitchbench/hitchbench.db"
echo "check-package: passed"
