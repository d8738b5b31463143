"""What the page's server sheds: slow requests, too many connections, floods of log lines.

uvicorn (0.55, h11) has no header timeout: its keep-alive timer starts only
after a response, so a connection that sends nothing, or a request line and
then a header every few seconds, stays open for ever. Its `limit_concurrency`
answers 503 only once a whole request has arrived, so it caps nothing that a
slow client holds. And asyncio logs every failed `accept()` (EMFILE) with a
traceback, up to `backlog` times per turn of the loop. So, at the protocol's
depth (`uvicorn.Config(http=...)` takes a protocol class):

- every request (line, headers and body) must arrive within
  `header_timeout_s` of the moment the connection began to wait for it, however
  it trickles in; after a response uvicorn's own `timeout_keep_alive` closes an
  idle connection sooner;
- a client that stops reading its response (a stream it leaves open) is
  closed after `write_timeout_s` with its unsent bytes dropped;
- a new connection over the cap (per client address, or in total) pushes out
  the oldest connection still waiting for its request (from that address for
  the per-client cap): a slow client cannot keep out one that asks promptly.
  This is done a moment later, once the burst of connections asyncio accepted
  with it has been read, so that a request that came with its connection is not
  pushed out by the burst. When every other connection is busy answering, the
  new one is the one that goes, with a 503;
- the total cap is lowered at start to fit under the process's file limit;
- accept errors, slow clients pushed out and bad requests are logged as one line
  the first few times, then counted and summed up once per interval.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import logging
import os
import resource
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

log = logging.getLogger("bermuda_hw.web")
# uvicorn's protocol messages; its TRACE lines (level 5) are not even formatted
logging.getLogger("bermuda_hw.web.http").setLevel(logging.INFO)

HEADER_TIMEOUT_S = 10.0  # a phone on a weak Wi-Fi link sends its request in well under a second
WRITE_TIMEOUT_S = 30.0  # a response (an event or camera stream) the client stopped reading
IDLE_TIMEOUT_S = 5  # uvicorn's keep-alive default: browsers reopen a closed idle connection
LOG_INTERVAL_S = 60.0
LOG_BURST = 10  # lines of one kind logged in full per interval before they are only counted
# file descriptors kept for the rest of the process beyond those open when the page starts
# (SQLite's journal and WAL files, sd_notify's socket per ping, the camera, subprocesses)
HEADROOM_FDS = 64
BACKLOG = 128  # asyncio accepts up to this many connections per turn, before any is checked
LISTEN_BACKLOG = 1024  # connections the kernel queues before accept() (capped by somaxconn)
GRACE_S = 0.05  # a new connection's request, sent with it, has been read by then
REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nContent-Length: 42\r\n\r\n"
    b"the table's page is busy: try again later\n"
)
ACCEPT_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


@dataclass(frozen=True)
class Limits:
    """How long a request may take to arrive and how many connections are kept."""

    header_timeout_s: float = HEADER_TIMEOUT_S
    idle_timeout_s: int = IDLE_TIMEOUT_S
    max_connections: int = 256
    max_per_client: int = 32
    write_timeout_s: float = WRITE_TIMEOUT_S
    log_interval_s: float = LOG_INTERVAL_S
    # over a cap by this many, room is made at once (or the new connection refused)
    ceiling_margin: int = BACKLOG
    grace_s: float = GRACE_S  # over a cap by less, room is made this much later


def file_limit() -> int | None:
    """The process's soft limit on open files (None: unlimited)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def open_files() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:  # pragma: no cover - Linux always has it
        return 0


def connection_budget(wanted: int, limit: int | None = None, in_use: int | None = None) -> int:
    """The connections the page may hold: `wanted`, lowered to fit under the file limit.

    A connection is one descriptor; the guard lets `BACKLOG` more in for a moment
    (`Guard.admit`), the loop may accept `BACKLOG` more in one turn before the
    guard sees them, and the rest of the process keeps `HEADROOM_FDS`.
    """
    limit = file_limit() if limit is None else limit
    if limit is None:
        return wanted
    in_use = open_files() if in_use is None else in_use
    return max(1, min(wanted, limit - in_use - HEADROOM_FDS - 2 * BACKLOG))


