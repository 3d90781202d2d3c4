#!/bin/sh
# wall: about 90 s (a push and its logins, each over ssh)
# quick: no (a push of the tree and its logins over ssh)
# Targets and push against a real OpenSSH server of the test's own
# (start_sshd: 127.0.0.1, a free port, throwaway keys): target add, list,
# remove and check (its answers are this machine's: uname -m, the boot id,
# dpkg's architecture, kept in the config), the errors (a bad address, an
# unknown target, a closed port, an unknown host key) with their exit
# codes; push of the host's build into a prefix under $T: the first copies
# files, the second none, a file changed there is the only one copied
# back, a stale file in the harness's bin/ goes, results/ and files beside
# the harness's directories stay; the pushed hitchbench runs there. Every
# command is one login on the target (the server's log), and the
# known_hosts file is never written. A push while another of the same
# name from this build holds its work directory waits, and says so.
. "$(dirname "$0")/../lib.sh"
command -v rsync >/dev/null || skip "no rsync"
S=$T/sshd
start_sshd "$S"
trap 'stop_sshd "$S"; rm -rf "$T"' EXIT
export HITCHBENCH_TARGETS=$T/config/targets.ini
URL=ssh://root@127.0.0.1:$SSHD_PORT
P=$T/prefix
kh_before=$(sha256sum <"$S/known_hosts")

# run_hb WHAT EXPECTED_RC ARGS...: hitchbench ARGS, its exit status checked,
# its output in $T/out and $T/err; the sshd logins it made in $logins
run_hb() {
	_what=$1 _want=$2
	shift 2
	_before=$(sshd_accepted "$S")
	rc=0
	"$HB" "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = "$_want" ] || fail "$_what: exit $rc, wanted $_want: $(cat "$T/out" "$T/err")"
	# sshd's log reaches the file through a pipe: a moment to settle
	sleep 0.3
	logins=$(( $(sshd_accepted "$S") - _before ))
}

# refused before any login
run_hb "add, bad url" 2 target add hb http://127.0.0.1
grep -q "hitchbench: 'http://127.0.0.1' not an ssh:// address" "$T/err" || fail "bad url: $(cat "$T/err")"
run_hb "add, bad port" 2 target add hb ssh://h:70000
grep -q "port is not a number" "$T/err" || fail "bad port: $(cat "$T/err")"
# issue 38: a host or user that reads as an option is refused, on the
# command line and in the file (FILE:LINE: what, exit 2)
run_hb "add, host starting with -" 2 target add hb ssh://-oProxyCommand=x
grep -q "the host name starts with '-'" "$T/err" || fail "host '-...': $(cat "$T/err")"
run_hb "add, user starting with -" 2 target add hb ssh://-l@127.0.0.1
grep -q "the user name starts with '-'" "$T/err" || fail "user '-...': $(cat "$T/err")"
printf 'version = 1\n\n[x]\nurl = ssh://-oProxyCommand=x\n' >"$T/dash.ini"
rc=0
HITCHBENCH_TARGETS=$T/dash.ini "$HB" target list >"$T/out" 2>"$T/err" || rc=$?
expect_eq "a targets file with a host starting with -: exit" 2 "$rc"
grep -q "$T/dash.ini:4: url 'ssh://-oProxyCommand=x': the host name starts with '-'" "$T/err" ||
	fail "host '-...' in the file: $(cat "$T/err")"
run_hb "add, bad name" 2 target add "a b" "$URL"
run_hb "check, unknown target" 2 target check nosuch
grep -q "hitchbench: no target 'nosuch' in $HITCHBENCH_TARGETS" "$T/err" || fail "unknown: $(cat "$T/err")"
run_hb "push, unknown target" 2 push nosuch
[ ! -e "$HITCHBENCH_TARGETS" ] || fail "a refused add wrote the config"

run_hb "add" 0 target add hb "$URL" --prefix "$P" --ssh-config "$SSH_CONFIG"
run_hb "add again" 2 target add hb "$URL"
grep -q "target 'hb' exists already" "$T/err" || fail "add again: $(cat "$T/err")"
run_hb "add closed" 0 target add closed ssh://root@127.0.0.1:1 --ssh-config "$SSH_CONFIG"
run_hb "add gone" 0 target add gone ssh://root@127.0.0.1:2
run_hb "remove" 0 target remove gone
run_hb "remove again" 2 target remove gone
run_hb "list" 0 target list
grep -q "^hb  *$URL  *-  *$P  -F $SSH_CONFIG\$" "$T/out" || fail "list: $(cat "$T/out")"
grep -q "^closed " "$T/out" || fail "list has no 'closed': $(cat "$T/out")"
! grep -q "^gone " "$T/out" || fail "a removed target is listed"
[ "$logins" = 0 ] || fail "add/list/remove logged in"

