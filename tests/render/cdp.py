"""A tiny Chrome DevTools Protocol client: drive the system Chromium headless to
open a report, without downloading a browser (``websocket-client`` only)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]

CANDIDATES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]


def find_chromium() -> str | None:
    """The browser to drive: $KPR_CHROMIUM, else the first Chromium on PATH."""
    explicit = os.environ.get("KPR_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless browser with one page, collecting every event it reports."""

    def __init__(self, executable: str, user_data_dir: Path, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._log = (user_data_dir.parent / "chromium.log").open("wb")
        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={user_data_dir}",
             "--remote-debugging-port=0", "--window-size=1280,900", "about:blank"],
            stdout=self._log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        port = self._port(user_data_dir / "DevToolsActivePort")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        page = next(t for t in targets if t.get("type") == "page")
        self.ws = websocket.create_connection(
            page["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True
        )

    def _port(self, path: Path) -> int:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with code {self.proc.returncode}")
            if path.exists():
                lines = path.read_text().splitlines()
                if lines and lines[0].strip().isdigit():
                    return int(lines[0])
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its DevTools port")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call a method and return its result; events seen meanwhile are kept."""
        self._next_id += 1
        call = self._next_id
        self.ws.send(json.dumps({"id": call, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == call:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            if "method" in message:
                self.events.append(message)

    def wait_for(self, event: str) -> dict[str, Any]:
        """Block until the page reports ``event`` (or return it if already seen)."""
        for seen in self.events:
            if seen["method"] == event:
                return seen
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            if "method" in message:
                self.events.append(message)
                if message["method"] == event:
                    return message
        raise TimeoutError(f"no {event} within {self.timeout} s")

    def open(self, url: str) -> None:
        """Enable the domains we watch, then load ``url`` and wait for its load event."""
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.events.clear()
        self.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        self.evaluate("new Promise(r => requestAnimationFrame(() => r(1)))")

    def evaluate(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, *, width: int = 1280, height: int = 900,
                   full_page: bool = False) -> None:  # fmt: skip
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)  # fmt: skip
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1}
        data = self.send("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries, as text."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append("console.error: " + json.dumps(p.get("args")))
            elif e["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails")))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + json.dumps(p.get("entry")))
        return out

    def requests(self, page_url: str) -> list[str]:
        """Every URL the page asked for, other than itself and data: URIs."""
        urls = [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]
        return [u for u in urls if u != page_url and not u.startswith("data:")]

    def dialogs(self) -> list[str]:
        return [
            e["params"].get("message", "")
            for e in self.events
            if e["method"] == "Page.javascriptDialogOpening"
        ]

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the browser may already be gone
            self.send("Browser.close")
        try:
            self.ws.close()
        finally:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self._log.close()
