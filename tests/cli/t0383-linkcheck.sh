#!/bin/sh
# The link checker of the lab's site (tests/tools/linkcheck.py), shown to
# catch what it is for before t0387 trusts its pass on a built site: a
# small good site (tests/fixtures/linkcheck/good: pages in directories,
# fragments, a name with a space, inline SVG with use and xlink:href, a
# data: image, a mailto:, CSS's url()) passes; a bad one (.../bad) fails
# with one line for each kind of broken link (a missing file, a fragment
# no id names, a link above the site, an absolute path, http:, https:,
# //host and file: URLs, in CSS's url() too, a directory, an SVG fill
# naming no gradient), for an id given twice that a link names, for a
# page that does not parse and for a page no link reaches; bytes that are
# not UTF-8 and a symbolic link out of the site, made here on a copy; bad
# usage exits 2.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY to run the link checker (Debian: python3)"
LC="$HB_SRCDIR/tests/tools/linkcheck.py"
FIX="$HB_FIXTURES/linkcheck"

# lc DIR: the checker's exit status, its stdout in $T/out, stderr in $T/err
lc() {
	rc=0
	"$PY" "$LC" "$@" >"$T/out" 2>"$T/err" || rc=$?
}

# the good site: every page reached, nothing said on stderr
cp -r "$FIX/good" "$T/good"
lc "$T/good"
expect_eq "the good site's exit ($(cat "$T/err"))" 0 "$rc"
expect_eq "what was checked" "linkcheck $T/good: 5 pages visited, 26 links followed to 7 files, 0 pages no link reaches" \
	"$(cat "$T/out")"
[ ! -s "$T/err" ] || fail "the good site drew complaints: $(cat "$T/err")"

# the bad site: exactly these lines, in any order
lc "$FIX/bad"
expect_eq "the bad site's exit" 1 "$rc"
cat >"$T/want" <<'W'
index.html: broken link 'https://cdn.example.org/site.css' (fetched from elsewhere: https:)
index.html: broken link '//cdn.example.org/favicon.ico' (fetched from elsewhere: //cdn.example.org)
index.html: broken link 'http://example.org/bg.png' (fetched from elsewhere: http:)
index.html: broken link 'missing.html' (no such file)
index.html: broken link 'machine/lab-1.html#k9.9' (no id 'k9.9' in machine/lab-1.html)
index.html: broken link '#nowhere' (no id 'nowhere' in index.html)
index.html: broken link '../outside.html' (leaves the site's directory)
index.html: broken link 'machine/../../index.html' (leaves the site's directory)
index.html: broken link '/etc/hostname' (an absolute path, outside the site)
index.html: broken link 'http://example.org/pic.png' (fetched from elsewhere: http:)
index.html: broken link 'file:///etc/hostname' (fetched from elsewhere: file:)
index.html: broken link 'machine/' (a directory, not a page)
index.html: broken link '#nodef' (no id 'nodef' in index.html)
index.html: broken link '#nograd' (no id 'nograd' in index.html)
index.html: broken link 'gone.svg' (no such file)
broken.html:4: does not parse (</span> closes nothing open)
broken.html: broken link '#twice' (id 'twice' given twice in broken.html, lines 5 and 6)
broken.html:7: does not parse (</body> ends <div> of line 4, still open)
orphan.html: no link reaches it from index.html
W
sort "$T/want" >"$T/want.sorted"
sort "$T/err" >"$T/err.sorted"
diff -u "$T/want.sorted" "$T/err.sorted" || fail "the bad site's complaints are not the ones expected (above)"
grep -qx "unreached: orphan.html" "$T/out" || fail "stdout does not list the page no link reaches: $(cat "$T/out")"
grep -q "^linkcheck $FIX/bad: 3 pages visited, 19 links followed to 3 files, 1 pages no link reaches\$" "$T/out" ||
	fail "what was checked: $(cat "$T/out")"

# a copy of the good site with a page that is not UTF-8, and a symbolic
# link that leads out of the site's directory
printf '<!DOCTYPE html><html><head><title>caf\351</title></head><body><p><a href="../index.html">x</a></p></body></html>\n' \
	>"$T/good/batch/b1.html"
echo outside >"$T/elsewhere.html"
ln -s ../../elsewhere.html "$T/good/machine/out.html"
sed -i 's|<a href="machine/lab-1.html">|<a href="machine/out.html">out</a> <a href="machine/lab-1.html">|' "$T/good/index.html"
lc "$T/good"
expect_eq "the spoilt copy's exit" 1 "$rc"
grep -qx "batch/b1.html:1: does not parse (not UTF-8: byte 0xe9)" "$T/err" || fail "bytes not UTF-8: $(cat "$T/err")"
grep -qx "index.html: broken link 'machine/out.html' (a symbolic link out of the site's directory)" "$T/err" ||
	fail "the link out: $(cat "$T/err")"
expect_eq "complaints about the spoilt copy" 2 "$(wc -l <"$T/err")"

# no index.html: nothing to start from is a failure; bad usage exits 2
mkdir "$T/empty"
lc "$T/empty"
expect_eq "a site without an index" 1 "$rc"
grep -qx "index.html: no such page: the site has no start" "$T/err" || fail "no index: $(cat "$T/err")"
for args in "" "$T/good $T/good" "$T/nosuch" "--help"; do
	# shellcheck disable=SC2086
	lc $args
	expect_eq "exit of 'linkcheck.py $args'" 2 "$rc"
	[ -s "$T/err" ] || fail "'linkcheck.py $args' said nothing"
done
exit 0
