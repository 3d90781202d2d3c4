#!/bin/sh
# What the fuzzing of the parsers found (tests/fuzz), end to end: a copy of
# a real run directory with one bad file in it, through hitchbench report,
# which must finish (under a time limit) and say what is wrong:
#   bench.txt whose last line ends in a carriage return (hung the reader);
#   bench.txt with a NUL byte, then invalid=1 (everything after the NUL
#   was lost and the run counted): refused with its line;
#   frames.bin replaced by a FIFO (blocked report for ever);
#   bench.txt with a second window_start_ns= before the real one (the
#   report measured another window, 131 frames at 131.0 fps instead of 731
#   at 121.8, and exited 0): refused with both lines, exit 2.
. "$(dirname "$0")/../lib.sh"
R="$HB_FIXTURES/runs/20261130T120707Z-dsda-doom-software"
command -v timeout >/dev/null || skip "no timeout(1)"

copy() {
	rm -rf "$T/$1"
	mkdir -p "$T/$1"
	cp "$R"/* "$T/$1/"
}

# a carriage return ends the last line, no newline after it
copy cr
printf 'note=written on Windows\r' >>"$T/cr/bench.txt"
rc=0; timeout 20 "$HB" report "$T/cr" >"$T/cr.out" 2>"$T/cr.err" || rc=$?
[ "$rc" != 124 ] || fail "report hung on a bench.txt ending in a carriage return"
expect_eq "report of the CR file" 0 "$rc"

# a NUL byte on line N, invalid=1 after it
copy nul
n=$(($(wc -l <"$T/nul/bench.txt") + 1))
printf 'note=a\000b\ninvalid=1\n' >>"$T/nul/bench.txt"
rc=0; timeout 20 "$HB" report "$T/nul" >"$T/nul.out" 2>"$T/nul.err" || rc=$?
[ "$rc" != 124 ] || fail "report hung on a NUL byte"
grep -q "bench.txt:$n: NUL byte" "$T/nul.err" "$T/nul.out" ||
	fail "the NUL byte was not refused with its line: $(cat "$T/nul.err" "$T/nul.out")"
grep -q "median" "$T/nul.out" && grep -q "n=1" "$T/nul.out" && fail "the run was counted: $(cat "$T/nul.out")"
# frames reads the same bench.txt: bad input, exit 2, with the line
rc=0; "$HB" frames "$T/nul" >/dev/null 2>"$T/nul.ferr" || rc=$?
expect_eq "frames of a bench.txt with a NUL byte" 2 "$rc"
grep -q "bench.txt:$n: NUL byte" "$T/nul.ferr" || fail "frames did not name the line: $(cat "$T/nul.ferr")"

# a key given twice: the first copy used to win without a word
copy twice
real=$(grep -n '^window_start_ns=' "$T/twice/bench.txt" | cut -d: -f1)
sed -i '10i window_start_ns=2709169075539' "$T/twice/bench.txt"
real=$((real + 1))
rc=0; timeout 20 "$HB" report "$T/twice" "$R" >"$T/twice.out" 2>"$T/twice.err" || rc=$?
expect_eq "report of a bench.txt with window_start_ns twice" 2 "$rc"
grep -q "twice/bench.txt:$real: key 'window_start_ns' repeats line 10" "$T/twice.err" ||
	fail "the repeated key was not refused with its lines: $(cat "$T/twice.err")"
grep -q "131" "$T/twice.out" && fail "the other window was measured: $(cat "$T/twice.out")"
rc=0; "$HB" frames "$T/twice" >/dev/null 2>"$T/twice.ferr" || rc=$?
expect_eq "frames of a bench.txt with window_start_ns twice" 2 "$rc"
grep -q "bench.txt:$real: key 'window_start_ns' repeats line 10" "$T/twice.ferr" ||
	fail "frames did not name the lines: $(cat "$T/twice.ferr")"

# a FIFO in the frame file's place: nobody will ever write it
copy fifo
rm "$T/fifo/frames.bin"
mkfifo "$T/fifo/frames.bin" || skip "cannot make a FIFO here"
rc=0; timeout 20 "$HB" report "$T/fifo" >"$T/fifo.out" 2>"$T/fifo.err" || rc=$?
[ "$rc" != 124 ] || fail "report blocked on a FIFO in the run directory"
grep -q "frame file" "$T/fifo.err" "$T/fifo.out" ||
	fail "nothing said about the frame file: $(cat "$T/fifo.err" "$T/fifo.out")"
exit 0
