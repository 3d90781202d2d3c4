#!/bin/sh
# hitchbench calibrate on the fake game, 3 short rounds: one batch of
# SLOWDOWN=0, - and SLOWDOWN=20 interleaved (an ordinary batch, in the
# database), then the table: a header saying how each figure is computed
# and a row per metric it has values of. The fake game is CPU-bound
# (fakegame --busy-us), so the known effect is there to be found; with 3
# rounds nothing needs to be decided, only computed. INTF=0 (--with): other
# work on a shared test machine would mark the runs interfered, leaving
# nothing to calibrate. Then --design flip: two flip runs of the same
# known effect, their blocks' figures in a row.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe cal "--fps 100000 --busy-us 2000" "warmup = 0.2" "window = 0.8" "stop_grace = 0.5"

# refused before anything runs
for bad in "--rounds 1" "--effect 0" "--effect 101" "--resamples 0" "--with SLOWDOWN_US=5" "--design both" \
	"--minutes 0" "--flip SLOWDOWN=3"; do
	rc=0; "$HB" calibrate "$T/cal.ini" $bad --no-db --out "$T/runs" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "exit status of calibrate $bad" 2 "$rc"
done
[ ! -e "$T/runs" ] || fail "a refused calibrate left a batch"

rc=0
"$HB" calibrate "$T/cal.ini" base --rounds 3 --effect 20 --resamples 200 --with INTF=0 --no-quieting --display :99 \
	--out "$T/runs" --db "$T/db.sqlite" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "calibrate exit status" 0 "$rc"
batchdir=$(ls -d "$T"/runs/*/ | tail -n 1)
batchdir=${batchdir%/}
[ -f "$batchdir/batch.txt" ] || fail "no batch: $(cat "$T/err")"
expect_eq "tokens" "SLOWDOWN=0+INTF=0 INTF=0 SLOWDOWN=20+INTF=0" "$(value tokens "$batchdir/batch.txt")"
expect_eq "rounds" 3 "$(value rounds "$batchdir/batch.txt")"
expect_eq "batch status" complete "$(value status "$batchdir/batch.txt")"
[ "$(run_dirs "$T/runs" | wc -l)" = 9 ] || fail "expected 9 runs: $(run_dirs "$T/runs")"
"$HB" db info --db "$T/db.sqlite" >"$T/info" 2>&1 || fail "db info: $(cat "$T/info")"
grep -q "runs.*9\|9.*runs" "$T/info" || fail "the batch's 9 runs are not in the database: $(cat "$T/info")"

# the header says how, the table has every metric of this build
grep -q "^# calibrate: batch $batchdir, 3 round(s), A = SLOWDOWN=0+INTF=0, A' = INTF=0, B = SLOWDOWN=20+INTF=0" "$T/out" ||
	fail "no calibrate header: $(cat "$T/out")"
grep -q "^#  *(z_0.995 + z_0.8) x sd_AA / sqrt(N)" "$T/out" || fail "no MDE formula in the header"
grep -q "^#.*over 200 resamples (seed" "$T/out" || fail "no resampling method in the header"
grep -q "^metric  *runs  *cv_A.* mde_5m  *mde_15m  *mde_30m " "$T/out" || fail "no table heading: $(cat "$T/out")"
grep -q "^# mde_Mm      mde_pair within M minutes of runs: N = M x 60 / (2 x [0-9.]* s" "$T/out" ||
	fail "no time-budget MDE in the header: $(grep mde_ "$T/out")"
for m in fps steady_fps low1 stall_s; do
	grep -q "^$m " "$T/out" || fail "no row for $m: $(cat "$T/out")"
done
grep -q "^cpu_ms_per_frame " "$T/out" || fail "cpu_ms_per_frame neither a row nor skipped"
# fps: 3 valid runs a cell, numbers in every column, and the 20% slowdown seen
row=$(grep "^fps " "$T/out")
set -- $row
expect_eq "fps runs" 3/3/3 "$2"
for v in "$3" "$4" "$5" "$6" "$8" "$9" "${10}" "${11}" "${12}"; do
	case $v in [0-9]*) ;; *) fail "fps row has '$v' where a number goes: $row" ;; esac
done
# A shared VM's noise can hide a 20% effect from 3 rounds (seen once here:
# cv_A 20%, B/A 0.99). Broken arithmetic misses it every time, noise seldom
# three times in a row: so a miss is run again, at most twice.
attempt=1
while ! awk -v r="${15}" 'BEGIN { exit !(r > 0.70 && r < 0.92) }'; do
	[ "$attempt" -lt 3 ] || fail "fps B/A is ${15}, not about 1/1.2, in 3 batches: $row"
	echo "batch $attempt: fps B/A ${15} with cv_A $3, not about 1/1.2: noise? again" >&2
	attempt=$((attempt + 1))
	rc=0
	"$HB" calibrate "$T/cal.ini" base --rounds 3 --effect 20 --resamples 200 --with INTF=0 --no-quieting \
		--display :99 --out "$T/runs$attempt" --no-db >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "calibrate exit status (batch $attempt)" 0 "$rc"
	row=$(grep "^fps " "$T/out")
	set -- $row
done

# --design flip: flip runs of SLOWDOWN=0 against SLOWDOWN=20, their blocks
rc=0
"$HB" calibrate "$T/cal.ini" base --design flip --rounds 2 --window 4 --segment 0.2 --settle 0.04 --effect 20 \
	--minutes 10 --with INTF=0 --no-quieting --display :99 --out "$T/flipcal" --no-db >"$T/fout" 2>"$T/ferr" || rc=$?
expect_eq "calibrate --design flip exit status" 0 "$rc"
grep -q "^# calibrate --design flip: batch .*, 2 flip run(s) of SLOWDOWN=0 against SLOWDOWN=20, both with INTF=0 (true B/A 0.8333)" \
	"$T/fout" || fail "no flip calibration header: $(cat "$T/fout" "$T/ferr")"
grep -q "^#  *power 0.8: (z_0.995 + z_0.8) x sd_block / sqrt(M x 60 / s/block) x 100" "$T/fout" ||
	fail "no MDE formula in the flip header"
set -- $(grep "^flip " "$T/fout")
[ "$#" -ge 14 ] || fail "no flip row: $(cat "$T/fout")"
expect_eq "flip runs" 2 "$2"
grep -q "^design  *runs  *blocks  *s/block  *sd_block  *mde_5m  *mde_15m  *mde_30m  *mde_10m  *B/A" "$T/fout" ||
	fail "no flip table heading with the MDE at 5, 15, 30 and 10 minutes: $(cat "$T/fout")"
for v in "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}"; do
	case $v in [0-9]*) ;; *) fail "the flip row has '$v' where a number goes: $*" ;; esac
done
# slower, and in the range a 20% spin can give on a loaded test machine
# (seen: 0.61 beside the suite's heavy lane, sd of a block 52%): broken
# arithmetic gives about 1, or nonsense
awk -v r="${10}" 'BEGIN { exit !(r > 0.4 && r < 0.95) }' || fail "flip B/A ${10}, not under 1 as a 20% spin makes it: $*"
no_fakegame_left
exit 0