class Tally(logging.Filter):
    """A logger's filter: each kind of line (its format) in full `burst` times an interval
    (a record's own `burst` attribute, from `extra=`, may say fewer), then counted; the
    count is logged when the interval ends. No traceback ever passes."""

    def __init__(
        self,
        interval_s: float = LOG_INTERVAL_S,
        burst: int = LOG_BURST,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.interval_s = interval_s
        self.burst = burst
        self._monotonic = monotonic
        self._kinds: dict[tuple[str, str], list[Any]] = {}  # (logger, format) -> [start, n, logged]

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "tally", False):
            return True
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        now = self._monotonic()
        key = (record.name, str(record.msg))
        kind = self._kinds.get(key)
        if kind is None or now - kind[0] >= self.interval_s:
            self._report(key)
            kind = self._kinds[key] = [now, 0, 0]
        kind[1] += 1
        if kind[2] < getattr(record, "burst", self.burst):
            kind[2] += 1
            return True
        return False

    def flush(self, *, every: bool = False) -> None:
        """Log the counts of intervals that have ended (`every`: of all, as the server stops)."""
        now = self._monotonic()
        for key, kind in list(self._kinds.items()):
            if every or now - kind[0] >= self.interval_s:
                self._report(key)
                del self._kinds[key]

    def _report(self, key: tuple[str, str]) -> None:
        kind = self._kinds.get(key)
        if kind is None or kind[1] <= kind[2]:
            return
        name, fmt = key
        for code in ("%s", "%d", "%g", "%r"):
            fmt = fmt.replace(code, "...")
        logging.getLogger(name).warning(
            'web: %d more like "%s" within %g s (not shown one by one)',
            kind[1] - kind[2],
            fmt,
            self.interval_s,
            extra={"tally": True},
        )
        kind[1] = kind[2]


