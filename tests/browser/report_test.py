#!/usr/bin/env python3
"""The HTML report in a real browser: headless Chromium opens the report of
the sample corpus from disk and this script checks, through the DevTools
protocol (over a pipe: no port, no network, no Python package beyond the
standard library), that

- the page logs no console error, throws nothing and fetches nothing but
  itself (a blocked or failed fetch is a console error too);
- its DOM holds every cluster of `doppel scan --format json` with exactly
  its members;
- the scan/e-text pair's diff marks each OCR confusion inside its word
  (`rnust` against `must`: `rn` and `m` marked);
- the script works: filtering (by path, and by verdict, relation and role),
  sorting, and a link to a pair's diff opens its cluster and its diff;
- at 1,400 px, an open cluster's pairs table shows the verdict, relation,
  curator and diff columns without scrolling (the scores come after);

and keeps a screenshot at target/report-screenshot.png for people to look
at. Usage: report_test.py [DOPPEL] [CHROMIUM] (defaults: target/debug/doppel,
chromium on PATH). Exit status 0 when every check passes.
"""

import base64
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(REPO, "sample-corpus")
OUT_DIR = os.path.join(REPO, "target", "browser")
SCREENSHOT = os.path.join(REPO, "target", "report-screenshot.png")
KNOWN_PAIR = ("austen/pride-prejudice-ch1-3.txt", "scans/pride-prejudice-ch1-3-ocr.txt")
# OCR confusions in the scan, each with the characters marked on the scan's side.
CONFUSIONS = [("rnust", "rn"), ("wifc", "c"), ("tlie", "li"), ("a1l", "1"), ("objeetion", "e")]
TIMEOUT = 30.0
# A colleague's laptop: the pairs' verdict, relation and diff must be in view.
WIDTH = 1400


class Failure(Exception):
    pass


