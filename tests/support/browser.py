"""A real headless Chromium driven over the DevTools protocol (``--remote-debugging-pipe``).

No websocket and no port: Chromium reads protocol messages from fd 3 and writes to fd 4, each a
JSON object ended by a NUL byte (the transport puppeteer's ``pipe: true`` uses). The browser runs
in its own process group with a throw-away profile and the network cut off (every host resolves
to nothing, and http(s)/ws(s) requests are blocked by the protocol); every request the page
tries, console error and uncaught exception is recorded. ``close()`` (or the context manager)
always kills the whole group, so no Chromium outlives a test.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    env = os.environ.get("HARNESS_CHROMIUM")
    if env:
        return shutil.which(env)
    return next((p for c in CANDIDATES if (p := shutil.which(c))), None)


class BrowserError(RuntimeError):
    pass


class Browser:
    def __init__(self, exe: str, *, timeout_s: float = 60.0) -> None:
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="harness-chromium-")
        self._to_r, self._to_w = os.pipe()  # we write commands -> its fd 3
        self._from_r, self._from_w = os.pipe()  # its fd 4 -> we read events
        args = [exe, "--headless=new", "--remote-debugging-pipe", "--no-first-run",
                "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
                "--disable-background-networking", "--disable-sync", "--mute-audio",
                "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND",
                f"--user-data-dir={self.profile}", "--window-size=1400,900"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run its sandbox as root
        args.append("about:blank")
        # the protocol lives on fds 3 and 4: bash moves our pipe ends there, then execs
        r, w = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (self._to_r, self._from_w))
        os.close(self._to_r)
        os.close(self._from_w)  # the copies (>= 10) cannot collide with 3 or 4
        shell = f'exec "$0" "$@" 3<&{r} 4>&{w} {r}<&- {w}>&-'
        self.proc = subprocess.Popen(["bash", "-c", shell, *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=(r, w), start_new_session=True)
        os.close(r)
        os.close(w)
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    # ---- transport ----------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            r, _, _ = select.select([self._from_r], [], [], left)
            if not r:
                continue
            chunk = os.read(self._from_r, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: bool = True, timeout_s: float | None = None) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise BrowserError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method: str, timeout_s: float = 30.0) -> dict[str, Any]:
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout_s
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    # ---- a page -------------------------------------------------------------------------------
    def open(self, url: str, *, settle_s: float = 0.3) -> None:
        """Load ``url`` in a new tab (the previous one is closed and its record cleared)."""
        if self.session is not None:
            self.send("Target.closeTarget", {"targetId": self.target}, session=False)
            self.session = None
        self.events.clear()
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        att = self.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                  "flatten": True}, session=False)
        self.session, self.target = att["sessionId"], target["targetId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Network.setBlockedURLs", {"urls": ["http://*", "https://*", "ws://*",
                                                      "wss://*", "ftp://*"]})
        self.send("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 900,
                                                         "deviceScaleFactor": 1,
                                                         "mobile": False})
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", timeout_s=self.timeout_s)
        time.sleep(settle_s)
        self.evaluate("1")  # drain what the page logged while loading

    def evaluate(self, expression: str) -> Any:
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise BrowserError(f"{expression[:80]}: {r['exceptionDetails'].get('text')} "
                               f"{r['exceptionDetails'].get('exception', {}).get('description')}")
        return r.get("result", {}).get("value")

    def screenshot(self, path: Path) -> Path:
        r = self.send("Page.captureScreenshot", {"format": "png"})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(r["data"]))
        return path

    def pixels(self, selector: str, *, scale: float = 0.5) -> "Pixels":
        """The element's area on screen as decoded pixels (a screenshot clipped to it)."""
        r = self.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                          ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height];"
                          " })()")
        shot = self.send("Page.captureScreenshot", {"format": "png", "clip": {
            "x": r[0], "y": r[1], "width": r[2], "height": r[3], "scale": scale}})
        return decode_png(base64.b64decode(shot["data"]))

    # ---- what the page did --------------------------------------------------------------------
    def console_errors(self) -> list[str]:
        out = []
        for ev in self.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append(f"exception: {d.get('text')} "
                           f"{d.get('exception', {}).get('description', '')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                  for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log: {p['entry'].get('text')}")
        return out

    def requests(self) -> list[str]:
        """Every URL the page asked for (the page itself included), but ``data:`` and
        ``blob:`` URLs: they are read from the page's own bytes (KaTeX's inlined fonts)."""
        return [u for ev in self.events if ev.get("method") == "Network.requestWillBeSent"
                and not (u := ev["params"]["request"]["url"]).startswith(("data:", "blob:"))]

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close", session=False, timeout_s=5)
                except (BrowserError, OSError, ValueError):
                    pass
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # helpers (zygote, gpu, renderers)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            deadline = time.monotonic() + 10  # helpers reparented to init: until it reaps them
            while self.group() and time.monotonic() < deadline:
                time.sleep(0.1)
            for fd in (self._to_w, self._from_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def group(self) -> list[int]:
        """The processes still in the browser's process group (zombies included)."""
        out = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[2]) == self.proc.pid:
                    out.append(int(entry.name))
        return out

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Pixels:
    def __init__(self, width: int, height: int, channels: int, data: bytes) -> None:
        self.width, self.height, self.channels, self.data = width, height, channels, data

    def rgb(self):
        c = self.channels
        for i in range(0, len(self.data), c):
            yield self.data[i], self.data[i + 1], self.data[i + 2]

    def ink(self, background: tuple[int, int, int] = (255, 255, 255), tol: int = 24) -> int:
        """How many pixels differ from the background (a blank view: 0)."""
        br, bg, bb = background
        return sum(1 for r, g, b in self.rgb()
                   if abs(r - br) + abs(g - bg) + abs(b - bb) > tol)

    def near(self, colour: str, tol: int = 40) -> int:
        """How many pixels are close to ``#rrggbb`` (e.g. a status colour)."""
        cr, cg, cb = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return sum(1 for r, g, b in self.rgb()
                   if abs(r - cr) + abs(g - cg) + abs(b - cb) <= tol)


def decode_png(raw: bytes) -> Pixels:
    """An 8-bit RGB/RGBA, non-interlaced PNG (what Chromium's screenshots are)."""
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(raw):
        n = int.from_bytes(raw[pos:pos + 4], "big")
        kind, body = raw[pos + 4:pos + 8], raw[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            depth, colour, interlace = body[8], body[9], body[12]
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    data = zlib.decompress(idat)
    stride = width * channels
    out = bytearray()
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        f, line = data[i], bytearray(data[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                c = prev[x - channels] if x >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return Pixels(width, height, channels, bytes(out))
