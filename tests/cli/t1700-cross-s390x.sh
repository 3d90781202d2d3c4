#!/bin/sh
# cpu: heavy, about 20 s (the tree cross-built, and its tests under qemu)
# quick: no (a build of the tree: make check runs it)
# time-limit: 900
# The formats travel (docs/formats.md, "Byte order"): hitchbench built for
# s390x, Debian's big-endian architecture (make ARCH=s390x), its format
# unit suites run under qemu-user, and what it writes there read here. The
# s390x frame hook (preloaded into an s390x program that presents through
# the stub library) fills a live frame file in its own order; the s390x
# runner code keeps it little-endian; an s390x stall record is made the
# recorder's way (live, then packed) and a whole hand-made stall run
# written. This machine's hitchbench frames, stalls and the tools read
# them: the same values the s390x side wrote and read, and, where the
# file travels, the same bytes as this machine writes.
. "$(dirname "$0")/../lib.sh"
command -v s390x-linux-gnu-gcc >/dev/null ||
	skip "no s390x cross compiler (gcc-s390x-linux-gnu, libc6-dev-s390x-cross: sh scripts/deps.sh ensure)"
command -v qemu-s390x >/dev/null || skip "no qemu-s390x (qemu-user: sh scripts/deps.sh ensure)"
SYSROOT=$HB_SRCDIR/build/cross/s390x/sysroot
[ -f "$SYSROOT/.sysroot-stamp" ] ||
	skip "no s390x sysroot in $SYSROOT (sh scripts/cross-sysroot.sh s390x $SYSROOT; root the first time)"
X=$HB_SRCDIR/build/cross/s390x
TOOLS=$HB_BUILD/tests
q() {
	qemu-s390x -L "$SYSROOT" "$@"
}

# the cross build (incremental: quick when t1605 made it already), without
# the optimizer as t1605 builds it
start=$(date +%s)
cross_locked s390x env CFLAGS=-O0 make -s -C "$HB_SRCDIR" -j1 ARCH=s390x >"$T/build.log" 2>&1 ||
	{ cat "$T/build.log"; fail "make ARCH=s390x failed"; }
echo "make ARCH=s390x: $(( $(date +%s) - start )) s"
# big-endian S/390 executables: ELF class 2 (64-bit), data 2 (MSB), machine 22
expect_eq "ELF header of the s390x hitchbench" "2 2" "$(od -An -tu1 -j4 -N2 "$X/hitchbench" | xargs)"
expect_eq "ELF machine of the s390x hitchbench" "0 22" "$(od -An -tu1 -j18 -N2 "$X/hitchbench" | xargs)"
q "$X/hitchbench" --help >/dev/null || fail "the s390x hitchbench does not run under qemu"

# 1. the format suites on s390x
for s in byteorder frames frameapi framesource import run report swapchain stallrec stallcause fuzzfound \
	sensors prefetch waker wad kvfile csv lows; do
	CK_RUN_SUITE=$s HB_FIXTURES=$HB_FIXTURES q "$X/tests/unit-tests" >"$T/unit.$s" 2>&1 ||
		{ cat "$T/unit.$s"; fail "unit suite $s failed on s390x"; }
	grep -q '^100%: Checks: [1-9]' "$T/unit.$s" || { cat "$T/unit.$s"; fail "unit suite $s: no clean summary"; }
done

# 2. the hook's frame file on s390x: live, big-endian; kept as the runner keeps it
q "$X/tests/mkframes" --capacity 128 "$T/live.bin" || fail "s390x mkframes"
q -E LD_PRELOAD="$X/hitchbench-hook.so" -E HITCHBENCH_FRAMES="$T/live.bin" -E HB_STUB="$X/tests/libhbstub.so" \
	"$X/tests/present" --stub --frames 64 --warmup 0 >"$T/present.out" || fail "s390x present under the hook"
grep -q 'presents=64 stub_glx_swaps=64 ' "$T/present.out" || fail "s390x present: $(cat "$T/present.out")"
q "$X/tests/mkframes" --dump "$T/live.bin" >"$T/be.dump" || fail "s390x mkframes --dump"
[ "$(wc -l <"$T/be.dump")" -eq 64 ] || fail "the s390x hook recorded $(wc -l <"$T/be.dump") presents, not 64"
cp "$T/live.bin" "$T/raw.bin"
mkdir -p "$T/run"
q "$X/tests/mkframes" --keep "$T/live.bin" "$T/run/frames.bin" || fail "s390x mkframes --keep"
# raw: big-endian (header size 128 at offset 12, as the s390x machine wrote it); kept: little-endian
expect_eq "header size bytes of the live file" "0 0 0 128" "$(od -An -tu1 -j12 -N4 "$T/raw.bin" | xargs)"
expect_eq "header size bytes of the kept file" "128 0 0 0" "$(od -An -tu1 -j12 -N4 "$T/run/frames.bin" | xargs)"
"$TOOLS/mkframes" --stat "$T/raw.bin" >"$T/raw.stat" || fail "mkframes --stat of the live s390x file"
"$TOOLS/mkframes" --stat "$T/run/frames.bin" >"$T/kept.stat" || fail "mkframes --stat of the kept file"
grep -qx 'byte_order=big' "$T/raw.stat" || fail "the live s390x file is not read as big-endian"
grep -qx 'byte_order=little' "$T/kept.stat" || fail "the kept file is not little-endian"
grep -qx 'records=64' "$T/kept.stat" || fail "kept: $(cat "$T/kept.stat")"
grep -qx 'hooked_procs=1' "$T/kept.stat" || fail "kept: $(cat "$T/kept.stat")"
# every stamp, pid, source and present time as s390x read them
for f in raw.bin run/frames.bin; do
	"$TOOLS/mkframes" --dump "$T/$f" >"$T/host.dump" || fail "mkframes --dump $f"
	diff -u "$T/be.dump" "$T/host.dump" || fail "$f read here differs from what s390x read"
