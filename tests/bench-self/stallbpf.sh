#!/bin/sh
# bench-self, the BPF stall recorder (STALLS=bpf) against the sampler
# (STALLS=1) and no recorder (STALLS=0): one batch of the default recipe
# (a real game under Xvfb, not quieted) in which the three take turns in
# every round (rotated), so the three are compared in one boot, on one
# machine, under the same noise. A benchmark: it prints figures and the
# verdicts, and fails only when a run fails.
#
#   1. the cost of each recorder in its own runs, medians [min .. max]:
#      the sampler's own thread CPU (trailer cpu_pct); BPF's kernel side
#      (the programs' run time, bpf_stats) and user side (the drains),
#      per program run and per scheduler switch, as % of one CPU; and the
#      sampler that runs beside BPF at 100 ms for what BPF does not see;
#   2. the effect on the game: hitchbench compare of fps and of stalls
#      between each two of the three (bootstrap intervals, SAME/DIFFERENT/
#      UNKNOWN, docs/metrics.md).
#
# Environment: HB_BUILD (build), HB_BENCH_BPF_ROUNDS (4), HB_BENCH_BPF_WINDOW
# (15), HB_BENCH_RECIPE (dsda-doom). Needs root and a kernel with BTF.

B=${HB_BUILD:-build}
ROUNDS=${HB_BENCH_BPF_ROUNDS:-4}
WINDOW=${HB_BENCH_BPF_WINDOW:-15}
RECIPE=${HB_BENCH_RECIPE:-dsda-doom}
VARIANT=software

B=$(cd "$B" 2>/dev/null && pwd) || { echo "stallbpf: no build directory" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "stall recorders side by side: none, the sampler (STALLS=1), BPF (STALLS=bpf)"
if [ "$(id -u)" != 0 ]; then
	echo "  skipped: the recorders need root"
	exit 0
fi
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "  skipped: the kernel has no BTF (/sys/kernel/btf/vmlinux)"
	exit 0
fi

med() { # numbers on stdin: "median [min .. max]"
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.4g [%.4g .. %.4g]\n", m, v[1], v[NR] }'
}
wtrailer() { zstd -dcq "$1" | sed -n "s/^trailer	$2=//p"; }
strailer() { "$B/tests/recdump" "$1" | sed -n "s/^trailer $2=//p"; }

db=$tmp/db.sqlite
if ! "$B/hitchbench" run --no-quieting --db "$db" --out "$tmp/runs" --warmup 3 --window "$WINDOW" \
	"$RECIPE" "$VARIANT" "$ROUNDS" --switches "STALLS=0 STALLS=1 STALLS=bpf" >"$tmp/run.out" 2>&1; then
	echo "  the batch failed:"
	tail -n 5 "$tmp/run.out" | sed 's/^/    /'
	exit 1
fi
: >"$tmp/sampler"; : >"$tmp/bpf"; : >"$tmp/beside"
for d in "$tmp"/runs/*/*/; do
	case $d in
	*@rec10/)
		strailer "$d/stalls.rec.zst" cpu_pct >>"$tmp/sampler" ;;
	*@bpf/)
		w=$d/waits.rec.zst
		[ -s "$w" ] || { echo "  a BPF run has no wait record: $(sed -n 's/^stallbpf=//p' "$d/bench.txt")"; exit 1; }
		echo "$(wtrailer "$w" kernel_cpu_pct) $(wtrailer "$w" user_cpu_pct)" \
			"$(wtrailer "$w" prog.hb_switch.run_ns) $(wtrailer "$w" prog.hb_switch.runs)" \
			"$(wtrailer "$w" prog.hb_waking.run_ns) $(wtrailer "$w" prog.hb_waking.runs)" \
			"$(wtrailer "$w" ns_per_event) $(wtrailer "$w" events | awk '{ print $2 }')" \
			"$(wtrailer "$w" wall_us)" >>"$tmp/bpf"
		strailer "$d/stalls.rec.zst" cpu_pct >>"$tmp/beside" ;;
	esac
done
echo "  cost, $ROUNDS runs each of $RECIPE $VARIANT, ${WINDOW} s windows, medians [min .. max] (% of one CPU over the recorder's life):"
echo "    sampler at 10 ms       $(med <"$tmp/sampler")%  (its thread's CPU, wakeups included; trailer cpu_pct)"
echo "    BPF, kernel side       $(awk '{ print $1 }' "$tmp/bpf" | med)%  (all programs' run time, bpf_stats)"
echo "    BPF, user side         $(awk '{ print $2 }' "$tmp/bpf" | med)%  (the drains: reading, naming stacks, writing)"
echo "    BPF, both              $(awk '{ print $1 + $2 }' "$tmp/bpf" | med)%  (goal <= 0.1%)"
echo "      a scheduler switch   $(awk '$4 { print $3 / $4 }' "$tmp/bpf" | med) ns a run of hb_switch (every switch on the machine; goal < 2000)"
echo "      switches a second    $(awk '$9 { print $4 / ($9 / 1e6) }' "$tmp/bpf" | med)"
echo "      a wakeup             $(awk '$6 { print $5 / $6 }' "$tmp/bpf" | med) ns a run of hb_waking (stacks of the main thread's sleeps over 10 ms)"
echo "      every program        $(awk '{ print $7 }' "$tmp/bpf" | med) ns a run (trailer ns_per_event)"
echo "      waits recorded       $(awk '{ print $8 }' "$tmp/bpf" | med) a run"
echo "    the sampler beside BPF $(med <"$tmp/beside")%  (at 100 ms, for memory counters and PSI)"

echo "  the effect on the game (hitchbench compare, one batch, bootstrap; docs/metrics.md):"
for m in fps stalls; do
	for pair in "nostalls rec10" "nostalls bpf" "rec10 bpf"; do
		set -- $pair
		"$B/hitchbench" compare --db "$db" --metric "$m" --no-notes "$RECIPE" "$VARIANT@$1" "$VARIANT@$2" \
			>"$tmp/cmp" 2>&1
		echo "    $m, $1 -> $2:"
		sed 's/^/      /' "$tmp/cmp"
	done
done
exit 0
