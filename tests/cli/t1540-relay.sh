#!/bin/sh
# Relays and duets (docs/metrics.md "Relay"): ab --design relay loads A
# (SLOWDOWN=0) and B (SLOWDOWN=30) of a CPU-bound fake game at once, each
# with an X server of its own, and plays them in turns of 0.2 s; the
# sequential test over the rounds' blocks of adjacent-turn pairs says B is
# slower. Each run's relay.txt holds one relay's id, its side, the shared
# epoch and every stop and resume (each applied after it was due, and each
# of A's resumes the turn of one of B's stops); the stops are no stall of
# either run; the interference watcher counts neither game against the
# other; the report says each run was made in a relay; compare --paired
# reads the batch again to the same verdict. A duet plays both at once on
# halves of the CPUs, swapped by round, and says the halves' asymmetry.
# Batches a relay cannot serve are refused before anything runs.
# timing: a 30% effect against a loaded machine's turn-to-turn noise
# lane: alone (an effect between runs: a neighbour's load that comes and goes moves turns)
# wall: about 60 s
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
fake_setup
fake_recipe relay "--fps 100000 --busy-us 2000" "warmup = 0.3" "window = 6" "stop_grace = 0.5"

rc=0
"$HB" ab --no-quieting --out "$T/runs" --no-db "$T/relay.ini" base@SLOWDOWN=0 base@SLOWDOWN=30 \
	--design relay --window 6 --max-minutes 0.2 --turn 0.2 --settle 0.03 --effect 10 >"$T/out" 2>"$T/err" ||
	rc=$?
cat "$T/out"
[ "$rc" = 3 ] || { cat "$T/err" >&2; fail "ab --design relay exit status $rc, not 3 (DIFFERENT)"; }
grep -q "^verdict DIFFERENT: B slower than A after [0-9]* block(s) of relay pairs" "$T/out" ||
	fail "no verdict DIFFERENT (slower)"
batch=$(ls -d "$T"/runs/*/)
batch=${batch%/}
expect_eq "batch.txt relay" relay "$(value relay "$batch/batch.txt")"
a=$(run_dirs "$T/runs" | grep '@slow0$' | head -n 1)
b=$(run_dirs "$T/runs" | grep '@slow30$' | head -n 1)
[ -n "$a" ] && [ -n "$b" ] || fail "no run of A or of B: $(run_dirs "$T/runs")"
for d in "$a" "$b"; do
	f="$d/relay.txt"
	expect_eq "$d status" ok "$(value status "$d/bench.txt")"
	expect_eq "$d relay.txt format" 1 "$(value format "$f")"
	expect_eq "$d relay.txt mode" relay "$(value mode "$f")"
	expect_eq "$d relay.txt turn_s" 0.2 "$(value turn_s "$f")"
	expect_eq "$d interfered" 0 "$(value interfered "$d/bench.txt")"
	awk "BEGIN { exit !($(value stalls "$d/result.txt") == 0) }" ||
		fail "$d: $(value stalls "$d/result.txt") stalls: the relay's stops counted as the game's"
	n=$(grep -c '^stop=' "$f")
	[ "$n" -ge 10 ] || fail "$d: only $n stops in a 6 s window of 0.2 s turns"
	expect_eq "$d bench.txt relay.stops" "$n" "$(value relay.stops "$d/bench.txt")"
	awk -F'[= ]' '/^(stop|resume)=/ && $4 < $3 { exit 1 }' "$f" || fail "$d: a stop or resume before it was due"
done
expect_eq "one relay" "$(value relay "$a/relay.txt")" "$(value relay "$b/relay.txt")"
expect_eq "one epoch" "$(value epoch_ns "$a/relay.txt")" "$(value epoch_ns "$b/relay.txt")"
expect_eq "A's side" A "$(value role "$a/relay.txt")"
expect_eq "B's side" B "$(value role "$b/relay.txt")"
# the turns interleave: every turn A resumed in is one B stopped in
sed -n 's/^resume=\([0-9]*\) .*/\1/p' "$a/relay.txt" | sort >"$T/a-resumes"
sed -n 's/^stop=\([0-9]*\) .*/\1/p' "$b/relay.txt" | sort >"$T/b-stops"
[ -s "$T/a-resumes" ] || fail "A never resumed"
[ -z "$(comm -23 "$T/a-resumes" "$T/b-stops")" ] || fail "A resumed in turns B was not stopped in"
"$HB" report "$a" "$b" >"$T/report" 2>&1 || fail "report: $(cat "$T/report")"
grep -q "^# $(basename "$a"): made in a relay as A with base@slow30" "$T/report" ||
	fail "the report does not say the run was made in a relay: $(grep '^# ' "$T/report" | tail -n 5)"
"$HB" compare --paired "$batch" >"$T/again" 2>&1
expect_eq "compare --paired exit status" 3 "$?"
grep -q "^verdict DIFFERENT: B slower" "$T/again" || fail "compare --paired: $(cat "$T/again")"

# a duet: both at once, each game on one half of the CPUs, swapped by round
rc=0
"$HB" ab --no-quieting --out "$T/duet" --no-db "$T/relay.ini" base@SLOWDOWN=0 base@SLOWDOWN=30 \
	--design duet --window 3 --max-minutes 0.1 --effect 10 >"$T/out" 2>"$T/err" || rc=$?
cat "$T/out"
case "$rc" in 0 | 3 | 4) ;; *) cat "$T/err" >&2; fail "ab --design duet exit status $rc" ;; esac
grep -q "^duet: ln(B/A) .* with A on the lower CPUs (1 round(s)), .* on the upper (1); the halves' asymmetry" \
	"$T/out" || fail "the duet does not say its CPU halves' asymmetry"