done
# hitchbench frames, here and there, on the run directory (a window of the 63 frames)
first=$(head -n 1 "$T/be.dump" | cut -d' ' -f1)
last=$(tail -n 1 "$T/be.dump" | cut -d' ' -f1)
printf 'format=1\nrun_id=t1700\ngame=present\nvariant=stub\nstatus=ok\nwindow_start_ns=%s\nwindow_end_ns=%s\n' \
	"$first" "$last" >"$T/run/bench.txt"
"$HB" frames "$T/run" >"$T/frames.host" 2>"$T/err" || fail "hitchbench frames: $(cat "$T/err")"
q "$X/hitchbench" frames "$T/run" >"$T/frames.s390x" 2>"$T/err" || fail "s390x hitchbench frames: $(cat "$T/err")"
diff -u "$T/frames.s390x" "$T/frames.host" || fail "hitchbench frames differs between s390x and here"
awk 'NR > 1 { printf "%.3f\n", ($1 - prev) / 1e6 } { prev = $1 }' "$T/be.dump" >"$T/want.ms"
awk -F'\t' '/^[0-9]/ { print $2 }' "$T/frames.host" >"$T/got.ms"
diff -u "$T/want.ms" "$T/got.ms" || fail "the frame times are not the s390x stamps' differences"

# 3. a stall record the recorder's way on s390x: live (big-endian), then packed
q "$X/tests/mkstallrec" "$T/rec" >"$T/rec.want" || fail "s390x mkstallrec"
COLS="t_us pid frames main.wchan main.majflt vm.nr_free_pages disk.vda.rd_ios"
# shellcheck disable=SC2086
"$TOOLS/recdump" "$T/rec/stalls.rec.zst" $COLS >"$T/rec.host" || fail "recdump of the s390x packed record"
tail -n 6 "$T/rec.host" | diff -u "$T/rec.want" - || fail "the packed record read here differs from what s390x wrote"
grep -qx 'rows 6' "$T/rec.host" || fail "rows: $(cat "$T/rec.host")"
# shellcheck disable=SC2086
q "$X/tests/recdump" "$T/rec/stalls.live" $COLS >"$T/rec.s390x.live" || fail "s390x recdump of its live record"
diff -u "$T/rec.s390x.live" "$T/rec.host" | grep '^[-+][0-9]' && fail "s390x's live rows differ from the packed ones read here"
"$TOOLS/recdump" "$T/rec/stalls.live" >/dev/null 2>"$T/err" && fail "the s390x live record was read here"
grep -q 'other byte order' "$T/err" || fail "the s390x live record refused without the reason: $(cat "$T/err")"
# the same record packed here: the same bytes once decompressed
"$TOOLS/mkstallrec" "$T/rec-host" >"$T/rec.host.want" || fail "mkstallrec here"
cmp "$T/rec.want" "$T/rec.host.want" || fail "mkstallrec printed other rows here"
zstd -qdc "$T/rec/stalls.rec.zst" >"$T/packed.s390x" && zstd -qdc "$T/rec-host/stalls.rec.zst" >"$T/packed.host" ||
	fail "zstd cannot read a packed record"
cmp "$T/packed.s390x" "$T/packed.host" || fail "the packed stall record's bytes differ between s390x and here"

# 4. a whole hand-made stall run (bench.txt, frames.bin, stalls.rec.zst) from s390x
q "$X/tests/mkstallrun" sampled "$T/be/sampled" || fail "s390x mkstallrun"
"$TOOLS/mkstallrun" sampled "$T/le/sampled" || fail "mkstallrun here"
cmp "$T/be/sampled/frames.bin" "$T/le/sampled/frames.bin" || fail "hb_frames_write's file differs between s390x and here"
"$HB" stalls "$T/be/sampled" >"$T/stalls.be" 2>"$T/err" || fail "hitchbench stalls of the s390x run: $(cat "$T/err")"
"$HB" stalls "$T/le/sampled" >"$T/stalls.le" 2>"$T/err" || fail "hitchbench stalls here: $(cat "$T/err")"
sed "s|$T/be|RUNS|" "$T/stalls.be" >"$T/stalls.be.n"
sed "s|$T/le|RUNS|" "$T/stalls.le" >"$T/stalls.le.n"
diff -u "$T/stalls.le.n" "$T/stalls.be.n" || fail "hitchbench stalls reads the s390x run otherwise"
grep -q 'stallrec: 861 samples' "$T/stalls.be" || fail "stalls: $(head -n 5 "$T/stalls.be")"
q "$X/hitchbench" stalls "$T/be/sampled" >"$T/stalls.s390x" 2>"$T/err" || fail "s390x hitchbench stalls: $(cat "$T/err")"
diff -u "$T/stalls.be" "$T/stalls.s390x" || fail "hitchbench stalls differs between s390x and here"
exit 0
