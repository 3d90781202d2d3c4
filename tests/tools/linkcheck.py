#!/usr/bin/python3
"""linkcheck: follows every link of a static site, as a person clicking
through it offline would, and says which ones lead nowhere.

    linkcheck.py DIR

Starts at DIR/index.html and visits, breadth-first, every page a link
reaches: <a href>, <area href>, <link href>, <img src> (and the src of
the other elements that load something), SVG's <use href>, <image href>
and <a href>, any xlink:href, and CSS's url() in <style>, style= and
SVG's fill=, stroke=, marker-*=, clip-path=, mask= and filter=. Fails (exit 1, one line a problem on
stderr) on:

  PAGE: broken link 'HREF' (WHY)   a file that does not exist; a directory
                                   (a browser opens no index.html from
                                   file://); a #fragment naming no id or
                                   <a name> of its target, or an id given
                                   twice there (an id no link names may
                                   repeat: gnuplot's multiplots do); a
                                   link leaving DIR ('..' beyond it, an absolute path, a
                                   symbolic link out of it); anything
                                   fetched from elsewhere (http:, https:,
                                   //host, file:, any scheme but data: and
                                   mailto:): the site must open offline
  PAGE:LINE: does not parse (WHY)  bytes that are not UTF-8, an end tag
                                   that closes nothing open or skips an
                                   element whose end tag is required, such
                                   an element left open at the end
  PAGE: no link reaches it         a page (*.html) in DIR that no link from
                                   the index leads to

PAGE is the page's path inside DIR. Prints on stdout what it checked: the
pages visited, the links followed and the distinct files they reach, and
each page no link reaches. Exit 2 for bad usage (no DIR, or not a
directory). Used by tests/cli/t0383-linkcheck.sh (the checker on a fixture
site, tests/fixtures/linkcheck/) and t0387-site.sh (hitchbench site).
Standard library only.
"""
import collections
import html.parser
import os
import posixpath
import re
import sys
import urllib.parse

# Elements with no end tag, and those whose end tag HTML lets a page leave
# out (the parser closes them implicitly): any other element left open or
# skipped over by an end tag is a page that does not parse as written.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
OPTIONAL_END = {"html", "head", "body", "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody",
                "tfoot", "option", "optgroup", "colgroup", "caption", "rt", "rp"}
# (element, attribute) pairs whose value is a URL the browser follows or loads
LINK_ATTRS = {("a", "href"), ("area", "href"), ("link", "href"), ("use", "href"), ("image", "href"),
              ("img", "src"), ("script", "src"), ("iframe", "src"), ("embed", "src"), ("source", "src"),
              ("audio", "src"), ("video", "src"), ("track", "src"), ("input", "src"),
              ("object", "data"), ("video", "poster"), ("feimage", "href")}
# schemes that load nothing from elsewhere and name no file to check
INERT_SCHEMES = {"data", "mailto"}
# attributes whose value may hold CSS's url(): style, and SVG's paint,
# marker, clip, mask and filter references (url(#id))
CSS_ATTRS = {"style", "fill", "stroke", "marker-start", "marker-mid", "marker-end", "clip-path", "mask",
             "filter"}
# a URL in CSS: url(x), url('x'), url("x")
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.S)