# check: this machine's own answers, one login, the arch kept
run_hb "check" 0 target check -v hb
grep -q "^reachable  *yes, as root" "$T/out" || fail "check: $(cat "$T/out")"
grep -q "^machine  *$(uname -m), Debian arch $(dpkg --print-architecture)," "$T/out" || fail "machine: $(cat "$T/out")"
grep -q "^kernel  *$(uname -r)\$" "$T/out" || fail "kernel: $(cat "$T/out")"
grep -q "^boot id  *$(cat /proc/sys/kernel/random/boot_id)\$" "$T/out" || fail "boot id: $(cat "$T/out")"
grep -q "^quieting  *yes (root)" "$T/out" || fail "quieting: $(cat "$T/out")"
grep -q "^memory  *.* total, .* available" "$T/out" || fail "memory: $(cat "$T/out")"
grep -q "^prefix  *$P (.* free)" "$T/out" || fail "prefix: $(cat "$T/out")"
grep -q "^installed  *nothing" "$T/out" || fail "installed: $(cat "$T/out")"
grep -q "^games  *" "$T/out" || fail "no games: $(cat "$T/out")"
grep -q "ssh: 1 connection(s) opened" "$T/err" || fail "check -v: $(cat "$T/err")"
expect_eq "check's logins" 1 "$logins"
grep -q "^arch = $(dpkg --print-architecture)\$" "$HITCHBENCH_TARGETS" || fail "arch not kept: $(cat "$HITCHBENCH_TARGETS")"
grep -q "^\[closed\]" "$HITCHBENCH_TARGETS" || fail "check lost another target: $(cat "$HITCHBENCH_TARGETS")"

# unreachable: ssh's own words, exit 1
run_hb "check closed" 1 target check closed
grep -q "hitchbench: cannot reach target 'closed' (ssh://root@127.0.0.1:1): .*Connection refused" "$T/err" ||
	fail "closed: $(cat "$T/err")"
run_hb "push closed" 1 push closed

# an unknown host key is refused, and nothing is written for it
: >"$T/empty_known_hosts"
sed "s|UserKnownHostsFile .*|UserKnownHostsFile $T/empty_known_hosts|" "$SSH_CONFIG" >"$T/strange_config"
run_hb "add strange" 0 target add strange "$URL" --ssh-config "$T/strange_config" --prefix "$T/never"
run_hb "check strange" 1 target check strange
grep -q "Host key verification failed" "$T/err" || fail "unknown host key: $(cat "$T/err")"
[ ! -s "$T/empty_known_hosts" ] || fail "an unknown host key was written: $(cat "$T/empty_known_hosts")"
[ ! -e "$T/never" ] || fail "a refused host got a prefix"

# the first push: the host's build, files copied, results/ kept
mkdir -p "$P/results/runs" "$P/bin" "$P/lib"
echo keep >"$P/results/runs/keep.txt"
echo old >"$P/bin/hitchbench-stale"
echo mine >"$P/lib/other.txt"
t0=$(date +%s.%N)
run_hb "first push" 0 push -v hb
t1=$(date +%s.%N)
cat "$T/out"
grep -q "^push hb: host-build for $(dpkg --print-architecture)" "$T/out" || fail "push plan: $(cat "$T/out")"
first=$(sed -n 's/^pushed: \([0-9]*\) file(s) copied.*/\1/p' "$T/out")
[ "${first:-0}" -gt 10 ] || fail "the first push copied '${first}' files: $(cat "$T/out")"
expect_eq "first push's logins" 1 "$logins"
grep -q "ssh: 1 connection(s) opened" "$T/err" || fail "push -v: $(cat "$T/err")"
grep -q "^runs there: hitchbench " "$T/out" || fail "not run there: $(cat "$T/out")"
for f in bin/hitchbench lib/hitchbench/hitchbench-sampler lib/hitchbench/hitchbench-hook.so share/hitchbench/recipes/openarena.ini \
	share/vulkan/implicit_layer.d/VkLayer_hitchbench.json push.txt; do
	[ -e "$P/$f" ] || fail "no $P/$f after the push"
