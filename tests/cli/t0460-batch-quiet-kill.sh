#!/bin/sh
# wall: about 35 s (a batch killed and thawed, then another)
# A batch quiets the machine before each run and thaws it at the end;
# killed with SIGKILL in the middle of a run, it leaves its journal, and
# "hitchbench thaw" restores every value (checked file by file against the
# pristine fixture); a journal left by a killed batch is also restored by
# the next batch before it starts. The machine is a copy of
# tests/fixtures/quiet-root (HITCHBENCH_ROOT) with a fake systemctl; the
# journal lives in $T: nothing here touches the real machine's settings.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (quiet skips its steps for other users)"
need_game_user
fake_setup
fake_recipe q "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5"
fake_recipe long "--fps 100" "warmup = 0" "window = 60" "stop_grace = 0.5"

quiet_root
GOV0=sys/devices/system/cpu/cpu0/cpufreq/scaling_governor

cat >"$T/profile.ini" <<'EOP'
[quiet]
services = display-manager.service man-db.timer
[idle]
cpu_busy_pct =
settle_s = 0.2
timeout_s = 5
EOP

fresh() {
	rm -rf "$T/root" "$T/units" "$T/state" "$T/runs"
	cp -R "$FIX" "$T/root"
	mkdir -p "$T/units"
	echo active >"$T/units/display-manager.service"
	echo active >"$T/units/man-db.timer"
}

all_back() {
	diff -r -x drop_caches -x compact_memory "$FIX" "$T/root" >"$T/diff" ||
		fail "$1: files differ from the fixture: $(cat "$T/diff")"
	expect_eq "$1: display-manager" active "$(cat "$T/units/display-manager.service")"
	expect_eq "$1: man-db.timer" active "$(cat "$T/units/man-db.timer")"
	[ ! -e "$J" ] || fail "$1: the journal is left: $(cat "$J")"
}

# 1. a whole batch: quiet before each run, recorded; thawed at the end
fresh
rc=0
"$HB" run --display :99 --out "$T/runs" --no-db --profile "$T/profile.ini" "$T/q.ini" base 2 \
	>"$T/out" 2>"$T/err" || rc=$?
expect_eq "quiet batch exit" 0 "$rc"
for d in $(run_dirs "$T/runs"); do
	b="$d/bench.txt"
	expect_eq "$d quiet.profile" "$T/profile.ini" "$(value quiet.profile "$b")"
	value quiet.idle "$b" | grep -q "^reached" || fail "$d quiet.idle: $(value quiet.idle "$b")"
	grep -q "^quiet.services=" "$b" || fail "$d: no quiet.services"
	grep -q "^quiet.governor=" "$b" || fail "$d: no quiet.governor"
done
grep -q "thawed:" "$T/err" || fail "no word of the thaw: $(cat "$T/err")"
all_back "after the batch"

# 2. SIGKILL in the middle of a run: the settings stay changed, the journal
# stays; "hitchbench thaw" gives everything back
fresh
hb_run_bg --profile "$T/profile.ini" "$T/long.ini"
expect_eq "governor while quiet" performance "$(cat "$T/root/$GOV0")"
expect_eq "display manager while quiet" inactive "$(cat "$T/units/display-manager.service")"
kill -9 "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
no_fakegame_left
[ -e "$J" ] || fail "the killed batch left no journal"
rc=0; "$HB" thaw >"$T/out" 2>"$T/err" || rc=$?
expect_eq "thaw exit" 0 "$rc"
grep -q "^restored" "$T/out" || fail "thaw said nothing: $(cat "$T/out")"
grep -q MISMATCH "$T/out" && fail "thaw mismatch: $(cat "$T/out")"
all_back "after hitchbench thaw"

# 3. killed again; this time the next batch restores first, then runs and
# thaws its own changes
fresh
hb_run_bg --profile "$T/profile.ini" "$T/long.ini"
kill -9 "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
[ -e "$J" ] || fail "the second killed batch left no journal"
rc=0
"$HB" run --display :99 --out "$T/runs2" --no-db --profile "$T/profile.ini" "$T/q.ini" \
	>"$T/out" 2>"$T/err" || rc=$?
expect_eq "the next batch after a kill" 0 "$rc"
grep -q "thaw: restoring what a batch" "$T/err" || fail "the next batch did not say it restored: $(cat "$T/err")"
all_back "after the next batch"

# 4. Ctrl-C during a run: thawed on the way out
fresh
hb_run_bg --profile "$T/profile.ini" "$T/long.ini"
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit after Ctrl-C" 130 "$rc"
all_back "after Ctrl-C"

# 5. the thermal guard: a zone at 70 C over a 50 C limit is waited for,
# up to the timeout, and recorded; a machine without sensors is not
fresh
cat "$T/profile.ini" >"$T/hot.ini"
printf '[thermal]\nmax_c = 50\ntimeout_s = 1\n' >>"$T/hot.ini"
hb_run --profile "$T/hot.ini" "$T/q.ini"
expect_eq "no sensors: exit" 0 "$rc"
value quiet.thermal "$rundir/bench.txt" | grep -q "^no sensor matches 'temp\.\*'" ||
	fail "no sensors: quiet.thermal '$(value quiet.thermal "$rundir/bench.txt")'"
fresh
mkdir -p "$T/root/sys/class/thermal/thermal_zone0"
echo 70000 >"$T/root/sys/class/thermal/thermal_zone0/temp"
echo x86_pkg_temp >"$T/root/sys/class/thermal/thermal_zone0/type"
hb_run --profile "$T/hot.ini" "$T/q.ini"
expect_eq "hot: exit" 0 "$rc"
value quiet.thermal "$rundir/bench.txt" | grep -q "^timeout after 1\.[0-9] s (hottest temp.zone0.x86_pkg_temp 70.0 C, limit 50 C)" ||
	fail "hot: quiet.thermal '$(value quiet.thermal "$rundir/bench.txt")'"
echo 40000 >"$T/root/sys/class/thermal/thermal_zone0/temp"
hb_run --profile "$T/hot.ini" "$T/q.ini"
value quiet.thermal "$rundir/bench.txt" | grep -q "^reached after 0\.[0-9] s" ||
	fail "cool: quiet.thermal '$(value quiet.thermal "$rundir/bench.txt")'"
exit 0
