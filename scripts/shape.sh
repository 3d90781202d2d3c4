#!/bin/sh
# The house's shape, checked (docs/layout.md, "Shape"):
#   - no function over 100 lines: from its '{' at column 0 to its '}' at
#     column 0, as the house writes function bodies;
#   - no source file over 800 lines unless its opening comment says why,
#     in a line that starts ' * Long because:';
#   - every unit in common/, analysis/ and bench/ has its header: NAME.h,
#     or its family's (FAMILY.h for FAMILY-PART.c, as import-mangohud.c
#     under import.h); bench/main.c is the program, not a unit;
#   - the rooms: every unit of common/, analysis/ and bench/ lives in a
#     room (LAYER/ROOM/NAME.c; bench/main.c alone at bench/), and no two
#     layers have a room of the same name, so that "room/name.h" names
#     one file whatever the include path;
#   - library code never prints: outside the commands (bench/cmd/,
#     bench/main.c), the helpers (harness/) and the message module itself
#     (common/base/message.c), no unit names stdout or stderr, calls
#     printf, puts or perror, or calls the message module (error_msg,
#     ...): it returns its error, or writes to a stream it is given;
#   - only the commands include the commands' headers ("cmd/...");
#   - one home for sleeping: sleep_ms() and sleep_until() (common/base/
#     timeutil.c); no other unit or helper calls sleep, usleep or
#     nanosleep (the hook, which may call nothing of ours, aside).
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
# the layers among the arguments, whose units live in rooms
layers=$(for d in "$@"; do case $d in common|analysis|bench) echo "$d" ;; esac; done)

# the rooms
for d in $layers; do
	for f in "$d"/*.c "$d"/*.h; do
		[ -e "$f" ] || continue
		[ "$f" = bench/main.c ] && continue
		echo "$f:1: not in a room: a unit of $d/ lives in $d/ROOM/ (docs/layout.md)"
		bad=1
	done
done
dup_rooms=$(for d in "$@"; do
	find "$d" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'; done | sort | uniq -d)
for r in $dup_rooms; do
	echo "$(for d in "$@"; do [ -d "$d/$r" ] && printf '%s ' "$d/$r"; done)" \
		"rooms of one name in two layers: \"$r/...\" would name either"
	bad=1
done

# library code never prints, nor reaches into the commands
library=$(for f in $(ext=c srcs $layers) $(ext=h srcs $layers); do
	case $f in bench/cmd/*|bench/main.c|common/base/message.[ch]) ;; *) echo "$f" ;; esac; done)
# (strings, comments and printf-format attributes taken out of each line first)
prints=$(for f in $library; do
	sed -E 's/"([^"\\]|\\.)*"/""/g; s#/\*.*\*/##g; s#/\*.*##; s#^[[:space:]]*\*.*##; s/format\(printf/format(/g' "$f" |
		grep -nE '(^|[^A-Za-z0-9_])(stdout|stderr|printf|puts|perror|error_msg|warn_msg|note_msg|info_msg|usage_error|msg_lines|msg_program)([^A-Za-z0-9_]|$)' |
		cut -d: -f1 | while read -r n; do echo "$f:$n:$(sed -n "${n}p" "$f")"; done
done)
if [ -n "$prints" ]; then
	echo "$prints" | sed 's/$/   <- library code prints (it returns its error; the commands print)/'
	bad=1
fi
reach=$(grep -nE '^#[[:space:]]*include[[:space:]]+"cmd/' $library /dev/null)
if [ -n "$reach" ]; then
	echo "$reach" | sed 's/$/   <- only the commands include cmd\/ headers/'
	bad=1
fi
# one home for sleeping
sleeps=$(for f in $(ext=c srcs "$@"); do
	case $f in common/base/timeutil.c|harness/framehook*) continue ;; esac
	sed -E 's/"([^"\\]|\\.)*"/""/g; s#/\*.*\*/##g; s#/\*.*##; s#^[[:space:]]*\*.*##' "$f" |
		grep -nE '(^|[^A-Za-z0-9_])(sleep|usleep|nanosleep|clock_nanosleep)[[:space:]]*\(' |
		cut -d: -f1 | while read -r n; do echo "$f:$n:$(sed -n "${n}p" "$f")"; done
done)
if [ -n "$sleeps" ]; then
	echo "$sleeps" | sed 's/$/   <- a bare sleep: sleep_ms() or sleep_until() (common\/base\/timeutil.h)/'
	bad=1
fi
exit $bad