done
grep -q "\"library_path\": \"$P/lib/hitchbench/hitchbench-hook.so\"" "$P/share/vulkan/implicit_layer.d/VkLayer_hitchbench.json" ||
	fail "the manifest does not name the pushed hook: $(cat "$P/share/vulkan/implicit_layer.d/VkLayer_hitchbench.json")"
expect_eq "results kept" keep "$(cat "$P/results/runs/keep.txt")"
expect_eq "a file beside the harness's directories kept" mine "$(cat "$P/lib/other.txt")"
[ ! -e "$P/bin/hitchbench-stale" ] || fail "a stale file in bin/ survived the push"
expect_eq "push.txt format" 1 "$(value format "$P/push.txt")"
expect_eq "push.txt how" host-build "$(value how "$P/push.txt")"
expect_eq "push.txt arch" "$(dpkg --print-architecture)" "$(value arch "$P/push.txt")"
[ -n "$(value harness_version "$P/push.txt")" ] || fail "push.txt has no harness_version"
echo "first push: $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"

# the pushed harness runs where it landed (an installed tree, no checkout)
ssh -F "$SSH_CONFIG" -o BatchMode=yes hbtarget "$P/bin/hitchbench" --help >"$T/help" 2>&1 || fail "pushed --help: $(cat "$T/help")"
grep -q "^   push " "$T/help" || fail "pushed --help: $(cat "$T/help")"
ssh -F "$SSH_CONFIG" -o BatchMode=yes hbtarget "cd / && $P/bin/hitchbench run --help" >"$T/help" 2>&1 ||
	fail "pushed run --help: $(cat "$T/help")"

# the second: nothing copied
t0=$(date +%s.%N)
run_hb "second push" 0 push hb
t1=$(date +%s.%N)
grep -q "^pushed: 0 file(s) copied, 0 deleted" "$T/out" || fail "second push copied: $(cat "$T/out")"
expect_eq "second push's logins" 1 "$logins"
echo "second push: $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"

# another push of the same name from this build (its stage there) holds
# the work directory: this one says so and waits for it
# (held until the waiting push has said so: a slow build's push may take
# seconds to reach it)
mkdir -p "$HB_BUILD/push/hb"
flock "$HB_BUILD/push/hb/lock" sh -c "echo held >'$T/held'; while [ ! -e '$T/release' ]; do sleep 0.1; done" &
holder=$!
"$HB_BUILD/tests/waitline" "$T/held" "^held" || fail "the lock was not taken"
rc=0
"$HB" push hb >"$T/out" 2>"$T/err" &
pusher=$!
"$HB_BUILD/tests/waitline" "$T/err" "another push of 'hb' is using $HB_BUILD/push/hb: waiting for it" 1 120 || rc=$?
touch "$T/release"
wait "$holder"
[ "$rc" = 0 ] || { kill "$pusher"; fail "the push did not wait for the other: $(cat "$T/err")"; }
wait "$pusher" || fail "the push beside another: $(cat "$T/out" "$T/err")"
grep -q "^pushed: " "$T/out" || fail "the push beside another: $(cat "$T/out")"

# a file changed there is the only one copied back
echo "# changed there" >>"$P/share/hitchbench/recipes/README.md"
run_hb "dry run" 0 push --dry-run hb
grep -q "share/hitchbench/recipes/README.md" "$T/out" || fail "dry run does not list the change: $(cat "$T/out")"
grep -q "^dry run (nothing changed there): 1 file(s) copied" "$T/out" || fail "dry run: $(cat "$T/out")"
grep -q "# changed there" "$P/share/hitchbench/recipes/README.md" || fail "the dry run changed the target"
run_hb "third push" 0 push -v hb
grep -q "^pushed: 1 file(s) copied, 0 deleted" "$T/out" || fail "third push: $(cat "$T/out")"
grep -q "share/hitchbench/recipes/README.md" "$T/out" || fail "third push does not name the file: $(cat "$T/out")"
! grep -q "# changed there" "$P/share/hitchbench/recipes/README.md" || fail "the changed file was not copied"
expect_eq "results kept after three pushes" keep "$(cat "$P/results/runs/keep.txt")"

# check sees the push
run_hb "check after push" 0 target check hb
grep -q "^installed  *hitchbench .* ($(dpkg --print-architecture), host-build, pushed " "$T/out" ||
	fail "check after push: $(cat "$T/out")"

expect_eq "known_hosts unchanged" "$kh_before" "$(sha256sum <"$S/known_hosts")"
exit 0