class Page(html.parser.HTMLParser):
    """One page's links (line, href), its ids, and why it does not parse."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.ids = {}
        self.twice = {}
        self.problems = []
        self.stack = []

    def _attrs(self, tag, attrs):
        line = self.getpos()[0]
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                if name == "id" and value in self.ids and self.ids[value] != line:
                    self.twice.setdefault(value, line)
                self.ids.setdefault(value, line)
            if (tag, name) in LINK_ATTRS or name == "xlink:href":
                self.links.append((line, value))
            elif name in CSS_ATTRS:
                self._css(value)

    def _css(self, text):
        for m in CSS_URL.finditer(text):
            self.links.append((self.getpos()[0], m.group(2)))

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "style":
            self._css(data)

    def handle_starttag(self, tag, attrs):
        self._attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag, attrs):
        self._attrs(tag, attrs)

    def handle_endtag(self, tag):
        line = self.getpos()[0]
        if tag in VOID:
            return
        if not any(t == tag for t, _ in self.stack):
            self.problems.append((line, "</%s> closes nothing open" % tag))
            return
        while self.stack:
            open_tag, open_line = self.stack.pop()
            if open_tag == tag:
                return
            if open_tag not in OPTIONAL_END:
                self.problems.append((line, "</%s> ends <%s> of line %d, still open" % (tag, open_tag, open_line)))

    def finish(self):
        self.close()
        for tag, line in self.stack:
            if tag not in OPTIONAL_END:
                self.problems.append((line, "<%s> never closed" % tag))


def parse_file(path):
    """A Page of the file at PATH (its problems say why it does not parse)."""
    page = Page()
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        page.problems.append((line, "not UTF-8: byte 0x%02x" % raw[e.start]))
        text = raw.decode("utf-8", errors="replace")
    page.feed(text)
    page.finish()
    return page


class Site:
    def __init__(self, top):
        self.top = os.path.realpath(top)
        self.pages = {}          # relative path -> Page (parsed once)
        self.problems = []
        self.seen_problems = set()

    def problem(self, line):
        if line not in self.seen_problems:
            self.seen_problems.add(line)
            self.problems.append(line)

    def page(self, rel):
        if rel not in self.pages:
            self.pages[rel] = parse_file(os.path.join(self.top, rel))
            for line, why in self.pages[rel].problems:
                self.problem("%s:%d: does not parse (%s)" % (rel, line, why))
        return self.pages[rel]

    def resolve(self, rel, href):
        """(target's path in DIR or None for the page itself, fragment or
        None, why it is broken or None, whether to follow it at all)."""
        parts = urllib.parse.urlsplit(href)
        if parts.scheme:
            if parts.scheme.lower() in INERT_SCHEMES:
                return None, None, None, False
            return None, None, "fetched from elsewhere: %s:" % parts.scheme.lower(), False
        if parts.netloc or href.startswith("//"):
            return None, None, "fetched from elsewhere: //%s" % parts.netloc, False
        path = urllib.parse.unquote(parts.path)
        frag = urllib.parse.unquote(parts.fragment) if "#" in href else None
        if not path:
            return rel, frag, None, True
        if path.startswith("/"):
            return None, None, "an absolute path, outside the site", False
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path))
        if target == ".." or target.startswith("../"):
            return None, None, "leaves the site's directory", False
        full = os.path.join(self.top, target)
        real = os.path.realpath(full)
        if real != self.top and not real.startswith(self.top + os.sep):
            return None, None, "a symbolic link out of the site's directory", False
        if os.path.isdir(full):
            return None, None, "a directory, not a page", False
        if not os.path.isfile(full):
            return None, None, "no such file", False
        return target, frag, None, True

    def check(self):
        """Visits the pages from index.html; returns (pages, links, targets)."""
        if not os.path.isfile(os.path.join(self.top, "index.html")):
            self.problem("index.html: no such page: the site has no start")
            return 0, 0, 0
        queue = collections.deque(["index.html"])
        visited = {"index.html"}
        links = 0
        targets = set()
        while queue:
            rel = queue.popleft()
            for _, href in self.page(rel).links:
                links += 1
                target, frag, why, ok = self.resolve(rel, href)
                if why:
                    self.problem("%s: broken link '%s' (%s)" % (rel, href, why))
                if not ok:
                    continue
                targets.add(target)
                is_page = target.endswith((".html", ".htm"))
                if is_page and target not in visited:
                    visited.add(target)
                    queue.append(target)
                if not frag or not (is_page or target.endswith(".svg")):
                    continue
                page = self.page(target)
                if frag not in page.ids:
                    self.problem("%s: broken link '%s' (no id '%s' in %s)" % (rel, href, frag, target))
                elif frag in page.twice:
                    self.problem("%s: broken link '%s' (id '%s' given twice in %s, lines %d and %d)" % (
                        rel, href, frag, target, page.ids[frag], page.twice[frag]))
        return len(visited), links, len(targets)

    def all_pages(self):
        for root, dirs, files in os.walk(self.top):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                real = os.path.realpath(full)
                # a symbolic link out of DIR is no page of the site (a link to it is broken)
                if name.endswith((".html", ".htm")) and real.startswith(self.top + os.sep):
                    yield os.path.relpath(full, self.top).replace(os.sep, "/")


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: linkcheck.py DIR", file=sys.stderr)
        return 2
    top = argv[0]
    if not os.path.isdir(top):
        print("linkcheck: '%s' is not a directory" % top, file=sys.stderr)
        return 2
    site = Site(top)
    pages, links, targets = site.check()
    unreached = [p for p in site.all_pages() if p not in site.pages] if pages else []
    print("linkcheck %s: %d pages visited, %d links followed to %d files, %d pages no link reaches" % (
        top, pages, links, targets, len(unreached)))
    for p in unreached:
        print("unreached: %s" % p)
        site.problem("%s: no link reaches it from index.html" % p)
    for p in site.problems:
        print(p, file=sys.stderr)
    return 1 if site.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
