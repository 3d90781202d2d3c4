#!/bin/sh
# The staging directory's door (docs/security.md): the game, as its own
# user, cannot make a name in the staging directory itself (where root's
# recorders make their live records and the runner its notes), and what
# it leaves in HOME is kept without following a link: a link to a file
# only root may read, and a directory swapped for a link to /etc, stay
# links in the run directory, and the secret's bytes are nowhere in it.
# The fd-relative copy itself is unit-tested (tests/unit/test-util.c).
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "the game runs as another user only when hitchbench runs as root"
need_game_user
fake_setup
secret=$T/secret
umask 077
echo "hitchbench-secret-$$" >"$secret"
umask 022
# the prepare step runs as the game user in its fresh HOME, in the staging
# directory: what it may and may not do there is what the game may
fake_recipe door "--fps 100" "warmup = 0.5" "window = 1" "stop_grace = 1" \
	"prepare = sh -c 'if touch ../planted 2>/dev/null; then echo planted; else echo refused; fi; ln -s $secret secret-link; ln -s /etc etc-link; mkdir -p logs; ln -s $secret logs/log.csv'"
hb_run "$T/door.ini" base
expect_eq "exit status ($(tail -3 "$T/err"))" 0 "$rc"
grep -q '^refused$' "$rundir/prepare.log" || fail "the game made a name in the staging directory: $(cat "$rundir/prepare.log")"
[ -L "$rundir/home/secret-link" ] || fail "the link to the secret was not kept as a link"
[ -L "$rundir/home/etc-link" ] || fail "the link to /etc was not kept as a link"
[ -L "$rundir/home/logs/log.csv" ] || fail "the linked log was not kept as a link"
if grep -rqs "hitchbench-secret-$$" "$rundir" "$batchdir"; then
	fail "the secret's bytes were copied into the results: $(grep -rls "hitchbench-secret-$$" "$rundir" "$batchdir")"
fi
[ -z "$(dead_staging)" ] || fail "a staging directory was left: $(dead_staging)"
no_fakegame_left
exit 0
