#!/bin/sh
# The stall recorder on machines that lack what it can use: under a root
# made of real /proc files from elsewhere (tests/fixtures/testdata/procfs:
# node_exporter's vmstat, diskstats and pressure, sysstat's sda), it says
# in the record which sources it had, leaves out the columns it could not
# fill, and records the counters it could as they are in those files.
# Then the same with the PSI files there. No root needed.
. "$(dirname "$0")/../lib.sh"
P="$HB_TESTDATA/procfs"
[ -f "$P/node_exporter/proc/vmstat" ] || fail "no procfs test data under $HB_TESTDATA"
R="$T/root"
mkdir -p "$R/proc" "$R/sys/block/sda"
cp "$P/node_exporter/proc/vmstat" "$P/node_exporter/proc/diskstats" "$R/proc/"
cp "$P/sysstat/root1/sys/block/sda/stat" "$R/sys/block/sda/stat"
echo 1000 >"$R/sys/block/sda/size"
rec="$HB_BUILD/hitchbench-stallrec"
dump="$HB_BUILD/tests/recdump"

# no PSI, no delay accounting, no schedstat, no X server, no kswapd, no
# swap; the game's pid is not under this root
HITCHBENCH_ROOT="$R" "$rec" --out "$T/a.zst" --pid 424242 --duration 1 --period-ms 20 \
	2>"$T/a.err" || { cat "$T/a.err" >&2; fail "the recorder failed"; }
grep -q "^stallrec: [0-9]* samples, own CPU" "$T/a.err" || fail "no cost line: $(cat "$T/a.err")"
"$dump" "$T/a.zst" vm.pgmajfault vm.pswpin pid disk.sda.rd_ios >"$T/a" || fail "recdump failed"
meta() { sed -n "s/^meta $1=//p" "$2"; }
case $(meta sources.psi "$T/a") in none*) ;; *) fail "PSI: '$(meta sources.psi "$T/a")'" ;; esac
case $(meta sources.delay "$T/a") in none*) ;; *) fail "delay: '$(meta sources.delay "$T/a")'" ;; esac
case $(meta sources.schedstat "$T/a") in no*) ;; *) fail "schedstat: '$(meta sources.schedstat "$T/a")'" ;; esac
case $(meta sources.x "$T/a") in none*) ;; *) fail "X: '$(meta sources.x "$T/a")'" ;; esac
expect_eq "kswapd" "0" "$(meta sources.kswapd "$T/a")"
expect_eq "swaps" "" "$(meta swaps "$T/a")"
expect_eq "disks" "sda" "$(meta disks "$T/a")"
cols=$(meta columns "$T/a")
for c in psi.io_some_us delay.blkio_us main.run_us main.runq_us x.state kswapd.state; do
	case " $cols " in *" $c "*) fail "column $c recorded without its source" ;; esac
done
rows=$(sed -n 's/^rows //p' "$T/a")
[ "$rows" -ge 20 ] && [ "$rows" -le 60 ] || fail "$rows rows in 1 s at 20 ms"
# the counters as the files have them (node_exporter: pgmajfault 507162,
# pswpin 1476; sysstat root1's sda: its first number, reads completed)
sda_reads=$(awk '{ print $1 }' "$R/sys/block/sda/stat")
last=$(tail -n 1 "$T/a")
expect_eq "the last row" "$(printf '507162\t1476\t0\t%s' "$sda_reads")" "$last"

# with PSI: the system's, in the record as the files total it
mkdir -p "$R/proc/pressure"
cp "$P/node_exporter/proc/pressure/cpu" "$P/node_exporter/proc/pressure/io" \
	"$P/node_exporter/proc/pressure/memory" "$R/proc/pressure/"
HITCHBENCH_ROOT="$R" "$rec" --out "$T/b.zst" --pid 424242 --duration 1 --period-ms 50 \
	2>"$T/b.err" || { cat "$T/b.err" >&2; fail "the recorder failed with PSI"; }
"$dump" "$T/b.zst" psi.io_some_us psi.io_full_us >"$T/b" || fail "recdump failed"
case $(meta sources.psi "$T/b") in system*) ;; *) fail "PSI: '$(meta sources.psi "$T/b")'" ;; esac
# node_exporter's e2e output: io waiting 159.886802 s, stalled 159.229614 s
expect_eq "PSI io" "$(printf '159886802\t159229614')" "$(tail -n 1 "$T/b")"

# bad options: exit 2 and why
"$rec" --period-ms 0 --out "$T/c.zst" 2>"$T/c.err" && fail "--period-ms 0 accepted"
[ $? -eq 2 ] || fail "--period-ms 0: not exit 2"
grep -q "period-ms" "$T/c.err" || fail "no reason for --period-ms 0"
"$rec" 2>/dev/null && fail "no --out accepted"
exit 0
