# The expected counts of tests/unit/test-inputrules.c, worked out from an
# evemu recording's E: lines by a second, simpler reading of the rules
# (docs/interference.md), without common/input/inputrules.c: an exact sliding
# 10 s window over every motion event instead of 50 ms buckets.
#
#   awk -f tests/tools/evemu-counts.awk RECORDING.events
#
# (mawk has no hex literals: 256 = 0x100 and so on.)
# Prints: keys (EV_KEY value 1, codes < 0x100 or 0x160+ outside the button
# ranges), buttons (value 1 of 0x100-0x15f without BTN_TOUCH/BTN_TOOL_*,
# 0x220-0x223, 0x2c0-0x2e7), touches (BTN_TOUCH 1), wheel steps (sum of
# |value| of REL_WHEEL, REL_HWHEEL, REL_DIAL), and every motion burst
# (REL_X/Y/Z/RX/RY/RZ with a non-zero value; a gap over 250 ms ends a burst)
# with its length, counts and verdict.
function hex(s,   i, n) {
	n = 0
	for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
	return n
}
function close_burst(   len, why) {
	if (!open) return
	open = 0
	len = last - start
	if (len >= 2000000) { deliberate = 1; why = "2 s" } else if (deliberate) why = "window"; else why = "bump"
	printf "burst start=%.6f len=%.6f counts=%d %s\n", start / 1e6, len / 1e6, counts, why
	if (deliberate) { motion++; nw = 0; wfirst = 0 } else bumps++
}
/^E:/ {
	split($2, ts, ".")
	t = ts[1] * 1000000 + ts[2]
	type = hex($3); code = hex($4); v = $5 + 0
	if (open && t > last + 250000) close_burst()
	if (type == 1 && v == 1) {
		if (code == 330) touches++
		else if ((code >= 320 && code <= 328) || (code >= 333 && code <= 335)) ;
		else if ((code >= 256 && code < 352) || (code >= 544 && code <= 547) || (code >= 704 && code <= 743)) buttons++
		else if (code > 0) keys++
	}
	if (type == 2 && (code == 6 || code == 8 || code == 7)) wheel += v < 0 ? -v : v
	if (type == 2 && code <= 5 && v != 0) {
		if (!open) { open = 1; deliberate = 0; start = t; counts = 0 }
		last = t
		counts += v < 0 ? -v : v
		wt[nw] = t; wv[nw] = v < 0 ? -v : v; nw++
		sum = 0
		for (i = wfirst; i < nw; i++) if (wt[i] > t - 10000000) sum += wv[i]; else wfirst = i + 1
		if (sum >= 1500) deliberate = 1
	}
}
END {
	close_burst()
	printf "keys=%d buttons=%d touches=%d wheel=%d motion=%d bumps=%d\n", keys, buttons, touches, wheel, motion, bumps
}
