#!/bin/sh
# cpu: heavy, about 30 s (a real game)
# MangoHud's own summary against ours: dsda-doom (OpenGL, llvmpipe) plays
# Freedoom's DEMO2 under Xvfb with Debian's MangoHud logging every frame;
# the four summary numbers hitchbench computes from MangoHud's CSV
# (tests/tools/mhsummary -> analysis/metrics/mangohud-summary.c, with the
# version and frame time unit the importer tells from the log: 0.6.8's formula,
# whole microseconds) must print exactly what MangoHud wrote
# in its _summary.csv. The game runs as the unprivileged user when run as
# root, as the runner would run it.
# timing: how many frames a GL game draws in the log's seconds
. "$(dirname "$0")/../lib.sh"
need_game_user
command -v xvfb-run >/dev/null || skip "xvfb-run is not installed (sh scripts/deps.sh ensure)"
command -v mangohud >/dev/null || skip "mangohud is not installed (sh scripts/deps.sh ensure)"
[ -x /usr/games/dsda-doom ] || skip "dsda-doom is not installed (sh scripts/deps.sh ensure)"
WAD=/usr/share/games/doom/freedoom2.wad
[ -r "$WAD" ] || skip "freedoom is not installed (sh scripts/deps.sh ensure)"

mkdir -p "$T/logs" "$T/home"
"$HB_BUILD/hitchbench-wadlump" "$WAD" DEMO2 "$T/demo2.lmp" || fail "cannot extract DEMO2"
# The X server runs as root (xvfb-run); only the game runs as the game user,
# with a copy of the server's cookie it can read.
as_user=
if [ "$(id -u)" = 0 ]; then
	chown -R hitchbench "$T"
	chmod 755 "$T"
	chmod o+x "$(dirname "$T")"  # the per-test TMPDIR: let the game user reach $T
	as_user="runuser -u hitchbench --"
fi

# 0.6.8's option names: autostart_log=SECONDS before logging starts,
# log_duration=SECONDS, log_interval=0 logs every frame (the default is 100 ms);
# 12 s: beside a busy loop on every CPU the GL demo draws some 8 fps here,
# and the check wants 50 frames (the demo plays far longer than the log)
cfg="output_folder=$T/logs,autostart_log=1,log_duration=12,log_interval=0,no_display"
cd "$T"
export T as_user cfg WAD
# the game ends with the demo or is stopped by timeout, well after the log
timeout 40 xvfb-run -a -s "-screen 0 1280x720x24" sh -c '
	cp "$XAUTHORITY" "$T/xauth" && chmod 644 "$T/xauth"
	exec $as_user env HOME="$T/home" XAUTHORITY="$T/xauth" SDL_AUDIODRIVER=dummy \
		MANGOHUD_CONFIG="$cfg" mangohud --dlsym /usr/games/dsda-doom -iwad "$WAD" \
		-timedemo demo2.lmp -nosound -window -geom 1280x720 -vidmode gl' >"$T/game.log" 2>&1

summary=$(ls "$T"/logs/*_summary.csv 2>/dev/null | head -n 1)
[ -n "$summary" ] || cat "$T/game.log" >&2
if [ -z "$summary" ]; then
	tail -n 20 "$T/game.log" >&2
	skip "MangoHud wrote no log here (see the game's output above)"
fi
log=${summary%_summary.csv}.csv
[ -s "$log" ] || fail "MangoHud wrote a summary but no log"
rows=$(awk 'f { n++ } /^fps,/ { f = 1 } END { print n + 0 }' "$log")
[ "$rows" -ge 50 ] || fail "too few logged frames for a meaningful check: $rows"

want=$(sed -n 2p "$summary" | cut -d, -f1-4)
got=$("$HB_BUILD/tests/mhsummary" "$log") || fail "mhsummary failed on $log"
echo "MangoHud wrote: $want; hitchbench: $got ($rows frames)"
expect_eq "0.1% min, 1% min, 97%, average" "$want" "$got"
exit 0
