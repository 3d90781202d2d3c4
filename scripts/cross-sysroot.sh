#!/bin/sh
# The target architecture's libraries for a cross build (`make ARCH=s390x`,
# docs/formats.md "Byte order"): Debian's -dev packages of what hitchbench
# links, for ARCH, and the runtime libraries they need to link and to run
# under qemu-user, fetched with `apt-get download` and unpacked with
# `dpkg-deb -x` into DIR.
#
#   sh scripts/cross-sysroot.sh ARCH DIR
#
# Multiarch installs (apt-get install libzstd-dev:s390x) would be simpler,
# but they need the foreign package at the very version of the native one
# (Multi-Arch: same), and a mirror whose security archive lacks ARCH breaks
# that; a sysroot of unpacked packages touches no dpkg state and works
# with whatever versions ARCH's lists give. apt must know ARCH's lists:
# `dpkg --add-architecture ARCH` and `apt-get update`, which this script
# runs when it is root and asks for when it is not.
#
# Idempotent: DIR/.sysroot-stamp holds the architecture and the package
# list; a second call with the same list does nothing (and says nothing). Every absolute
# symlink in the packages (a libfoo.so pointing at /lib/...) is made to
# point inside DIR, so the linker never follows one to the host's files.
set -eu

usage() {
	echo "usage: sh scripts/cross-sysroot.sh ARCH DIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
ARCH=$1
DIR=$2
case $ARCH in
'' | *[!a-z0-9]*) echo "cross-sysroot.sh: '$ARCH' is not a Debian architecture name" >&2; exit 2 ;;
esac

# What the Makefile links (its pkg-config names: inih sqlite3 libpq nettle
# libzstd json-c libcap-ng x11 gl xtst libevdev libudev evemu check libdw, and the Vulkan headers), each -dev
# package with the runtime packages its libraries need, down to libc6
# (which qemu-user's -L needs for the dynamic loader). libglx0's
# libglx-mesa0 is left out: it is dlopen()ed, never linked.
PACKAGES="libc6 libgcc-s1
libzstd-dev libzstd1
libjson-c-dev libjson-c5
libcap-ng-dev libcap-ng0
libsqlite3-dev libsqlite3-0
libpq-dev libpq5 libssl-dev libssl3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
libldap-2.5-0 libsasl2-2 libgnutls30 libp11-kit0 libffi8 libidn2-0 libunistring2 libtasn1-6
libinih-dev libinih1 libinireader0
nettle-dev libnettle8 libhogweed6 libgmp-dev libgmp10
libx11-dev libx11-6 libxcb1-dev libxcb1 libxau-dev libxau6 libxdmcp-dev libxdmcp6 libbsd0 libmd0
libxtst-dev libxtst6 libxext-dev libxext6 libxi-dev libxi6 libxfixes-dev libxfixes3
libevdev-dev libevdev2
libevemu-dev libevemu3
libudev-dev libudev1
libgl-dev libgl1 libglx-dev libglx0 libglvnd0
libvulkan-dev libvulkan1
check libsubunit-dev libsubunit0
libdw-dev libdw1 libelf-dev libelf1 zlib1g-dev zlib1g liblzma-dev liblzma5 libbz2-1.0"
# Architecture-independent packages (headers and .pc files only)
PACKAGES_ALL="x11proto-dev"

want=$(printf 'arch=%s\npackages=%s\nall=%s\n' "$ARCH" "$(echo $PACKAGES)" "$PACKAGES_ALL")
stamp=$DIR/.sysroot-stamp
if [ -f "$stamp" ] && [ "$(sed -n '1,3p' "$stamp")" = "$want" ]; then
	exit 0 # up to date
fi

# apt must know ARCH's packages
if ! dpkg --print-foreign-architectures | grep -qx "$ARCH" ||
	! apt-cache show "libc6:$ARCH" >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		echo "cross-sysroot.sh: apt has no $ARCH package lists; as root, run" >&2
		echo "  dpkg --add-architecture $ARCH && apt-get update" >&2
		exit 1
	fi
	echo "cross-sysroot.sh: adding the $ARCH architecture to dpkg and fetching its lists"
	dpkg --add-architecture "$ARCH"
	apt-get update -qq
fi

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
debs=$(mktemp -d "$DIR.debs.XXXXXX")
trap 'rm -rf "$debs"' EXIT
args=""
for p in $PACKAGES; do
	args="$args $p:$ARCH"
done
echo "cross-sysroot.sh: downloading $(echo $PACKAGES $PACKAGES_ALL | wc -w) $ARCH packages into $DIR"
# apt's sandbox user may not write here; root downloads unsandboxed (a warning)
# shellcheck disable=SC2086
(cd "$debs" && apt-get download -q $args $PACKAGES_ALL 2>&1 | grep -v -e '^Get:' -e 'unsandboxed' >&2 || true)
n=$(ls "$debs"/*.deb 2>/dev/null | wc -l)
expected=$(echo $PACKAGES $PACKAGES_ALL | wc -w)
if [ "$n" -ne "$expected" ]; then
	echo "cross-sysroot.sh: downloaded $n of $expected packages" >&2
	exit 1
fi

# a fresh tree: what an older list unpacked must not linger
find "$DIR" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
versions=""
for deb in "$debs"/*.deb; do
	dpkg-deb -x "$deb" "$DIR"
	versions="$versions $(dpkg-deb -f "$deb" Package)=$(dpkg-deb -f "$deb" Version)"
done
find "$DIR" -type l | while read -r link; do
	target=$(readlink "$link")
	case $target in
	/*) ln -sfn "$DIR$target" "$link" ;;
	esac
done
{
	echo "$want"
	echo "versions=${versions# }"
	echo "made_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$stamp.tmp"
mv "$stamp.tmp" "$stamp"
echo "cross-sysroot.sh: $DIR ready ($(du -sh "$DIR" | cut -f1))"
