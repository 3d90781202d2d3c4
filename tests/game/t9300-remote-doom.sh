#!/bin/sh
# cpu: heavy, about 35 s (a real game)
# The real default recipe through a target: the harness pushed into a
# prefix under $T over the test's own sshd, dsda-doom's batch (one run, a
# short window) started there detached by run --target, the controller
# waiting without a connection, then the batch pulled, verified and
# imported. Prints how long the push, the pull's copy, its check and its
# import took (the figures docs/targets.md quotes).
# time-limit: 600
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
command -v rsync >/dev/null || skip "no rsync"
[ -x /usr/games/dsda-doom ] || skip "dsda-doom is not installed (sh scripts/deps.sh ensure)"
[ -r /usr/share/games/doom/freedoom2.wad ] || skip "freedoom is not installed (sh scripts/deps.sh ensure)"
S=$T/sshd
start_sshd "$S"
trap 'stop_sshd "$S"; rm -rf "$T"' EXIT
chmod 755 "$T"
export HITCHBENCH_TARGETS=$T/config/targets.ini HITCHBENCH_RESULTS=$T/host
P=$T/prefix
"$HB" target add hb "ssh://root@127.0.0.1:$SSHD_PORT" --prefix "$P" --ssh-config "$SSH_CONFIG" >/dev/null ||
	fail "target add"
t0=$(date +%s.%N)
"$HB" push hb >"$T/push.out" 2>&1 || fail "push: $(cat "$T/push.out")"
t1=$(date +%s.%N)
echo "push: $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"

rc=0
"$HB" run --target hb --no-quieting dsda-doom --warmup 2 --window 8 >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err" "$T/out"
expect_eq "exit status" 0 "$rc"
B=$(sed -n 's/^batch \([^ ]*\) started on hb.*/\1/p' "$T/out")
grep -q "^pulled $B: 1 run(s), [0-9]* bytes .*copy [0-9.]* s, verify [0-9.]* s, import [0-9.]* s (1 run(s)" "$T/out" ||
	fail "no pull line"
rundir=$(run_dirs "$T/host/targets/hb")
[ -n "$rundir" ] || fail "no run pulled"
expect_eq status ok "$(value status "$rundir/bench.txt")"
expect_eq game dsda-doom "$(value game "$rundir/bench.txt")"
fps=$(value fps "$rundir/result.txt")
awk "BEGIN { exit !($fps >= 5 && $fps <= 2000) }" || fail "implausible fps $fps"
expect_eq "runs in the host's database" 1 "$("$HB" db info --db "$T/host/hitchbench.db" | sed -n 's/^runs=//p')"
# the run directory as it was made on the target
(cd "$rundir" && sha256sum -c --quiet SHA256SUMS) || fail "the pulled run does not check"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
exit 0
