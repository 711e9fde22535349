"""A tiny Chrome DevTools Protocol client over --remote-debugging-pipe.

Standard library only: Chromium reads NUL-terminated JSON commands from file
descriptor 3 and writes replies and events to file descriptor 4, so no
WebSocket library is needed. Used by the HTML report test (html_check.py).
"""
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Debian's /usr/bin/chromium is a shell wrapper around this binary
CHROMIUM_BINARIES = ("/usr/lib/chromium/chromium",)


def find_chromium():
    env = os.environ.get("NOGVL_CHROMIUM")
    if env:
        return env if os.access(env, os.X_OK) else None
    for path in CHROMIUM_BINARIES:
        if os.access(path, os.X_OK):
            return path
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class CDPError(Exception):
    pass


class Browser:
    """One headless Chromium with a fresh profile, driven over a pipe."""

    def __init__(self, binary, timeout=60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="nogvl-chromium-")
        # fds 3 and 4 of the child: 3 = commands to the browser, 4 = its replies
        cmd_r, self._cmd_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        args = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--no-first-run",
            "--no-default-browser-check",
            "--mute-audio",
            "--remote-debugging-pipe",
            "--user-data-dir=" + self.profile,
            "about:blank",
        ]

        def child_fds():
            # move both out of the way first: either may already be 3 or 4
            import fcntl
            a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(rep_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)  # dup2 leaves the new descriptor inheritable
            os.dup2(b, 4)
            os.close(a)
            os.close(b)

        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
            preexec_fn=child_fds, close_fds=False)
        os.close(cmd_r)
        os.close(rep_w)
        self._buf = b""
        self._next_id = 0
        self.events = []  # (sessionId, method, params), in arrival order

    # -- transport
    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for the browser")
            r, _, _ = select.select([self._rep_r], [], [], left)
            if not r:
                continue
            chunk = os.read(self._rep_r, 1 << 16)
            if not chunk:
                raise CDPError("the browser closed the pipe (crashed?): " + self.stderr_text()[-2000:])
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None):
        self._next_id += 1
        mid = self._next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise CDPError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))

    def wait_event(self, method, session=None, timeout=None):
        """Waits for an event not yet seen; returns its params."""
        deadline = time.monotonic() + (timeout or self.timeout)
        for i, (s, meth, params) in enumerate(self.events):
            if meth == method and (session is None or s == session):
                del self.events[i]
                return params
        while True:
            m = self._read_message(deadline)
            if "method" in m:
                if m["method"] == method and (session is None or m.get("sessionId") == session):
                    return m.get("params", {})
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))

    # -- pages
    def open_page(self):
        """A new page target attached in flat mode; returns its session id."""
        tid = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        return self.send("Target.attachToTarget", {"targetId": tid, "flatten": True})["sessionId"]

    def evaluate(self, session, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        if "exceptionDetails" in r:
            raise CDPError("evaluate %r: %s" % (expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close")
                except (CDPError, OSError):
                    pass
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            for fd in (self._cmd_w, self._rep_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)
            self.stderr.close()


def load(browser, path, settle=0.3):
    """Opens file `path` in a new page and records what happens while it loads.

    Returns (session, problems, requests): problems are console errors and
    warnings, uncaught exceptions and browser log entries (CSP violations,
    failed loads) as strings; requests are the URLs the page asked for."""
    s = browser.open_page()
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(domain + ".enable", {}, s)
    url = "file://" + os.path.abspath(path)
    browser.send("Page.navigate", {"url": url}, s)
    browser.wait_event("Page.loadEventFired", s)
    time.sleep(settle)  # late console messages and requests
    browser.send("Runtime.evaluate", {"expression": "1"}, s)  # drains the pipe up to now
    problems, requests = [], []
    for sess, method, p in browser.events:
        if sess != s:
            continue
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            problems.append("console.%s: %s" % (p["type"], text))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            problems.append("exception: %s" % d.get("exception", {}).get("description", d.get("text", "")))
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") in ("error", "warning"):
                problems.append("log %s (%s): %s" % (e.get("level"), e.get("source"), e.get("text")))
        elif method == "Network.requestWillBeSent":
            requests.append(p.get("request", {}).get("url", ""))
    browser.events = [e for e in browser.events if e[0] != s]
    return s, problems, requests
