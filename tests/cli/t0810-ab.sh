#!/bin/sh
# wall: about 45 s (ab runs its pairs of fake-game runs)
# ab on the fake game: B at 60 fps against A at 100 stops DIFFERENT (slower)
# at the sixth pair (min_pairs), exit 3, with its state in ab.txt and the batch
# "stopped" short of its cap; compare --paired over the batch agrees, line
# for line; ab --resume of the finished test runs nothing and says the
# same; an A/A of two variants that run the same steady game ends SAME or
# UNKNOWN (0 or 4), never DIFFERENT; bad cells and ab's options given to
# run are refused (2); the batch's SHA256SUMS holds ab.txt, before and after the
# resume. The interference watcher is off (INTF=0): other work
# on the machine must not leave every pair out.
# timing: the fake game's frame rates under load (its pairs' values)
# time-limit: 180
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe pair "--fps 100" "warmup = 0" "window = 1.5" "stop_grace = 0.5" \
	"[variant fast]" "args = --fps 100" "[variant slow]" "args = --fps 60" "[variant same]" "args = --fps 100"

hb_ab() {
	rc=0
	"$HB" ab --no-quieting --display :99 --out "$T/runs" --db "$T/db.sqlite" "$@" >"$T/out" 2>"$T/err" || rc=$?
	batchdir=$(ls -d "$T"/runs/*/ 2>/dev/null | tail -n 1)
	batchdir=${batchdir%/}
}

# refused before anything runs
for cells in "fast@INTF=0 slow@-" "fast fast" "nosuch slow"; do
	# shellcheck disable=SC2086
	hb_ab "$T/pair.ini" $cells
	expect_eq "exit status for cells '$cells'" 2 "$rc"
done
[ ! -e "$T/runs" ] || fail "a refused ab left a batch"
rc=0; "$HB" run --no-quieting --out "$T/runs" --no-db "$T/pair.ini" --effect 3 >/dev/null 2>"$T/err" || rc=$?
expect_eq "run with ab's --effect" 2 "$rc"
rc=0; "$HB" ab --no-quieting --out "$T/runs" --no-db "$T/pair.ini" fast slow --rounds 3 >/dev/null 2>&1 || rc=$?
expect_eq "ab with --rounds" 2 "$rc"

# A/B: a 40% slower B is found at min_pairs (6), well under the cap
hb_ab "$T/pair.ini" fast@INTF=0 slow@INTF=0 --max-rounds 10
expect_eq "ab exit status (DIFFERENT)" 3 "$rc"
grep -q "^verdict DIFFERENT: B slower than A after 6 pair(s)$" "$T/out" || fail "no verdict line: $(cat "$T/out" "$T/err")"
[ "$(grep -c '^ *[0-9][0-9]* *[0-9][0-9]* .* \[' "$T/out")" = 6 ] || fail "not six pair lines: $(cat "$T/out")"
grep -q "^estimate B/A 0\.[56]" "$T/out" || fail "no estimate near 0.6: $(grep estimate "$T/out")"
ab=$batchdir/ab.txt
[ -f "$ab" ] || fail "no ab.txt in $batchdir"
expect_eq "ab.txt format" 1 "$(value format "$ab")"
expect_eq "ab.txt state" done "$(value state "$ab")"
expect_eq "ab.txt verdict" DIFFERENT "$(value verdict "$ab")"
expect_eq "ab.txt sign" -1 "$(value sign "$ab")"
expect_eq "ab.txt pairs" 6 "$(value pairs "$ab")"
expect_eq "ab.txt a" "fast@INTF=0" "$(value a "$ab")"
# the third pair as recorded: A near its 100 fps, B near its 60 (a busy
# machine drops frames of both), and d = ln(B/A) of those two
value round.3 "$ab" | awk '$1 == "pair" && $2 == 3 && $3 == "a" && $5 == "b" && $7 == "d" &&
	$4 >= 80 && $4 <= 101 && $6 >= 45 && $6 <= 61 && ($8 - log($6 / $4))^2 < 1e-12 { ok = 1 }
	END { exit !ok }' || fail "round.3: $(value round.3 "$ab")"
expect_eq "batch status" stopped "$(value status "$batchdir/batch.txt")"
expect_eq "batch command" ab "$(value command "$batchdir/batch.txt")"
# its SHA256SUMS when the test stopped: ab.txt in it, sha256sum -c takes it
grep -q '  ab\.txt$' "$batchdir/SHA256SUMS" || fail "ab.txt not in the batch's SHA256SUMS"
(cd "$batchdir" && sha256sum -c --strict --quiet SHA256SUMS) || fail "sha256sum -c refuses the ab batch's list"
expect_eq "runs kept" 12 "$(run_dirs "$T/runs" | wc -l | tr -d ' ')"
sqlite3 "$T/db.sqlite" "select count(*) from runs" >"$T/n" 2>/dev/null && expect_eq "runs in the database" 12 "$(cat "$T/n")"

# compare --paired re-analyses it the same way, from the run directories
ab_test_lines "$T/out" >"$T/ab-lines"
[ "$(wc -l <"$T/ab-lines")" = 11 ] || fail "ab's lines: $(cat "$T/ab-lines")"
rc=0; "$HB" compare --paired "$batchdir" >"$T/cmp" 2>"$T/err" || rc=$?
expect_eq "compare --paired exit status" 3 "$rc"
ab_test_lines "$T/cmp" >"$T/cmp-lines"
cmp -s "$T/ab-lines" "$T/cmp-lines" || fail "compare --paired differs from ab: $(diff "$T/ab-lines" "$T/cmp-lines")"
# ... and as JSON: the verdict, its exit status, each round's values as ab.txt has them
rc=0; "$HB" compare --paired "$batchdir" --format json >"$T/cmp.json" 2>"$T/err" || rc=$?
expect_eq "compare --paired --format json exit status" 3 "$rc"
python3 - "$T/cmp.json" "$ab" <<'EOF' || fail "compare --paired JSON: $(cat "$T/cmp.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
kv = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[2]) if "=" in l)
assert doc["format"] == 1 and doc["verdict"] == "DIFFERENT" and doc["exit_status"] == 3, doc
assert doc["pairs"] == 6 and doc["sign"] == -1 and doc["direction"] == "slower" and doc["done"], doc
assert doc["a"] == "fast@INTF=0" and doc["metric"] == "fps", doc
assert abs(doc["estimate"] - float(kv["estimate"])) < 1e-6, (doc["estimate"], kv["estimate"])
for r in doc["rounds"]:
    v = kv["round.%d" % r["round"]].split()
    if not r["counted"]:
        assert " ".join(v).startswith("left out: "), v
        continue
    # ab.txt keeps a, b and d at %.17g: the same doubles
    assert (r["pair"], r["a"], r["b"], r["log_ratio"]) == (int(v[1]), float(v[3]), float(v[5]), float(v[7])), (r, v)
EOF

# a finished test resumed: nothing runs, the same verdict
rc=0; "$HB" ab --resume "$batchdir" --no-quieting --display :99 --db "$T/db.sqlite" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "ab --resume exit status" 3 "$rc"
expect_eq "runs after the resume" 12 "$(run_dirs "$T/runs" | wc -l | tr -d ' ')"
grep -q "^verdict DIFFERENT" "$T/out" || fail "resume: no verdict: $(cat "$T/out" "$T/err")"
# ab --format json: stdout is the one document, the same as compare --paired's
rc=0; "$HB" ab --resume "$batchdir" --no-quieting --display :99 --db "$T/db.sqlite" --format json >"$T/ab.json" \
	2>"$T/err" || rc=$?
expect_eq "ab --resume --format json exit status" 3 "$rc"
python3 -m json.tool "$T/ab.json" >/dev/null || fail "ab --format json is not JSON: $(cat "$T/ab.json")"
cmp -s "$T/ab.json" "$T/cmp.json" || fail "ab's JSON differs from compare --paired's: $(diff "$T/ab.json" "$T/cmp.json")"
grep -q "^verdict DIFFERENT" "$T/err" || fail "ab --format json: the lines are not on stderr: $(cat "$T/err")"
(cd "$batchdir" && sha256sum -c --strict --quiet SHA256SUMS) || fail "the resumed ab batch's list"
# ab.txt read one way: a key given twice (a second alpha= before the real
# one) is refused with its lines, not read as the first
cp -r "$batchdir" "$T/twice"
sed -i '2i alpha=0.5' "$T/twice/ab.txt"
rc=0; "$HB" ab --resume "$T/twice" --no-quieting --display :99 --no-db >/dev/null 2>"$T/err" || rc=$?
expect_eq "ab --resume of an ab.txt with alpha twice" 2 "$rc"
grep -q "twice/ab.txt:[0-9]*: key 'alpha' repeats line 2" "$T/err" || fail "alpha twice: $(cat "$T/err")"
rc=0; "$HB" run --resume "$batchdir" --no-quieting --display :99 --no-db >/dev/null 2>"$T/err" || rc=$?
expect_eq "run --resume of an ab batch" 2 "$rc"
grep -q "hitchbench ab --resume" "$T/err" || fail "run --resume says nothing useful: $(cat "$T/err")"

# A/A: two variants running the same steady game, at a small cap
rm -rf "$T/runs"
hb_ab "$T/pair.ini" fast@INTF=0 same@INTF=0 --max-rounds 6
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "A/A exit status $rc: $(cat "$T/out" "$T/err")"
grep -q "^verdict \(SAME\|UNKNOWN\)" "$T/out" || fail "A/A verdict: $(grep verdict "$T/out")"
no_fakegame_left
exit 0
