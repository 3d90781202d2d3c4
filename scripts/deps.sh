#!/bin/sh
# What hitchbench needs from Debian, in one place. `make check`, `make demo`
# and `make bench-self` call `deps.sh ensure`, which installs only what is
# missing (apt-get, as root) and creates the unprivileged system user games
# run as, and the s390x sysroot of the cross build (scripts/cross-sysroot.sh).
# `deps.sh list` prints the packages; `deps.sh missing` the ones
# not installed (exit 1 if any). A second argument `bench` adds the BENCH
# list: only `make bench-self` asks for it (`deps.sh ensure bench`); `fuzz`
# adds the FUZZ list, for `make fuzz` (`deps.sh ensure fuzz`); `package` the
# PACKAGE list, for `make check-package` (`deps.sh ensure package`).
set -eu

# build: compilers (the tree must build warning-free with gcc and clang),
# pkg-config and the libraries the code links (libjson-c-dev: CapFrameX's JSON
# captures, analysis/import/import-capframex.c; libcap-ng-dev: root's helpers
# narrow their capabilities after their setup, common/system/sandbox.c); libvulkan-dev for the Vulkan
# headers the hook's layer and vkchain are typed by (nothing links libvulkan);
# scdoc makes the manual pages of docs/man/ (make man, part of all);
# clang (BPF target), bpftool (the skeleton) and libbpf-dev build the stall
# recorder's kernel program (STALLS=bpf, harness/bpf/); libdw-dev (elfutils)
# reads build ids in the profile recorder and names functions in `profile`
BUILD="gcc clang make pkg-config libinih-dev libsqlite3-dev nettle-dev check libx11-dev libgl-dev libzstd-dev libjson-c-dev libcap-ng-dev libxtst-dev libevdev-dev libudev-dev libvulkan-dev libpq-dev libevemu-dev scdoc bpftool libbpf-dev libdw-dev"
# run: the X server and xauth, the default recipe's game and data; tests
# also use sqlite3 (to look into databases) and strace (the hook's syscalls);
# mesa-utils for glxinfo, which asks the game's X server which GL stack
# (vendor, renderer, Mesa version) the run drew with, for bench.txt;
# zstd (zstdcat) reads the sensor sampler's files; mangohud (Debian 12: 0.6.8)
# writes the logs of recipes that say `frames = mangohud` (t9030) and the
# summary t9040 checks; the Gallium HUD is part of Mesa already;
# gnuplot-nox draws `hitchbench plot`'s PNG (pngcairo) and SVG pictures;
# Vulkan on this machine's CPU: mesa-vulkan-drivers (lavapipe, which
# presents to Xvfb) and vulkan-tools (vkcube, the Vulkan recipe the tests
# run the layer on, t0220; vulkaninfo)
# python3 (Debian's, /usr/bin/python3): the tests' checkers in tests/tools/
# (stalls-agree.py compares the stall table's three outputs, t1041;
# chromium-check.py drives Chromium, t0381; linkcheck.py follows every link
# of the lab's site, t0383, t0387)
# chromium: the HTML report's test (t0381) and the site's (t0387) load pages in
# Debian's headless Chromium, over the DevTools protocol, and fails on a
# console error or a picture that did not draw (its own files: about 350 MB)
# remote targets (docs/targets.md): ssh and rsync are what push, run --target
# and pull talk through; the tests run their own sshd (openssh-server) on a
# private port, so a target is this machine
# the manual pages and completions' test (t0030): man-db (man --warnings,
# lexgrog) renders and indexes each page, zsh parses the zsh completion
# the lab (docs/lab.md): PostgreSQL 15 is the shared results database
# (libpq-dev above is its client library; the tests start their own server
# on a private socket directory), and Slurm hands batches to machines:
# slurmctld, slurmd and their client commands, with munge for their
# authentication (the tests start a one-node Slurm on localhost)
LAB="postgresql-15 slurmctld slurmd slurm-client munge"
RUN="libevemu3 xvfb xauth dsda-doom freedoom sqlite3 strace mesa-utils zstd gnuplot-nox mangohud mesa-vulkan-drivers vulkan-tools openssh-client openssh-server rsync man-db zsh chromium python3"
# the games of recipes/ (each recipe's `packages =` names what it runs; the
# smoke tests tests/game/t91*.sh and t92*.sh and `make bench-matrix QUICK=1`
# in CI run every one of them); warzone2100 is the Vulkan game (its Vulkan
# backend on lavapipe, t9200): with warzone2100-data about 147 MB to fetch
# and 197 MB installed, about 20 s here (its recommended warzone2100-music,
# 86 MB, stays out: ensure installs without recommends)
GAMES="chocolate-doom openarena xmoto neverball armagetronad minetest warzone2100"
# bench: what bench-self compares hitchbench report with (an equivalent
# pandas script) and measures both with (GNU time's peak RSS); perf
# (linux-perf) samples the Vulkan layers' own code (tests/bench-self/vulkan.sh)
BENCH="python3-pandas time linux-perf"
# fuzz: libFuzzer and the sanitizer runtimes clang links into the fuzz
# targets of tests/fuzz (Debian 12's clang is 14)
FUZZ="clang libclang-rt-14-dev"
# package: what builds and checks the Debian package (make check-package,
# docs/install.md): debhelper (dh, debhelper-compat 13) for
# dpkg-buildpackage, lintian, and mmdebstrap for the clean Debian 12 root
# the package is installed and run in
PACKAGE="debhelper lintian mmdebstrap"
# cross: the s390x cross compiler and C library, and qemu-user to run what
# it builds: the formats on a big-endian machine (make check-cross, t1700;
# docs/formats.md "Byte order"). The s390x libraries it links are no
# packages of this machine but a sysroot of them unpacked, which ensure
# makes too (scripts/cross-sysroot.sh; about 13 MB to fetch, 60 MB
# unpacked, in build/cross/s390x/sysroot).
CROSS="gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user"
# libxtst-dev and libevdev-dev: the input helper (a recipe's [input] steps
# through XTest or uinput) and the key names recipe.c checks; libevemu-dev
# (BUILD) and its library libevemu3 (RUN): the input helper alone links it,
# to make a recipe's recorded device through uinput and play its events
# (`play =`, harness/input-play.c); libudev-dev: the interference watcher
# hears of input devices coming and going from udev.

