"""The table's page: status change -> DOM update latency in a real browser, and the step
stream's edge timing with three clients streaming the camera.

1. `bermuda-hw run --simulate` runs as its own process (the simulated table as
   fast as it goes, so the page has the most changes to follow); Chromium
   opens the page, and the page records for every state it renders the time
   the controller took the snapshot and the time its DOM was updated (one
   machine, one clock). Goal: p95 <= 300 ms.
2. bench_motion's real-time step stream at the rig's fastest step rate, alone
   and then with the page served in the same process and three clients
   streaming its camera view (frames rendered by the simulated camera in a
   thread of their own, as a camera captures on the rig).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
GOAL_P95_MS = 300.0
WATCH_S = 30.0
CLIENTS = 3


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _uptime() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0]


def latency() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as state:
        daemon = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from bermuda_hw.cli import main; sys.exit(main())",
                "run",
                "--simulate",
                "--speed",
                "0",
                "--stay",
                "--players",
                "3",
                "--seed",
                "2",
                "--bind",
                "127.0.0.1:0",
                "--state-dir",
                state,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            info = Path(state) / "daemon.json"
            deadline = time.monotonic() + 30
            while not info.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            url = json.loads(info.read_text())["url"]
            token = (Path(state) / "web-token").read_text().strip()
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1024, "height": 1366})
                page.goto(f"{url.rstrip('/')}/pair?token={token}")  # a paired phone
                page.wait_for_function("() => window.bermuda && window.bermuda.state")
                page.wait_for_function(
                    "() => window.bermuda.state.status.mode !== 'starting'", timeout=120_000
                )
                page.evaluate("() => { window.bermuda.updates = []; }")
                page.wait_for_timeout(WATCH_S * 1000)
                updates = page.evaluate("() => window.bermuda.updates")
                browser.close()
        finally:
            daemon.terminate()
            daemon.wait(20)
    lags = np.array([u["at"] - u["taken"] for u in updates], dtype=np.float64)
    p50, p95, p99 = np.percentile(lags, [50, 95, 99])
    print(
        f"status change -> DOM update in Chromium, simulated table as fast as it goes, "
        f"{WATCH_S:.0f} s: {len(lags)} updates, p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
        f"p99 {p99:.1f} ms, max {lags.max():.1f} ms (goal p95 <= {GOAL_P95_MS:g} ms; "
        f"load {_uptime()})"
    )


class _Feeder:
    """Frames of the simulated camera, as the controller's camera view, in a thread."""

    def __init__(self, board: Any, config: Any) -> None:
        from bermuda_hw.backends.sim import SimBackend
        from bermuda_hw.camera_config import parse_camera_config
        from bermuda_hw.controller.daemon import CameraView
        from bermuda_hw.sim.world import World
        from bermuda_hw.vision.reader import BoardReader

        self.view_type = CameraView
        self.backend = SimBackend(config, World(board))
        camera = self.backend.open_camera(
            board, parse_camera_config({"width_px": 1280, "height_px": 960}, None)
        )
        camera.open()
        self.camera = camera
        frame = camera.read()
        self.reader = BoardReader(board)
        reading = self.reader.read(frame.image, frame.timestamp_s)
        self.view: Any = CameraView(frame.image, reading, self.reader.tracker.pose, 1)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        n = 1
        while not self.stop.is_set():
            frame = self.camera.read()
            n += 1
            self.view = self.view_type(frame.image, self.view.reading, self.view.pose, n)
            time.sleep(1 / 15)  # a 15 fps camera

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.camera.close()
        self.backend.close()


def _mode(priority: int) -> str:
    return f"SCHED_FIFO {priority}" if priority else "ordinary scheduling"


def step_edges_with_clients() -> None:
    from bermuda_hw.config import WebConfig, load_config
    from bermuda_hw.controller.commands import CommandQueue
    from bermuda_hw.controller.snapshot import Snapshot
    from bermuda_hw.rules.boardfile import load_board
    from bermuda_hw.web.service import start_page

    motion = _load("bench_motion")
    config = load_config()
    board = load_board()
    rate = config.gantry.max_speed_mm_s * config.gantry.x.steps_per_mm
    count = int(rate * 3)
    plan = motion._constant_rate_plan(rate, count)

    from bermuda_hw.backends.real import RealBackend

    fifo = RealBackend.step_thread_priority
    priorities = [0] + ([fifo] if motion._fifo_allowed(fifo) else [])
    for priority in priorities:
        errors, _, _ = motion._real_time_stream(config, plan, priority)
        print(
            f"step-edge error at maximum speed ({rate:.0f} steps/s), {_mode(priority)}, "
            f"no page clients: {motion._percentiles(errors)} (load {_uptime()})"
        )

    feeder = _Feeder(board, config)

    class Controller:
        def __init__(self) -> None:
            self.commands = CommandQueue()
            self.subscribers: list[Any] = []
            self.snapshot: Snapshot | None = None

        @property
        def camera_view(self) -> Any:
            return feeder.view

    with tempfile.TemporaryDirectory() as state:
        page = start_page(
            Controller(),
            board,
            WebConfig(enabled=True, bind="127.0.0.1:0"),
            Path(state),
            simulate=True,
        )
        stop = threading.Event()
        received = [0] * CLIENTS

        def client(i: int) -> None:
            request = urllib.request.Request(
                page.local_url + "api/camera.mjpeg", headers={"X-Bermuda-Token": page.token}
            )
            with urllib.request.urlopen(request, timeout=30) as r:
                while not stop.is_set():
                    chunk = r.read(65536)
                    if not chunk:
                        return
                    received[i] += chunk.count(b"--frame")

        feeder.thread.start()
        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        runs = [(p, False) for p in priorities] + [(priorities[-1], True)]
        for priority, held in runs:
            if held:  # as in the daemon: the page shows the cloud moving, frames wait
                page.hub.publish(
                    Snapshot(2, 0, {"mode": "moving", "seq": 0}, None, None, None, {}, None)
                )
                time.sleep(1.0)
            encoded_before, started = page.camera.encoded, time.monotonic()
            sent_before = sum(received)
            errors, _, _ = motion._real_time_stream(config, plan, priority)
            fps = (page.camera.encoded - encoded_before) / (time.monotonic() - started)
            what = (
                "connected, frames held while the cloud moves" if held else "streaming the camera"
            )
            print(
                f"step-edge error at maximum speed, {_mode(priority)}, {CLIENTS} clients "
                f"{what} ({fps:.1f} JPEG encodes/s shared, "
                f"{sum(received) - sent_before} frames sent): "
                f"{motion._percentiles(errors)} (load {_uptime()})"
            )
        stop.set()
        page.stop()
        feeder.close()


def main() -> None:
    latency()
    step_edges_with_clients()


if __name__ == "__main__":
    main()
