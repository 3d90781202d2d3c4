#!/bin/sh
# Reports and the matrix over several batches of the fake game: groups by
# game and run name with median, min, max and n; runs listed in an
# interfered file left out (and counted with --include-interfered); one CSV
# per metric with a column per batch, or per kernel in version order.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
fake_recipe ab "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5" \
	"[variant a]" "args = --fps 120" "[variant b]" "args = --fps 60"
hb_run "$T/ab.ini" "a b" 2
expect_eq "first batch" 0 "$rc"
first=$batchdir
sleep 1 # batch ids are made of the start second
hb_run "$T/ab.ini" "a b" 1
expect_eq "second batch" 0 "$rc"
second=$batchdir
[ "$first" != "$second" ] || fail "the two batches share a directory"
[ "$(run_dirs "$T/runs" | wc -l)" = 6 ] || fail "expected 6 runs: $(run_dirs "$T/runs")"

# report: a group per run name, n counting both batches; no interference file
: >"$T/none.txt"
"$HB" report --interfered "$T/none.txt" "$T/runs" >"$T/table" || fail "report failed"
grep -q '^median ab a (n=3) ' "$T/table" || fail "group a: $(cat "$T/table")"
grep -q '^min ab b ' "$T/table" && grep -q '^max ab b ' "$T/table" || fail "group b min/max"
! grep -q '^excluded' "$T/table" || fail "nothing should be excluded: $(cat "$T/table")"

# a run listed as interfered (by directory name) leaves the group and is
# listed at the end; --include-interfered counts it again
victim=$(ls -d "$first"/*/ | head -n 1)
victim=${victim%/}
vname=${victim##*/}
vvariant=$(value run_name "$victim/bench.txt")
printf '# evidence from outside\n%s  a backup ran during the run\n' "$vname" >"$T/interfered.txt"
"$HB" report --interfered "$T/interfered.txt" "$T/runs" >"$T/table2" || fail "report with interfered failed"
grep -q "^median ab $vvariant (n=2) " "$T/table2" || fail "the interfered run was counted: $(cat "$T/table2")"
grep -q "^excluded $vname: $T/interfered.txt:2: a backup ran during the run\$" "$T/table2" ||
	fail "the interfered run is not listed with why: $(cat "$T/table2")"
"$HB" report --include-interfered --interfered "$T/interfered.txt" "$T/runs" >"$T/table3" || fail "--include-interfered"
grep -q "^median ab $vvariant (n=3) " "$T/table3" || fail "--include-interfered did not count it"
grep -q '^# median, min, max = .*(--include-interfered)' "$T/table3" || fail "the notes do not say so"

# JSON: provenance and metrics per run, the groups, the excluded run
"$HB" report --format json --interfered "$T/interfered.txt" "$T/runs" >"$T/json" || fail "json report"
if command -v python3 >/dev/null; then
	python3 - "$T/json" "$vname" <<'PY' || fail "json report is not what it should be"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == 4
assert all(r["flip"] is None for r in d["runs"])
assert len(d["runs"]) == 6
assert all(r["provenance"]["batch_id"] for r in d["runs"])
assert {g["run_name"]: g["n"] for g in d["groups"]} in ({"a": 2, "b": 3}, {"a": 3, "b": 2})
assert [e["run"] for e in d["excluded"]] == [sys.argv[2]]
assert all(g["min"]["fps"] <= g["median"]["fps"] <= g["max"]["fps"] for g in d["groups"])
PY
fi

# a bad interfered file: file:line, usage exit
printf 'lonely\n' >"$T/bad.txt"
rc=0; "$HB" report --interfered "$T/bad.txt" "$T/runs" >/dev/null 2>"$T/err" || rc=$?
expect_eq "bad interfered file" 2 "$rc"
grep -q "$T/bad.txt:1: no reason given for 'lonely'" "$T/err" || fail "bad interfered message: $(cat "$T/err")"

# the matrix by batch, from the database the runs went into
"$HB" matrix --db "$T/db.sqlite" --out "$T/matrix" --interfered "$T/interfered.txt" >"$T/mout" ||
	fail "matrix failed: $(cat "$T/mout")"
[ -f "$T/matrix/fps.csv" ] && [ -f "$T/matrix/low1.csv" ] || fail "no CSVs: $(ls "$T/matrix")"
b1=${first##*/}
b2=${second##*/}
expect_eq "fps.csv header" "game,run,$b1.median,$b1.min,$b1.max,$b1.n,$b2.median,$b2.min,$b2.max,$b2.n" \
	"$(head -n 1 "$T/matrix/fps.csv")"
expect_eq "fps.csv rows" "ab,a
ab,b" "$(tail -n +2 "$T/matrix/fps.csv" | cut -d, -f1,2)"
# the interfered run's row has one run left in the first batch, the other two
expect_eq "n in the first batch" "$(if [ "$vvariant" = a ]; then echo "1 2"; else echo "2 1"; fi)" \
	"$(tail -n +2 "$T/matrix/fps.csv" | cut -d, -f6 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "n in the second batch" "1 1" "$(tail -n +2 "$T/matrix/fps.csv" | cut -d, -f10 | tr '\n' ' ' | sed 's/ $//')"
# from the run directories: the same file
"$HB" matrix --out "$T/matrix-dirs" --interfered "$T/interfered.txt" "$T/runs" >/dev/null || fail "matrix of dirs"
cmp -s "$T/matrix/fps.csv" "$T/matrix-dirs/fps.csv" ||
	fail "the database and the directories make other matrices: $(diff "$T/matrix/fps.csv" "$T/matrix-dirs/fps.csv")"
# --metric: only that file
"$HB" matrix --db "$T/db.sqlite" --metric stalls --out "$T/only" >/dev/null || fail "matrix --metric"
expect_eq "--metric files" "stalls.csv" "$(ls "$T/only")"

# by kernel: the same runs as if made on 6.10.0 (the second batch) and 6.9.0
# (the first), in version order, not text order
mkdir -p "$T/k"
cp -R "$first" "$second" "$T/k/"
for b in "$T/k/$b1" "$T/k/$b2"; do
	k=6.10.0; [ "$b" = "$T/k/$b1" ] && k=6.9.0
	for r in "$b"/*/bench.txt; do
		sed -i "s/^kernel_release=.*/kernel_release=$k/" "$r"
		rm -f "${r%/bench.txt}/SHA256SUMS" # edited by hand: no longer the runner's
	done
done
"$HB" db import --db "$T/k.sqlite" "$T/k" >/dev/null || fail "db import of the kernel copies"
"$HB" matrix --by kernel --db "$T/k.sqlite" --out "$T/km" --interfered "$T/none.txt" >/dev/null || fail "matrix --by kernel"
expect_eq "kernel columns" "6.9.0.median 6.10.0.median" \
	"$(head -n 1 "$T/km/fps.csv" | tr ',' '\n' | grep median | tr '\n' ' ' | sed 's/ $//')"
expect_eq "n per kernel" "2,1" "$(grep '^ab,a,' "$T/km/fps.csv" | cut -d, -f6,10)"
rc=0; "$HB" matrix --by moon --db "$T/k.sqlite" >/dev/null 2>&1 || rc=$?
expect_eq "bad --by" 2 "$rc"
exit 0