SYSTEM_USER=hitchbench

# the lists asked for: BUILD, RUN, LAB, GAMES and CROSS, and BENCH after `bench`, FUZZ after `fuzz`,
# PACKAGE after `package` (several may follow: `deps.sh ensure fuzz package`)
PACKAGES="$BUILD $RUN $LAB $GAMES $CROSS"
ACTION=${1:-ensure}
[ $# -gt 0 ] && shift
for list in "$@"; do
	case "$list" in
	bench) PACKAGES="$PACKAGES $BENCH" ;;
	fuzz) PACKAGES="$PACKAGES $FUZZ" ;;
	package) PACKAGES="$PACKAGES $PACKAGE" ;;
	*)
		echo "deps.sh: unknown package list '$list' (only 'bench', 'fuzz' or 'package')" >&2
		exit 2
		;;
	esac
done

missing() {
	for p in $PACKAGES; do
		s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
		case "$s" in
		ii*) ;;
		*) echo "$p" ;;
		esac
	done
}

ensure_user() {
	if ! getent passwd "$SYSTEM_USER" >/dev/null; then
		useradd --system --home-dir /nonexistent --no-create-home \
			--shell /usr/sbin/nologin --user-group "$SYSTEM_USER"
		echo "deps.sh: created system user '$SYSTEM_USER' (games never run as root)"
	fi
	# GPU and input access on machines that have them
	for g in video render; do
		if getent group "$g" >/dev/null; then
			usermod -a -G "$g" "$SYSTEM_USER" 2>/dev/null || true
		fi
	done
}

# The cross build's s390x sysroot. Without it t1700 skips and says why; a
# failure to fetch it (no network, no root for ARCH's lists) is said, not
# fatal to the rest of `make check`.
ensure_sysroot() {
	top=$(cd "$(dirname "$0")/.." && pwd)
	if ! sh "$top/scripts/cross-sysroot.sh" s390x "$top/build/cross/s390x/sysroot"; then
		echo "deps.sh: no s390x sysroot: the cross test (t1700) will be skipped" >&2
	fi
}

case "$ACTION" in
list)
	echo $PACKAGES
	;;
missing)
	m=$(missing)
	[ -z "$m" ] || { echo $m; exit 1; }
	;;
ensure)
	m=$(missing)
	if [ -n "$m" ]; then
		if [ "$(id -u)" != 0 ]; then
			echo "deps.sh: missing Debian packages: $m" >&2
			echo "deps.sh: run 'sudo sh scripts/deps.sh ensure' (or make as root)" >&2
			exit 1
		fi
		echo "deps.sh: installing $m"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $m >/dev/null
	fi
	if [ "$(id -u)" = 0 ]; then
		ensure_user
	fi
	ensure_sysroot
	;;
*)
	echo "usage: deps.sh [ensure|missing|list] [bench|fuzz|package]..." >&2
	exit 2
	;;
esac
