#!/bin/sh
# wall: about 25 s (the pages of every kind of run)
# report --format html without a browser (t0381 loads it in Chromium): on
# the recorded runs, an interfered and an invalid copy, a copy with markup
# in bench.txt and the hand-made stall runs (html_batch, tests/lib.sh).
# The page is well-formed (every element closed in order), loads nothing
# (no script, no link, no URL but its own #anchors), every <figure> holds
# an inline <svg> that draws; it carries every '#' definition of the text
# report, the numbers of each run, the verdict compare gives for the same
# runs (same p-value), each stall's cause as mkstallrun made it, the runs
# left out with why, and markup from a file only escaped. Without
# gnuplot the page is still written, says what is missing, and exits 1.
# A two-cell batch's paired sequential test is compare --paired's. The report
# leaves the runs as they were and no temporary directory behind.
. "$(dirname "$0")/../lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (Debian: gnuplot-nox)"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY to parse the page (Debian: python3)"
html_batch "$T/b"

# (a report reads: the runs are left as they were, and the pictures'
# temporary directory is gone after it)
find "$T/b" -printf '%p %s %T@\n' | sort >"$T/before"
"$HB" report --format html --interfered /dev/null "$T/b" >"$T/r.html" 2>"$T/err" ||
	fail "report --format html failed: $(cat "$T/err")"
[ -s "$T/err" ] && fail "report --format html said: $(cat "$T/err")"
find "$T/b" -printf '%p %s %T@\n' | sort >"$T/after"
cmp -s "$T/before" "$T/after" || fail "the report changed the runs: $(diff "$T/before" "$T/after")"
left=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'hitchbench-html-*')
[ -z "$left" ] || fail "the pictures' directory is left: $left"
"$HB" report --interfered /dev/null "$T/b" >"$T/table" 2>/dev/null
grep '^# ' "$T/table" | sed 's/^# //' >"$T/notes"
[ "$(wc -l <"$T/notes")" -ge 9 ] || fail "the text report has only $(wc -l <"$T/notes") notes"

