#!/bin/sh
# The game prefetch's effect on a real game's load time, from a cold page
# cache: a benchmark, not a test (make bench-prefetch). It drops the page
# cache of the whole machine (sync; drop_caches=1) before every run, so run
# it as root on a machine nobody else needs at that moment.
#
# One learning run (GAMEPREFETCH=learn) makes the game's list in a private
# list directory; then ROUNDS rounds of TOKENS, rotated per round so no
# token always runs first. The load time is what the game itself says: for
# OpenArena the game log's "CL_InitCGame: N seconds", and from the launch
# to that line (the game log's CLOCK_MONOTONIC stamps against bench.txt's
# pass.1.start_ns). One line per run, then the medians.
#
#   sh tests/bench-self/prefetch-load.sh [RECIPE [VARIANT [ROUNDS]]]
set -u
cd "$(dirname "$0")/../.." || exit 1
HB=${HB:-build/hitchbench}
RECIPE=${1:-openarena}
VARIANT=${2:-opengl1}
ROUNDS=${3:-3}
[ "$(id -u)" = 0 ] || { echo "prefetch-load: needs root (drop_caches)" >&2; exit 1; }
W=$(mktemp -d /var/tmp/hb-prefetch-load.XXXXXX)
export HITCHBENCH_PREFETCH_DIR="$W/lists"
set -- "-" "GAMEPREFETCH=fetch" "GAMEPREFETCH=fetch+GAMEPREFETCH_MB=512"
n=$#

cold() {
	sync
	echo 1 >/proc/sys/vm/drop_caches
}

one() { # TOKEN: runs it cold, prints its line
	cold
	rc=0
	"$HB" run "$RECIPE" "$VARIANT" --switches "$1" --no-quieting --warmup 0 --window 12 --no-db \
		--out "$W/runs" --quiet >"$W/last.out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		echo "prefetch-load: the run of '$1' failed (exit $rc): $(tail -n 3 "$W/last.out")" >&2
		return 1
	fi
	d=$(ls -td "$W"/runs/*/*/ | head -n 1)
	start=$(sed -n 's/^pass.1.start_ns=//p' "$d/bench.txt")
	cg=$(grep -m1 "CL_InitCGame:" "$d/game.log")
	t=$(echo "$cg" | cut -f1)
	secs=$(echo "$cg" | sed 's/.*CL_InitCGame: *\([0-9.]*\) seconds.*/\1/')
	echo "token=$1 launch_to_cgame_s=$(echo "$t $start" | awk '{ printf "%.2f", $1 - $2 / 1e9 }')" \
		"cl_initcgame_s=$secs prefetch=$(sed -n 's/^prefetch=//p' "$d/bench.txt")"
}

one "GAMEPREFETCH=learn" | sed 's/^/learn: /'
for round in $(seq "$ROUNDS"); do
	k=0
	while [ "$k" -lt "$n" ]; do
		i=$(( (k + round - 1) % n + 1 ))
		eval tok=\${$i}
		one "$tok" | sed "s/^/round=$round /"
		k=$((k + 1))
	done
done | tee "$W/lines"
echo "medians of launch_to_cgame_s:"
for tok in "$@"; do
	grep " token=$tok " "$W/lines" | sed 's/.*launch_to_cgame_s=\([0-9.]*\).*/\1/' | sort -n |
		awk -v t="$tok" '{ v[NR] = $1 } END { if (!NR) { printf "  %-40s no run\n", t; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "  %-40s %.2f s (%d runs)\n", t, m, NR }'
done
echo "runs and lists in $W"
