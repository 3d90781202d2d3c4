#!/bin/sh
# Flips that pause an observer (docs/metrics.md "Flip"): STALLS=0 against
# STALLS=bpf in one run of a fake game. The recorder starts with the run
# (the side that has it on) and is paused on the other: every BPF program
# detached, a pause and a resume line in its wait record (format 2) for
# each switch, no wait recorded inside a pause, its stall record's rows
# stopping too; `hitchbench flip` reads the run. The same with the waker
# (WAKER=5 against none): its wakeups stop while paused. And GAMECPU=0
# against GAMECPU=1: the game's threads seen on one CPU, then the other.
# timing: only what was recorded, not how fast
# lane: alone (the BPF recorder follows the game by the kernel's own pids, which a PID namespace of the test's would hide)
# wall: about 30 s
. "$(dirname "$0")/../lib.sh"
need_game_user
[ "$(id -u)" = 0 ] || skip "the BPF recorder and the waker need root"
fake_setup
fake_recipe flip "--fps 200 --busy-us 1000" "warmup = 0.5" "window = 6" "stop_grace = 0.5"

rc=0
"$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/flip.ini" base 1 \
	--switches STALLS=0 --flip STALLS=bpf --segment 0.5 --settle 0.05 >"$T/out" 2>"$T/err" || rc=$?
[ -n "${HB_KEEP:-}" ] && cp -r "$T" "$HB_KEEP"
[ "$rc" = 0 ] || { cat "$T/out" "$T/err" >&2; fail "the flip run exit status $rc"; }
run=$(run_dirs "$T/runs" | head -n 1)
case "$run" in
*@nostalls~bpf) ;;
*) fail "a flip run of the recorder is not named for both sides: $run" ;;
esac
grep -q '^stallbpf=fallback' "$run/bench.txt" &&
	skip "BPF could not start here: $(value stallbpf "$run/bench.txt")"
expect_eq "flip.txt switch" STALLS "$(value switch "$run/flip.txt")"
zstd -dc "$run/waits.rec.zst" >"$T/w" || fail "no wait record"
head -n 1 "$T/w" | grep -q "^hbwaits	2$" || fail "the wait record is not format 2: $(head -n 1 "$T/w")"
# a pause at each switch from B to A (STALLS=0), a resume at each from A
# to B: the applied switches (APPLIED_NS not 0) in turn, a side's first
# one when the run starts with the recorder on
n_pause=$(grep -c '^pause	' "$T/w")
n_resume=$(grep -c '^resume	' "$T/w")
n_to_a=$(awk '/^flip=/ && $5 != 0 { if ($3 != side && $3 == "A") n++; side = $3 } END { print n + 0 }' "$run/flip.txt")
[ "$n_to_a" -ge 2 ] || fail "only $n_to_a switches to A in 6 s of 0.5 s segments"
expect_eq "pause lines" "$n_to_a" "$n_pause"
[ "$n_resume" -ge $((n_pause - 1)) ] && [ "$n_resume" -le "$n_pause" ] ||
	fail "$n_pause pauses but $n_resume resumes"
# no wait ended inside a pause (the programs were detached): off lines'
# ON_NS (field 4) against the pause/resume pairs
awk -F'\t' '$1 == "pause" { p[++n] = $2 } $1 == "resume" { r[n] = $2 }
	$1 == "off" { on[++m] = $4 }
	END { for (i = 1; i <= m; i++) for (k = 1; k <= n; k++)
		if (on[i] > p[k] + 2000000 && (!(k in r) || on[i] < r[k])) { print on[i]; bad++ }
	      exit bad > 0 }' "$T/w" >"$T/inside" || fail "waits recorded while paused: $(head -n 3 "$T/inside")"
grep -q '^off	' "$T/w" || fail "no wait recorded at all"
grep -q '^trailer	pauses=' "$T/w" || fail "the wait record's trailer says nothing of the pauses"
zstd -dc "$run/stalls.rec.zst" 2>/dev/null | strings | grep -q "paused=$n_pause times" ||
	fail "the stall record's trailer does not say it was paused $n_pause times"
# the fake game is paced (200 fps, 1 ms of work): no verdict is expected, pairs are
rc=0
"$HB" flip "$run" >"$T/flip.out" 2>&1 || rc=$?
case $rc in 0|3|4) ;; *) fail "hitchbench flip exit status $rc: $(cat "$T/flip.out")" ;; esac
grep -q '^  pairs [1-9]' "$T/flip.out" || fail "hitchbench flip counts no pairs: $(cat "$T/flip.out")"

# the waker: paused on A (no waker), running on B
rc=0
"$HB" run --no-quieting --display :99 --out "$T/runs2" --no-db "$T/flip.ini" base 1 \
	--switches - --flip WAKER=5 --segment 0.5 --settle 0.05 >"$T/out2" 2>"$T/err2" || rc=$?
[ "$rc" = 0 ] || { cat "$T/out2" "$T/err2" >&2; fail "the waker flip run exit status $rc"; }
run=$(run_dirs "$T/runs2" | head -n 1)
w=$(value waker.wakeups "$run/bench.txt")
paused=$(value waker.paused_ms "$run/bench.txt")
[ -n "$paused" ] || fail "bench.txt has no waker.paused_ms"
# 5 ms wakeups over the ~window+warm-up the waker ran, less its paused time
awk -v w="$w" -v p="$paused" 'BEGIN { exit !(p > 2000 && w > 100) }' ||
	fail "waker: $w wakeups, paused $paused ms"

# GAMECPU: the game's CPUs change under it (two CPUs needed)
[ "$(nproc)" -ge 2 ] || { echo "GAMECPU flip not tried: one CPU"; exit 0; }
rc=0
"$HB" run --no-quieting --display :99 --out "$T/runs3" --no-db "$T/flip.ini" base 1 \
	--switches GAMECPU=0 --flip GAMECPU=1 --segment 0.5 --settle 0.05 >"$T/out3" 2>"$T/err3" &
hb=$!
: >"$T/seen"
for _i in $(seq 1 100); do
	for p in $(pgrep -x fakegame); do
		sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null >>"$T/seen"
	done
	sleep 0.1
done
wait "$hb" || rc=$?
[ "$rc" = 0 ] || { cat "$T/out3" "$T/err3" >&2; fail "the GAMECPU flip run exit status $rc"; }
run=$(run_dirs "$T/runs3" | head -n 1)
expect_eq "GAMECPU flips that failed" 0 "$(value flip.failed "$run/bench.txt")"
grep -qx 0 "$T/seen" && grep -qx 1 "$T/seen" ||
	fail "the game was not seen on CPU 0 and on CPU 1: $(sort "$T/seen" | uniq -c | tr '\n' ' ')"
exit 0
