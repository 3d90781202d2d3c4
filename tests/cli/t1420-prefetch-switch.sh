#!/bin/sh
# The GAMEPREFETCH switch in a batch (with the fake game): a batch with
# GAMEPREFETCH=on first learns the list in an unmeasured run (base@pflearn,
# invalid, listed), then its measured runs fetch without learning, each
# saying in bench.txt what it read and why it stopped (and what learn and
# fetch kept once narrowed: helper.NAME.sandbox); GAMEPREFETCH=fetch
# reads the same list; a bad value is refused before anything starts.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
[ -x "$HB_BUILD/hitchbench-prefetch" ] || fail "no hitchbench-prefetch"
export HITCHBENCH_PREFETCH_DIR="$T/lists"
fake_recipe pf "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5"

rc=0; "$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/pf.ini" base \
	--switches "GAMEPREFETCH=sometimes" 2>"$T/err0" || rc=$?
expect_eq "a bad value" 2 "$rc"
grep -q "learn, fetch or on" "$T/err0" || fail "bad value message: $(cat "$T/err0")"
# learn runs between the runs that read the list: refused
rc=0; "$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/pf.ini" base \
	--switches "GAMEPREFETCH=learn GAMEPREFETCH=fetch" 2>"$T/err1" || rc=$?
expect_eq "learn beside fetch" 2 "$rc"
grep -q "learn runs would change the list" "$T/err1" || fail "learn+fetch message: $(cat "$T/err1")"
[ ! -d "$T/runs" ] || fail "a refused batch left runs"

hb_run "$T/pf.ini" base --switches "GAMEPREFETCH=on GAMEPREFETCH=fetch+GAMEPREFETCH_MB=8"
[ "$rc" = 0 ] || { cat "$T/err"; fail "the batch failed ($rc)"; }
learn="" on="" fetch=""
for d in $(run_dirs "$T/runs"); do
	case "$(value run_name "$d/bench.txt")" in
	base@pflearn) learn=$d ;;
	base@pfon64) on=$d ;;
	base@pf8) fetch=$d ;;
	*) fail "unexpected run $(value run_name "$d/bench.txt")" ;;
	esac
done
[ -n "$learn" ] && [ -n "$on" ] && [ -n "$fetch" ] || fail "runs: $(run_dirs "$T/runs")"
# the learn run: first, not measured, its list written
expect_eq "learn run invalid" 1 "$(value invalid "$learn/bench.txt")"
value invalid_reason "$learn/bench.txt" | grep -q "a learning run" || fail "learn run reason"
value prefetch.learn "$learn/bench.txt" | grep -q "^prefetch learn fakegame-.*session 1" ||
	{ cat "$learn/prefetch-learn.log" >&2; fail "learn run: $(value prefetch.learn "$learn/bench.txt")"; }
[ "$(value prefetch_learn_run "$learn/bench.txt")" = 1 ] || fail "the learn run is not marked as such"
ls "$T/lists"/fakegame-*.list >/dev/null 2>&1 || fail "no list in $T/lists"
grep -q "libhbstub.so$" "$T/lists"/fakegame-*.list || fail "the stub the game maps is not listed"
# learn narrowed once ready (CAP_SYS_PTRACE alone), its list's directory
# the one it writes (docs/man/hitchbench-prefetch.1, PRIVILEGES); not
# root, as far as it may
case "$(id -u):$(value helper.pflearn.sandbox "$learn/bench.txt")" in
"0:strict: no_new_privs=1 effective=sys_ptrace "*" read_only=yes (writes lists)") ;;
[1-9]*:"best effort "*) ;;
*) fail "learn's sandbox: '$(value helper.pflearn.sandbox "$learn/bench.txt")'" ;;
esac
# measured runs: valid, fetched, never learnt
for d in "$on" "$fetch"; do
	expect_eq "$d invalid" 0 "$(value invalid "$d/bench.txt")"
	value prefetch "$d/bench.txt" | grep -q "^prefetch fakegame-.*stopped: " ||
		{ cat "$d/prefetch.log" >&2; fail "prefetch= in $d"; }
	[ -n "$(value prefetch.mb "$d/bench.txt")" ] || fail "no prefetch.mb in $d"
	case "$(value prefetch.stop "$d/bench.txt")" in
	done|in-memory|game-exit) ;;
	*) fail "prefetch.stop: $(value prefetch.stop "$d/bench.txt")" ;;
	esac
	[ ! -e "$d/prefetch-learn.log" ] || fail "a measured run learnt"
	case "$(id -u):$(value helper.prefetch.sandbox "$d/bench.txt")" in
	"0:strict: no_new_privs=1 effective=none "*" read_only=yes") ;;
	[1-9]*:"best effort "*) ;;
	*) fail "fetch's sandbox in $d: '$(value helper.prefetch.sandbox "$d/bench.txt")'" ;;
	esac
done
value prefetch.learn "$on/bench.txt" | grep -q "^no: the batch learnt" || fail "on run learnt"
value prefetch "$fetch/bench.txt" | grep -q "budget [0-8]\.[0-9] MB" || fail "GAMEPREFETCH_MB=8 not used"
expect_eq "one session learnt" "sessions 1" "$(grep '^sessions' "$T/lists"/fakegame-*.list)"
no_fakegame_left
exit 0
