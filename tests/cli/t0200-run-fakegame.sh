#!/bin/sh
# wall: about 40 s (fake-game runs to their ends)
# timing: frames of a game paced by sleeping, on a machine that may be busy
# The runner end to end on a fake game that presents at a known rate and
# stalls on cue (no X server needed): metrics, run directory, database,
# how a run ends, relaunching, and the whole process tree stopped.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup

# 1. 100 fps, one 300 ms stall 2.5 s in; warm-up 1 s, window 3 s
fake_recipe steady "--fps 100 --stall-at 2.5:300" "warmup = 1" "window = 3" "stop_grace = 1"
hb_run "$T/steady.ini" base
expect_eq "exit status" 0 "$rc"
for f in bench.txt frames.bin result.txt; do
	[ -s "$rundir/$f" ] || fail "run directory lacks $f"
done
[ -e "$rundir/game.log" ] || fail "run directory lacks game.log"
expect_eq status ok "$(value status "$rundir/bench.txt")"
# long_frames RUNDIR: the window's frames over 100 ms (a stall each)
long_frames() {
	"$HB" frames --window "$1" | awk -F'\t' '$1 ~ /^[0-9]/ && $3 == 1 && $2 > 100 { n++ } END { print n + 0 }'
}
# the stall on cue is one; a busy machine may add one of its own (a frame
# over 100 ms): the count is the window's frames over 100 ms, whatever it is
long=$(long_frames "$rundir")
[ "$long" -ge 1 ] || fail "the stall on cue is not in the window's frames"
expect_eq stalls "$long.000000" "$(value stalls "$rundir/result.txt")"
frames=$(value frames "$rundir/result.txt")
frames=${frames%.*}
# 3 s at 100 fps less the stall's 0.3 s: about 270 frames
[ "$frames" -ge 240 ] && [ "$frames" -le 300 ] || fail "frames in window: $frames, expected about 270"
longest=$(value longest_ms "$rundir/result.txt")
awk "BEGIN { exit !($longest >= 300 && $longest < 400) }" || fail "longest_ms $longest"
[ "$(value user "$rundir/bench.txt")" != root ] || fail "the game ran as root"
grep -q "^median steady base (n=1)" "$T/out" || fail "the run's report has no median row"
[ "$(sqlite3 "$T/db.sqlite" "select count(*) from runs")" = 1 ] || fail "not one run in the database"
[ "$(sqlite3 "$T/db.sqlite" "select value from metrics where name='stalls'")" = "$long.0" ] ||
	fail "stalls not in the database"
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
no_fakegame_left

# 2. a looping demo: the game exits after 1.5 s, the recipe relaunches it
rm -rf "$T/runs"
fake_recipe loop "--fps 100 --seconds 1.5" "warmup = 0.5" "window = 3" "relaunch = yes" "" \
	"[reload]" "after_pass_start = 0.3" "why = the fake game's relaunch"
hb_run "$T/loop.ini"
expect_eq "relaunch exit status" 0 "$rc"
passes=$(value passes "$rundir/bench.txt")
[ "$passes" -ge 2 ] || fail "expected 2 or more passes, got $passes"
[ -n "$(value pass.2.start_ns "$rundir/bench.txt")" ] || fail "pass 2 not stamped"
# the recipe's reload rule is kept in bench.txt, and splits the run after
# the recipe is deleted: pass 2 starts in the window
expect_eq "reload.source" "recipe $T/loop.ini:9" "$(value reload.source "$rundir/bench.txt")"
expect_eq "reload.after_pass_start" 0.3 "$(value reload.after_pass_start "$rundir/bench.txt")"
rm "$T/loop.ini"
"$HB" report --format csv "$rundir" >"$T/loop.csv" 2>"$T/err" || fail "report of the loop: $(cat "$T/err")"
n=$(head -n 1 "$T/loop.csv" | tr ',' '\n' | grep -nx reload_n | cut -d: -f1)
reloads=$(sed -n 2p "$T/loop.csv" | cut -d, -f"$n")
[ "$reloads" -ge 1 ] || fail "the recorded rule gave $reloads reload segments in the window"
# the helpers beside the game live through the relaunch: the watcher
# watched the whole run, not only pass 1
watched=$(sed -n 's/^# self .* over \([0-9.]*\) s;.*/\1/p' "$rundir/interference.log")
awk "BEGIN { exit !($watched >= 3) }" || fail "the watcher was stopped at the relaunch (watched $watched s)"
no_fakegame_left

