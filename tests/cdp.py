"""A small Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (no extra packages).

Chromium reads NUL-terminated JSON commands on fd 3 and writes responses and events on fd 4.
The browser tests use it to open a report headless, collect console messages and exceptions,
evaluate checks in the page and take screenshots.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"

FLAGS = [
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
    "--remote-debugging-pipe",
]


class CdpError(RuntimeError):
    pass


class Browser:
    """One headless chromium with one page; ``with Browser() as b: b.open(path) ...``."""

    def __init__(self, *, timeout_s: float = 60.0) -> None:
        self.timeout_s = timeout_s
        self._next_id = 0
        self._buf = b""
        self.events: list[dict[str, Any]] = []
        self.session = ""
        self._profile = tempfile.mkdtemp(prefix="advisor-chromium-")
        # Chromium wants commands on fd 3 and answers on fd 4: build both pipes, lift every end
        # above 10 so the dup2 onto 3 and 4 in the child cannot clobber one we still need.
        cmd_r, cmd_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in os.pipe())
        res_r, res_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in os.pipe())

        def child_fds() -> None:
            os.dup2(cmd_r, 3)
            os.dup2(res_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child_fds,
            pass_fds=(3, 4),  # close_fds runs after preexec_fn: keep the two we set up
        )
        os.close(cmd_r)
        os.close(res_w)
        self._w, self._r = cmd_w, res_r
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.call("Browser.close", _session=False)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    # ------------------------------------------------------------------ protocol

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("chromium did not answer in time")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise CdpError(f"chromium closed the pipe (exit code {self.proc.poll()})")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, _session: bool = True, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if _session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._next_id:
                if "error" in m:
                    raise CdpError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method: str, timeout_s: float | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        for i, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            if "method" in m:
                self.events.append(m)

    # ------------------------------------------------------------------ page helpers

    def open(self, path: Path, *, width: int = 1280, height: int = 900) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in res:
            raise CdpError(f"page script failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and browser log errors so far."""
        self.call("Runtime.evaluate", expression="0")  # drain events already sent
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in (
                "error",
                "warning",
                "assert",
            ):
                out.append(f"console.{p['type']}: {[a.get('value') for a in p.get('args', [])]}")
            elif e["method"] == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails', {}).get('text')}")
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") in (
                "error",
                "warning",
            ):
                entry = p["entry"]
                out.append(f"log {entry['level']}: {entry.get('text')} {entry.get('url', '')}")
        return out

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params.update(
                captureBeyondViewport=True,
                clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
            )
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path
