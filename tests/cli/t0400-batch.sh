#!/bin/sh
# A batch of the fake game: two variants x two switch tokens x two rounds.
# Every run once per round in the planned order, named variant@label, its
# switches in effect in the game (environment, CPUs) and recorded; the batch
# and its runs in the database; bad tokens refused before anything starts;
# the lab's ENVS form the same as --switches.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe ab "--fps 100 --show-env HB_PROBE --show-cpus" "warmup = 0" "window = 1" \
	"stop_grace = 0.5" "[variant a]" "args = --fps 120" "[variant b]" "args = --fps 80"
tokens="- GAMEENV=HB_PROBE=yes+GAMECPU=0"

# refused before a batch directory exists
for bad in "NOSUCH=1" "GAMECPU=x" "GAMEENV_LABEL=x" "GAMECPU=0+GAMECPU=1" "- -"; do
	rc=0; "$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/ab.ini" "a b" 1 --switches "$bad" \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_eq "exit status for token '$bad'" 2 "$rc"
	grep -q "switch token\|name the same runs" "$T/err" || fail "no reason for '$bad': $(cat "$T/err")"
done
[ ! -e "$T/runs" ] || fail "a refused batch left a directory"
rc=0; "$HB" run --no-quieting --out "$T/runs" --no-db "$T/ab.ini" "a nosuch" 1 >"$T/out" 2>"$T/err" || rc=$?
expect_eq "unknown variant" 2 "$rc"

# the plan, and the ENVS form meaning the same
"$HB" run "$T/ab.ini" "a b" 2 --switches "$tokens" --plan >"$T/plan1" || fail "--plan failed"
ENVS="$tokens" "$HB" run "$T/ab.ini" "a b" 2 --plan >"$T/plan2" || fail "ENVS --plan failed"
cmp -s "$T/plan1" "$T/plan2" || fail "ENVS and --switches differ: $(diff "$T/plan1" "$T/plan2")"
rc=0; ENVS="-" "$HB" run "$T/ab.ini" "a b" 2 --switches "$tokens" --plan >/dev/null 2>&1 || rc=$?
expect_eq "ENVS and --switches disagreeing" 2 "$rc"

hb_run "$T/ab.ini" "a b" 2 --switches "$tokens"
expect_eq "batch exit status" 0 "$rc"
[ "$(run_dirs "$T/runs" | wc -l)" = 8 ] || fail "expected 8 runs: $(run_dirs "$T/runs")"
expect_eq "batch status" complete "$(value status "$batchdir/batch.txt")"
expect_eq "batch tokens" "$tokens" "$(value tokens "$batchdir/batch.txt")"
expect_eq "batch boot" "$(cat /proc/sys/kernel/random/boot_id)" "$(value boot_id "$batchdir/batch.txt")"

# runs.txt: each slot started then done, in plan order; the plan is the one --plan printed
grep -v '^#' "$T/plan1" | while read -r index round pos name token; do
	grep -q "^slot.$index=$round $pos ${name%@*} $token\$" "$batchdir/batch.txt" ||
		{ echo "slot $index differs from the plan" >&2; exit 1; }
done || fail "batch.txt's plan is not --plan's"
expect_eq "runs.txt events" "1 started
1 done
2 started
2 done
3 started
3 done
4 started
4 done
5 started
5 done
6 started
6 done
7 started
7 done
8 started
8 done" "$(cut -d' ' -f1,2 "$batchdir/runs.txt")"

# each run: its name, switches and place; the switch in effect in the game
for d in $(run_dirs "$T/runs"); do
	b="$d/bench.txt"
	name=$(value run_name "$b")
	index=$(value batch_index "$b")
	slot=$(value "slot.$index" "$batchdir/batch.txt")
	expect_eq "$d round/position" "$(echo "$slot" | cut -d' ' -f1,2)" \
		"$(value batch_round "$b") $(value batch_position "$b")"
	expect_eq "$d batch" "$(basename "$batchdir")" "$(value batch_id "$b")"
	grep -q "^$index done $(basename "$d") ok" "$batchdir/runs.txt" || fail "$d not in runs.txt"
	case "$name" in
	a|b)
		expect_eq "$d switches" - "$(value switches "$b")"
		grep -q "env HB_PROBE unset" "$d/game.log" || fail "$d: the game saw HB_PROBE"
		grep -q "cpus 0,1" "$d/game.log" || fail "$d: the game was pinned: $(grep cpus "$d/game.log")"
		;;
	a@hb_probeyes+cpu0|b@hb_probeyes+cpu0)
		expect_eq "$d switches" "GAMEENV=HB_PROBE=yes+GAMECPU=0" "$(value switches "$b")"
		expect_eq "$d switch_label" "hb_probeyes+cpu0" "$(value switch_label "$b")"
		expect_eq "$d switch.GAMECPU" 0 "$(value switch.GAMECPU "$b")"
		grep -q "env HB_PROBE=yes" "$d/game.log" || fail "$d: GAMEENV did not reach the game"
		grep -q "cpus 0\$" "$d/game.log" || fail "$d: GAMECPU did not pin the game"
		;;
	*)
		fail "unexpected run name '$name'"
		;;
	esac
	expect_eq "$d status" ok "$(value status "$b")"
	expect_eq "$d invalid" 0 "$(value invalid "$b")"
	case "$d" in
	*"-$name") ;;
	*) fail "the directory $d is not named after its run $name" ;;
	esac
done

# progress: a start and an end line per run, with round and run numbers
[ "$(grep -c 'starting (about' "$T/err")" = 8 ] || fail "start lines: $(cat "$T/err")"
grep -q '^hitchbench: \[round 2/2, run 4/4\] ab [ab]\(@hb_probeyes+cpu0\)\? ok: [0-9.]* fps' "$T/err" ||
	fail "no end line with numbers: $(cat "$T/err")"

# the report groups by run name; the database has the batch and its runs
for n in a b a@hb_probeyes+cpu0 b@hb_probeyes+cpu0; do
	grep -q "^median ab $n (n=2)" "$T/out" || grep -q "median.*$n.*n=2" "$T/out" ||
		fail "no median of $n: $(cat "$T/out")"
done
expect_eq "database batch" "$(basename "$batchdir")|complete|2|- GAMEENV=HB_PROBE=yes+GAMECPU=0" \
	"$(sqlite3 "$T/db.sqlite" "select batch_uuid, status, rounds, tokens from batches")"
expect_eq "database runs of the batch" "8" \
	"$(sqlite3 "$T/db.sqlite" "select count(*) from runs where batch_uuid = '$(basename "$batchdir")' and run_name is not null and batch_round is not null")"
expect_eq "database switches" "4" \
	"$(sqlite3 "$T/db.sqlite" "select count(*) from runs where switches = 'GAMEENV=HB_PROBE=yes+GAMECPU=0'")"

# --quiet: only the report
hb_run "$T/ab.ini" a 1 --quiet
expect_eq "quiet batch" 0 "$rc"
[ ! -s "$T/err" ] || fail "--quiet printed progress: $(cat "$T/err")"
grep -q '^median' "$T/out" || fail "--quiet lost the report"
exit 0
