#!/bin/sh
# The version of a hitchbench tree, the one place it is decided
# (docs/install.md, "Versions"): the Makefile compiles it in (HB_VERSION:
# `hitchbench --version`, every run's bench.txt), `hitchbench push` names
# what it installs with it.
#
#   sh scripts/version.sh [--head] [SRCDIR]
#
# Releases are annotated tags vX.Y.Z. In a git checkout the version is
# `git describe` of the latest such tag without its v: 0.22.0 on the
# tagged commit, 0.22.0-5-gabc1234 five commits later, -dirty appended
# when tracked files differ from HEAD (--head: HEAD's version, never
# dirty: what `git archive HEAD` holds). A checkout with no release tag
# yet is 0.0.0-N-gHASH (N commits). Without git, the VERSION file that
# `make dist` puts in its tarball; else $HB_VERSION_FALLBACK (the package
# build passes debian/changelog's upstream version); else "unknown".
set -eu

dirty=--dirty
if [ "${1:-}" = --head ]; then
	dirty=
	shift
fi
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}

if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	[ "$(git -C "$top" rev-parse --show-toplevel)" = "$(cd "$top" && pwd -P)" ]; then
	if v=$(git -C "$top" describe --tags --match 'v[0-9]*' $dirty 2>/dev/null); then
		echo "${v#v}"
	else
		n=$(git -C "$top" rev-list --count HEAD)
		h=$(git -C "$top" describe --always --abbrev=7 $dirty)
		echo "0.0.0-$n-g$h"
	fi
elif [ -s "$top/VERSION" ]; then
	head -n 1 "$top/VERSION"
elif [ -n "${HB_VERSION_FALLBACK:-}" ]; then
	echo "$HB_VERSION_FALLBACK"
else
	echo unknown
fi
