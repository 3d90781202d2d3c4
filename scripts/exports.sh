#!/bin/sh
# The units' exported names that nothing else uses (docs/layout.md,
# "Shape"): a function or variable that common/, analysis/ or bench/ exports
# but no other object refers to (the programs, the helpers, the unit tests
# and the test tools included) belongs static in its file. And an export
# that only the tests reach (no other object of ours refers to it, and its
# own file does not call it either: no relocation against it in its own
# object) is kept for the tests alone: the comment over its declaration
# says so (it names the tests or the fuzzers), so nobody takes it for code
# the program runs. Reads the objects of a build (nm, readelf), one per
# source file as it is now. Names the compiler makes (starting with __:
# AddressSanitizer's __odr_asan.*) are not ours.
# Usage: scripts/exports.sh [BUILD_DIR] (default build), from the top of the
# tree. Prints "file: name" per breach; exits 1 if there is any.
set -u
B=${1:-build}
command -v nm >/dev/null || { echo "exports.sh: nm is not installed" >&2; exit 2; }
objs() {
	for f in "$@"; do
		o=$B/${f%.c}.o
		[ -e "$o" ] || { echo "exports.sh: $o is missing (build first)" >&2; exit 2; }
		echo "$o"
	done
}
units=$(objs $(find common analysis bench -name '*.c' | sort | grep -v '^bench/main\.c$')) || exit 2
users=$(objs $(ls bench/main.c harness/*.c tests/unit/*.c 2>/dev/null | grep -v framehook)) || exit 2
# the test tools built as objects (the stub library is built from its source)
users="$users $(ls "$B"/tests/tools/*.o 2>/dev/null)"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# nm -A: "OBJECT:[VALUE] TYPE NAME", one nm for all the objects
nm -A -u $units $users | awk '{ f = $0; sub(/:.*/, "", f); print $NF, f }' | sort -u >"$tmp/uses"
nm -A -g --defined-only $units |
	awk '$(NF - 1) ~ /^[TDBRV]$/ && $NF !~ /^__/ { f = $0; sub(/:.*/, "", f); print $NF, f }' >"$tmp/defs"
awk -v b="$B/" '
	NR == FNR { used[$1] = used[$1] " " $2; next }
	{
		n = split(used[$1], by, " ")
		for (i = 1; i <= n; i++)
			if (by[i] != $2)
				next
		f = substr($2, length(b) + 1)
		sub(/\.o$/, ".c", f)
		print f ": " $1 " is exported but used nowhere else"
		bad = 1
	}
	END { exit bad }
' "$tmp/uses" "$tmp/defs" || bad=1

# the exports only the tests reach: their declarations must say so
awk -v b="$B/" '
	NR == FNR { if ($2 !~ "^" b "tests/") prod[$1] = 1; else tested[$1] = 1; next }
	!prod[$1] && tested[$1] { print $1, $2 }
' "$tmp/uses" "$tmp/defs" | while read -r name obj; do
	readelf -rW "$obj" | awk '{ print $5 }' | grep -qx "$name" && continue
	decl=$(grep -Hn -E "^[A-Za-z].*[ *]$name\\(" $(find common analysis bench -name '*.h') | head -n 1)
	[ -n "$decl" ] || { echo "${obj#"$B"/}: $name is only the tests' and declared in no header"; echo x >>"$tmp/bad"; continue; }
	h=${decl%%:*} line=${decl#*:}; line=${line%%:*}
	from=$((line > 8 ? line - 8 : 1))
	# the comment lines over it (the declaration's own words left out: a
	# name may hold "test")
	sed -n "${from},$((line - 1))p" "$h" | grep -E '^[[:space:]]*(/\*|\*)' | grep -qiE 'test|fuzz' && continue
	echo "$h:$line: $name is reached only by the tests, and the comment over it does not say so"
	echo x >>"$tmp/bad"
done
[ ! -s "$tmp/bad" ] || bad=1
exit "${bad:-0}"
