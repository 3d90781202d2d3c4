#!/usr/bin/python3
"""chromium-check: loads a page in headless Chromium over the DevTools
protocol (--remote-debugging-pipe: JSON messages ending in NUL on fds 3
and 4, no websocket, no port) and says what a person would see wrong.

    chromium-check.py [--chromium PROG] [--width W] [--shot PNG] [--shot-height H]
                      [--shot-y Y] PAGE.html

Fails (exit 1, one line a problem on stderr) on: a JavaScript exception,
a console message of level error, a log entry of level error (Chromium
logs a resource that failed to load there), a request for anything that
is not the page itself or a data: URI, an <img> that did not decode, an
<svg> with nothing drawn (no child element, or an empty bounding box), a
<figure> without an <svg> or <img>, and a screenshot of the page's first
screens that is blank (one colour, or almost all white). Prints what it
checked, key=value a line. --shot saves a screenshot (W wide, the first
H pixels of the page from Y, default the first 2400) as PNG. Exit 2 for
bad usage, 3 when Chromium cannot start or answer (the caller skips).

Used by tests/cli/t0381-report-html-chromium.sh. Standard library only.
"""
import base64
import json
import os
import struct
import subprocess
import sys
import time
import zlib

TIMEOUT_S = 20


class Browser:
    def __init__(self, prog, width):
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()
        args = [prog, "--headless", "--remote-debugging-pipe", "--disable-gpu",
                "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--mute-audio", f"--window-size={width},900", "about:blank"]
        # Chromium refuses to run as root with its sandbox on (it needs a
        # user namespace or the setuid helper): as root, without it
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")
        # the pipe's ends must be the child's fds 3 and 4, and no other of
        # ours open in it (os.pipe's are close-on-exec)
        def child_fds():
            r, w = os.dup(cmd_r), os.dup(res_w)
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, preexec_fn=child_fds, close_fds=False)
        os.close(cmd_r)
        os.close(res_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT_S

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read_message(self):
        while b"\0" not in self.buf:
            if time.monotonic() > self.deadline:
                raise TimeoutError("no answer from Chromium in %d s" % TIMEOUT_S)
            chunk = os.read(self.res_r, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed its pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=None):
        want = self.send(method, params, session)
        while True:
            msg = self.read_message()
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method):
        for i, ev in enumerate(self.events):
            if ev["method"] == method:
                return self.events.pop(i)
        while True:
            msg = self.read_message()
            if msg.get("method") == method:
                return msg
            if "method" in msg:
                self.events.append(msg)

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or colour not in (2, 6):
        raise ValueError("PNG depth %d colour type %d" % (depth, colour))
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


# What the page holds, measured in the page (no script of its own is needed)
CHECK_JS = r"""(() => {
  const out = {problems: [], figures: 0, svgs: 0, imgs: 0};
  for (const img of document.images) {
    out.imgs++;
    if (!img.complete || img.naturalWidth === 0)
      out.problems.push('an <img> did not load: ' + (img.getAttribute('src') || '').slice(0, 60));
  }
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement && svg.parentElement.closest('svg')) continue;
    out.svgs++;
    const box = svg.getBoundingClientRect();
    let drawn = 0;
    try { const b = svg.getBBox(); drawn = b.width * b.height; } catch (e) {}
    if (svg.childElementCount === 0 || drawn === 0 || box.width === 0 || box.height === 0)
      out.problems.push('an empty <svg> in ' + (svg.closest('figure') || {id: '?'}).id);
  }
  for (const fig of document.querySelectorAll('figure')) {
    out.figures++;
    if (!fig.querySelector(':scope > svg, :scope > img'))
      out.problems.push('a figure without its picture: ' + fig.id);
  }
  out.height = document.documentElement.scrollHeight;
  out.width = document.documentElement.scrollWidth;
  out.title = document.title;
  return JSON.stringify(out);
})()"""