cpus=$(for d in $(run_dirs "$T/duet"); do value cpus "$d/relay.txt"; done | sort -u | tr '\n' ' ')
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -ge 2 ]; then
	[ "$(echo $cpus | wc -w)" = 2 ] || fail "the duet's games ran on '$cpus', not two halves"
	# round 1: A on the lower half; round 2: A on the upper
	for d in $(run_dirs "$T/duet"); do
		r=$(value batch_round "$d/bench.txt")
		role=$(value role "$d/relay.txt")
		low=$(value cpus "$d/relay.txt" | cut -c1)
		if [ "$(( r % 2 ))" = 1 ] && [ "$role" = A ] || [ "$(( r % 2 ))" = 0 ] && [ "$role" = B ]; then
			expect_eq "$d (round $r, $role): the lower half" 0 "$low"
		fi
	done
fi

# calibrate --design relay: two relays of SLOWDOWN=0 against SLOWDOWN=30, one row
rc=0
"$HB" calibrate "$T/relay.ini" base --design relay --rounds 2 --window 3 --turn 0.2 --settle 0.03 --effect 30 \
	--no-quieting --out "$T/relaycal" --no-db >"$T/cout" 2>"$T/cerr" || rc=$?
expect_eq "calibrate --design relay exit status" 0 "$rc"
grep -q "^# calibrate --design relay: batch .*, 2 round(s) of SLOWDOWN=0 against SLOWDOWN=30 (true B/A 0.7692)" \
	"$T/cout" || fail "no relay calibration header: $(cat "$T/cout" "$T/cerr")"
set -- $(grep "^relay " "$T/cout")
expect_eq "calibrate relay rounds" 2 "$2"
awk -v r="$9" 'BEGIN { exit !(r > 0.4 && r < 0.95) }' || fail "relay B/A $9, not under 1 as a 30% spin makes it: $*"

# a relay stopped by SIGTERM to the batch alone, mid-round (its games stopped
# and running by turns): the batch passes it on, both runs end, nothing is
# left of them but "aborted" lines, no game is left stopped or running
"$HB" run --no-quieting --out "$T/int" --no-db "$T/relay.ini" base --switches "SLOWDOWN=0 SLOWDOWN=1" \
	--relay relay --window 30 >"$T/iout" 2>"$T/ierr" &
pid=$!
for i in $(seq 1 100); do
	[ "$(grep -c 'first frame' "$T/ierr")" -ge 2 ] && break
	sleep 0.1
done
sleep 1
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit status after SIGTERM" 130 "$rc"
ib=$(ls -d "$T"/int/*/)
ib=${ib%/}
grep -q '^1 aborted' "$ib/runs.txt" && grep -q '^2 aborted' "$ib/runs.txt" ||
	fail "the relay's runs are not both aborted: $(cat "$ib/runs.txt")"
[ -z "$(run_dirs "$T/int")" ] || fail "an interrupted relay kept a run: $(run_dirs "$T/int")"
ls -A "$ib" | grep -q '^\.' && fail "an interrupted relay left a temporary directory"
no_fakegame_left

# refused before anything runs: exit 2 and why
refused() {
	want=$1
	shift
	rc=0
	"$HB" run --no-quieting --out "$T/refused" --no-db "$T/relay.ini" "$@" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "exit status of $*" 2 "$rc"
	grep -q -- "$want" "$T/err" || fail "$*: no '$want' in: $(cat "$T/err")"
}
refused "name two variants and one token, or one variant and two tokens (not 3 cells)" base \
	--switches "SLOWDOWN=0 SLOWDOWN=1 SLOWDOWN=2" --relay relay
refused "no --flip or --display with it" base --switches "SLOWDOWN=0 SLOWDOWN=1" --relay relay --display :99
refused "must leave at least half of each turn" base --switches "SLOWDOWN=0 SLOWDOWN=1" --relay relay \
	--turn 0.2 --settle 0.15
refused "--relay wants relay or duet, not 'solo'" base --switches "SLOWDOWN=0 SLOWDOWN=1" --relay solo
refused "a duet puts each game on half of the CPUs itself: no GAMECPU in its tokens ('GAMECPU=1')" base \
	--switches "- GAMECPU=1" --relay duet
rc=0
"$HB" ab --no-quieting --out "$T/refused" --no-db "$T/relay.ini" base@SLOWDOWN=0 base@SLOWDOWN=1 \
	--design relay --metric p99_ms >"$T/out" 2>"$T/err" || rc=$?
expect_eq "exit status of ab --design relay --metric p99_ms" 2 "$rc"
grep -q -- "--design relay tests fps (the same frames' times on both sides), not p99_ms" "$T/err" ||
	fail "ab --design relay --metric p99_ms: $(cat "$T/err")"
[ ! -d "$T/refused" ] || [ -z "$(ls "$T/refused")" ] || fail "a refused batch left a directory"
exit 0
