#!/bin/sh
# cpu: heavy, about 15 s (Chromium)
# time-limit: 180 (Chromium's first start on a cold cache; the test takes about 10 s)
# report --format html in a real browser: Debian's Chromium, headless,
# loads the page made of the recorded runs and the stall runs (html_batch,
# tests/lib.sh) through the DevTools protocol (tests/tools/chromium-check.py)
# and fails on a JavaScript exception, a console or log error (a resource
# that failed to load), a request for anything outside the page, an <img>
# that did not decode, an empty <svg>, a figure without its picture, a page
# wider than the window, or a screenshot that is blank (one colour, almost
# all white). The checker is shown to catch each of those on a broken page
# first, so that a pass means something. Without Chromium it skips; t0380
# checks the same page's structure without a browser.
. "$(dirname "$0")/../lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (Debian: gnuplot-nox)"
CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || skip "chromium is not installed (Debian: chromium; sh scripts/deps.sh ensure)"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY to drive Chromium (Debian: python3)"
CHECK="$HB_SRCDIR/tests/tools/chromium-check.py"
# Chromium keeps its profile under HOME: a fresh one, not the user's
export HOME="$T/home"
mkdir -p "$HOME"

# check PAGE [ARGS]: chromium-check's exit code; a Chromium that cannot
# start or answer here is a skip, with its reason
check() {
	rc=0
	"$PY" "$CHECK" --chromium "$CHROMIUM" "$@" >"$T/out" 2>"$T/err" || rc=$?
	if [ "$rc" -eq 3 ]; then
		cat "$T/err" >&2
		skip "Chromium does not run here: $(tail -n 1 "$T/err")"
	fi
	return "$rc"
}

# a broken page: each fault must be found
cat >"$T/bad.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body>
<h1>a page with every fault</h1><p>text enough to draw</p>
<script>undefinedFunction();</script>
<figure id="noimg"><figcaption>a caption alone</figcaption></figure>
<figure id="emptysvg"><svg width="100" height="100"></svg><figcaption>nothing drawn</figcaption></figure>
<figure id="badimg"><img src="data:image/png;base64,AAAA" alt=""><figcaption>not a PNG</figcaption></figure>
<img src="http://127.0.0.1:9/outside.png" alt="">
</body></html>
EOF
check "$T/bad.html" && fail "the broken page passed: $(cat "$T/out")"
for want in "JavaScript exception: ReferenceError: undefinedFunction" "a figure without its picture: noimg" \
	"an empty <svg> in emptysvg" "an <img> did not load: data:image/png" "the page asked for http://127.0.0.1:9/outside.png"; do
	grep -qF "$want" "$T/err" || fail "the checker missed: $want (it said: $(cat "$T/err"))"
done
# a blank page: the screenshot is all white
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>\n' >"$T/blank.html"
check "$T/blank.html" && fail "the blank page passed"
grep -qE "one colour|almost all white" "$T/err" || fail "the checker missed the blank page: $(cat "$T/err")"

# the report
html_batch "$T/b"
"$HB" report --format html --interfered /dev/null "$T/b" >"$T/report.html" 2>"$T/rerr" ||
	fail "report --format html failed: $(cat "$T/rerr")"
start=$(date +%s)
check "$T/report.html" --shot "$T/shot.png" || fail "Chromium found problems: $(cat "$T/err")"
took=$(($(date +%s) - start))
cat "$T/out"
grep -q "^load_s=.* figures=15 svgs=15 imgs=0 .*title=hitchbench report$" "$T/out" ||
	fail "not the page expected: $(head -n 1 "$T/out")"
magic=$(od -An -t x1 -N 8 "$T/shot.png" | tr -d ' \n')
expect_eq "screenshot's PNG magic" "89504e470d0a1a0a" "$magic"
[ "$(wc -c <"$T/shot.png")" -gt 50000 ] || fail "the screenshot is $(wc -c <"$T/shot.png") bytes: next to nothing drawn"
echo "Chromium loaded, checked and drew the report in $took s"
exit 0