# 3. the game exits early and the recipe does not relaunch: a short run, exit 1
rm -rf "$T/runs"
fake_recipe short "--fps 100 --seconds 2" "warmup = 0.5" "window = 5"
hb_run "$T/short.ini"
expect_eq "short run exit status" 1 "$rc"
expect_eq "short status" short "$(value status "$rundir/bench.txt")"
grep -q "^median short base (n=0)" "$T/out" || fail "a short run must not count in the median"

# 4. end = exit: the game's exit ends the window, and that is fine
rm -rf "$T/runs"
fake_recipe byexit "--fps 100 --seconds 2" "warmup = 0.5" "window = 5" "end = exit"
hb_run "$T/byexit.ini"
expect_eq "end=exit exit status" 0 "$rc"
expect_eq "end_reason" exit "$(value end_reason "$rundir/bench.txt")"

# 5. end = line: a line of output ends it; the line is in game.log, stamped
rm -rf "$T/runs"
fake_recipe byline "--fps 100 --print-at 1.5:LEVEL-DONE" "warmup = 0.5" "window = 5" \
	"end = line" "end_line = ^LEVEL-DONE$"
hb_run "$T/byline.ini"
expect_eq "end=line exit status" 0 "$rc"
expect_eq "end_reason" line "$(value end_reason "$rundir/bench.txt")"
grep -qE '^[0-9]+\.[0-9]{6}	LEVEL-DONE$' "$rundir/game.log" || fail "game.log lacks the stamped line"

# 5b. start_line: the warm-up counts from the line, not from the first
# frame (a menu before the game); a line that never comes fails the run
rm -rf "$T/runs"
fake_recipe bystart "--fps 100 --print-at 2:ROUND-STARTS --stall-at 3.5:300" "warmup = 1" \
	"window = 1" "start_line = ^ROUND-STARTS$"
hb_run "$T/bystart.ini"
expect_eq "start_line exit status" 0 "$rc"
first=$(value first_frame_ns "$rundir/bench.txt")
start=$(value start_line_ns "$rundir/bench.txt")
wstart=$(value window_start_ns "$rundir/bench.txt")
# the line came about 2 s after the first frame; the window starts 1 s later
awk "BEGIN { d = ($start - $first) / 1e9; exit !(d > 1.7 && d < 2.5) }" ||
	fail "start line $(( (start - first) / 1000000 )) ms after the first frame, expected about 2000"
expect_eq "window start" "$((start + 1000000000))" "$wstart"
# the 300 ms stall at 3.5 s is in the window only because it starts late
long=$(long_frames "$rundir")
[ "$long" -ge 1 ] || fail "the stall on cue is not in the start_line window"
expect_eq "stalls in the start_line window" "$long.000000" "$(value stalls "$rundir/result.txt")"
rm -rf "$T/runs"
fake_recipe nostart "--fps 100" "warmup = 0" "window = 1" "load_timeout = 1.5" \
	"start_line = ^NEVER$"
hb_run "$T/nostart.ini"
expect_eq "missing start line exit status" 1 "$rc"
grep -q "no line matching start_line '^NEVER\$' within 1.5 s" "$rundir/bench.txt" ||
	fail "no reason given for the missing start line"
no_fakegame_left

# 6. a game that ignores SIGTERM and leaves a child: killed, all of it
rm -rf "$T/runs"
fake_recipe stubborn "--fps 50 --ignore-term --fork-child" "warmup = 0" "window = 1" "stop_grace = 0.5"
hb_run "$T/stubborn.ini"
expect_eq "stubborn exit status" 0 "$rc"
grep -q "^pass.1.end=.*tree killed" "$rundir/bench.txt" || fail "the tree was not reported killed"
no_fakegame_left

