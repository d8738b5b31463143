"""The page's server sheds what it cannot serve: slow requests, too many connections, EMFILE."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from bermuda_hw.rules.board import Board
from bermuda_hw.web.app import create_app
from bermuda_hw.web.hub import Hub
from bermuda_hw.web.limits import HEADROOM_FDS, LOG_BURST, Limits, Tally, connection_budget
from bermuda_hw.web.server import WebServer

TOKEN = "test-token-0123456789"


def _refuse(name: str, args: Any) -> Future[str]:
    future: Future[str] = Future()
    future.set_result("nothing done")
    return future


@pytest.fixture
def server(board: Board) -> Iterator[Callable[[Limits], WebServer]]:
    """The page (no controller behind it: the board and the pairing check answer) with limits."""
    servers: list[WebServer] = []

    def make(limits: Limits) -> WebServer:
        hub = Hub(board)
        app = create_app(hub=hub, board=board, token=TOKEN, submit=_refuse)
        web = WebServer(app, hub, "127.0.0.1", 0, limits)
        web.start()
        servers.append(web)
        return web

    try:
        yield make
    finally:
        for web in servers:
            web.stop()


def connect(web: WebServer, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", web.port), timeout=10, source_address=(source, 0))
    return sock


def closed_after_s(sock: socket.socket, limit_s: float) -> float | None:
    """Seconds until the server closes `sock` (reading and dropping data), None if it did not."""
    started = time.monotonic()
    sock.settimeout(0.05)
    while time.monotonic() - started < limit_s:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.monotonic() - started
    return None


def is_open(sock: socket.socket) -> bool:
    sock.settimeout(0.05)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except TimeoutError:
        return True
    except ConnectionResetError:
        return False


def get(sock: socket.socket, path: str, *, token: bool = False) -> bytes:
    extra = f"X-Bermuda-Token: {TOKEN}\r\n" if token else ""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
    sock.settimeout(10)
    return sock.recv(65536)


def test_requests_that_trickle_in_are_closed_at_the_deadline(
    server: Callable[[Limits], WebServer],
) -> None:
    web = server(Limits(header_timeout_s=1.0))
    silent = connect(web)
    line_only = connect(web)
    line_only.sendall(b"GET / HTTP/1.1\r\n")
    trickle = connect(web)
    trickle.sendall(b"GET / HTTP/1.1\r\n")
    started = time.monotonic()
    while time.monotonic() - started < 0.8:  # a header every 0.2 s: each one in time
        trickle.sendall(b"X-Slow: 1\r\n")
        time.sleep(0.2)
    # a prompt client is served meanwhile, and its idle keep-alive connection goes too
    prompt = connect(web)
    assert get(prompt, "/api/board").startswith(b"HTTP/1.1 200")
    for sock in (silent, line_only, trickle):
        waited = closed_after_s(sock, 3.0)
        assert waited is not None, "a slow connection was kept open"
        assert time.monotonic() - started < 1.0 + 1.0
    assert web.guard is not None and web.guard.slow == 3
    assert closed_after_s(prompt, 8.0) is not None  # after the response: the keep-alive timer
    assert web.guard.total == 0
    for sock in (silent, line_only, trickle, prompt):
        sock.close()


def test_a_new_connection_pushes_out_the_oldest_waiting_one(
    server: Callable[[Limits], WebServer],
) -> None:
    # half a second to make room: time for this test's own requests, even on a busy machine
    web = server(Limits(max_connections=6, max_per_client=4, grace_s=0.5))
    mine = [connect(web) for _ in range(4)]
    theirs = [connect(web, "127.0.0.2") for _ in range(2)]
    # the server counts them once it has accepted them (later on a loaded machine)
    deadline = time.monotonic() + 10.0
    while (web.guard is None or web.guard.total < 6) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert web.guard is not None and web.guard.total == 6
    # a fifth from the same address: its own oldest waiting connection goes
    fifth = connect(web)
    assert get(fifth, "/api/board").startswith(b"HTTP/1.1 200")
    assert closed_after_s(mine[0], 2.0) is not None
    assert all(is_open(s) for s in mine[1:] + theirs)
    # from a third address over the total: the oldest waiting one overall goes
    other = connect(web, "127.0.0.3")
    assert get(other, "/api/board").startswith(b"HTTP/1.1 200")
    assert closed_after_s(mine[1], 2.0) is not None
    assert all(is_open(s) for s in mine[2:] + theirs)
    assert web.guard.pushed_out == 2 and web.guard.total == 6
    for sock in [*mine, *theirs, fifth, other]:
        sock.close()


def test_busy_connections_are_kept_and_a_new_one_is_refused(
    server: Callable[[Limits], WebServer],
) -> None:
    web = server(Limits(max_connections=8, max_per_client=2))
    streams = [connect(web), connect(web)]
    for sock in streams:  # the event stream answers at once and stays open
        assert get(sock, "/api/stream", token=True).startswith(b"HTTP/1.1 200")
    third = connect(web)
    third.settimeout(5)
    reply = third.recv(65536)
    assert reply.startswith(b"HTTP/1.1 503") and b"busy" in reply
    assert closed_after_s(third, 2.0) is not None
    assert all(is_open(s) for s in streams)
    assert web.guard is not None and web.guard.pushed_out == 1
    for sock in [*streams, third]:
        sock.close()


def test_far_over_a_cap_with_every_connection_busy_a_new_one_is_refused(
    server: Callable[[Limits], WebServer],
) -> None:
    web = server(Limits(max_connections=8, max_per_client=2, ceiling_margin=1, grace_s=2.0))
    streams = [connect(web) for _ in range(3)]
    for sock in streams:  # one over the cap, but busy: it stays
        assert get(sock, "/api/stream", token=True).startswith(b"HTTP/1.1 200")
    fourth = connect(web)
    fourth.settimeout(5)
    assert fourth.recv(65536).startswith(b"HTTP/1.1 503")
    assert closed_after_s(fourth, 2.0) is not None
    time.sleep(0.2)
    assert all(is_open(s) for s in streams)
    assert web.guard is not None and web.guard.refused == 1 and web.guard.total == 3
    for sock in [*streams, fourth]:
        sock.close()


def test_a_client_that_reads_nothing_of_its_replies_is_dropped(
    server: Callable[[Limits], WebServer],
) -> None:
    web = server(Limits(write_timeout_s=1.0))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", web.port))
    # pipelined requests for the board's picture (16 kB each: 9.6 MB, more than the
    # kernel buffers), and not a byte read
    sock.sendall(b"GET /api/board.svg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 600)
    assert web.guard is not None
    deadline = time.monotonic() + 10.0
    while web.guard.stuck_writing == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert web.guard.stuck_writing == 1 and web.guard.total == 0
    sock.close()


def test_the_cap_fits_under_the_file_limit() -> None:
    assert connection_budget(256, limit=4096, in_use=40) == 256
    assert connection_budget(4096, limit=1024, in_use=40) == 1024 - 40 - HEADROOM_FDS - 2 * 128
    assert connection_budget(256, limit=None) == 256


def test_a_flood_of_one_kind_of_line_is_counted(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    tally = Tally(60.0, monotonic=lambda: now[0])
    logger = logging.getLogger("bermuda_hw.web.test")
    logger.addFilter(tally)
    try:
        with caplog.at_level(logging.WARNING, logger="bermuda_hw.web.test"):
            for n in range(25):
                try:
                    raise OSError(24, "Too many open files")
                except OSError:
                    logger.warning("web: cannot accept a connection (%d)", n, exc_info=True)
            tally.flush()  # the interval has not ended: nothing yet
            assert len(caplog.records) == LOG_BURST
            now[0] = 61.0
            tally.flush()
    finally:
        logger.removeFilter(tally)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == LOG_BURST + 1
    assert lines[-1].startswith(f"web: {25 - LOG_BURST} more like")
    assert not any(r.exc_info for r in caplog.records) and "Traceback" not in caplog.text


EMFILE_SCRIPT = textwrap.dedent("""
    import os, resource, sys, time
    from bermuda_hw.rules.boardfile import load_board
    from bermuda_hw.web.app import create_app
    from bermuda_hw.web.hub import Hub
    from bermuda_hw.web.limits import Limits
    from bermuda_hw.web.server import WebServer

    resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))
    board = load_board()
    hub = Hub(board)
    app = create_app(hub=hub, board=board, token="t", submit=None)
    web = WebServer(app, hub, "127.0.0.1", 0, Limits(max_connections=400,
                                                     max_per_client=400))
    web.start()
    hog = []  # the rest of the process takes every descriptor left
    while True:
        try:
            hog.append(os.open("/dev/null", os.O_RDONLY))
        except OSError:
            break
    print(web.port, web.guard.limits.max_connections, flush=True)
    sys.stdin.readline()  # the clients have knocked: free the descriptors
    for fd in hog:
        os.close(fd)
    sys.stdin.readline()
    web.stop()
