#!/bin/sh
# hitchbench quiet and thaw on a copy of tests/fixtures/quiet-root with a
# fake systemctl: every setting changed, then every file back (diffed
# against the pristine fixture), a journal left by a dead batch recovered,
# a live owner, a stale boot and a stuck unit handled; a crafted journal
# (a path out of the root, an owner past an int, a second owner) refused
# with its line, exit 2, nothing written. Nothing here touches
# the real machine: HITCHBENCH_ROOT, HITCHBENCH_STATE_DIR and the PATH's
# first systemctl all point into $T.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (quiet skips the systemd steps for other users)"

quiet_root
GOV0=sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
GOV1=sys/devices/system/cpu/cpu1/cpufreq/scaling_governor

# the fixture's /proc/stat never moves: the busy share is off, the wait short
cat >"$T/profile.ini" <<'EOP'
[quiet]
services = display-manager.service man-db.timer
services = packagekit.service
[idle]
cpu_busy_pct =
settle_s = 0
timeout_s = 5
EOP

fresh() {
	rm -rf "$T/root" "$T/units" "$T/state"
	cp -R "$FIX" "$T/root"
	mkdir -p "$T/units"
	echo active >"$T/units/display-manager.service"
	echo active >"$T/units/man-db.timer"
}

quiet() {
	rc=0
	"$HB" quiet --profile "$T/profile.ini" >"$T/out" 2>"$T/err" || rc=$?
}

thaw() {
	rc=0
	"$HB" thaw >"$T/out" 2>"$T/err" || rc=$?
}

unit() {
	cat "$T/units/$1"
}

# every file as the fixture has it, except the two write-only actions
all_back() {
	diff -r -x drop_caches -x compact_memory "$FIX" "$T/root" >"$T/diff" ||
		fail "$1: files differ from the fixture: $(cat "$T/diff")"
	expect_eq "$1: display-manager" active "$(unit display-manager.service)"
	expect_eq "$1: man-db.timer" active "$(unit man-db.timer)"
	[ ! -e "$J" ] || fail "$1: the journal is left: $(cat "$J")"
}

all_quiet() {
	expect_eq "$1: delayacct" 1 "$(cat "$T/root/proc/sys/kernel/task_delayacct")"
	expect_eq "$1: drop_caches" 3 "$(cat "$T/root/proc/sys/vm/drop_caches")"
	expect_eq "$1: compact_memory" 1 "$(cat "$T/root/proc/sys/vm/compact_memory")"
	expect_eq "$1: cpu0 governor" performance "$(cat "$T/root/$GOV0")"
	expect_eq "$1: cpu1 governor" performance "$(cat "$T/root/$GOV1")"
	expect_eq "$1: display-manager" inactive "$(unit display-manager.service)"
	expect_eq "$1: man-db.timer" inactive "$(unit man-db.timer)"
}

# --- quiet changes every setting and says so
fresh
quiet
expect_eq "quiet exit" 0 "$rc"
all_quiet "after quiet"
expect_eq "services record" "stopped: display-manager.service man-db.timer; not active: packagekit.service" \
	"$(value quiet.services "$T/out")"
expect_eq "governor record" "performance (2 cpus)" "$(value quiet.governor "$T/out")"
expect_eq "delayacct record" 1 "$(value quiet.delayacct "$T/out")"
expect_eq "banner record" off "$(value quiet.banner "$T/out")"
value quiet.idle "$T/out" | grep -q '^reached after .* (psi cpu 0.00 io 0.18, load1 0.02)$' ||
	fail "idle record: $(cat "$T/out")"
[ -z "$(value quiet.skipped "$T/out")" ] || fail "nothing should be skipped as root"
head -n 1 "$J" | grep -qx 'hitchbench-thaw 1' || fail "journal header: $(cat "$J")"
grep -q '^owner [0-9]* [0-9]* manual$' "$J" || fail "journal owner: $(cat "$J")"
grep -qx "file $GOV0 schedutil" "$J" || fail "journal lacks cpu0's governor: $(cat "$J")"
grep -qx "unit display-manager.service active" "$J" || fail "journal lacks the display manager"
grep -q 'drop_caches\|compact_memory\|packagekit' "$J" && fail "journaled what has no state to restore"

# --- quiet again journals nothing twice; thaw restores the first old values
grep -v '^owner' "$J" >"$T/j1"
quiet
expect_eq "second quiet exit" 0 "$rc"
grep -v '^owner' "$J" >"$T/j2"
cmp -s "$T/j1" "$T/j2" || fail "a second quiet changed the journal: $(diff "$T/j1" "$T/j2")"
thaw
expect_eq "thaw exit" 0 "$rc"
all_back "after thaw"
[ "$(grep -c '^restored ' "$T/out")" = 5 ] || fail "thaw output: $(cat "$T/out")"
# reverse order: the last journaled (delayacct) first, the first (the display manager) last
head -n 1 "$T/out" | grep -q '^restored  file proc/sys/kernel/task_delayacct = 0 (read back: 0)$' ||
	fail "thaw's first line: $(cat "$T/out")"
sed -n 5p "$T/out" | grep -q 'unit display-manager.service = active (read back: active)' ||
	fail "thaw's last restore: $(cat "$T/out")"
thaw
expect_eq "thaw with nothing to do" 0 "$rc"
grep -qx 'nothing to thaw' "$T/out" || fail "second thaw: $(cat "$T/out")"

# --- a batch killed mid-run: its journal names a batch whose pid is gone
fresh
quiet
sh -c 'exit 0' &
dead=$!
wait "$dead"
sed -i "s/^owner .*/owner $dead 123456 batch/" "$J"
thaw
expect_eq "thaw after a dead batch" 0 "$rc"
grep -q "restoring what a batch (pid $dead" "$T/err" || fail "no note of the dead batch: $(cat "$T/err")"
all_back "after recovering a dead batch"

