#!/bin/sh
# The interference watcher's VT and login paths on a fixture tree under
# the swappable root (HITCHBENCH_ROOT): the run's X server taking its VT
# and giving it back is let pass, another switch counts; a logind session
# file that appears mid-run is a login, counted and described; one that
# was there before is not. The tree has no proc/, dev/input nor dev/kmsg:
# the watcher says so in its sources line and watches the rest.
. "$(dirname "$0")/../lib.sh"
W="$HB_BUILD/hitchbench-intfwatch"
R="$T/root"
mkdir -p "$R/sys/class/tty/tty0" "$R/run/systemd/sessions"
echo tty2 >"$R/sys/class/tty/tty0/active"
printf 'UID=0\nUSER=root\nTTY=tty1\nSERVICE=login\nLEADER=812\n' >"$R/run/systemd/sessions/3"

# put FILE TEXT: as logind writes a session file, in one step (a rename)
put() {
	printf "$2" >"$1.new" && mv "$1.new" "$1"
}

# vt N: as the kernel changes the active VT, in place (the watcher keeps the
# file open)
vt() {
	echo "tty$1" >"$R/sys/class/tty/tty0/active"
}

HITCHBENCH_ROOT="$R" "$W" --log "$T/w.log" --x-vt 7 --duration 6 --ready "$T/ready" 2>"$T/w.err" &
w=$!
for i in $(seq 50); do [ -e "$T/ready" ] && break; sleep 0.05; done
[ -e "$T/ready" ] || fail "the watcher was not ready: $(cat "$T/w.err")"
vt 7
sleep 1.3
vt 2
sleep 1.3
vt 3
put "$R/run/systemd/sessions/12" \
	'UID=1000\nUSER=tibi\nREMOTE=1\nSERVICE=sshd\nREMOTE_HOST=10.0.0.45\nLEADER=4242\n'
rc=0
wait "$w" || rc=$?
L="$T/w.log"
expect_eq "exit when disturbed" 3 "$rc"
grep -q "^# sources input=0 device(s) .* vt=sys/class/tty/tty0/active logins=run/systemd/sessions kmsg=no processes=none (" "$L" ||
	{ cat "$L" >&2; fail "sources line"; }
grep -q "^- .* VT 2 -> 7 (the run's X server takes its VT)" "$L" || { cat "$L" >&2; fail "X taking its VT"; }
grep -q "^- .* VT 7 -> 2 (the run's X server gives it back)" "$L" || { cat "$L" >&2; fail "X giving it back"; }
grep -q "^! .* VT switch 2 -> 3" "$L" || { cat "$L" >&2; fail "the VT switch was not counted"; }
grep -q "^! .* LOGIN session 12 (tibi, sshd from 10.0.0.45)" "$L" || { cat "$L" >&2; fail "the login"; }
grep -q "LOGIN session 3 " "$L" && fail "the session that was there before was counted"
[ "$(grep -c '^!' "$L")" = 2 ] || { cat "$L" >&2; fail "expected exactly two counted lines"; }
grep -q "^# summary interfered=1: VT switch 2->3 at [0-9]* s, 1 login(s): session 12 (tibi, sshd from 10.0.0.45) at [0-9]* s$" "$L" ||
	{ cat "$L" >&2; fail "summary"; }
exit 0