class Chromium:
    """Chromium driven over --remote-debugging-pipe (fd 3 in, fd 4 out)."""

    def __init__(self, binary, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def wire():
            # Move both ends out of the way first, so 3 and 4 never clobber them.
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--mute-audio",
            "--user-data-dir=" + profile,
            "--remote-debugging-pipe",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args,
            preexec_fn=wire,
            pass_fds=(3, 4),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own process group, so that every process it starts
            # (zygote, renderers, GPU) can be stopped with it.
            start_new_session=True,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.send("Browser.close", wait=False)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        # Whatever of its group outlived it.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        os.close(self.to_chrome)
        os.close(self.from_chrome)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    raise Failure("Chromium closed its pipe (exit %s)" % self.proc.poll())
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, wait=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        if not wait:
            return None
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise Failure("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session):
        deadline = time.monotonic() + TIMEOUT
        for k, event in enumerate(self.events):
            if event.get("method") == method and event.get("sessionId") == session:
                return self.events.pop(k)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method and event.get("sessionId") == session:
                return event
            self.events.append(event)

    def drain(self, seconds):
        """Collect events for a moment (late console messages)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.events.append(self._read_message(deadline))
            except Failure:
                return


class Page:
    def __init__(self, browser):
        self.browser = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}
        )["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )

    def send(self, method, params=None):
        return self.browser.send(method, params, session=self.session)

    def open(self, url):
        self.send("Page.navigate", {"url": url})
        self.browser.wait_event("Page.loadEventFired", self.session)

    def eval(self, expression):
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise Failure("script failed: %s" % result["exceptionDetails"].get("text"))
        return result["result"].get("value")

    def problems(self, url):
        """Console errors, exceptions and fetches of anything but `url`."""
        out = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                args = [a.get("value", a.get("description")) for a in params.get("args", [])]
                out.append("console error: %s" % args)
            elif method == "Runtime.exceptionThrown":
                out.append("exception: %s" % params["exceptionDetails"].get("text"))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                out.append("log error: %s" % params["entry"].get("text"))
            elif method == "Network.requestWillBeSent":
                requested = params["request"]["url"].split("#")[0]
                if requested != url and not requested.startswith("data:"):
                    out.append("fetched %s" % requested)
        return out


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise Failure("%s failed (%d): %s" % (" ".join(cmd), done.returncode, done.stderr))
    return done.stdout


def main():
    doppel = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "debug", "doppel")
    chromium = sys.argv[2] if len(sys.argv) > 2 else shutil.which("chromium")
    if not chromium:
        print("chromium not found", file=sys.stderr)
        return 2
    os.makedirs(OUT_DIR, exist_ok=True)
    report = os.path.join(OUT_DIR, "report.html")
    run([doppel, "report", CORPUS, "--no-index", "--html", report, "--force"])
    scan = json.loads(run([doppel, "scan", CORPUS, "--no-index", "--format", "json"]))
    url = "file://" + report

    passed, failed = 0, 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print("ok   %s" % name)
        else:
            failed += 1
            print("FAIL %s %s" % (name, detail))

    profile = tempfile.mkdtemp(prefix="doppel-chromium-")
    browser = Chromium(chromium, profile)
    try:
        page = Page(browser)
        page.open(url)
        browser.drain(0.5)

        clusters = page.eval(
            """Array.from(document.querySelectorAll('tbody.cluster')).map(b => ({
                 id: Number(b.dataset.id),
                 members: Array.from(b.querySelectorAll('table.members td code')).map(c => c.textContent)
               }))"""
        )
        want = {c["id"]: sorted(c["members"]) for c in scan["clusters"]}
        got = {c["id"]: sorted(c["members"]) for c in clusters}
        check(
            "the DOM holds the scan's %d clusters" % len(want),
            len(clusters) == len(scan["clusters"]) and len(want) > 0,
            "DOM %d, JSON %d" % (len(clusters), len(scan["clusters"])),
        )
        check("each cluster has exactly the scan's members", got == want, "%s != %s" % (got, want))

        marks = page.eval(
            """(() => {
                 const s = Array.from(document.querySelectorAll('section.pair'))
                   .find(s => s.dataset.a === %s && s.dataset.b === %s);
                 if (!s) return null;
                 return Array.from(s.querySelectorAll('table.diff tr.chg-row td:nth-child(2) .chg'))
                   .flatMap(span => span.textContent.split(' ').map(word => ({word})))
                   .concat(Array.from(s.querySelectorAll('table.diff td:nth-child(2) .chg mark'))
                   .map(m => ({mark: m.textContent, word: m.parentElement.textContent})));
               })()"""
            % (json.dumps(KNOWN_PAIR[0]), json.dumps(KNOWN_PAIR[1]))
        )
        check("the known pair has a diff section", marks is not None)
        marks = marks or []
        for word, marked in CONFUSIONS:
            hit = any(
                m.get("mark") == marked and word in [w.strip(".,;:!?\"'_") for w in m["word"].split(" ")]
                for m in marks
                if "mark" in m
            )
            check("the scan's %r has %r marked" % (word, marked), hit)

        # The script: filter, sort, and a link to a pair's diff.
        shown = page.eval(
            """(() => {
                 const f = document.getElementById('filter');
                 f.value = 'ocr'; f.dispatchEvent(new Event('input'));
                 const visible = Array.from(document.querySelectorAll('tbody.cluster')).filter(b => !b.hidden).length;
                 f.value = ''; f.dispatchEvent(new Event('input'));
                 return [visible, document.getElementById('shown').textContent];
               })()"""
        )
        check(
            "typing 'ocr' in the filter leaves the one cluster with the scan",
            shown[0] == 1 and shown[1] == "%d of %d clusters" % (len(want), len(want)),
            str(shown),
        )
        # Verdicts, relations and roles are searchable, not paths only.
        with_part = {
            n
            for n, c in enumerate(scan["clusters"], 1)
            if any(
                p["relation"] == "contains" and p["a"] in c["members"] and p["b"] in c["members"]
                for p in scan["pairs"]
            )
        }
        found = page.eval(
            """(() => {
                 const f = document.getElementById('filter');
                 const ids = word => {
                   f.value = word; f.dispatchEvent(new Event('input'));
                   return Array.from(document.querySelectorAll('tbody.cluster')).filter(b => !b.hidden)
                     .map(b => Number(b.dataset.id));
                 };
                 const out = {contains: ids('contains'), partOf: ids('part of'), duplicate: ids('duplicate')};
                 f.value = ''; f.dispatchEvent(new Event('input'));
                 return out;
               })()"""
        )
        check(
            "filtering 'contains' and 'part of' finds the clusters with a part",
            set(found["contains"]) == with_part and set(found["partOf"]) == with_part and with_part,
            "%s, %s != %s" % (found["contains"], found["partOf"], sorted(with_part)),
        )
        check(
            "filtering 'duplicate' finds the clusters of duplicates",
            len(found["duplicate"]) > 0,
            str(found["duplicate"]),
        )
        in_view = page.eval(
            """(() => {
                 const body = document.querySelector('tbody.cluster');
                 body.querySelector('button.expand').click();
                 const heads = Array.from(body.querySelectorAll('table.pairs thead th'));
                 const right = name => {
                   const th = heads.find(h => h.textContent.trim() === name);
                   return th ? th.getBoundingClientRect().right : null;
                 };
                 const out = ['verdict', 'relation', 'curator', 'diff'].map(right);
                 body.querySelector('button.expand').click();
                 return out;
               })()"""
        )
        check(
            "at %d px the pairs' verdict, relation, curator and diff columns are in view" % WIDTH,
            all(r is not None and r <= WIDTH for r in in_view),
            str(in_view),
        )
        order = page.eval(
            """(() => {
                 const th = document.querySelector('th[data-key=size] button');
                 th.click(); th.click();
                 return Array.from(document.querySelectorAll('tbody.cluster')).map(b => Number(b.dataset.size));
               })()"""
        )
        check("sorting by members, twice, puts the largest first", order == sorted(order, reverse=True) and order[0] > order[-1], str(order))
        opened = page.eval(
            """(() => {
                 const s = Array.from(document.querySelectorAll('section.pair'))
                   .find(s => s.dataset.a === %s && s.dataset.b === %s);
                 location.hash = s.id;
                 const state = () => [!s.closest('tr.detail').hidden, s.querySelector('details').open,
                   s.closest('tbody').querySelector('button.expand').getAttribute('aria-expanded')];
                 // Wait for the page's hashchange handler (not a fixed delay):
                 // its state is read every 20 ms until it is open, for 10 s at most.
                 const until = performance.now() + 10000;
                 return new Promise(done => {
                   const look = () => {
                     const now = state();
                     if ((now[0] && now[1] && now[2] === 'true') || performance.now() > until) done(now);
                     else setTimeout(look, 20);
                   };
                   look();
                 });
               })()"""
            % (json.dumps(KNOWN_PAIR[0]), json.dumps(KNOWN_PAIR[1]))
        )
        check("a link to the pair opens its cluster and its diff", opened == [True, True, "true"], str(opened))

        # Screenshot: the table with the scan's cluster open and its diff.
        page.eval("window.scrollTo(0, 0)")
        height = page.eval("Math.min(document.documentElement.scrollHeight, 2600)")
        shot = page.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1},
            },
        )
        with open(SCREENSHOT, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        check("a screenshot is kept at %s" % os.path.relpath(SCREENSHOT, REPO), os.path.getsize(SCREENSHOT) > 10000)

        browser.drain(0.3)
        problems = page.problems(url)
        check("no console error, exception or fetch", not problems, "; ".join(problems))
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print("browser: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    # Stopped from outside: still close the browser (main's finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(main())
    except Failure as e:
        print("FAIL %s" % e)
        print("browser: 0 passed, 1 failed")
        sys.exit(1)
