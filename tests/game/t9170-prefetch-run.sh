#!/bin/sh
# lane: alone (another test's quieted batch drops the whole page cache, drop_caches: pages fetched back would read as never fetched; CI saw it)
# hitchbench-prefetch run on a real game: dsda-doom plays Freedoom's own
# title demos under Xvfb as the unprivileged game user. A learn (root's)
# watches one session; the game's WADs are dropped from memory; then the
# game user starts the game through `run`: the game has run's pid, and the
# detached fetch reads the dropped WADs back while the game loads.
. "$(dirname "$0")/../lib.sh"
P="$HB_BUILD/hitchbench-prefetch"
[ -x "$P" ] || fail "no $P"
need_game_user
[ "$(id -u)" = 0 ] || skip "needs root to run the game as the game user and to learn"
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
command -v runuser >/dev/null || skip "no runuser"
GAME=/usr/games/dsda-doom
WAD=/usr/share/games/doom/freedoom2.wad
[ -x "$GAME" ] && [ -f "$WAD" ] || skip "dsda-doom or freedoom is not installed (sh scripts/deps.sh ensure)"
user=hitchbench
[ -n "${SUDO_USER:-}" ] && ! getent passwd hitchbench >/dev/null && user=$SUDO_USER

chmod 755 "$T" "${TMPDIR:-/tmp}" 2>/dev/null
mkdir -p "$T/lists" "$T/home" "$T/out" "$T/bin"
# a copy the game user may run (the checkout may be in a 0700 home)
cp "$P" "$T/bin/" && chmod 755 "$T/bin" "$T/bin/hitchbench-prefetch"
PU="$T/bin/hitchbench-prefetch"
chmod 777 "$T/home" "$T/out"
chmod 755 "$T/lists"
L="$T/lists"
start_xvfb -ac
trap 'kill $xpid 2>/dev/null; pkill -KILL -u "$user" -f "$GAME" 2>/dev/null; rm -rf "$T"' EXIT
# the game's own attract loop: no demo file, no input
play="env HOME=$T/home DISPLAY=:$n SDL_AUDIODRIVER=dummy $GAME -iwad $WAD -nosound -window -geom 320x200"

# --- learn one session (root's learner, the game user's game) ---
runuser -u "$user" -- sh -c "echo \$\$ >'$T/out/pid1'; exec $play" >"$T/game1.log" 2>&1 &
for i in $(seq 50); do [ -s "$T/out/pid1" ] && break; sleep 0.1; done
"$P" learn --pid "$(cat "$T/out/pid1")" --dir "$L" >"$T/learn" 2>"$T/learn.err" &
lpid=$!
sleep 6
kill -KILL "$(cat "$T/out/pid1")"   # the game may take SIGTERM for a menu's quit
for i in $(seq 50); do [ -e "/proc/$(cat "$T/out/pid1")" ] || break; sleep 0.1; done
wait "$lpid" || { cat "$T/learn.err"; fail "learn failed"; }
grep -q "^prefetch learn dsda-doom-.*new list" "$T/learn" || fail "learn: $(cat "$T/learn")"
"$P" show "$GAME" --dir "$L" >"$T/show"
grep -q " $WAD$" "$T/show" || fail "the WAD is not in the list: $(cat "$T/show")"
chmod a+r "$L"/*.list

# --- the WADs out of memory ---
wads=$(grep -o '/[^ ]*\.wad$' "$T/show")
"$P" resident --drop $wads >"$T/r0"
left=$(awk '{ r += $1; t += $2 } END { print (r > t / 20) }' "$T/r0")
[ "$left" = 0 ] || fail "the WADs were not dropped: $(cat "$T/r0")"

# --- run: the game user's game keeps run's pid; the fetch reads the WADs ---
runuser -u "$user" -- sh -c "echo \$\$ >'$T/out/pid2'; exec '$PU' run --dir '$L' --mb 256 \
	--log '$T/out/fetch.log' -- $play" >"$T/game2.log" 2>&1 &
for i in $(seq 50); do [ -s "$T/out/pid2" ] && break; sleep 0.1; done
pid=$(cat "$T/out/pid2")
sleep 3
expect_eq "the game's executable in run's pid" "$(realpath "$GAME")" "$(readlink "/proc/$pid/exe")"
[ "$(stat -c %U "/proc/$pid")" = "$user" ] || fail "the game is not the game user's"
for i in $(seq 100); do [ -s "$T/out/fetch.log" ] && break; sleep 0.1; done
kill -KILL "$pid"
line=$(cat "$T/out/fetch.log")
echo "$line" | grep -q "^prefetch dsda-doom-.*stopped: \(done\|game-exit\); cpu" || fail "fetch: $line"
mb=$(echo "$line" | sed 's/.*: read \([0-9.]*\) MB from.*/\1/')
# freedoom2.wad alone is 28 MB; the game reads some of it itself as it loads
awk -v m="$mb" 'BEGIN { exit !(m >= 1) }' || fail "the fetch read only $mb MB: $line"
# the WAD's pages the list holds (what the game had read of it) are back
kib=$(grep " $WAD$" "$T/show" | awk '{ print int($1) }')
"$P" resident "$WAD" >"$T/r1"
set -- $(cat "$T/r1")
[ "$1" -ge $((kib / 4 * 9 / 10)) ] || fail "only $1 pages of the WAD back, $kib KiB listed: $line"
echo "run: game pid $pid kept; $line"
exit 0
