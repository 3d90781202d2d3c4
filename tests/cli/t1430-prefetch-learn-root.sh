#!/bin/sh
# What learn reads of a game, on a made-up /proc under HITCHBENCH_ROOT: the
# game's maps (a library, a path with a space; not the deleted file, the
# device or the heap), its open files (fd links; not a socket or /dev), a
# child found by its parent pid, its executable from proc/PID/exe; it ends
# when the game and its child are zombies. Then a fetch under the same root
# stops at once when MemAvailable is under the reserve.
. "$(dirname "$0")/../lib.sh"
P="$HB_BUILD/hitchbench-prefetch"
[ -x "$P" ] || fail "no $P"
R="$T/root"
F="$T/files"
mkdir -p "$R/proc/4242/fd" "$R/proc/4243/fd" "$F"
for f in lib.so "my map.dat" opened.cfg child.pak gone.dat; do
	echo "$f" >"$F/$f"
done
cp /bin/true "$F/game"
cat "$F"/* >/dev/null
stat_line() { # PID PPID STATE
	echo "$1 (game) $3 $2 $1 $1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 0 0"
}
stat_line 4242 1 S >"$R/proc/4242/stat"
stat_line 4243 4242 S >"$R/proc/4243/stat"
cat >"$R/proc/4242/maps" <<EOF
55d0c0a00000-55d0c0a2e000 r--p 00000000 fe:01 11                         $F/game
55d0c1c8b000-55d0c1cac000 rw-p 00000000 00:00 0                          [heap]
7f1c2a000000-7f1c2a021000 r-xp 00000000 fe:01 12                         $F/lib.so
7f1c2b400000-7f1c2b6d3000 r--p 00000000 fe:01 13                         $F/my map.dat
7f1c2c200000-7f1c2c300000 r--p 00000000 fe:01 14                         $F/gone.dat (deleted)
7f1c2d000000-7f1c2d001000 rw-s 100000000 00:06 530                       /dev/dri/renderD128
EOF
: >"$R/proc/4243/maps"
ln -s "$F/game" "$R/proc/4242/exe"
ln -s "$F/opened.cfg" "$R/proc/4242/fd/3"
ln -s "socket:[1234]" "$R/proc/4242/fd/4"
ln -s /dev/null "$R/proc/4242/fd/0"
ln -s "$F/child.pak" "$R/proc/4243/fd/5"
L="$T/lists"

HITCHBENCH_ROOT="$R" "$P" learn --pid 4242 --dir "$L" >"$T/learn" 2>"$T/err" &
lp=$!
sleep 1.5
stat_line 4242 1 Z >"$R/proc/4242/stat"
stat_line 4243 4242 Z >"$R/proc/4243/stat"
wait "$lp" || { cat "$T/err"; fail "learn failed"; }
grep -q "^prefetch learn game-.*2 processes watched" "$T/learn" || fail "learn: $(cat "$T/learn")"
"$P" show "$F/game" --dir "$L" | sed -n 's/.*misses [0-9]*  //p' >"$T/learnt"
printf '%s\n' "$F/game" "$F/lib.so" "$F/my map.dat" "$F/opened.cfg" "$F/child.pak" >"$T/want"
diff "$T/want" "$T/learnt" >"$T/diff" || { cat "$T/diff"; fail "the learnt files"; }

# a fetch with too little memory free reads nothing
printf 'MemTotal: 4000000 kB\nMemAvailable: 40000 kB\n' >"$R/proc/meminfo"
printf 'allocstall_normal 0\npgscan_direct 0\npswpout 0\n' >"$R/proc/vmstat"
HITCHBENCH_ROOT="$R" "$P" fetch --exe "$F/game" --dir "$L" >"$T/f"
grep -q "read 0.0 MB .*budget 0.0 MB.*stopped: no-budget" "$T/f" || fail "no budget: $(cat "$T/f")"
exit 0
