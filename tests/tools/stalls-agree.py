#!/usr/bin/python3
"""The three outputs of one run's stall table (analysis/stalls/stalltable.h)
against each other: `hitchbench stalls` as text and as JSON, and the "Why it
stalled" part of `hitchbench report --format html`. They must hold the same
stalls in the same order (section, when, length, cause, decider, evidence,
shares, waits) and the same seconds per cause, and the page must name the
records the run has (the stall record with its samples and period, the
wait record with its waits) and claim no samples it has not.

Usage: stalls-agree.py TEXT JSON HTML RECORDS, RECORDS being `both`,
`stalls` (the stall record alone) or `waits` (the wait record alone).
Prints what differs, one line each, and exits 1 if anything does.
Used by tests/cli/t1041-stalls-bpf-recorded.sh.
"""
import html.parser
import json
import re
import sys

ROW = re.compile(r"^ +([+-][0-9]+\.[0-9]{3}) +([0-9]+\.[0-9]) +(\S+) +(\S+) +(.*)$")


def text_rows(path):
    """The rows of the text's sections, their waits, and each section's
    seconds per cause."""
    rows, per, sec = [], {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"^  (load|warm-up|window) \(", line)
        if m:
            sec = m.group(1)
            continue
        m = ROW.match(line)
        if sec and m:
            rows.append({"section": sec, "when": m.group(1), "ms": m.group(2), "cause": m.group(3),
                         "decided": m.group(4), "rest": m.group(5), "waits": []})
        elif sec and line.startswith("      - "):
            rows[-1]["waits"].append(line[len("      - "):])
        elif sec and line.startswith("  seconds per cause:"):
            per[sec] = line[len("  seconds per cause:"):].strip()
    return rows, per


def json_rows(path):
    run = json.load(open(path, encoding="utf-8"))["runs"][0]
    rows = [{"section": s["section"], "when": "%+.3f" % s["when_s"], "ms": "%.1f" % s["ms"],
             "cause": s["cause"], "decided": s["decided"], "evidence": s["evidence"],
             "waits": s["waits"]} for s in run["stalls"]]
    return run, rows


class Page(html.parser.HTMLParser):
    """The page from its "Why it stalled" heading to the end of that run:
    the sources paragraph, each section's rows (their cells) with the
    waits listed under them, and the sections' seconds per cause."""

    TEXT = ("h4", "p", "td", "li")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.on, self.tag, self.buf, self.sec, self.cells = False, None, "", None, None
        self.sources, self.rows, self.per = None, [], {}

    def handle_starttag(self, tag, attrs):
        if tag in self.TEXT:
            self.tag, self.buf = tag, ""
        if tag in ("h3", "section"):
            self.on = False
        if tag == "tr" and self.on and dict(attrs).get("class") != "waits":
            self.cells = []

    def handle_data(self, data):
        if self.tag:
            self.buf += data

    def handle_endtag(self, tag):
        t = " ".join(self.buf.split())
        if tag == "h4" and t == "Why it stalled":
            self.on = True
        elif not self.on:
            pass
        elif tag == "h4":
            self.sec = t.split(" ")[0]
        elif tag == "p" and self.sources is None:
            self.sources = t
        elif tag == "p" and t.startswith("Seconds per cause:"):
            self.per[self.sec] = t[len("Seconds per cause:"):].strip()
        elif tag == "td" and self.cells is not None:
            self.cells.append(t)
        elif tag == "tr" and self.cells:
            c = self.cells
            self.rows.append({"section": self.sec, "when": c[0], "ms": c[1], "cause": c[2],
                              "decided": c[3], "shares": c[4], "evidence": c[5], "waits": []})
            self.cells = None
        elif tag == "li":
            self.rows[-1]["waits"].append(self.buf)
        if tag in self.TEXT:
            self.tag = None


def main():
    text, doc, page_path, records = sys.argv[1:5]
    trows, tper = text_rows(text)
    run, jrows = json_rows(doc)
    page = Page()
    page.feed(open(page_path, encoding="utf-8").read())
    problems = []

    def same(what, a, b):
        if a != b:
            problems.append("%s: %r, %r" % (what, a, b))

    same("stalls in text, JSON", len(trows), len(jrows))
    same("stalls in JSON, HTML", len(jrows), len(page.rows))
    for i, (t, j, h) in enumerate(zip(trows, jrows, page.rows)):
        for k in ("section", "when", "ms", "cause", "decided", "waits"):
            same("stall %d's %s in text, JSON" % (i, k), t[k], j[k])
            same("stall %d's %s in JSON, HTML" % (i, k), j[k], h[k])
        same("stall %d's evidence in JSON, HTML" % i, j["evidence"], h["evidence"])
        if not (t["rest"].startswith(h["shares"] + " ") and t["rest"].endswith(" " + j["evidence"])):
            problems.append("stall %d's shares and evidence in text: %r, not %r ... %r"
                            % (i, t["rest"], h["shares"], j["evidence"]))
    same("seconds per cause in text, HTML", tper, page.per)
    for sec, per in run["seconds_per_cause"].items():
        shown = " ".join("%s %.3f" % (c, v) for c, v in per.items() if v >= 0.0005)
        if shown:
            same("seconds per cause of %s in JSON, text" % sec, shown, tper.get(sec))

    has_rec, has_waits = records in ("both", "stalls"), records in ("both", "waits")
    same("stall_record in JSON", run["stall_record"], has_rec)
    same("wait_record in JSON", run["wait_record"], has_waits)
    src = page.sources or ""
    if has_rec != bool(re.search(r"stall record \([0-9]+ samples over [0-9.]+ s, period [0-9.]+ ms\)", src)):
        problems.append("the page's sources, with%s a stall record: %r" % ("" if has_rec else "out", src))
    if has_waits != bool(re.search(r"wait record \([0-9]+ waits, [0-9]+ block requests, [0-9]+ threads, "
                                   r"[0-9]+ events lost\)", src)):
        problems.append("the page's sources, with%s a wait record: %r" % ("" if has_waits else "out", src))
    if not has_rec and re.search(r"\bsamples?\b", src):
        problems.append("the page claims samples the run has not: %r" % src)
    if has_waits and not any(r["waits"] for r in page.rows):
        problems.append("the page lists no waits")
    if not trows:
        problems.append("no stall at all")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
