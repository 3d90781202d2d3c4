#!/bin/sh
# wall: about 15 s (a flip run killed, thawed, swept and read)
# A flip run of a knob killed with SIGKILL in its window: the knob is back to
# the value it had once "hitchbench thaw" has run (the journal the batch held
# for KNOB, unquieted), and the next batch's sweep of the dead runner's
# staging keeps the killed run: its frames moved into its run directory,
# which takes its final name with status "killed", and "hitchbench flip"
# reads its pairs so far. The knob is a file of a copy of
# tests/fixtures/quiet-root (HITCHBENCH_ROOT): nothing here touches the real
# machine's settings.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (a knob is root's to write; the game runs as another user)"
need_game_user
fake_setup
fake_recipe long "--fps 300 --busy-us 1000" "warmup = 0.2" "window = 60" "stop_grace = 0.5"
fake_recipe q "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5"
quiet_root
cp -R "$FIX" "$T/root"
K=sys/kernel/mm/transparent_hugepage/enabled
mkdir -p "$T/root/${K%/*}"
echo "always [madvise] never" >"$T/root/$K"

hb_run_bg --no-quieting "$T/long.ini" base 1 --switches "KNOB=/$K=always" --flip "KNOB=/$K=never" \
	--segment 0.2 --settle 0.04
flip=
for i in $(seq 1 100); do
	flip=$(ls "$T"/runs/*/.*.tmp/flip.txt 2>/dev/null | head -n 1)
	[ -n "$flip" ] && break
	sleep 0.1
done
[ -n "$flip" ] || fail "no flip.txt in a run directory: $(cat "$T/err")"
"$HB_BUILD/tests/waitline" "$flip" "^flip=" 20 30 || fail "fewer than 20 switches in 30 s: $(cat "$T/err")"
case "$(cat "$T/root/$K")" in
always | never) ;;
*) fail "the knob reads '$(cat "$T/root/$K")' while flipped" ;;
esac
kill -9 "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
no_fakegame_left
[ -e "$J" ] || fail "the killed flip run left no journal"
rc=0
"$HB" thaw >"$T/out" 2>"$T/err" || rc=$?
expect_eq "thaw exit" 0 "$rc"
grep -q "^restored  file $K = madvise" "$T/out" || fail "thaw: $(cat "$T/out")"
expect_eq "the knob after thaw" madvise "$(cat "$T/root/$K")"

# the next batch sweeps the dead staging: the killed run is kept
hb_run "$T/q.ini"
expect_eq "the next batch" 0 "$rc"
killed=$(ls -d "$T"/runs/*/*@transparent_hugepage.enabled-always~transparent_hugepage.enabled-never 2>/dev/null)
[ -n "$killed" ] || fail "the killed flip run was not kept: $(ls -a "$T"/runs/*/)"
expect_eq "its status" killed "$(value status "$killed/bench.txt")"
[ -s "$killed/frames.bin" ] || fail "its frames were not kept"
[ ! -e "$killed/staging" ] || [ -n "$(cat "$killed/staging")" ] || fail "an empty staging note"
rc=0
"$HB" flip "$killed" >"$T/flip" 2>"$T/err" || rc=$?
cat "$T/flip"
case "$rc" in 0 | 3 | 4) ;; *) fail "flip exit $rc: $(cat "$T/err")" ;; esac
grep -q "(status killed)" "$T/flip" || fail "flip does not say the run was killed"
n=$(sed -n 's/^  pairs \([0-9]*\) .*/\1/p' "$T/flip")
[ "${n:-0}" -ge 5 ] || fail "fewer than 5 pairs kept from at least 20 switches: $(cat "$T/flip")"
exit 0