""")


def test_accept_errors_are_one_line_each_interval_and_the_page_recovers(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", EMFILE_SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        port, budget = map(int, child.stdout.readline().split())
        assert budget < 512 - HEADROOM_FDS  # lowered to fit the file limit
        knocks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(40)]
        time.sleep(2.5)  # asyncio retries accept() every second: each time EMFILE
        child.stdin.write("\n")
        child.stdin.flush()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /api/board HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(64).startswith(b"HTTP/1.1 200")
        for sock in knocks:
            sock.close()
        child.stdin.write("\n")
        child.stdin.flush()
        _, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    lines = [line for line in err.splitlines() if "cannot accept" in line]
    assert "Traceback" not in err, err[-2000:]
    # one line as it began, and the count of the rest as the server stopped
    assert len(lines) == 2 and "Too many open files" in lines[0], err[-2000:]
    assert lines[1].startswith("web: ") and "more like" in lines[1], err[-2000:]
    assert len(err.splitlines()) <= 3, err[-2000:]  # and the cap lowered at start


STOP_SCRIPT = textwrap.dedent("""
    import os, resource, sys
    from concurrent.futures import Future
    from bermuda_hw.rules.boardfile import load_board
    from bermuda_hw.web.app import create_app
    from bermuda_hw.web.hub import Hub
    from bermuda_hw.web.server import WebServer

    resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))
    board = load_board()
    hub = Hub(board)
    never: Future[str] = Future()  # an action the controller never takes: the stop waits
    app = create_app(hub=hub, board=board, token="t", submit=lambda name, args: never)
    web = WebServer(app, hub, "127.0.0.1", 0)
    web.start()
    print(web.port, flush=True)
    sys.stdin.readline()  # the action is in
    hog = []
    while True:
        try:
            hog.append(os.open("/dev/null", os.O_RDONLY))
        except OSError:
            break
    print("full", flush=True)
    sys.stdin.readline()  # the clients have knocked: stop, still out of descriptors
    web.stop()
""")


def test_stopping_while_out_of_descriptors_writes_no_traceback() -> None:
    """asyncio retries accept() a second after EMFILE, even once the socket is closed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", STOP_SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        port = int(child.stdout.readline())
        action = socket.create_connection(("127.0.0.1", port), timeout=5)
        action.sendall(
            b"POST /api/actions/pause HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"X-Bermuda-Token: t\r\nContent-Length: 0\r\n\r\n"
        )
        time.sleep(0.5)
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "full"
        knocks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(10)]
        time.sleep(1.5)  # EMFILE, and a retry a second later
        child.stdin.write("\n")
        child.stdin.flush()
        _, err = child.communicate(timeout=30)
        for sock in [action, *knocks]:
            sock.close()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0 and "Traceback" not in err, err[-3000:]
