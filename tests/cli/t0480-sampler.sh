#!/bin/sh
# hitchbench-sampler end to end: ~2 s on a fixture root (node_exporter's
# sysfs and procfs trees plus the hand-made cpufreq tree) and on this
# machine's real root; the file read back with zstdcat (header, rows,
# trailer); SIGTERM ends it with exit 0 and a trailer; the thermal guard
# reached, timed out and without sensors.
. "$(dirname "$0")/../lib.sh"
S=$HB_BUILD/hitchbench-sampler
[ -x "$S" ] || fail "'$S' is not built"
command -v zstdcat >/dev/null || skip "zstdcat is not installed (apt-get install zstd)"
[ -d "$HB_TESTDATA/sysfs/node_exporter/sys" ] || fail "no node_exporter sysfs tree in $HB_TESTDATA"

# The fixture root. Its symlinks are links in the checkout; a copy made
# without them (core.symlinks=false) holds small files naming the target:
# those become links again, as sysfs has them.
R=$T/root
mkdir -p "$R"
cp -R "$HB_TESTDATA/sysfs/node_exporter/sys" "$HB_TESTDATA/procfs/node_exporter/proc" "$R/"
cp -R "$HB_FIXTURES/sysfs-cpufreq/sys/." "$R/sys/"
chmod -R u+w "$R"
find "$R/sys" -type f -size -300c | while read -r f; do
	target=$(cat "$f")
	case $target in
	../*) [ "$(wc -l <"$f")" = 0 ] && rm "$f" && ln -s "$target" "$f" ;;
	esac
done

# check_file FILE: the format, the columns declared, rows and trailer
check_file() {
	zstdcat "$1" >"$T/text" || fail "zstdcat cannot read $1"
	expect_eq "first line" "# hitchbench sensors 1" "$(head -n 1 "$T/text")"
	grep -q '^# clock_pair [0-9]* [0-9]*$' "$T/text" || fail "no clock_pair in $1"
	grep -q '^# period_ms ' "$T/text" || fail "no period in $1"
	ncol=$(grep -c '^# column ' "$T/text")
	header=$(grep '^t_ns' "$T/text")
	[ -n "$header" ] || fail "no header row in $1"
	expect_eq "header fields" $((ncol + 1)) "$(printf '%s\n' "$header" | awk -F '\t' '{ print NF }')"
	rows=$(grep -c '^[0-9]' "$T/text")
	bad=$(grep '^[0-9]' "$T/text" | awk -F '\t' -v n=$((ncol + 1)) 'NF != n' | wc -l)
	expect_eq "rows with a wrong field count" 0 "$bad"
	tail -n 1 "$T/text" | grep -q "^# self samples=$rows cpu_us_total=[0-9.]* us_per_sample=[0-9.]* max_us=[0-9.]*$" ||
		fail "trailer: $(tail -n 1 "$T/text") ($rows rows)"
}

# on the fixture root, 2 s at 200 ms: 10 samples
HITCHBENCH_ROOT=$R "$S" --out "$T/f.zst" --period-ms 200 --duration 2 2>"$T/err" || fail "sampler failed: $(cat "$T/err")"
check_file "$T/f.zst"
expect_eq "fixture rows" 10 "$rows"
grep -q '^# self samples=10 ' "$T/err" || fail "no self line on stderr: $(cat "$T/err")"
grep -q '^# column temp.coretemp0.core_0 C sys/class/hwmon/hwmon0/temp2_input$' "$T/text" ||
	fail "no coretemp column: $(grep '^# column' "$T/text")"
grep -q '^# column freq.cpu0_mhz MHz ' "$T/text" || fail "no cpufreq column"
grep -q '^# column throttle.cpu0.package count ' "$T/text" || fail "no throttle column"
col=$(grep '^t_ns' "$T/text" | tr '\t' '\n' | grep -n '^temp.zone0.cpu-thermal$' | cut -d: -f1)
expect_eq "cpu-thermal in every row" 12.376 "$(grep '^[0-9]' "$T/text" | cut -f "$col" | sort -u)"
col=$(grep '^t_ns' "$T/text" | tr '\t' '\n' | grep -n '^freq.cpu0_mhz$' | cut -d: -f1)
expect_eq "cpu0 frequency" 3400 "$(grep '^[0-9]' "$T/text" | cut -f "$col" | sort -u)"

# this machine (no thermal sensors here, but /proc), until SIGTERM
"$S" --out "$T/m.zst" --period-ms 100 2>"$T/err" &
pid=$!
sleep 2
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
expect_eq "exit status after SIGTERM" 0 "$rc"
check_file "$T/m.zst"
[ "$rows" -ge 15 ] && [ "$rows" -le 22 ] || fail "$rows rows in about 2 s at 100 ms"
grep -q '^# column cpu.busy_pct % proc/stat$' "$T/text" || fail "no cpu.busy_pct on this machine"
grep -q "^# self samples=$rows " "$T/err" || fail "no self line on stderr: $(cat "$T/err")"

# bad usage and a bad path fail at once
rc=0; "$S" --period-ms 500 2>/dev/null || rc=$?
expect_eq "no --out" 2 "$rc"
rc=0; "$S" --out "$T/no/such/dir/s.zst" --duration 1 2>"$T/err" || rc=$?
expect_eq "bad path" 1 "$rc"
grep -q "cannot write '$T/no/such/dir/s.zst'" "$T/err" || fail "message: $(cat "$T/err")"

# the thermal guard: fixture under the threshold, over it, and no sensors
HITCHBENCH_ROOT=$R "$S" --wait-below 90 >"$T/g" || fail "guard below: exit $?"
expect_eq "guard below" reached "$(value thermal_guard "$T/g")"
expect_eq "guard hottest" temp.mt7996_phy0_2.temp1 "$(value thermal_guard_hottest "$T/g")"
rc=0
HITCHBENCH_ROOT=$R "$S" --wait-below 40 --wait-timeout 1.5 >"$T/g" || rc=$?
expect_eq "guard above: exit" 1 "$rc"
expect_eq "guard above" timeout "$(value thermal_guard "$T/g")"
awk -v w="$(value thermal_guard_waited_s "$T/g")" 'BEGIN { exit !(w >= 1.5 && w < 3) }' ||
	fail "waited $(value thermal_guard_waited_s "$T/g") s for a 1.5 s timeout"
HITCHBENCH_ROOT=$T/nothing "$S" --wait-below 40 >"$T/g" || fail "guard without sensors: exit $?"
expect_eq "guard without sensors" no-sensors "$(value thermal_guard "$T/g")"
if [ -z "$(ls /sys/class/thermal 2>/dev/null | grep thermal_zone)" ] &&
	[ -z "$(ls /sys/class/hwmon 2>/dev/null)" ]; then
	"$S" --wait-below 40 >"$T/g" || fail "guard here: exit $?"
	expect_eq "guard on this machine" no-sensors "$(value thermal_guard "$T/g")"
fi
exit 0