@dataclass(eq=False)
class Guard:
    """The connections of one server: counted by client, oldest waiting first."""

    limits: Limits
    clients: dict[str, dict[GuardedH11Protocol, None]] = field(default_factory=dict)
    waiting: dict[GuardedH11Protocol, None] = field(default_factory=dict)  # oldest first
    total: int = 0
    slow: int = 0  # closed for sending no whole request in time
    pushed_out: int = 0  # closed to make room for a new connection
    stuck_writing: int = 0  # closed for reading none of their response
    refused: int = 0  # closed at once: over the hard ceiling with every connection busy
    _trim: asyncio.TimerHandle | None = None

    def admit(self, conn: GuardedH11Protocol) -> bool:
        """Count a new connection; False: refuse it (far over a cap, with none to push out).

        Room is made a moment later (`grace_s`), not at once: asyncio accepts a
        whole burst of connections before any of them is read, and a client that
        sent its request with its connection must not be pushed out by the burst.
        """
        mine = self.clients.setdefault(conn.peer, {})
        margin = self.limits.ceiling_margin
        over = (
            self.total >= self.limits.max_connections + margin
            or len(mine) >= self.limits.max_per_client + margin
        )
        if over:  # the hard ceiling: make room now, or refuse
            self.trim(hard=True)
            if (
                self.total >= self.limits.max_connections + margin
                or len(mine) >= self.limits.max_per_client + margin
            ):
                if not mine:
                    del self.clients[conn.peer]
                return self._refuse(
                    conn,
                    f"{self.total} connections open, {len(mine)} from "
                    f"{conn.peer}, none of them idle",
                )
        mine[conn] = None
        self.total += 1
        if self._trim is None and (
            self.total > self.limits.max_connections or len(mine) > self.limits.max_per_client
        ):
            self._trim = conn.loop.call_later(self.limits.grace_s, self.trim)
        return True

    def trim(self, *, hard: bool = False) -> None:
        """Push out the oldest waiting connections over the caps (per client, then in total).

        A connection whose bytes are in the kernel but not yet read (the loop is
        behind) is not chosen this time: they may be a whole request. At the hard
        ceiling (`hard`) it is chosen after all the others, rather than refusing
        a newer one.
        """
        if self._trim is not None:
            self._trim.cancel()
            self._trim = None
        skipped = False

        def choose(waiting: list[GuardedH11Protocol], excess: int) -> list[GuardedH11Protocol]:
            nonlocal skipped
            unread = {c for c in waiting if c.unread()}
            victims = [c for c in waiting if c not in unread]
            if hard:
                victims += [c for c in waiting if c in unread]
            skipped = skipped or len(victims) < min(excess, len(waiting))
            return victims[:excess]

        for mine in list(self.clients.values()):
            excess = len(mine) - self.limits.max_per_client
            if excess > 0:
                for victim in choose([c for c in mine if c in self.waiting], excess):
                    self._push_out(victim)
        excess = self.total - self.limits.max_connections
        if excess > 0:
            for victim in choose(list(self.waiting), excess):
                self._push_out(victim)
        if skipped and self.waiting:  # some had unread bytes: look again in a moment
            self._trim = next(iter(self.waiting)).loop.call_later(self.limits.grace_s, self.trim)

    def wait(self, conn: GuardedH11Protocol) -> None:
        self.waiting.pop(conn, None)
        self.waiting[conn] = None

    def busy(self, conn: GuardedH11Protocol) -> None:
        self.waiting.pop(conn, None)

    def forget(self, conn: GuardedH11Protocol) -> None:
        self.waiting.pop(conn, None)
        mine = self.clients.get(conn.peer)
        if mine is not None and conn in mine:
            del mine[conn]
            self.total -= 1
            if not mine:
                del self.clients[conn.peer]

    def too_slow(self, conn: GuardedH11Protocol) -> None:
        self.slow += 1
        log.warning(
            "web: closed a connection from %s: no whole request within %g s",
            conn.peer,
            self.limits.header_timeout_s,
        )
        conn.close()

    def stuck(self, conn: GuardedH11Protocol) -> None:
        self.stuck_writing += 1
        log.warning(
            "web: closed a connection from %s: it read nothing of its response for %g s",
            conn.peer,
            self.limits.write_timeout_s,
        )
        conn.close()
        conn.transport.abort()  # its unsent response goes too: close() would wait for it

    def _push_out(self, victim: GuardedH11Protocol) -> None:
        self.pushed_out += 1
        log.warning(
            "web: closed a waiting connection from %s to make room (at most %d "
            "connections, %d per client)",
            victim.peer,
            self.limits.max_connections,
            self.limits.max_per_client,
        )
        if victim.requests == 0 and not victim.transport.is_closing():
            victim.transport.write(REFUSED)  # a new client is told why; an idle one is not
        victim.close()

    def _refuse(self, conn: GuardedH11Protocol, why: str) -> bool:
        self.refused += 1
        log.warning("web: refused a connection from %s: %s", conn.peer, why)
        return False

    def exception_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's handler: accept errors as one counted line, the rest as asyncio does."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in ACCEPT_ERRNOS and "socket" in context:
            # asyncio stops listening for a second and tries again: only say so
            log.warning(
                "web: cannot accept a connection: %s (%d open; the file limit is %s)",
                os.strerror(exc.errno or 0),
                self.total,
                file_limit() or "unlimited",
                extra={"burst": 1},
            )  # once an interval: the next ones are the same
            return
        if isinstance(exc, (ValueError, OSError)) and "_start_serving" in str(
            context.get("message", "")
        ):
            # asyncio's retry of accept() a second after an accept error, run after the
            # server has closed its socket (a stop while out of descriptors): nothing to say
            return
        loop.default_exception_handler(context)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request and the guard's caps.

    Subclassed per server (`guarded_protocol`) so that each server has its own guard.
    """

    guard: Guard

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        # uvicorn's own messages ("Invalid HTTP request received.", an app's exception)
        # go through the page's logger and its tally: one line each, never a traceback
        self.logger = logging.getLogger("bermuda_hw.web.http")
        self.peer = "?"
        self.requests = 0  # whole requests received
        self._deadline: asyncio.TimerHandle | None = None
        self._stalled: asyncio.TimerHandle | None = None
        self._counted = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.peer = self.client[0] if self.client else "?"
        if not self.guard.admit(self):
            transport.write(REFUSED)
            transport.close()
            return
        self._counted = True
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        if self._counted:
            self.guard.forget(self)
            self._counted = False
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def pause_writing(self) -> None:
        """The client reads no more: its response may wait `write_timeout_s`, then it goes."""
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.guard.limits.write_timeout_s, self._stuck)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    def _stuck(self) -> None:
        self._stalled = None
        if not self.transport.is_closing():
            self.guard.stuck(self)

    def close(self) -> None:
        """Close the connection (forgotten at once; the socket goes when asyncio closes it)."""
        self._disarm()
        if self._counted:
            self.guard.forget(self)
            self._counted = False
        if not self.transport.is_closing():
            self.transport.close()

    def unread(self) -> bool:
        """Bytes from the client wait in the kernel, not yet read by the loop."""
        sock = self.transport.get_extra_info("socket")
        if sock is None or self.transport.is_closing():
            return False
        try:
            pending = fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return False
        return int.from_bytes(pending, sys.byteorder) > 0

    def _watch(self) -> None:
        """Arm the deadline while a request is awaited or arriving; disarm once it is whole."""
        if not self._counted or self.transport.is_closing():
            return
        awaited = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
        if awaited and self._deadline is None:
            self._deadline = self.loop.call_later(self.guard.limits.header_timeout_s, self._expired)
            self.guard.wait(self)
        elif not awaited and self._deadline is not None:
            self._disarm()
            self.requests += 1
            self.guard.busy(self)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self._counted and not self.transport.is_closing():
            self.guard.too_slow(self)


def guarded_protocol(guard: Guard) -> type[GuardedH11Protocol]:
    """A protocol class bound to one server's guard, for `uvicorn.Config(http=...)`."""
    return cast(
        type[GuardedH11Protocol],
        type("BermudaH11Protocol", (GuardedH11Protocol,), {"guard": guard}),
    )