# 7. no frame at all: the load timeout fails the run, and says why
rm -rf "$T/runs"
cat >"$T/noframe.ini" <<EOF
[recipe]
name = noframe
command = /bin/sleep 30
load_timeout = 1
stop_grace = 0.5
EOF
hb_run "$T/noframe.ini"
expect_eq "no-frame exit status" 1 "$rc"
expect_eq "no-frame status" failed "$(value status "$rundir/bench.txt")"
grep -q "no frame within 1 s" "$rundir/bench.txt" || fail "no reason given"
pgrep -f "/bin/sleep 30" >/dev/null && fail "sleep was left running"

# 8. a variant: files seeded into HOME, the working directory, env
# overrides, all seen by the game user (the prepare step checks them)
rm -rf "$T/runs"
echo seeded >"$T/fake.cfg"
fake_recipe seeded "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5" \
	"file = .config/fake/fake.cfg fake.cfg" "workdir = run" "env = MODE=recipe" \
	"prepare = /bin/sh -c 'test \"\$(cat .config/fake/fake.cfg)\" = seeded && test \"\$MODE\" = variant && test \"\$(id -u)\" != 0 && touch run/written && mkdir .cache && touch .cache/shaders && head -c 17000000 /dev/zero >big.bin'" \
	"[variant v1]" "env = MODE=variant"
hb_run "$T/seeded.ini" v1
expect_eq "seeded exit status" 0 "$rc"
expect_eq "seeded status" ok "$(value status "$rundir/bench.txt")"
grep -q "^file.1=.config/fake/fake.cfg $(sha256sum "$T/fake.cfg" | cut -d' ' -f1)$" "$rundir/bench.txt" ||
	fail "the seeded file's hash is not in bench.txt"
grep -q "^env=MODE=variant$" "$rundir/bench.txt" || fail "the variant's env is not recorded"
expect_eq "staging" /dev/shm "$(value staging "$rundir/bench.txt")"
# HOME as the game left it, without caches and files over 16 MiB
[ -f "$rundir/home/.config/fake/fake.cfg" ] && [ -f "$rundir/home/run/written" ] ||
	fail "the game's HOME was not kept in the run directory"
[ ! -e "$rundir/home/.cache" ] || fail "HOME/.cache was kept"
[ ! -e "$rundir/home/big.bin" ] || fail "a file over 16 MiB was kept"
expect_eq "home_skipped" big.bin "$(value home_skipped "$rundir/bench.txt")"

# 9. a looping game whose second pass dies at once must not be started
# over and over: it fails, naming the pass (the fake game presents only on
# its first launch: a marker file in HOME says it already ran)
rm -rf "$T/runs"
fake_recipe crashloop "--fps 100 --seconds 1" "warmup = 0" "window = 5" "relaunch = yes" "stop_grace = 0.5"
sed -i "s|^command = .*|command = /bin/sh -c 'if [ -e ran ]; then exit 3; fi; touch ran; exec $T/game/fakegame --fps 100 --seconds 1'|" "$T/crashloop.ini"
hb_run "$T/crashloop.ini"
expect_eq "crash loop exit status" 1 "$rc"
expect_eq "crash loop status" failed "$(value status "$rundir/bench.txt")"
grep -q "^status_detail=pass 2 exited without a frame" "$rundir/bench.txt" || fail "crash loop: $(value status_detail "$rundir/bench.txt")"
expect_eq "crash loop passes" 2 "$(value passes "$rundir/bench.txt")"

# 10. a noexec /dev/shm (hardened machines) cannot hold the hook: the stage
# goes to $TMPDIR instead (in a mount namespace of its own, so nothing else
# on this machine sees the remount)
if unshare -m true 2>/dev/null; then
	rm -rf "$T/runs"
	rc=0
	unshare -m sh -c 'mount -o remount,noexec /dev/shm && exec "$@"' sh \
		"$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/steady.ini" >"$T/out" 2>"$T/err" || rc=$?
	rundir=$(run_dirs "$T/runs" | tail -n 1)
	rundir=${rundir%/}
	expect_eq "noexec /dev/shm exit status" 0 "$rc"
	expect_eq "staging with a noexec /dev/shm" "$TMPDIR" "$(value staging "$rundir/bench.txt")"
	[ "$(value frames_recorded "$rundir/bench.txt")" -gt 100 ] || fail "no frames with the stage in \$TMPDIR"
else
	echo "note: cannot make a mount namespace here: the noexec /dev/shm case is not tested" >&2
fi
exit 0
