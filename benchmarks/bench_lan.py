"""The table on a hostile LAN: slow connections against a running simulated table.

`bermuda-hw run --simulate` runs as its own process with a soft limit of 1,024
open files (the limit a service has without `LimitNOFILE=`). From this process,
and only to 127.0.0.1:

1. hold: 1,100 slow connections from 127.0.0.1, half sending only
   `GET / HTTP/1.1`, half the request line and then a header every 10 s, none
   reconnecting;
2. spread: the same from 35 loopback addresses (127.0.0.2-36, about 32 each:
   the per-client cap), so that the total cap and the deadline do the work;
3. churn: the same 1,100 from 127.0.0.1, each reconnecting a second after the
   table closes it (a slowloris that keeps trying), for `CHURN_S`.

Meanwhile a token holder asks `/api/status` on a new connection every 0.25 s,
as a phone does, and the daemon's sd_notify messages come to a socket of this
process (`NOTIFY_SOCKET`, a watchdog period of `WATCHDOG_S`). Reported: the
token holder's latency (goal: every answer within 100 ms), the longest wait
between two `WATCHDOG=1` (goal: under the period, or systemd would kill it),
whether the game went on (journal entries and snapshots during the attack),
the daemon's open files and resident memory before, at the peak and after each
phase (memory freed by the connections is reused by the next phase: it does not
grow phase after phase), and the tracebacks in its output (goal: none).

    python benchmarks/bench_lan.py [--connections N] [--hold S] [--churn S]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import itertools
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

GOAL_MS = 100.0
CONNECTIONS = 1100
DAEMON_FILES = 1024
HOLD_S = 20.0  # past the table's 10 s deadline for a whole request
SOURCES = [f"127.0.0.{n}" for n in range(2, 37)]  # loopback addresses to send from
CHURN_S = 15.0
PROBE_EVERY_S = 0.25
HEADER_EVERY_S = 10.0
HOST = "127.0.0.1"  # the only address this benchmark sends to
WATCHDOG_S = 2.0  # the service has WatchdogSec=30; a shorter period is a stricter test


def _uptime() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0]


def _proc(pid: int) -> tuple[int, float]:
    """The process's open files and resident memory (MiB)."""
    files = len(os.listdir(f"/proc/{pid}/fd"))
    rss_kib = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss_kib = int(line.split()[1])
    return files, rss_kib / 1024


def _daemon_limits() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (DAEMON_FILES, hard))


@dataclass
class Probe:
    """A token holder asking for the status on a new connection, in a thread of its own."""

    port: int
    token: str
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
                conn.request("GET", "/api/status", headers={"X-Bermuda-Token": self.token})
                response = conn.getresponse()
                body = response.read()
                conn.close()
                if response.status != 200:
                    self.failures.append(f"{response.status} {body[:80]!r}")
                else:
                    self.latencies_ms.append((time.perf_counter() - started) * 1000)
                    self.seqs.append(int(json.loads(body)["seq"]))
            except OSError as exc:
                self.failures.append(f"{type(exc).__name__}: {exc}")
            self.stop.wait(PROBE_EVERY_S)


@dataclass
class Attack:
    """Slow connections: opened, fed a header now and then, counted when the table closes them."""

    port: int
    reconnect: bool
    sources: list[str] | None = None  # loopback addresses to send from (None: any)
    opened: int = 0
    closed_by_table: int = 0
    connect_failures: int = 0

    async def one(self, n: int, until: float) -> None:
        while time.monotonic() < until:
            try:
                source = None if self.sources is None else (self.sources[n % len(self.sources)], 0)
                reader, writer = await asyncio.open_connection(HOST, self.port, local_addr=source)
            except OSError:
                self.connect_failures += 1
                await asyncio.sleep(1.0)
                continue
            self.opened += 1
            try:
                writer.write(b"GET / HTTP/1.1\r\n")
                while time.monotonic() < until:
                    try:
                        data = await asyncio.wait_for(reader.read(4096), HEADER_EVERY_S)
                    except TimeoutError:
                        if n % 2:  # the trickling half: another header
                            writer.write(b"X-Slow: 1\r\n")
                        continue
                    if not data:
                        self.closed_by_table += 1
                        break
            except OSError:
                self.closed_by_table += 1
            finally:
                writer.close()
            if not self.reconnect:
                return
            await asyncio.sleep(1.0)

    async def run(self, connections: int, seconds: float) -> None:
        until = time.monotonic() + seconds
        tasks = []
        for n in range(connections):
            tasks.append(asyncio.create_task(self.one(n, until)))
            if n % 50 == 49:
                await asyncio.sleep(0.01)  # a burst, not one instant
        await asyncio.gather(*tasks)


