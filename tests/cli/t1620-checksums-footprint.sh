#!/bin/sh
# Checksums and footprint of a run (issue 20). A batch of the fake game on
# its own Xvfb with the observers on leaves SHA256SUMS in the run directory
# (every file, home/ too) and in the batch directory (batch.txt, runs.txt,
# the run's list), both as `sha256sum -c --strict` takes them; bench.txt
# says each helper's, the game's, Xvfb's and the runner's peak RSS and CPU
# (footprint.*), with sane values. `db import` takes the run as it is; a
# file changed after the run makes it invalid (SHA256SUMS does not match:
# FILE: checksum mismatch), as every other integrity failure, and so does
# a file added. An interrupted batch gets its SHA256SUMS too, and a
# resumed one loses it until it ends again.
# time-limit: 120
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v Xvfb >/dev/null || skip "no Xvfb (xvfb)"
command -v sha256sum >/dev/null || skip "no sha256sum (coreutils)"
fake_setup
fake_recipe fp "--fps 100 --touch-mb 8" "warmup = 0.5" "window = 1.5" "stop_grace = 0.5"

# the recorder needs root; the waker and the probe do not
token="WAKER=10+PROBE=1"
[ "$(id -u)" = 0 ] && token="STALLS=1+$token"
rc=0
"$HB" run --no-quieting --out "$T/runs" --db "$T/db.sqlite" "$T/fp.ini" --switches "$token" \
	>"$T/out" 2>"$T/err" || rc=$?
rundir=$(run_dirs "$T/runs" | tail -n 1)
batchdir=$(dirname "$rundir")
[ -n "$rundir" ] || fail "no run directory: $(cat "$T/err")"
expect_eq "batch exit status" 0 "$rc"

# 1. the lists, as sha256sum reads them
[ -f "$rundir/SHA256SUMS" ] || fail "no SHA256SUMS in $rundir"
(cd "$rundir" && sha256sum -c --strict --quiet SHA256SUMS) || fail "sha256sum -c refuses the run's list"
(cd "$batchdir" && sha256sum -c --strict --quiet SHA256SUMS) || fail "sha256sum -c refuses the batch's list"
# every regular file of the run but the list, sorted by path
(cd "$rundir" && find . -type f ! -path ./SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort) >"$T/files"
sed 's/^[0-9a-f]*  //' "$rundir/SHA256SUMS" >"$T/listed"
cmp -s "$T/files" "$T/listed" || fail "the run's list is not its files: $(diff "$T/files" "$T/listed")"
grep -q '  home/' "$rundir/SHA256SUMS" || fail "home/ not listed: $(cat "$rundir/SHA256SUMS")"
expect_eq "the batch's list" "$(basename "$rundir")/SHA256SUMS
batch.txt
runs.txt" "$(sed 's/^[0-9a-f]*  //' "$batchdir/SHA256SUMS")"

# 2. footprint: each helper the run started, the game, Xvfb, the runner
b=$rundir/bench.txt
helpers="sampler intfwatch waker probe"
[ "$(id -u)" = 0 ] && helpers="$helpers stallrec"
for name in $helpers game xserver runner; do
	rss=$(value "footprint.$name.maxrss_kb" "$b")
	cpu=$(value "footprint.$name.cpu_ms" "$b")
	[ -n "$rss" ] && [ -n "$cpu" ] || fail "no footprint.$name in bench.txt: $(grep footprint "$b")"
	# a process holds at least 100 kB and less than 4 GB; CPU is not negative
	# and not more than every CPU for the whole run
	[ "$rss" -ge 100 ] && [ "$rss" -lt 4000000 ] || fail "footprint.$name.maxrss_kb=$rss"
	echo "$cpu" | grep -Eq '^[0-9]+\.[0-9]$' || fail "footprint.$name.cpu_ms=$cpu"
done
# the game allocated and touched 8 MB: its own peak shows it
game_hwm=$(value footprint.game.hwm_kb "$b")
[ -n "$game_hwm" ] && [ "$game_hwm" -ge 8192 ] || fail "footprint.game.hwm_kb=$game_hwm (8 MB touched)"
game_rss=$(value footprint.game.maxrss_kb "$b")
# wait4's figure holds the program's own peak (the kernel's counters are
# per-CPU estimates: a few pages either way)
[ $((game_rss + 1024)) -ge "$game_hwm" ] || fail "the game's maxrss $game_rss below its VmHWM $game_hwm"
# the fake game spins at 100 fps for 2 s: some CPU, never more than the run's wall time x CPUs
game_cpu=$(value footprint.game.cpu_ms "$b" | cut -d. -f1)
[ "$game_cpu" -lt $((60000 * $(getconf _NPROCESSORS_ONLN))) ] || fail "footprint.game.cpu_ms=$game_cpu"
grep -q '^helper\.waker=' "$b" || fail "no helper.waker: the waker was not started"

