"""The web server's thread: uvicorn with its own event loop, beside the controller's step thread.

The listening socket is bound before the thread starts, so a port in use is
reported at start-up in one line (and port 0 picks a free port, for tests).
The server only reads snapshots and queues actions: it never touches devices.
What it cannot serve it sheds (`limits`): slow requests time out, connections
are capped below the file limit, and its log lines are counted, not repeated.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import logging
import socket
import threading
import time
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from bermuda_hw.errors import ConfigError
from bermuda_hw.web.hub import Hub
from bermuda_hw.web.limits import (
    BACKLOG,
    LISTEN_BACKLOG,
    Guard,
    Limits,
    Tally,
    connection_budget,
    file_limit,
    guarded_protocol,
)

log = logging.getLogger("bermuda_hw.web")
LOGGERS = ("bermuda_hw.web", "bermuda_hw.web.http")

START_TIMEOUT_S = 10.0
GRACEFUL_S = 1.0


class WebServer:
    """Serve an app on host:port in a daemon thread; `start()`, `url`, `stop()`."""

    def __init__(
        self, app: ASGIApp, hub: Hub, host: str, port: int, limits: Limits | None = None
    ) -> None:
        self.app = app
        self.hub = hub
        self.host = host
        self.port = port
        self.limits = limits or Limits()
        self.guard: Guard | None = None
        self._tally: Tally | None = None
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def _bind(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            why = (
                "the port is in use"
                if exc.errno == errno.EADDRINUSE
                else (exc.strerror or str(exc))
            )
            raise ConfigError(
                None, "web.bind", f"cannot listen on {self.host}:{self.port}: {why}"
            ) from None
        sock.listen(BACKLOG)
        sock.set_inheritable(True)
        return sock

    @property
    def url(self) -> str:
        """The page's URL (the wildcard address shown as this machine's name)."""
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = socket.gethostname()
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def start(self) -> str:
        """Bind, start serving in a thread, wait until it listens; the URL."""
        self._socket = self._bind()
        self.port = int(self._socket.getsockname()[1])
        budget = connection_budget(self.limits.max_connections)
        if budget < self.limits.max_connections:
            log.warning(
                "web: at most %d connections (not %d): the file limit is %s open "
                "files (LimitNOFILE= in the service)",
                budget,
                self.limits.max_connections,
                file_limit(),
            )
        limits = dataclasses.replace(
            self.limits,
            max_connections=budget,
            max_per_client=min(self.limits.max_per_client, budget),
        )
        tally = Tally(limits.log_interval_s)
        for name in LOGGERS:
            logging.getLogger(name).addFilter(tally)
        self._tally = tally
        guard = self.guard = Guard(limits)
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=int(GRACEFUL_S) or 1,
            access_log=False,
            http=guarded_protocol(guard),
            ws="none",
            backlog=BACKLOG,
            # after a response: an idle connection is closed (uvicorn's keep-alive timer);
            # before one, the guard's deadline does it (uvicorn has none)
            timeout_keep_alive=limits.idle_timeout_s,
            # a request line and headers over 16 KiB are a 400 from h11 (its default, stated)
            h11_max_incomplete_event_size=16 * 1024,
        )
        # no limit_concurrency: it answers 503 only once a whole request is in, and the
        # guard already holds the connections to `budget`
        server = uvicorn.Server(config)
        self._server = server
        sockets = [self._socket]

        def serve() -> None:
            async def flush_logs() -> None:
                while True:
                    await asyncio.sleep(limits.log_interval_s / 4)
                    tally.flush()

            async def main() -> None:
                loop = asyncio.get_running_loop()
                # accept errors (EMFILE) as one counted line, not a traceback each
                loop.set_exception_handler(guard.exception_handler)
                self.hub.bind(loop)
                flusher = asyncio.create_task(flush_logs())
                try:
                    await server.serve(sockets=sockets)
                finally:
                    flusher.cancel()
                    tally.flush(every=True)

            asyncio.run(main())

        self._thread = threading.Thread(target=serve, name="bermuda-web", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not server.started:
            raise ConfigError(
                None, "web.bind", f"the web server did not start on {self.host}:{self.port}"
            )
        # asyncio uses one number for the kernel's queue of connections not yet accepted
        # (listen) and for the connections it accepts per turn before any is checked;
        # the second is kept at BACKLOG (file descriptors), the first made longer: a
        # queued connection costs the process nothing, a dropped one costs its client a
        # second (SYN retried)
        self._socket.listen(LISTEN_BACKLOG)
        return self.url

    def stop(self) -> None:
        """Close the streams and stop the server (stopping twice is fine)."""
        self.hub.close()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=GRACEFUL_S + 4.0)
            self._thread = None
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.close()
            self._socket = None
        if self._tally is not None:
            for name in LOGGERS:
                logging.getLogger(name).removeFilter(self._tally)
            self._tally = None

    def __enter__(self) -> WebServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
