#!/bin/sh
# bench-self, the profile recorder (PROFILE=1): its cost to the game,
# measured the way docs/profile.md's table was, by flipping it on and off
# in one run of the default recipe (a real game under Xvfb, not quieted;
# hitchbench ab --design flip), at the default rate and at 250 Hz; and
# its own cost from the runs' bench.txt (the recorder's CPU, its CPU a
# sample, samples a second). A benchmark: it prints figures and verdicts,
# and fails only when a run fails.
#
# Environment: HB_BUILD (build), HB_BENCH_PROFILE_MINUTES (4, each flip's
# cap), HB_BENCH_RECIPE (dsda-doom). Needs root (perf events on the game
# user's threads).

B=${HB_BUILD:-build}
MINUTES=${HB_BENCH_PROFILE_MINUTES:-4}
RECIPE=${HB_BENCH_RECIPE:-dsda-doom}
VARIANT=software

B=$(cd "$B" 2>/dev/null && pwd) || { echo "profile: no build directory" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "the profile recorder (PROFILE=1) flipped on and off in one run of $RECIPE $VARIANT"
if [ "$(id -u)" != 0 ]; then
	echo "  skipped: the recorder needs root"
	exit 0
fi
for hz in 999 250; do
	rc=0
	"$B/hitchbench" ab --no-quieting --no-db --out "$tmp/$hz" "$RECIPE" "$VARIANT" \
		"$VARIANT@PROFILE=1+PROFILE_HZ=$hz" --design flip --window 60 --max-minutes "$MINUTES" \
		>"$tmp/$hz.out" 2>"$tmp/$hz.err" || rc=$?
	case $rc in
	0 | 3 | 4) ;;
	*) echo "  PROFILE_HZ=$hz: the flip failed ($rc): $(tail -n 3 "$tmp/$hz.err")" >&2; exit 1 ;;
	esac
	echo "  PROFILE_HZ=$hz: $(grep '^verdict' "$tmp/$hz.out"); $(grep '^estimate' "$tmp/$hz.out" | sed 's/ (a confidence.*//')"
	for b in "$tmp/$hz"/*/*/bench.txt; do
		sed -n 's/^profile=/    the recorder: /p' "$b"
	done
done
echo "  (B/A: fps with the recorder over fps without, in one run's paired segments; docs/profile.md)"