@dataclass
class Notified:
    """The daemon's sd_notify datagrams, timed: the watchdog's kicks among them."""

    path: Path
    kicks: list[float] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.path))
        self.sock.settimeout(0.2)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            if b"WATCHDOG=1" in data.split(b"\n"):
                self.kicks.append(time.monotonic())
        self.sock.close()

    def longest_gap_s(self, start: float, end: float) -> float:
        """The longest time without a kick between `start` and `end`."""
        times = [start] + [t for t in self.kicks if start < t < end] + [end]
        return max(b - a for a, b in itertools.pairwise(times))


def _state(port: int, token: str) -> dict[str, Any]:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    conn.request("GET", "/api/state", headers={"X-Bermuda-Token": token})
    data: dict[str, Any] = json.loads(conn.getresponse().read())
    conn.close()
    return data


def _percentiles(values: list[float]) -> str:
    if not values:
        return "no answers"
    p50, p95, p99 = np.percentile(np.array(values), [50, 95, 99])
    over = sum(v > GOAL_MS for v in values)
    return (
        f"{len(values)} answers, p50 {p50:.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms, "
        f"max {max(values):.1f} ms, {over} over {GOAL_MS:g} ms"
    )


def lan(connections: int, hold_s: float, churn_s: float) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + 256
    if hard != resource.RLIM_INFINITY and hard < wanted:
        print(f"skipped: this process may open only {hard} files, {wanted} needed")
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    with tempfile.TemporaryDirectory() as state:
        out = Path(state) / "daemon.out"
        notified = Notified(Path(state) / "notify.sock")
        listener = threading.Thread(target=notified.run, daemon=True)
        listener.start()
        env = {
            **os.environ,
            "NOTIFY_SOCKET": str(notified.path),
            "WATCHDOG_USEC": str(int(WATCHDOG_S * 1e6)),
        }
        with out.open("wb") as log:
            daemon = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    "import sys; from bermuda_hw.cli import main; sys.exit(main())",
                    "run",
                    "--simulate",
                    "--speed",
                    "2",
                    "--stay",
                    "--players",
                    "3",
                    "--seed",
                    "2",
                    "--max-rounds",
                    "200",
                    "--bind",
                    f"{HOST}:0",
                    "--state-dir",
                    state,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_daemon_limits,
                env=env,
            )
        try:
            info = Path(state) / "daemon.json"
            deadline = time.monotonic() + 60
            while not info.exists() and time.monotonic() < deadline and daemon.poll() is None:
                time.sleep(0.1)
            url = json.loads(info.read_text())["url"]
            port = int(url.rstrip("/").rpartition(":")[2])
            token = (Path(state) / "web-token").read_text().strip()
            while _state(port, token).get("status", {}).get("mode", "starting") == "starting":
                time.sleep(0.5)  # homing: the page answers 503 until the first snapshot
            time.sleep(2.0)
            files0, rss0 = _proc(daemon.pid)
            before = _state(port, token)
            probe = Probe(port, token)
            prober = threading.Thread(target=probe.run, daemon=True)
            prober.start()
            time.sleep(2.0)
            quiet = list(probe.latencies_ms)
            peak = [files0, rss0]

            def watch(stop: threading.Event) -> None:
                while not stop.wait(0.5):
                    try:
                        files, rss = _proc(daemon.pid)
                    except OSError:  # the daemon is gone: said below
                        return
                    peak[0], peak[1] = max(peak[0], files), max(peak[1], rss)

            stop_watch = threading.Event()
            watcher = threading.Thread(target=watch, args=(stop_watch,), daemon=True)
            watcher.start()
            results = []
            gone: str | None = None  # the phase during which the daemon stopped answering
            for name, reconnect, sources, seconds in (
                ("hold", False, None, hold_s),
                ("spread", False, SOURCES, hold_s),
                ("churn", True, None, churn_s),
            ):
                probe.latencies_ms, probe.failures = [], []
                attack = Attack(port, reconnect, sources)
                started = _state(port, token)
                began = time.monotonic()
                asyncio.run(attack.run(connections, seconds))
                gap_s = notified.longest_gap_s(began, time.monotonic())
                try:
                    ended = _state(port, token)
                    time.sleep(3.0)  # the closed connections' sockets and buffers go
                    after_phase = _proc(daemon.pid)
                except OSError:
                    gone = name
                    break
                results.append(
                    (
                        name,
                        attack,
                        list(probe.latencies_ms),
                        list(probe.failures),
                        started,
                        ended,
                        after_phase,
                        gap_s,
                    )
                )
            stop_watch.set()
            watcher.join()
            probe.stop.set()
            prober.join()
            files1, rss1 = results[-1][6] if results else (0, 0.0)
            after = results[-1][5] if results else before
        finally:
            daemon.terminate()
            try:
                daemon.wait(30)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
            notified.stop.set()
            listener.join()
        text = out.read_text("utf-8", "replace")
    code = daemon.returncode
    tracebacks = text.count("Traceback")
    web_lines = [line for line in text.splitlines() if "web:" in line]
    print(
        f"daemon with a soft limit of {DAEMON_FILES} files, {connections} slow connections "
        f"(load {_uptime()}):"
    )
    print(f"  quiet: /api/status for a token holder: {_percentiles(quiet)}")
    for name, attack, latencies, failures, started, ended, (files, rss), gap_s in results:
        what = {
            "hold": "from one address, none reconnecting",
            "spread": f"from {len(SOURCES)} addresses, none reconnecting",
            "churn": "from one address, each reconnecting 1 s after it is closed",
        }[name]
        print(
            f"  {name} ({what}): {attack.opened} opened, {attack.closed_by_table} closed by "
            f"the table, {attack.connect_failures} connects refused"
        )
        print(
            f"    /api/status for a token holder: {_percentiles(latencies)} "
            f"(goal: all within {GOAL_MS:g} ms); {len(failures)} failed"
            + (f" (first: {failures[0]})" if failures else "")
        )
        print(
            f"    watchdog: longest wait between two WATCHDOG=1 {gap_s:.2f} s (goal: under "
            f"the period, {WATCHDOG_S:g} s)"
        )
        print(
            f"    the game went on: journal {started['seq']} -> {ended['seq']}, snapshots "
            f"{started['version']} -> {ended['version']}, mode {ended['status']['mode']}"
        )
        print(f"    3 s after: daemon open files {files}, resident memory {rss:.1f} MiB")
    if gone is not None:
        print(
            f"  {gone}: the daemon stopped answering and exited with {code} ({len(text)} "
            f"bytes of output)"
        )
    print(
        f"  daemon open files {files0} before, {peak[0]} at the peak, {files1} after; "
        f"resident memory {rss0:.1f} MiB before, {peak[1]:.1f} MiB at the peak, "
        f"{rss1:.1f} MiB after"
    )
    print(
        f"  game: journal {before['seq']} -> {after['seq']}; daemon output: {tracebacks} "
        f"tracebacks (goal 0), {len(web_lines)} lines from the page; the last:"
    )
    for line in web_lines[-4:]:
        print(f"    {line[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=CONNECTIONS)
    parser.add_argument("--hold", type=float, default=HOLD_S)
    parser.add_argument("--churn", type=float, default=CHURN_S)
    args = parser.parse_args(sys.argv[1:] if __name__ == "__main__" else [])
    lan(args.connections, args.hold, args.churn)


if __name__ == "__main__":
    main()
