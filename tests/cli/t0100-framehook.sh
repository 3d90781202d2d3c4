#!/bin/sh
# The frame hook (harness/framehook*.c) on its own, without the runner:
# preloaded into the fake game and the present loop, it must record each
# present once (an SDL present nests a GLX one), lose nothing when the game
# is killed, and never disturb a game it cannot record for.
. "$(dirname "$0")/../lib.sh"

# How many of N presents the hook times: in each block of 64 slots, the one
# at offset 37 * block mod 64 (harness/framehook-record.c).
expected_samples() {
	awk -v n="$1" 'BEGIN { c = 0; for (b = 0; 64 * b < n; b++) if (64 * b + (37 * b) % 64 < n) c++; print c }'
}

HOOK=$HB_BUILD/hitchbench-hook.so
MKFRAMES=$HB_BUILD/tests/mkframes
for f in "$HOOK" "$HB_BUILD/tests/fakegame" "$HB_BUILD/tests/present" "$HB_BUILD/tests/libhbstub.so" "$MKFRAMES"; do
	[ -e "$f" ] || skip "'$f' is not built (make tests)"
done

game_pid=
trap '[ -n "$game_pid" ] && kill -9 "$game_pid" 2>/dev/null; rm -rf "$T"' EXIT

# new_frames NAME CAPACITY: an empty frame file $T/NAME, as the runner makes
new_frames() {
	f=$T/$1
	"$MKFRAMES" --capacity "$2" "$f" || fail "mkframes cannot create '$f'"
}
# hooked COMMAND...: COMMAND recording into $f
hooked() {
	env HITCHBENCH_FRAMES="$f" LD_PRELOAD="$HOOK" "$@"
}
# read_frames: $f.stat (what the analysis would read) and $f.dump (the slots in order)
read_frames() {
	"$MKFRAMES" --stat "$f" >"$f.stat" || fail "mkframes --stat '$f'"
	"$MKFRAMES" --dump "$f" >"$f.dump" || fail "mkframes --dump '$f'"
}
# expect_range WHAT MIN MAX ACTUAL
expect_range() {
	[ -n "$4" ] && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ] || fail "$1: expected $2..$3, got '$4'"
}
# dump_ok SOURCE: finished records in slot order have rising times, one pid, one source
dump_ok() {
	awk -v src="$1" '
		$1 == 0 { next }
		prev != "" && $1 <= prev { print "time not rising at slot " NR; exit 1 }
		pid != "" && $2 != pid { print "pid changes at slot " NR; exit 1 }
		$3 != src { print "source " $3 " at slot " NR; exit 1 }
		{ prev = $1; pid = $2 }' "$f.dump" >"$f.check" || fail "$f: $(cat "$f.check")"
}

# 1. One second at 100 fps: about 100 frames, each once and from
#    SDL_GL_SwapWindow (the stub's nested glXSwapBuffers is not a frame).
new_frames game 10000
hooked "$HB_BUILD/tests/fakegame" --fps 100 --seconds 1 >"$T/out" 2>"$T/err" || fail "fakegame under the hook failed"
[ -s "$T/err" ] && fail "something printed: $(cat "$T/err")"
read_frames
n=$(value records "$f.stat")
expect_range "frames in 1 s at 100 fps" 80 101 "$n"
expect_eq "frames from SDL_GL_SwapWindow" "$n" "$(value src_SDL_GL_SwapWindow "$f.stat")"
expect_eq unfinished 0 "$(value unfinished "$f.stat")"
expect_eq dropped 0 "$(value dropped "$f.stat")"
expect_eq "hooked processes" 1 "$(value hooked_procs "$f.stat")"
expect_eq "cost samples (one present in 64)" "$(expected_samples "$n")" "$(value cost_samples "$f.stat")"
dump_ok SDL_GL_SwapWindow

