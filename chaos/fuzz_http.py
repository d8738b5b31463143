"""Fuzzing the page's server: requests nobody should send, from anyone on the network.

A simulated table is built and served as `bermuda-hw run --simulate` serves it;
its controller steps on a thread of its own, as in the daemon. Each case is
one request, mostly made of the page's own routes with wrong methods, query
strings (Unicode digits, 5,000 digits, deep nesting), headers (a stranger's
Host or Origin, a wrong token, a cookie of junk, Content-Length that lies) and
bodies (not JSON, JSON nested thousands deep, a megabyte), plus raw bytes that
are not HTTP at all. The property: every answer is a status below 500 (503
only while the controller starts), and nothing logs a traceback.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import logging
import socket
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw.config import WebConfig
from bermuda_hw.web.service import start_page
from chaos.fuzz import Tally, _run, workdir
from chaos.table import Table, fast_config

ROUTES = (
    "/",
    "/static/app.js",
    "/static/style.css",
    "/static/../../etc/passwd",
    "/static/%2e%2e%2fpyproject.toml",
    "/pair",
    "/api/whoami",
    "/api/status",
    "/api/game",
    "/api/state",
    "/api/danger",
    "/api/events",
    "/api/record",
    "/api/board",
    "/api/board.svg",
    "/api/stream",
    "/api/camera.jpg",
    "/api/camera.mjpeg",
    "/api/actions/pause",
    "/api/actions/resume",
    "/api/actions/spin",
    "/api/actions/pass",
    "/api/actions/answer",
    "/api/actions/undo",
    "/api/actions/new-game",
    "/api/actions/rehome",
    "/api/actions/%00",
    "/api/actions/",
    "/api/nothing",
    "/" + "a" * 9000,
)
METHODS = (
    "GET",
    "GET",
    "GET",
    "POST",
    "POST",
    "HEAD",
    "PUT",
    "DELETE",
    "OPTIONS",
    "PATCH",
    "BREW",
    "get",
)
DIGITS = ("0", "1", "-1", "²", "١٢", "٣", "1e3", "9" * 5000, "", "nan", "0x10", " 7", "7 ")
QUERY = st.one_of(
    st.just(""),
    st.sampled_from(DIGITS).map(lambda d: "since=" + d),
    st.sampled_from(
        ("token=", "token=x", "since=1&since=2", "a=%ff%fe", "%", "since=%C2%B2", "x=" + "[" * 3000)
    ),
    st.text(max_size=40).map(lambda t: "since=" + t),
)
HEADERS = st.dictionaries(
    st.sampled_from(
        (
            "Host",
            "Origin",
            "Cookie",
            "X-Bermuda-Token",
            "Content-Type",
            "Sec-Fetch-Site",
            "Last-Event-ID",
            "Accept",
            "Referer",
        )
    ),
    st.sampled_from(
        (
            "evil.example",
            "http://evil.example",
            "null",
            "127.0.0.1",
            "localhost",
            "bermuda=wrong",
            "bermuda=" + "x" * 5000,
            "TOKEN",
            "application/json",
            "text/plain",
            "multipart/form-data; boundary=x",
            "cross-site",
            "none",
            "²",
            "9" * 5000,
            "",
            "é",
            "a\u2028b",
        )
    ),
    max_size=4,
)
BODIES = st.one_of(
    st.none(),
    st.sampled_from(
        (
            b"{}",
            b"[]",
            b"null",
            b'{"option": 1}',
            b'{"option": "x"}',
            b'{"players": 9}',
            b'{"players": "2", "seed": 1e400}',
            b'{"players": 2, "seed": ' + b"9" * 5000 + b"}",
            b"[" * 100_000 + b"]" * 100_000,
            b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
            b"\xff\xfe\x00",
            b"not json",
            b"x" * (1 << 20),
        )
    ),
    st.binary(max_size=200),
)
RAW = st.sampled_from(
    (
        b"\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 2000 + b"\r\n",
        b"POST /api/actions/pause HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999\r\n\r\n{}",
        b"POST /api/actions/pause HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",  # a TLS hello
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    )
)


class _Tracebacks(logging.Handler):
    """Every log record that carries a traceback, from any logger."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or "Traceback" in record.getMessage():
            self.seen.append(f"{record.name}: {record.getMessage()[:200]}")