# the structure, the references and every text of the page, by a parser
# that knows HTML's void elements and SVG's self-closed ones
cat >"$T/check.py" <<'EOF'
import html, html.parser, re, sys
VOID = {"meta", "br", "img", "hr", "input", "link", "source", "wbr", "col", "area", "base", "embed"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.text, self.figs = [], [], [], []
        self.svg_depth = None
    def handle_starttag(self, tag, attrs):
        self.check(tag, attrs)
        if tag == "figure":
            self.figs.append({"id": dict(attrs).get("id"), "svg": 0, "drawn": 0})
        if tag == "svg" and self.stack and self.stack[-1] == "figure":
            self.figs[-1]["svg"] += 1
        if tag in ("path", "rect", "circle", "line", "polyline", "polygon", "text") and "svg" in self.stack and self.figs:
            self.figs[-1]["drawn"] += 1
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.check(tag, attrs)
        if tag in ("path", "rect", "circle", "line", "polyline", "polygon") and "svg" in self.stack and self.figs:
            self.figs[-1]["drawn"] += 1
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append("</%s> closes <%s> at line %d" % (tag, self.stack[-1] if self.stack else "nothing", self.getpos()[0]))
            return
        self.stack.pop()
    def handle_data(self, d):
        if "style" not in self.stack:
            self.text.append(d)
        elif re.search(r"url\(\s*['\"]?(?!#)|@import", d):
            self.problems.append("the style loads something: %s" % d[:80])
    def check(self, tag, attrs):
        if tag in ("script", "link", "iframe", "object", "embed", "base"):
            self.problems.append("a <%s> element" % tag)
        for k, v in attrs:
            if k.startswith("on"):
                self.problems.append("an event handler %s" % k)
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster") and v is not None \
                    and not v.startswith("#") and not v.startswith("data:"):
                self.problems.append("<%s %s=%r>: a reference out of the page" % (tag, k, v))
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
p.close()
if p.stack != []:
    p.problems.append("left open: %s" % p.stack)
for f in p.figs:
    if f["svg"] != 1 or f["drawn"] < 10:
        p.problems.append("figure %s: %d svg, %d drawn elements" % (f["id"], f["svg"], f["drawn"]))
text = " ".join(" ".join(p.text).split())
for line in open(sys.argv[2], encoding="utf-8"):
    if " ".join(line.split()) not in text:
        p.problems.append("the page lacks the note: %s" % line.strip())
open(sys.argv[3], "w").write(text)
print("figures=%d" % len(p.figs))
for x in p.problems:
    print("PROBLEM " + x)
EOF
"$PY" "$T/check.py" "$T/r.html" "$T/notes" "$T/text" >"$T/parsed" || fail "the parser failed: $(cat "$T/parsed")"
grep '^PROBLEM' "$T/parsed" && fail "the page has problems (above)"
# 4 groups with runs: percentiles and a histogram each; 7 runs with frames (the cut one too)
expect_eq "figures" "figures=15" "$(cat "$T/parsed")"

# the numbers: each counted run's row with the table's values
for run in "$A" "$B" "$G" exact sampled; do
	want=$(grep "^$run " "$T/table" | awk '{ $1 = ""; print substr($0, 2) }')
	grep -qF "$run $want" "$T/text" || fail "the page lacks $run's row: $want"
done

# the verdict and p-value compare gives for the same runs (the counted
# ones) in a database
"$HB" db import --db "$T/counted.sqlite" "$T/b/$A" "$T/b/$B" "$T/b/$G" >/dev/null 2>&1
rc=0
"$HB" compare --db "$T/counted.sqlite" --metric fps dsda-doom software gl >"$T/cmp" 2>&1 || rc=$?
expect_eq "compare's exit (UNKNOWN)" 4 "$rc"
p=$(awk '$1 == "p" { print $2 }' "$T/cmp")
grep -qE "fps 2 / 1 [0-9.]+ [0-9.]+ [0-9.]+ [-0-9. ]+\.\. [-0-9.]+ $p \(U [0-9.e-]+, D [0-9.e-]+\) [0-9.e-]+ / [0-9.e-]+ UNKNOWN" "$T/text" ||
	fail "the page's fps verdict is not compare's (p $p): $(grep -o 'fps 2 / 1[^A-Z]*[A-Z]*' "$T/text")"

# each stall's cause, as the stall run was made
"$HB_BUILD/tests/mkstallrun" --cases exact | while read -r name cause decided section; do
	grep -qE "[+-][0-9.]+ [0-9.]+ $cause $decided " "$T/text" || fail "no $cause stall decided by $decided"
done

# the runs left out, with why; markup from bench.txt only escaped
grep -qF "20261130T120730Z-dsda-doom-software dsda-doom software ok no disturbed: marked by an observer or the interfered list: interfered=1 (a key press on /dev/input/event3)" "$T/text" ||
	fail "the interfered run is not listed with why"
grep -qF "20261130T120740Z-dsda-doom-software dsda-doom software invalid no invalid: its data failed a check: frames.bin:" "$T/text" ||
	fail "the invalid run is not listed with why"
grep -qF '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;' "$T/r.html" ||
	fail "bench.txt's markup is not escaped"

# a two-cell batch (software and gl, two rounds, rotated: made by hand as
# the runner lays one out): its paired sequential test, line for line as
# compare --paired prints it
P="$T/pb/20261130T120700Z-dsda-doom"
mkdir -p "$P"
cp -r "$R/$A" "$R/$G" "$R/$B" "$P/"
cp -r "$R/$G" "$P/20261130T120732Z-dsda-doom-gl"
sed -i 's/^run_id=.*/run_id=html0paired/' "$P/20261130T120732Z-dsda-doom-gl/bench.txt"
printf 'format=1\nbatch_id=20261130T120700Z-dsda-doom\ngame=dsda-doom\nvariants=software gl\ntokens=-\nrounds=2\norder=rotate\nseed=0\nstall_ms=100\npercentile=nearest-rank\nstatus=complete\n' >"$P/batch.txt"
printf '1 done %s ok\n2 done %s ok\n3 done 20261130T120732Z-dsda-doom-gl ok\n4 done %s ok\n' "$A" "$G" "$B" >"$P/runs.txt"
rc=0
"$HB" compare --paired "$P" >"$T/paired" 2>&1 || rc=$?
expect_eq "compare --paired's exit (UNKNOWN)" 4 "$rc"
"$HB" report --format html --interfered /dev/null "$P" >"$T/p.html" 2>"$T/err" || fail "report of the batch: $(cat "$T/err")"
"$PY" -c 'import html, re, sys; m = re.search(r"<pre>(.*?)</pre>", open(sys.argv[1]).read(), re.S); print(html.unescape(m.group(1)) if m else "no <pre>", end="")' \
	"$T/p.html" >"$T/p-lines"
diff -u "$T/paired" "$T/p-lines" || fail "the page's paired test is not compare --paired's"
grep -qF "paired sequential test over the rounds of $P (hitchbench compare --paired)" "$T/p.html" ||
	fail "the paired test has no title naming the batch"

# --db: the database's numbers, the pictures from the directories it names
"$HB" db import --db "$T/db.sqlite" "$T/b" >/dev/null 2>&1
"$HB" report --format html --db "$T/db.sqlite" --machine vm >"$T/db.html" 2>"$T/err" || fail "report --db --format html: $(cat "$T/err")"
"$PY" "$T/check.py" "$T/db.html" /dev/null "$T/dbtext" >"$T/parsed" || fail "the parser failed on the --db page"
grep '^PROBLEM' "$T/parsed" && fail "the --db page has problems (above)"
grep -qF "$B" "$T/dbtext" || fail "the --db page lacks $B"

# no gnuplot: the page says what is missing, stderr too, exit 1
rc=0
HITCHBENCH_GNUPLOT="$T/no-gnuplot" "$HB" report --format html --interfered /dev/null "$T/b" >"$T/np.html" 2>"$T/err" || rc=$?
expect_eq "exit without gnuplot" 1 "$rc"
grep -q "the HTML report lacks 15 parts" "$T/err" || fail "stderr: $(head -n 3 "$T/err")"
grep -q "class=\"problem\">cannot draw the frames of $G: cannot run &#39;$T/no-gnuplot&#39;" "$T/np.html" ||
	fail "the page does not say why a picture is missing"
grep -q '</html>' "$T/np.html" || fail "the page is not whole without gnuplot"
exit 0