# 2. Exactly: 1000 nested presents are 1000 frames, and the nested call ran.
#    The hook's dlsym leaves RTLD_NEXT meaning "after the caller", or an
#    interposer preloaded after it would find itself.
new_frames exact 2000
out=$(hooked "$HB_BUILD/tests/present" --stub --frames 1000) || fail "present under the hook failed"
case $out in *" stub_glx_swaps=1000 "*) ;; *) fail "the stub's glXSwapBuffers did not run once a present: $out" ;; esac
case $out in *" stub_rtld_next=ok"*) ;; *) fail "dlsym(RTLD_NEXT) through the hook searches after the hook: $out" ;; esac
read_frames
expect_eq "frames of 1000 presents" 1000 "$(value records "$f.stat")"
expect_eq "frames from SDL_GL_SwapWindow" 1000 "$(value src_SDL_GL_SwapWindow "$f.stat")"
expect_eq "cost samples" "$(expected_samples 1000)" "$(value cost_samples "$f.stat")"
dump_ok SDL_GL_SwapWindow

# 3. SIGKILL mid-run: every frame presented so far is in the file; at most
#    the present the kill cut is unfinished. (env execs the game: $! is it.)
new_frames killed 10000
env HITCHBENCH_FRAMES="$f" LD_PRELOAD="$HOOK" "$HB_BUILD/tests/fakegame" --fps 100 --print-at 0.3:ready \
	>"$T/out" 2>"$T/err" &
game_pid=$!
i=0
while ! grep -q ready "$T/out" && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
grep -q ready "$T/out" || fail "fakegame did not reach 0.3 s"
kill -9 "$game_pid"
wait "$game_pid" 2>/dev/null
game_pid=
read_frames
n=$(value records "$f.stat")
u=$(value unfinished "$f.stat")
expect_range "frames before SIGKILL (0.3 s or more at 100 fps)" 10 100000 "$n"
expect_range "unfinished records" 0 1 "$u"
expect_eq "slots reserved" $((n + u)) "$(wc -l <"$f.dump")"
dump_ok SDL_GL_SwapWindow

# 4. Without HITCHBENCH_FRAMES the hook is silent and the game runs as ever.
rc=0
out=$(env -u HITCHBENCH_FRAMES LD_PRELOAD="$HOOK" "$HB_BUILD/tests/fakegame" --fps 100 --seconds 0.3 \
	--print-at 0.1:alive --exit-code 3 2>"$T/err") || rc=$?
expect_eq "exit status without a frame file" 3 "$rc"
expect_eq "output without a frame file" alive "$out"
[ -s "$T/err" ] && fail "the hook printed without a frame file: $(cat "$T/err")"

# 5. Not a frame file, no file, a frame file shorter than its capacity (a
#    store past its end would be SIGBUS): one line from the hook, nothing
#    written, the game unharmed.
head -c 8192 /dev/urandom >"$T/garbage"
new_frames short 1000
truncate -s 1024 "$f"
cp "$T/garbage" "$T/garbage.orig"
cp "$T/short" "$T/short.orig"
for f in "$T/garbage" "$T/missing" "$T/short"; do
	rc=0
	out=$(hooked "$HB_BUILD/tests/fakegame" --fps 100 --seconds 0.3 --print-at 0.1:alive 2>"$T/err") || rc=$?
	expect_eq "exit status with HITCHBENCH_FRAMES=$f" 0 "$rc"
	expect_eq "output with HITCHBENCH_FRAMES=$f" alive "$out"
	expect_eq "stderr lines with HITCHBENCH_FRAMES=$f" 1 "$(wc -l <"$T/err")"
	grep -q '^hitchbench-hook: ' "$T/err" || fail "not the hook's line: $(cat "$T/err")"
done
cmp -s "$T/garbage" "$T/garbage.orig" || fail "the hook wrote into a file that is not a frame file"
cmp -s "$T/short" "$T/short.orig" || fail "the hook wrote into a short frame file"
[ -e "$T/missing" ] && fail "the hook created a missing frame file"

# 6. A full file keeps the first CAPACITY presents; the rest are dropped,
#    counted once (the hook adds them to the header's dropped, and the
#    header's count runs past the capacity by the same presents).
new_frames full 600
hooked "$HB_BUILD/tests/present" --stub --frames 1000 >/dev/null || fail "present with a full frame file failed"
read_frames
expect_eq "frames kept in a file for 600" 600 "$(value records "$f.stat")"
expect_eq "frames dropped" 400 "$(value dropped "$f.stat")"
exit 0