# --- a live owner: refused, nothing touched (its /proc/PID/stat is planted
# in the fixture root, which is where hitchbench looks)
fresh
quiet
sleep 30 &
alive=$!
mkdir -p "$T/root/proc/$alive"
cp "/proc/$alive/stat" "$T/root/proc/$alive/stat"
start=$(sed 's/.*) //' "/proc/$alive/stat" | cut -d' ' -f20)
sed -i "s/^owner .*/owner $alive $start batch/" "$J"
thaw
kill "$alive"
wait "$alive" 2>/dev/null
expect_eq "thaw with a live owner" 1 "$rc"
grep -q "a batch (pid $alive, since .*) is quieting this machine" "$T/err" || fail "live owner: $(cat "$T/err")"
all_quiet "a live owner's settings"
# the same journal once its owner is gone (the stat file no longer there)
rm -r "$T/root/proc/$alive"
thaw
expect_eq "thaw after the owner ended" 0 "$rc"
all_back "after the owner ended"

# --- a journal from another boot is stale: discarded, not applied
fresh
quiet
echo 00000000-1111-2222-3333-444444444444 >"$T/root/proc/sys/kernel/random/boot_id"
thaw
expect_eq "thaw of another boot's journal" 0 "$rc"
grep -q "from another boot" "$T/err" || fail "no note about the other boot: $(cat "$T/err")"
[ ! -e "$J" ] || fail "another boot's journal was kept"
expect_eq "other boot: not restored" performance "$(cat "$T/root/$GOV0")"

# --- a unit that will not start: reported, exit 1, journal kept for another try
fresh
quiet
echo stuck >"$T/units/man-db.timer"
thaw
expect_eq "thaw with a stuck unit" 1 "$rc"
grep -q '^MISMATCH  unit man-db.timer = active (read back: stuck; ' "$T/out" || fail "mismatch line: $(cat "$T/out")"
expect_eq "the others came back" 4 "$(grep -c '^restored ' "$T/out")"
[ -e "$J" ] || fail "the journal was removed despite a mismatch"
echo inactive >"$T/units/man-db.timer"
thaw
expect_eq "thaw once the unit starts" 0 "$rc"
all_back "after the second thaw"

# --- one quieting process at a time
fresh
if command -v flock >/dev/null; then
	# this shell holds the lock on its own descriptor: no helper process
	# can outlive the test holding it
	mkdir -p "$T/state"
	exec 9<"$T/state"
	flock -n 9 || fail "cannot take the lock for the test"
	quiet
	exec 9<&-
	expect_eq "quiet while another holds the lock" 1 "$rc"
	grep -q 'another hitchbench is quieting or thawing this machine' "$T/err" || fail "lock: $(cat "$T/err")"
	all_back "nothing changed under another's lock"
fi

# --- a bad profile: file:line, exit 2, nothing changed
# refused_profile WHAT TEXT MESSAGE: the profile TEXT is refused with
# "FILE:MESSAGE" as the only line on stderr
refused_profile() {
	printf '%b' "$2" >"$T/bad.ini"
	rc=0
	"$HB" quiet --profile "$T/bad.ini" >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$1: exit" 2 "$rc"
	grep -qxF "$T/bad.ini:$3" "$T/err" || fail "$1: message: $(cat "$T/err")"
	all_back "after $1"
}
refused_profile "a bad profile" '[quiet]\ndrop_caches = 4\n' \
	"2: 'drop_caches' wants a whole number from 0 to 3, not '4'"
# one written before [sampler] moved to the SENSORS switch says where it went
refused_profile "a [sampler] profile" '[quiet]\nsync = yes\n[sampler]\nperiod_ms = 500\n' \
	"3: [sampler] is gone: the sampler's settings are the SENSORS switch's parameters (SENSORS_MS, SENSORS_THROTTLE)"

# --- a journal root reads is read strictly: refused whole, exit 2, file:line
crafted() {
	mkdir -p "$T/state"
	printf 'hitchbench-thaw 1\nowner %s 0 batch\nboot x\nroot %s\nsince s\n%b' "$2" "$HITCHBENCH_ROOT" "$3" >"$J"
	echo untouched >"$T/victim"
	rc=0
	"$HB" thaw >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$1: thaw exit" 2 "$rc"
	grep -q "thaw.state:$4: $5" "$T/err" || fail "$1: $(cat "$T/err")"
	grep -q "restored" "$T/out" && fail "$1: something was restored: $(cat "$T/out")"
	expect_eq "$1: the file outside" untouched "$(cat "$T/victim")"
	rm -f "$J"
}
crafted "a path out of the root" 4242 "file proc/sys/kernel/task_delayacct 0\nfile proc/../../victim owned\n" \
	7 "a file entry's path must lie under proc/ or sys/"
crafted "an owner past an int" 4294967297 "" 2 "bad owner"
crafted "a second owner" 4242 "owner 4243 0 batch\nfile ../victim owned\n" 6 "'owner' repeats line 2"

# --- the machine's own systemctl is never used on a test root
if [ -x /usr/bin/systemctl ] || [ -x /bin/systemctl ]; then
	rc=0
	PATH=/usr/bin:/bin "$HB" quiet --profile "$T/profile.ini" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "quiet with the real systemctl" 0 "$rc"
	expect_eq "real systemctl refused" "skipped (a test root with the machine's own systemctl)" \
		"$(value quiet.services "$T/out")"
	"$HB" thaw >/dev/null || fail "thaw after the real-systemctl check"
fi
exit 0