def page_problems(b, session, page_url):
    """The console, the log and the requests, as events collected so far."""
    problems = []
    for ev in b.events:
        m, p = ev["method"], ev.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            problems.append("JavaScript exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            problems.append("console %s: %s" % (p["type"], [a.get("value") for a in p.get("args", [])]))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            problems.append("console error (%s): %s %s" % (e.get("source"), e.get("text"), e.get("url", "")))
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if url != page_url and not url.startswith("data:"):
                problems.append("the page asked for %s" % url)
        elif m == "Network.loadingFailed":
            problems.append("a load failed: %s" % p.get("errorText"))
    return problems


def screenshot(b, session, width, y, height, scale):
    r = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                          "clip": {"x": 0, "y": y, "width": width,
                                                   "height": height, "scale": scale}}, session)
    return base64.b64decode(r["data"])


def blank_problems(png):
    w, h, bpp, rows = png_pixels(png)
    colours, white = set(), 0
    for row in rows:
        for x in range(0, w * bpp, bpp):
            px = row[x:x + 3]
            colours.add(px)
            white += px == b"\xff\xff\xff"
    share = 1 - white / float(w * h)
    print("screenshot=%dx%d colours=%d not_white=%.3f" % (w, h, len(colours), share))
    if len(colours) < 2:
        return ["the screenshot is one colour"]
    if share < 0.01:
        return ["the screenshot is almost all white (%.2f%% drawn)" % (100 * share)]
    return []


def main(argv):
    prog, width, shot, shot_h, shot_y, page = "chromium", 1280, None, 2400, 0, None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("--chromium", "--width", "--shot", "--shot-height", "--shot-y") and args:
            v = args.pop(0)
            if a == "--chromium":
                prog = v
            elif a == "--shot":
                shot = v
            else:
                n = int(v)
                width, shot_h, shot_y = (n, shot_h, shot_y) if a == "--width" else \
                    (width, n, shot_y) if a == "--shot-height" else (width, shot_h, n)
        elif page is None and not a.startswith("--"):
            page = a
        else:
            print("usage: chromium-check.py [--chromium PROG] [--width W] [--shot PNG] "
                  "[--shot-height H] [--shot-y Y] PAGE.html", file=sys.stderr)
            return 2
    if page is None:
        print("chromium-check: no page given", file=sys.stderr)
        return 2
    url = "file://" + os.path.abspath(page)
    try:
        b = Browser(prog, width)
    except OSError as e:
        print("chromium-check: cannot start %s: %s" % (prog, e), file=sys.stderr)
        return 3
    try:
        t0 = time.monotonic()
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.call(domain + ".enable", {}, session)
        b.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900,
                                                      "deviceScaleFactor": 1, "mobile": False}, session)
        b.call("Page.navigate", {"url": url}, session)
        b.wait_event("Page.loadEventFired")
        found = json.loads(b.call("Runtime.evaluate", {"expression": CHECK_JS, "returnByValue": True},
                                  session)["result"]["value"])
        problems = page_problems(b, session, url) + found["problems"]
        print("load_s=%.2f figures=%d svgs=%d imgs=%d height=%d width=%d title=%s" % (
            time.monotonic() - t0, found["figures"], found["svgs"], found["imgs"], found["height"],
            found["width"], found["title"]))
        if found["width"] > width:
            problems.append("the page is %d px wide in a %d px window" % (found["width"], width))
        small = screenshot(b, session, width, 0, min(found["height"], 3600), 0.25)
        problems += blank_problems(small)
        if shot:
            h = max(1, min(shot_h, found["height"] - shot_y))
            with open(shot, "wb") as f:
                f.write(screenshot(b, session, width, shot_y, h, 1))
    except (TimeoutError, EOFError, RuntimeError, OSError) as e:
        err = b.proc.stderr.read1(4096).decode(errors="replace") if b.proc.poll() is not None else ""
        print("chromium-check: Chromium did not answer: %s %s" % (e, err.strip()[-300:]), file=sys.stderr)
        b.close()
        return 3
    b.close()
    for p in problems:
        print("chromium-check: %s" % p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
