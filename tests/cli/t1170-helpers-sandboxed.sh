#!/bin/sh
# lane: alone (the helpers are found by their pids in the machine's namespace; the recorders and the watcher follow the game by the kernel's own pids)
# wall: about 12 s (one run of the fake game with four root helpers beside it)
# Root's helpers narrowed after their setup (common/system/sandbox.h,
# docs/man/hitchbench-*.1 PRIVILEGES): while a run of the fake game plays,
# each helper's /proc/PID/status says NoNewPrivs 1, its effective,
# permitted and bounding sets are the capabilities its man page names (the
# stall recorder: CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, CAP_SYS_ADMIN; the
# profile recorder: CAP_DAC_READ_SEARCH, CAP_PERFMON,
# CAP_CHECKPOINT_RESTORE; the interference watcher: CAP_DAC_READ_SEARCH,
# CAP_SYS_PTRACE; the sensor sampler: none) and its ambient set is empty;
# its log says the same in its "sandbox: strict:" line, with read_only=yes:
# in its mount namespace the tree is read-only (a file made there fails with
# EROFS) but for the run directory the recorders write their records into.
# bench.txt keeps each one's line (helper.NAME.sandbox). The game cannot
# touch the recorders' live records (the staging directory is root's), and
# were they swapped mid-run for other files all the same, each recorder
# still packs its own record; a symlink at a live record's name is refused,
# its target untouched. The helpers
# still do their work: each one's line in bench.txt is its cost, not a
# failure.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "the helpers narrow strictly as root only (unprivileged, tests/unit/test-sandbox.c checks the best effort)"
need_game_user
fake_setup
fake_recipe play "--fps 60" "warmup = 0.5" "window = 5" "stop_grace = 0.5"

# mask CAP...: the capabilities' bits as /proc/PID/status prints them
mask() {
	m=0
	for c in "$@"; do
		m=$((m | (1 << c)))
	done
	printf '%016x\n' "$m"
}
DAC_READ_SEARCH=2 SYS_PTRACE=19 SYS_ADMIN=21 PERFMON=38 CHECKPOINT_RESTORE=40

# before they narrow, as root, the recorders make their live records in the
# run's staging directory: never through a symlink put at the name
printf "root's file\n" >"$T/victim"
ln -s "$T/victim" "$T/link"
rc=0; "$HB_BUILD/hitchbench-profrec" --out "$T/p.rec.zst" --live "$T/link" --duration 1 2>"$T/lerr" || rc=$?
expect_eq "profrec's live record through a symlink: exit" 1 "$rc"
rc=0; "$HB_BUILD/hitchbench-stallrec" --out "$T/s.rec.zst" --live "$T/link" --duration 1 2>"$T/lerr" || rc=$?
expect_eq "stallrec's live record through a symlink: exit" 1 "$rc"
"$HB_BUILD/hitchbench-stallrec" --out "$T/s.rec.zst" --live "$T/s.live" --bpf "$T/w.rec.zst" --bpf-live "$T/link" \
	--duration 1 2>"$T/lerr" || true
expect_eq "the symlink's target" "root's file" "$(cat "$T/victim")"

