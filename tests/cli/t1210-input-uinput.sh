#!/bin/sh
# lane: alone (an input device made on uinput is seen by every watcher on the machine)
# The uinput driver of hitchbench-input: a virtual keyboard and mouse named
# as the harness's, its syspath logged, every step played, the device kept
# until SIGTERM (a game must not see it vanish mid-run). Needs /dev/uinput
# and root; skips elsewhere.
. "$(dirname "$0")/../lib.sh"
[ -e /dev/uinput ] || skip "no /dev/uinput on this machine (the uinput module is not loaded or not built): the uinput driver cannot be tried"
[ "$(id -u)" = 0 ] || skip "creating a uinput device needs root"
: >"$T/game.log"
"$HB_BUILD/hitchbench-input" --driver uinput --game-log "$T/game.log" --name "hitchbench input t1210" \
	-- "key KEY_A" "keys ctrl+KEY_Q" "type Hi" "click 1" "move 5 -5" "wait_line ^go$" "key KEY_ESC" \
	>"$T/log" 2>&1 &
pid=$!
for i in $(seq 1 50); do
	grep -q '^# device ' "$T/log" && grep -q '	5	move 5 -5	ok$' "$T/log" && break
	sleep 0.1
done
sys=$(sed -n 's/^# device \([^ ]*\) hitchbench input t1210$/\1/p' "$T/log")
[ -n "$sys" ] || fail "no device line: $(cat "$T/log")"
expect_eq "the device's name in sysfs" "hitchbench input t1210" "$(cat "$sys/name")"
printf '1.000000\tgo\n' >>"$T/game.log"
for i in $(seq 1 50); do
	grep -q '^# end played=7 of 7$' "$T/log" && break
	sleep 0.1
done
grep -q '^# end played=7 of 7$' "$T/log" || fail "not every step played: $(cat "$T/log")"
[ -e "$sys" ] || fail "the device went away before the helper was stopped"
kill -TERM $pid
rc=0
wait $pid || rc=$?
expect_eq "exit status after SIGTERM" 0 "$rc"
[ ! -e "$sys" ] || fail "the device outlived the helper"
exit 0