# 3. the database takes the run as it is ...
rc=0; "$HB" db import --db "$T/db2.sqlite" "$rundir" >"$T/imp" 2>"$T/err" || rc=$?
expect_eq "db import exit status" 0 "$rc"
grep -q "^imported $(basename "$rundir")\$" "$T/imp" || fail "db import: $(cat "$T/imp" "$T/err")"
# ... and not once a file changed after it (as broken data: stored invalid, with why)
echo "edited" >>"$rundir/game.log"
rc=0; "$HB" db import --db "$T/db2.sqlite" "$rundir" >"$T/imp" 2>"$T/err" || rc=$?
expect_eq "db import of a changed run: exit status" 0 "$rc"
grep -q "(invalid: SHA256SUMS does not match: game.log: checksum mismatch)" "$T/imp" ||
	fail "db import of a changed run: $(cat "$T/imp" "$T/err")"
why=$(sqlite3 "$T/db2.sqlite" "select status || ': ' || check_failed from runs" 2>/dev/null) &&
	expect_eq "the changed run in the database" \
		"invalid: SHA256SUMS does not match: game.log: checksum mismatch" "$why"
rc=0; (cd "$rundir" && sha256sum -c --strict --quiet SHA256SUMS) >/dev/null 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "sha256sum -c takes the changed game.log"
rc=0; "$HB" report "$rundir" >"$T/rep" 2>&1 || rc=$?
grep -q "invalid: SHA256SUMS does not match: game.log: checksum mismatch" "$T/rep" ||
	fail "report of a changed run: $(cat "$T/rep")"
# a file added is refused too (a copy must bring nothing of its own)
sed -i '$d' "$rundir/game.log"
echo "x" >"$rundir/extra.txt"
rc=0; "$HB" db import --db "$T/db2.sqlite" "$rundir" >"$T/imp" 2>"$T/err" || rc=$?
grep -q "(invalid: SHA256SUMS does not match: extra.txt: not listed)" "$T/imp" ||
	fail "db import of a run with a file added: $(cat "$T/imp" "$T/err")"
rm "$rundir/extra.txt"
rc=0; "$HB" db import --db "$T/db2.sqlite" "$rundir" >"$T/imp" 2>"$T/err" || rc=$?
grep -q "^imported $(basename "$rundir")\$" "$T/imp" || fail "db import once mended: $(cat "$T/imp" "$T/err")"

# 4. an interrupted batch has its list too; a resumed one loses it until it ends
rm -rf "$T/runs"
fake_recipe long "--fps 100" "warmup = 0" "window = 2" "stop_grace = 0.5"
hb_run_bg --no-quieting "$T/long.ini" base 2 --switches INTF=0
sleep 1
kill -INT "$pid"
wait "$pid" || true
batchdir=$(ls -d "$T"/runs/*/ | tail -n 1)
batchdir=${batchdir%/}
expect_eq "interrupted batch status" interrupted "$(value status "$batchdir/batch.txt")"
[ -f "$batchdir/SHA256SUMS" ] || fail "no SHA256SUMS in the interrupted batch"
(cd "$batchdir" && sha256sum -c --strict --quiet SHA256SUMS) || fail "the interrupted batch's list"
"$HB" run --resume "$batchdir" --no-quieting --display :99 --no-db >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 1 100); do
	pgrep -f "$T/game/fakegame" >/dev/null && break
	sleep 0.1
done
[ ! -e "$batchdir/SHA256SUMS" ] || fail "the resumed batch kept its SHA256SUMS while running"
wait "$pid" || fail "the resumed batch failed: $(cat "$T/err")"
expect_eq "resumed batch status" complete "$(value status "$batchdir/batch.txt")"
(cd "$batchdir" && sha256sum -c --strict --quiet SHA256SUMS) || fail "the resumed batch's list"
expect_eq "runs in the resumed batch's list" 2 "$(grep -c '/SHA256SUMS$' "$batchdir/SHA256SUMS")"
no_fakegame_left
