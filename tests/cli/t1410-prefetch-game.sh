#!/bin/sh
# lane: alone (another test's quieted batch drops the whole page cache, drop_caches: pages fetched back would read as never fetched; CI saw it)
# The prefetch on a real game's data, as the unprivileged game user:
# learn watches the game user read Neverball's map set (as the game does
# when it loads a level set) and walks the data directory; the pages are
# dropped; `run`, started by the game user, forks its detached fetch of
# Neverball's list and execs the "game" in the same pid; the map set is
# back in memory. The game itself is not launched (a GL game under Xvfb is
# the game suite's business): what is tested is the list, the drop, the
# fetch back and the pid, on the game's own files.
. "$(dirname "$0")/../lib.sh"
P="$HB_BUILD/hitchbench-prefetch"
[ -x "$P" ] || fail "no $P"
need_game_user
[ "$(id -u)" = 0 ] || skip "needs root to run as the game user"
G=/usr/share/games/neverball/map-fwp
EXE=/usr/games/neverball
[ -d "$G" ] && [ -x "$EXE" ] || skip "neverball is not installed (sh scripts/deps.sh ensure)"
command -v runuser >/dev/null || skip "no runuser"
user=hitchbench
[ -n "${SUDO_USER:-}" ] && ! getent passwd hitchbench >/dev/null && user=$SUDO_USER

chmod 755 "$T" "${TMPDIR:-/tmp}" 2>/dev/null
mkdir -p "$T/lists" "$T/out" "$T/bin"
# a copy the game user may run (the checkout may be in a 0700 home)
cp "$P" "$T/bin/" && chmod 755 "$T/bin" "$T/bin/hitchbench-prefetch"
PU="$T/bin/hitchbench-prefetch"
chmod 777 "$T/lists" "$T/out"
L="$T/lists"
total=0
for f in "$G"/*; do
	[ -f "$f" ] && total=$((total + $(stat -c %s "$f")))
done

# --- learn: the game user reads the maps; learn (root's) watches and walks ---
runuser -u "$user" -- sh -c "cat '$G'/* >/dev/null; sleep 1" &
pid=$!
"$P" learn --pid "$pid" --exe "$EXE" --data "$G" --dir "$L" >"$T/learn" 2>"$T/learn.err" ||
	{ cat "$T/learn.err"; fail "learn failed"; }
grep -q "^prefetch learn neverball-" "$T/learn" || fail "learn: $(cat "$T/learn")"
nfiles=$(ls "$G" | wc -l)
"$P" show "$EXE" --dir "$L" >"$T/show"
inlist=$(grep -c " $G/" "$T/show")
[ "$inlist" -ge "$nfiles" ] || fail "$inlist of the $nfiles map files listed"
chmod a+r "$L"/*.list

# --- dropped ---
"$P" resident --drop "$G"/* >"$T/r0"
dropped=$(awk '{ r += $1 } END { print r + 0 }' "$T/r0")
[ "$dropped" -lt 64 ] || fail "the maps' pages were not dropped ($dropped still in memory)"

# --- run, as the game user: same pid, the detached fetch reads the maps back ---
runuser -u "$user" -- sh -c "echo \$\$ >'$T/out/runpid'; exec '$PU' run --dir '$L' --exe '$EXE' \
	--mb 64 --log '$T/out/fetch.log' -- sh -c 'echo \$\$ >$T/out/gamepid; exec sleep 2'" ||
	fail "run failed"
expect_eq "the game's pid is run's" "$(cat "$T/out/runpid")" "$(cat "$T/out/gamepid")"
grep -q "^prefetch neverball-.*stopped: done; cpu" "$T/out/fetch.log" || fail "fetch: $(cat "$T/out/fetch.log")"
"$P" resident "$G"/* >"$T/r1"
back=$(awk '{ r += $1; t += $2 } END { print r + 0 }' "$T/r1")
pages=$(awk '{ t += $2 } END { print t + 0 }' "$T/r1")
# every page the read of the maps brought in is back (ranges can only add)
[ "$back" -ge $((pages * 95 / 100)) ] || fail "only $back of $pages pages back: $(cat "$T/out/fetch.log")"
echo "fetched back $back of $pages pages ($total bytes): $(cat "$T/out/fetch.log")"
exit 0
