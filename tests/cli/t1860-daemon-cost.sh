#!/bin/sh
# The daemons' cost over a run's window (docs/formats.md, "Host noise",
# noise.daemon.*): a stand-in slurmd (a copy of sh, so its comm is
# "slurmd", waking a hundred times a second) running through a real run of
# the fake game shows in noise.daemon.slurmd.* with its pid, CPU time and
# wakeups; the runner run under a stand-in slurmstepd (as in a Slurm job)
# leaves that ancestor out; a quiet profile's [noise] daemons replaces the
# default list, and a daemon that is not running has its keys, all zero.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe busy "--fps 100 --busy-us 500" "warmup = 1" "window = 3" "stop_grace = 0.5"
mkdir -p "$T/bin"
cp "$(command -v sh)" "$T/bin/slurmd"
cp "$(command -v sh)" "$T/bin/slurmstepd"
"$T/bin/slurmd" -c 'while :; do sleep 0.01; done' &
fake=$!
trap 'kill $fake 2>/dev/null; rm -rf "$T"' EXIT

# ---- the default list, the runner under a "slurmstepd"
T="$T" "$T/bin/slurmstepd" -c '"$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/busy.ini" base 1 \
	--switches INTF=0 >"$T/out" 2>"$T/err"; exit $?' &
step=$!
rc=0
wait "$step" || rc=$?
expect_eq "exit status" 0 "$rc"
b="$(run_dirs "$T/runs" | tail -n 1)/bench.txt"
[ -f "$b" ] || fail "no run: $(cat "$T/err")"
expect_eq "noise.daemon.format" 2 "$(value noise.daemon.format "$b")"
expect_eq "noise.daemon.names" "slurmd slurmstepd munged slurmctld (default list)" "$(value noise.daemon.names "$b")"
for d in slurmd slurmstepd munged slurmctld; do
	for k in cpu_ms wakeups pids; do
		[ -n "$(value "noise.daemon.$d.$k" "$b")" ] || fail "no noise.daemon.$d.$k: $(grep '^noise.daemon' "$b")"
	done
done
case " $(value noise.daemon.slurmd.pids "$b") " in
*" $fake "*) ;;
*) fail "the stand-in slurmd $fake is not in noise.daemon.slurmd.pids: $(grep '^noise.daemon' "$b")" ;;
esac
case " $(value noise.daemon.slurmstepd.pids "$b") " in
*" $step "*) fail "the runner's ancestor $step is counted: $(grep '^noise.daemon' "$b")" ;;
esac
w=$(value noise.daemon.slurmd.wakeups "$b")
# 3 s of a sleep(1) every 10 ms: a few hundred wakeups (the forks' too)
awk "BEGIN { exit !($w >= 50) }" || fail "implausible noise.daemon.slurmd.wakeups $w"
echo "the daemons here: $(grep '^noise\.daemon' "$b" | tr '\n' ' ')"

# ---- a profile's list, with a daemon that is not running, and names that
# are no key as they are (issue 38: written encoded, docs/formats.md)
export HITCHBENCH_STATE_DIR="$T/state"
inert_profile "$T/lab.ini" "steal_pct_max =" "foreign_cpu_pct_max =" "daemons = hbnosuchd, slurmd kworker/0:1 a=b"
rm -rf "$T/runs"
rc=0
"$HB" run --profile "$T/lab.ini" --display :99 --out "$T/runs" --no-db "$T/busy.ini" base 1 \
	--switches INTF=0 >"$T/out" 2>"$T/err" || rc=$?
expect_eq "exit status with the profile" 0 "$rc"
b="$(run_dirs "$T/runs" | tail -n 1)/bench.txt"
expect_eq "names from the profile" "hbnosuchd slurmd kworker/0:1 a=b (profile $T/lab.ini)" "$(value noise.daemon.names "$b")"
bad=$(grep -v '^#' "$b" | grep -Ev '^[A-Za-z0-9_.-]+=' || true)
[ -z "$bad" ] || fail "bench.txt has lines that are no key=value: $bad"
for k in cpu_ms wakeups pids; do
	[ -n "$(value "noise.daemon.kworker_2f0_3a1.$k" "$b")" ] || fail "no noise.daemon.kworker_2f0_3a1.$k"
	[ -n "$(value "noise.daemon.a_3db.$k" "$b")" ] || fail "no noise.daemon.a_3db.$k"
done
! grep -q '^noise\.daemon\.a=' "$b" || fail "a=b written as it is: $(grep '^noise.daemon.a' "$b")"
expect_eq "absent: pids" none "$(value noise.daemon.hbnosuchd.pids "$b")"
expect_eq "absent: cpu" 0 "$(value noise.daemon.hbnosuchd.cpu_ms "$b")"
expect_eq "absent: wakeups" 0 "$(value noise.daemon.hbnosuchd.wakeups "$b")"
[ -z "$(value noise.daemon.munged.pids "$b")" ] || fail "munged is not on the profile's list"

# a bad list is the profile's error
printf '[noise]\ndaemons = a_name_far_too_long\n' >"$T/bad.ini"
rc=0
"$HB" run --profile "$T/bad.ini" --display :99 --out "$T/runs" --no-db "$T/busy.ini" base 1 >"$T/out" 2>"$T/err" ||
	rc=$?
expect_eq "bad daemons: exit status" 2 "$rc"
grep -q "bad.ini:2: 'daemons' wants process names (comm, at most 8): 'a_name_far_too_long' is longer than a process name (15)" "$T/err" ||
	fail "bad daemons: $(cat "$T/err")"