hb_run_bg --no-quieting "$T/play.ini" base --switches "STALLS=1+PROFILE=1"
rundir=
for i in $(seq 1 100); do
	rundir=$(ls -d "$T"/runs/*/.*.tmp 2>/dev/null | head -n 1)
	[ -n "$rundir" ] && break
	sleep 0.1
done
[ -n "$rundir" ] || fail "no run directory: $(cat "$T/err")"

# check NAME LOG WANT_MASK WANT_NAMES: the helper's status while it runs
check() {
	name=$1 log=$rundir/$2 want=$3 names=$4
	"$HB_BUILD/tests/waitline" "$log" "sandbox: strict: " 1 20 ||
		fail "$name said nothing of its sandbox in 20 s: $(cat "$log" 2>/dev/null)"
	grep -q "sandbox: strict: no_new_privs=1 effective=$names permitted=$names bounding=$names ambient=none read_only=yes" "$log" ||
		fail "$name's log: $(grep sandbox "$log")"
	hpid=$(pgrep -f "hitchbench-$name .*$T/runs" | head -n 1)
	[ -n "$hpid" ] || fail "no $name process beside the game"
	st=/proc/$hpid/status
	expect_eq "$name NoNewPrivs" 1 "$(awk '$1 == "NoNewPrivs:" { print $2 }' "$st")"
	for set in CapEff CapPrm CapBnd; do
		expect_eq "$name $set" "$want" "$(awk -v k="$set:" '$1 == k { print $2 }' "$st")"
	done
	expect_eq "$name CapAmb" 0000000000000000 "$(awk '$1 == "CapAmb:" { print $2 }' "$st")"
	# its tree is read-only, even to root's full capabilities in its mount namespace
	rc=0
	nsenter --mount="/proc/$hpid/ns/mnt" touch "$T/written-by-$name" 2>"$T/ro" || rc=$?
	[ "$rc" != 0 ] && grep -q "Read-only file system" "$T/ro" ||
		fail "$name's mount namespace let a file be made in $T: $(cat "$T/ro")"
	echo "$name: $(grep -E '^(NoNewPrivs|CapEff|CapBnd):' "$st" | tr '\t\n' '  ')"
}
check stallrec stallrec.log "$(mask $DAC_READ_SEARCH $SYS_PTRACE $SYS_ADMIN)" dac_read_search,sys_ptrace,sys_admin
check profrec profrec.log "$(mask $DAC_READ_SEARCH $PERFMON $CHECKPOINT_RESTORE)" dac_read_search,perfmon,checkpoint_restore
check intfwatch intfwatch.log "$(mask $DAC_READ_SEARCH $SYS_PTRACE)" dac_read_search,sys_ptrace
check sampler sampler.log 0000000000000000 none
# the stall recorder's run directory stays writable for its record
nsenter --mount="/proc/$(pgrep -f "hitchbench-stallrec .*$T/runs" | head -n 1)/ns/mnt" touch "$rundir/.sandbox-probe" ||
	fail "the stall recorder's run directory is not writable in its mount namespace"
rm -f "$rundir/.sandbox-probe"

# the staging directory is root's: the game's user cannot move a live
# record (docs/security.md); and a file put in place of each all the same
# (here by root) is never read: the recorders read back their own files
# through their fds (their records stay theirs, not failures)
stage=$(staging_of "$pid")
[ -n "$stage" ] || fail "no staging directory of runner $pid"
game_user=$(stat -c %U "$stage/home")
[ "$game_user" != root ] || fail "the game's HOME is root's"
if runuser -u "$game_user" -- mv "$stage/stalls.live" "$stage/stalls.live.moved" 2>/dev/null; then
	fail "the game's user could move a live record in the staging directory $stage"
fi
for f in stalls.live profile.live; do
	mv "$stage/$f" "$stage/$f.moved" && printf 'not a record\n' >"$stage/$f" ||
		fail "could not replace $stage/$f"
done

wait "$pid"
rundir=$(run_dirs "$T/runs" | tail -n 1)
[ -n "$rundir" ] || fail "no finished run: $(cat "$T/err")"
b=$rundir/bench.txt
for key in stallrec profile; do
	case "$(value $key "$b")" in
	'' | *failed*) fail "bench.txt $key: '$(value $key "$b")'" ;;
	esac
done
# bench.txt keeps what each one kept, as its log said it
for name in stallrec:dac_read_search,sys_ptrace,sys_admin profrec:dac_read_search,perfmon,checkpoint_restore \
	intfwatch:dac_read_search,sys_ptrace sampler:none; do
	case "$(value "helper.${name%%:*}.sandbox" "$b")" in
	"strict: no_new_privs=1 effective=${name#*:} "*" read_only=yes"*) ;;
	*) fail "bench.txt helper.${name%%:*}.sandbox: '$(value "helper.${name%%:*}.sandbox" "$b")'" ;;
	esac
done
expect_eq "stallrec_record" stalls.rec.zst "$(value stallrec_record "$b")"
expect_eq "profile_record" profile.rec.zst "$(value profile_record "$b")"
[ -n "$(value sensors "$b")" ] || fail "bench.txt has no sensors line"
case "$(value sensors "$b")" in *failed*) fail "bench.txt sensors: '$(value sensors "$b")'" ;; esac
no_fakegame_left
