#!/bin/sh
# The SLOWDOWN switch, a known effect: a CPU-bound fake game (its frames
# are 2 ms of busy work, it never sleeps) under SLOWDOWN=20 has frames about
# 20% longer than under SLOWDOWN=0, which spins nothing; SLOWDOWN_US=1000
# adds about a millisecond; bench.txt says what the hook spun. The checks
# are on a low quantile of frame times from frames.bin, never on how long a
# run took: another process taking the CPU only lengthens frames (and, as
# a spin is a share of the frame before, the frame after too), so on a
# loaded machine the median moves with the load, while the 5th percentile
# is a frame that ran undisturbed after one that did, even beside a busy
# loop on every CPU (the 20th was not, there). (A fake game paced by
# sleeping would hide the spin in its sleep, as a vsync-bound game does.)
# timing: frame times of a CPU-bound game beside whatever else runs
# lane: alone (an effect compared across runs: a neighbour's load that comes and goes moves one run's frames only)
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
# --fps 100000: a period far under the work, so the pacer never sleeps
fake_recipe slow "--fps 100000 --busy-us 2000" "warmup = 0.3" "window = 1.5" "stop_grace = 0.5"

hb_run "$T/slow.ini" base 1 --switches "SLOWDOWN=0 SLOWDOWN=20 SLOWDOWN_US=1000"
expect_eq "batch exit status" 0 "$rc"

# low_ms RUNDIR: the 5th percentile (nearest rank) of the frame times of
# the run's window, ms, then its median
low_ms() {
	"$HB" frames --window "$1" >"$T/frames" || fail "frames $1 failed"
	awk -F'\t' '$1 ~ /^[0-9]/ && $3 == 1 { print $2 }' "$T/frames" | sort -g | awk '
		{ v[NR] = $1 }
		END { if (NR < 50) exit 1; k = int(NR * 0.05); if (k < NR * 0.05) k++; print v[k], v[int((NR + 1) / 2)] }' ||
		fail "fewer than 50 frames in the window of $1"
}
run_of() {
	run_dirs "$T/runs" | grep "@$1\$" || fail "no run base@$1: $(run_dirs "$T/runs")"
}
r0=$(run_of slow0)
r20=$(run_of slow20)
rus=$(run_of slow1000us)
set -- $(low_ms "$r0") $(low_ms "$r20") $(low_ms "$rus")
m0=$1 m20=$3 mus=$5
echo "frame p5 (median): SLOWDOWN=0 $1 ($2) ms, SLOWDOWN=20 $3 ($4) ms, SLOWDOWN_US=1000 $5 ($6) ms" >&2
awk -v a="$m0" -v b="$m20" 'BEGIN { r = b / a; exit !(r >= 1.10 && r <= 1.35) }' ||
	fail "SLOWDOWN=20 against SLOWDOWN=0: frame p5 $m20 / $m0 ms, not within 1.10..1.35"
awk -v a="$m0" -v b="$mus" 'BEGIN { d = b - a; exit !(d >= 0.8 && d <= 1.5) }' ||
	fail "SLOWDOWN_US=1000 against SLOWDOWN=0: frame p5 $mus - $m0 ms, not within 0.8..1.5"

# what was injected, in bench.txt
expect_eq "slowdown.pct of SLOWDOWN=0" 0 "$(value slowdown.pct "$r0/bench.txt")"
expect_eq "spin of SLOWDOWN=0" 0.000 "$(value slowdown.spin_ms "$r0/bench.txt")"
expect_eq "spinning presents of SLOWDOWN=0" 0 "$(value slowdown.presents "$r0/bench.txt")"
expect_eq "slowdown.pct" 20 "$(value slowdown.pct "$r20/bench.txt")"
expect_eq "slowdown.us" 1000 "$(value slowdown.us "$rus/bench.txt")"
for r in "$r20" "$rus"; do
	spin=$(value slowdown.spin_ms "$r/bench.txt")
	presents=$(value slowdown.presents "$r/bench.txt")
	frames=$(value frames_recorded "$r/bench.txt")
	[ -n "$spin" ] && [ -n "$presents" ] || fail "no slowdown.spin_ms or .presents in $r/bench.txt"
	# every present but a thread's first spins (and one the game was
	# stopped in, whose spin never ended)
	[ "$presents" -ge $((frames - 3)) ] && [ "$presents" -le "$frames" ] ||
		fail "$r: $presents presents spun of $frames recorded"
done
# a fixed spin is at least what was asked (a preempted one takes longer)
awk -v s="$(value slowdown.spin_ms "$rus/bench.txt")" -v n="$(value slowdown.presents "$rus/bench.txt")" \
	'BEGIN { exit !(s / n >= 1.0 && s / n <= 3) }' || fail "SLOWDOWN_US=1000 spun $spin ms at $presents presents"
# a share: each spin is 20% of the frame before less its spin, so the
# spins are 20/120 of the run's time from its first present to its last,
# however the frames vary (more when a spin is preempted)
first=$(value first_frame_ns "$r20/bench.txt")
last=$(value last_present_ns "$r20/bench.txt")
spin=$(value slowdown.spin_ms "$r20/bench.txt")
awk -v s="$spin" -v a="$first" -v b="$last" 'BEGIN { f = s * 1e6 / (b - a); exit !(f >= 0.14 && f <= 0.25) }' ||
	fail "SLOWDOWN=20 spun $spin ms of the $(( (last - first) / 1000000 )) ms between the first present and the last"
# the spin is kept out of the hook's own cost (about 100 ns, never a spin's 400 us)
cost=$(value hook_cost_ns_per_frame "$r20/bench.txt")
[ -n "$cost" ] && [ "$cost" -lt 100000 ] || fail "the hook's cost under SLOWDOWN=20 is $cost ns"
grep -q "slowdown: the hook spun" "$T/err" || fail "no slowdown note on the terminal: $(cat "$T/err")"
no_fakegame_left
exit 0