@contextlib.contextmanager
def served_table(folder: Path) -> Iterator[tuple[str, int, str]]:
    """A simulated table served on a free port; its controller is built, started and stepped
    on a thread of its own (the journal's connection belongs to that thread), as in the
    daemon."""
    ready: dict[str, object] = {}
    up, stop = threading.Event(), threading.Event()

    def control() -> None:
        table = Table.on(folder / "state", fast_config(folder), players=2, seed=5)
        try:
            page = start_page(
                table.controller,
                table.board,
                WebConfig(enabled=True, bind="127.0.0.1:0"),
                table.state_dir,
                simulate=True,
            )
            try:
                table.controller.start()
                ready.update(port=page.server.port, token=page.token)
                up.set()
                while not stop.is_set():
                    table.controller.step()
            finally:
                page.stop()
        finally:
            table.close()
            up.set()

    stepper = threading.Thread(target=control, name="controller", daemon=True)
    stepper.start()
    up.wait(120)
    if "port" not in ready:
        raise RuntimeError("the simulated table did not start")
    try:
        yield "127.0.0.1", int(str(ready["port"])), str(ready["token"])
    finally:
        stop.set()
        stepper.join(60)


def _send(
    host: str, port: int, method: str, path: str, headers: dict[str, str], body: bytes | None
) -> int:
    conn = http.client.HTTPConnection(host, port, timeout=20)
    try:
        conn.putrequest(method, path, skip_host="Host" in headers, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value.encode("utf-8"))
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        kind = response.getheader("content-type", "")
        if not kind.startswith(("text/event-stream", "multipart/")):
            response.read(1 << 20)
        return response.status
    finally:
        conn.close()


def _raw(host: str, port: int, data: bytes) -> None:
    with socket.create_connection((host, port), timeout=10) as sock, contextlib.suppress(OSError):
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(65536):
            pass


def fuzz_http(examples: int, seed: int = 0) -> Tally:
    tally = Tally("HTTP requests")
    watcher = _Tracebacks()
    logging.getLogger().addHandler(watcher)
    printed = io.StringIO()  # what any thread prints to stderr (an uncaught thread exception)
    try:
        with (
            workdir() as folder,
            contextlib.redirect_stderr(printed),
            served_table(folder) as (host, port, token),
        ):

            @given(
                st.sampled_from(METHODS),
                st.sampled_from(ROUTES),
                QUERY,
                HEADERS,
                BODIES,
                st.sampled_from(("none", "token", "wrong")),
                st.one_of(st.none(), RAW),
                st.booleans(),
            )
            def prop(
                method: str,
                route: str,
                query: str,
                headers: dict[str, str],
                body: bytes | None,
                who: str,
                raw: bytes | None,
                paired: bool,
            ) -> None:
                if paired:
                    # a paired phone's request, the right method for the route: what is
                    # wrong is only its query and body, so the handlers themselves are reached
                    method = "POST" if route.startswith("/api/actions/") else "GET"
                    headers = {
                        k: v for k, v in headers.items() if k in ("Content-Type", "Last-Event-ID")
                    }
                    who, raw = "token", None
                tally.cases += 1
                before, printed_before = len(watcher.seen), len(printed.getvalue())
                what = f"{method} {route[:60]}?{query[:40]} {sorted(headers)} {who}"
                try:
                    if raw is not None:
                        _raw(host, port, raw)
                        status = 0
                    else:
                        hdrs = dict(headers)
                        if who == "token":
                            hdrs["X-Bermuda-Token"] = token
                        elif who == "wrong":
                            hdrs["X-Bermuda-Token"] = "0" * len(token)
                        # a client sends bytes: what is not ASCII goes percent-encoded
                        path = route + ("?" + quote(query, safe="=&%[]") if query else "")
                        status = _send(host, port, method, path, hdrs, body)
                except (OSError, http.client.HTTPException) as exc:
                    # the server may close a connection it will not serve; it must stay up
                    try:
                        status = _send(host, port, "GET", "/api/whoami", {}, None)
                    except OSError:
                        tally.failures.append(f"{what}: the server went away after {exc!r}")
                        return
                    if status != 200:
                        tally.failures.append(f"{what}: /api/whoami then answered {status}")
                        return
                    status = 0
                except Exception:
                    tally.failures.append(f"{what}:\n{traceback.format_exc(limit=-3)}")
                    return
                logged = watcher.seen[before:]
                if "Traceback" in printed.getvalue()[printed_before:]:
                    logged.append(printed.getvalue()[printed_before:][:300])
                if logged:
                    tally.failures.append(f"{what}: logged a traceback: {logged[0]}")
                elif status >= 500 and status != 503:
                    tally.failures.append(f"{what}: answered {status}")
                elif status in (0, 503) or status >= 400:
                    tally.refused += 1
                else:
                    tally.accepted += 1

            _run(prop, examples, seed)
    finally:
        logging.getLogger().removeHandler(watcher)
    return tally


if __name__ == "__main__":  # pragma: no cover
    result = fuzz_http(200)
    print(
        json.dumps(
            {
                "cases": result.cases,
                "accepted": result.accepted,
                "refused": result.refused,
                "failures": result.failures[:5],
            },
            indent=1,
        )
    )
