#!/bin/sh
# The house's shape, checked (docs/layout.md, "Shape"):
#   - no function over 100 lines: from its '{' at column 0 to its '}' at
#     column 0, as the house writes function bodies;
#   - no source file over 800 lines unless its opening comment says why,
#     in a line that starts ' * Long because:';
#   - every unit in common/, analysis/ and bench/ has its header: NAME.h,
#     or its family's (FAMILY.h for FAMILY-PART.c, as import-mangohud.c
#     under import.h); bench/main.c is the program, not a unit.
# Prints one line per breach (file:line: what) and exits 1 if there is any.
# Usage: scripts/shape.sh [DIR...] (default: common analysis bench harness),
# from the top of the tree.
set -u
MAX_FN=100
MAX_FILE=800
[ $# -gt 0 ] || set -- common analysis bench harness
# every C file of a layer: its rooms' (common/base/util.c), the layer's own
# (bench/main.c, harness/*.c); not harness/bpf (the kernel's C, checked by clang)
srcs() {
	for d in "$@"; do
		case $d in harness) ls "$d"/*."$ext" 2>/dev/null ;; *) find "$d" -name "*.$ext" | sort ;; esac
	done
}
files=$(ext=c srcs "$@")
bad=0

long_fns=$(awk -v max=$MAX_FN '
	FNR == 1 { start = 0 }
	/^\{/ { start = FNR; name = sig; next }
	/^\}/ { if (start && FNR - start + 1 > max)
			printf "%s:%d: %s is %d lines (at most %d)\n", FILENAME, start, name, FNR - start + 1, max
		start = 0; next }
	!start && /^[A-Za-z_].*\(/ { sig = $0; sub(/\(.*/, "", sig); sub(/.*[ *]/, "", sig) }
' $files)
[ -z "$long_fns" ] || { echo "$long_fns"; bad=1; }

for f in $files $(ext=h srcs "$@"); do
	n=$(wc -l <"$f")
	[ "$n" -le $MAX_FILE ] && continue
	head -40 "$f" | grep -q '^ \* Long because:' && continue
	echo "$f:1: $n lines (at most $MAX_FILE without a ' * Long because:' line in its opening comment)"
	bad=1
done

for f in $files; do
	case $f in harness/*|bench/main.c) continue ;; esac
	dir=${f%/*} stem=${f##*/}; stem=${stem%.c}
	[ -e "$dir/$stem.h" ] && continue
	[ -e "$dir/${stem%%-*}.h" ] && continue
	echo "$f:1: no header: neither $dir/$stem.h nor its family's $dir/${stem%%-*}.h"
	bad=1
done
exit $bad
