#!/bin/sh
# Reports of real recorded runs (tests/fixtures/runs: dsda-doom, software
# and gl) print exactly what they printed when recorded; the headline
# numbers are recomputed here from frames.bin by an independent awk
# implementation of the definitions in docs/metrics.md; the database
# rebuilt from the directories reports the same rows.
. "$(dirname "$0")/../lib.sh"
R="$HB_FIXTURES/runs"
E="$HB_FIXTURES/expected"

"$HB" report "$R" >"$T/table" || fail "report failed"
diff -u "$E/runs-report.txt" "$T/table" || fail "the table differs from the recorded one"
"$HB" report --format csv "$R" >"$T/csv" || fail "csv report failed"
diff -u "$E/runs-report.csv" "$T/csv" || fail "the CSV differs from the recorded one"
# (from the fixtures' directory: each run's "dir" is as given, here relative)
(cd "$HB_FIXTURES" && "$HB" report --format json runs) >"$T/json" || fail "json report failed"
diff -u "$E/runs-report.json" "$T/json" || fail "the JSON differs from the recorded one"

# frames, longest frame, p99 (nearest rank) and stalls, from the frame file
# alone: records start at byte 128, 16 bytes each, the stamp first
col() { head -n 1 "$T/csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
for dir in "$R"/*/; do
	dir=${dir%/}
	name=${dir##*/}
	ws=$(value window_start_ns "$dir/bench.txt")
	we=$(value window_end_ns "$dir/bench.txt")
	od -An -v -t u8 -j 128 -w16 "$dir/frames.bin" | awk '$1 != 0 { print $1 }' | sort -n >"$T/t"
	got=$(awk -v ws="$ws" -v we="$we" '
		NR > 1 && $1 > ws && $1 <= we {
			ft = ($1 - prev) / 1e6; n++; f[n] = ft
			if (ft > longest) longest = ft
			if (ft > 100) stalls++
		}
		{ prev = $1 }
		END {
			# nearest rank: ceil(0.99 * n), in integers
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (f[j] < f[i]) { x = f[i]; f[i] = f[j]; f[j] = x }
			rank = int((99 * n + 99) / 100)
			# frame times are whole ns: 6 decimals of ms are exact
			printf "%d %.6f %.6f %d\n", n, longest, f[rank], stalls
		}' "$T/t")
	# the CSV's full precision: to the nanosecond
	row=$(grep "^run,,$name," "$T/csv")
	want=$(echo "$row" | awk -F, -v a="$(col frames)" -v b="$(col longest_ms)" -v c="$(col p99_ms)" \
		-v d="$(col stalls)" '{ printf "%d %.6f %.6f %d\n", $a, $b, $c, $d }')
	expect_eq "$name: frames longest p99 stalls" "$want" "$got"
done

# hitchbench frames prints the same frames: the window's count and longest
for dir in "$R"/*/; do
	dir=${dir%/}
	name=${dir##*/}
	"$HB" frames --window "$dir" >"$T/frames" || fail "frames --window $name"
	head -n 1 "$T/frames" | grep -q "^# hitchbench frames 2: $name$" || fail "frames header: $(head -n 1 "$T/frames")"
	got=$(awk -F'\t' '!/^#/ && $1 != "t_s" { n++; if ($2 > m) m = $2; if ($3 != 1) bad = 1 }
		END { printf "%d %.3f %d\n", n, m, bad }' "$T/frames")
	# frames prints 3 decimals of ms; the CSV has them all
	row=$(grep "^run,,$name," "$T/csv")
	want=$(echo "$row" | awk -F, -v a="$(col frames)" -v b="$(col longest_ms)" '{ printf "%d %.3f 0\n", $a, $b }')
	expect_eq "$name: frames --window count, longest, all in window" "$want" "$got"
	all=$("$HB" frames "$dir" | grep -vc '^#\|^t_s')
	expect_eq "$name: frames prints every frame" "$(($(value frames_recorded "$dir/bench.txt") - 1))" "$all"
done

# the database rebuilt from the directories holds the same numbers
"$HB" db import --db "$T/db.sqlite" "$R" >/dev/null || fail "db import failed"
"$HB" report --db "$T/db.sqlite" | grep -v '^#' >"$T/dbrows"
grep -v '^#' "$T/table" >"$T/dirrows"
diff -u "$T/dirrows" "$T/dbrows" || fail "the database reports other numbers than the directories"
exit 0
