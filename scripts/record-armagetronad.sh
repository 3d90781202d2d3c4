#!/bin/sh
# Makes the Armagetron Advanced recording that recipes/armagetronad.ini
# plays back: the game's own debug recording (--record) of a local game of
# five AIs, watched by a spectator, started from the menu by hitchbench's
# XTest input driver. The AIs draw from an unseeded random generator, so
# every recording plays other rounds; the recording itself replays the same
# rounds every time (--playback), which is why one is kept in the project
# (gamedb/armagetronad/demo/) and this script is how it was made.
#
#   scripts/record-armagetronad.sh [OUT [SECONDS]]
#
#   OUT       where the recording goes, zstd-compressed
#             (default gamedb/armagetronad/demo/ai-rounds.rec.zst)
#   SECONDS   how long to record after the game has started (default 100)
#   HB_BUILD  where hitchbench-input is (default build)
#   DISPLAY_N the Xvfb display number to use (default 97)
#
# It records with the recipe's default settings (high detail, a 1280x720
# window) in var/user.cfg, as the recipe seeds them: a playback with
# --benchmark renders every recorded frame, so a recording made at the
# default's pace plays back at it for about as long as it was recorded.
# The screen and the detail are not in the recording: the recipe's
# variants still apply. The game runs as the unprivileged user hitchbench
# (scripts/deps.sh creates it) when this runs as root, never as root.
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-gamedb/armagetronad/demo/ai-rounds.rec.zst}
SECONDS_REC=${2:-100}
HB_BUILD=${HB_BUILD:-build}
N=${DISPLAY_N:-97}
CFG=gamedb/armagetronad/config

die() { echo "record-armagetronad: $*" >&2; exit 1; }
[ -x "$HB_BUILD/hitchbench-input" ] || die "no $HB_BUILD/hitchbench-input: run make first"
[ -x /usr/games/armagetronad ] || die "armagetronad is not installed (apt-get install armagetronad)"
command -v Xvfb >/dev/null || die "Xvfb is not installed"
command -v zstd >/dev/null || die "zstd is not installed"
case $SECONDS_REC in ''|*[!0-9]*) die "SECONDS must be a whole number, not '$SECONDS_REC'";; esac

tmp=$(mktemp -d /tmp/hb-record-armagetronad.XXXXXX)
xpid= gpid=
cleanup() {
	[ -n "$gpid" ] && kill "$gpid" 2>/dev/null || :
	[ -n "$xpid" ] && kill "$xpid" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$tmp/home/.armagetronad"
cp "$CFG/autoexec.cfg" "$tmp/home/.armagetronad/autoexec.cfg"
mkdir -p "$tmp/home/.armagetronad/var"
cat "$CFG/screen-1280x720.cfg" "$CFG/detail-high.cfg" >"$tmp/home/.armagetronad/var/user.cfg"

# as root the game runs as hitchbench, else as whoever runs this
run_as=
if [ "$(id -u)" = 0 ]; then
	id hitchbench >/dev/null 2>&1 || die "no user hitchbench (scripts/deps.sh creates it)"
	chown -R hitchbench: "$tmp/home"
	chmod 755 "$tmp"
	run_as="setpriv --reuid=hitchbench --regid=hitchbench --init-groups"
fi

Xvfb ":$N" -screen 0 1280x720x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xpid=$!
i=0
until [ -e "/tmp/.X11-unix/X$N" ]; do
	i=$((i + 1))
	[ $i -le 100 ] || die "Xvfb :$N did not start: $(cat "$tmp/xvfb.log")"
	kill -0 "$xpid" 2>/dev/null || die "Xvfb :$N exited: $(cat "$tmp/xvfb.log")"
	sleep 0.1
done

# shellcheck disable=SC2086
$run_as env -i HOME="$tmp/home" PATH=/usr/bin:/bin DISPLAY=":$N" SDL_AUDIODRIVER=dummy \
	stdbuf -oL /usr/games/armagetronad -w --record "$tmp/home/record.rec" \
	>"$tmp/game.log" 2>&1 &
gpid=$!

# Into a game from the menu: Play Game, Local Game (the pointer moves
# first: see gamedb/armagetronad/README.md). The menu was up within 1 s of
# the launch here; the recording ran uncapped, and every menu frame it
# holds is one the playback renders before the first round, so the wait is
# kept short.
"$HB_BUILD/hitchbench-input" --driver xtest --game-log "$tmp/game.log" --display ":$N" \
	--name "hitchbench input record" -- \
	"wait 1" "move 100 100" "wait 0.3" "key Return" "wait 0.4" "key Down" "wait 0.2" "key Return" \
	>"$tmp/input.log" 2>&1 || die "the input driver failed: $(tail -3 "$tmp/input.log")"
i=0
until grep -q 'NEW_ROUND' "$tmp/game.log"; do
	i=$((i + 1))
	[ $i -le 300 ] || die "no round started within 30 s of the menu keys: $tmp/game.log says $(tail -3 "$tmp/game.log")"
	sleep 0.1
done
sleep "$SECONDS_REC"
kill -TERM "$gpid"
wait "$gpid" || :
gpid=
rounds=$(grep -c 'NEW_ROUND' "$tmp/game.log" || :)

mkdir -p "$(dirname "$OUT")"
zstd -q -19 -f "$tmp/home/record.rec" -o "$OUT"
echo "record-armagetronad: $OUT: $rounds rounds started in ${SECONDS_REC} s of play," \
	"$(wc -c <"$tmp/home/record.rec") bytes, $(wc -c <"$OUT") compressed"
