#!/bin/sh
# lane: alone (the proc connector answers in the machine's own PID namespace only)
# The process watcher on the live machine (tests/tools/procwatch.c): during
# a watch, a process started outside the run is counted; one started by the
# run, and one carrying the run's HITCHBENCH_RUN marker, are the run's; a
# shell carrying HITCHBENCH_HARNESS and its subshell (judged by the
# connector even though it is gone at once) are the harness's, and so are
# the commands of a marked shell that was there before the watch started,
# and the subshell of one that forked it and exited before the watcher read
# a single event.
# With the proc connector (root only) and with the proc/ scan forced. Other
# processes starting on the machine meanwhile get verdicts too: only the
# pids the driver started are checked.
. "$(dirname "$0")/../lib.sh"

PW="$HB_BUILD/tests/procwatch"

# check SOURCE: runs the driver and checks its verdicts
check() {
	rc=0
	"$PW" live "$1" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/$1.out" "$T/$1.err" >&2; fail "$1: driver exit $rc"; }
	for role in outside bare marked inside; do
		eval "$role=\$(sed -n 's/^$role //p' \"\$T/\$1.out\")"
	done
	# verdict lines: "! PID COMM what: why (...)"
	grep -q "^! $outside sleep new process outside the run:" "$T/$1.out" ||
		fail "$1: the outside sleep ($outside) was not counted: $(cat "$T/$1.out")"
	grep -q "^! $bare procwatch new process outside the run:" "$T/$1.out" ||
		fail "$1: the fork without exec ($bare) was not counted"
	grep -q "^- $marked sleep the run's own: carries HITCHBENCH_RUN" "$T/$1.out" ||
		fail "$1: the marked sleep ($marked) is not the run's"
	grep -q "^- $inside sleep the run's own: parent [0-9]* is the run's" "$T/$1.out" ||
		fail "$1: the run's sleep ($inside) is not the run's"
	n=$(grep -c "^[!-] \($outside\|$bare\|$marked\|$inside\) " "$T/$1.out")
	expect_eq "$1: verdicts for the driver's processes" 4 "$n"
}

check scan
grep -q "^# source proc scan" "$T/scan.out" || fail "scan: not the scan"
if [ "$(id -u)" -ne 0 ]; then
	skip "the scan passed; the proc connector needs root (CAP_NET_ADMIN), and this is uid $(id -u)"
fi
check connector
grep -q "^# source proc connector" "$T/connector.out" || fail "connector: not the connector"
# the marked shell and its subshell, gone before it could be read: the harness's
harness=$(sed -n 's/^harness //p' "$T/connector.out")
grep -q "^- $harness sh exempt harness: carries HITCHBENCH_HARNESS" "$T/connector.out" ||
	fail "connector: the marked shell ($harness) is not the harness's: $(cat "$T/connector.out")"
grep -q "^- [0-9]* .* exempt harness: forked without exec by a process carrying HITCHBENCH_HARNESS" \
	"$T/connector.out" || fail "connector: the marked shell's subshell: $(cat "$T/connector.out")"
grep -q "^! [0-9]* sh " "$T/connector.out" && fail "connector: a shell was counted: $(cat "$T/connector.out")"
# a marked shell there before the watch (a child of the harness) that forked a
# subshell and exited, both reaped before the watcher read an event (a
# sanitizer build of a helper's leak check at its exit): read at the start
gone=$(sed -n 's/^gone //p' "$T/connector.out")
grep -q "^! [0-9]* .*(t=[0-9.]* s, parent $gone[,)]" "$T/connector.out" &&
	fail "connector: the subshell of the shell gone at once ($gone) was counted: $(cat "$T/connector.out")"
grep -q "^- [0-9]* .* exempt harness: forked without exec by a process carrying HITCHBENCH_HARNESS (t=[0-9.]* s, parent $gone[,)]" \
	"$T/connector.out" || fail "connector: no verdict on the subshell of the shell gone at once ($gone)"
# its commands, done at once and most gone before they could be read, and those of
# the marked shell there before the watch: the harness's too
grep -q "^! [0-9]* \(true\|cat\|(gone)\) " "$T/connector.out" &&
	fail "connector: a command of the marked shell was counted: $(cat "$T/connector.out")"
grep -q "^- [0-9]* \(true\|cat\|(gone)\) .*exempt harness" "$T/connector.out" ||
	fail "connector: no verdict on the marked shell's commands: $(cat "$T/connector.out")"
exit 0
