"""systemd's readiness protocol (sd_notify) over the `NOTIFY_SOCKET` datagram socket."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping


def sd_notify(message: str) -> bool:
    """Send `READY=1`, `STATUS=...`, `STOPPING=1`... to systemd; False when not under systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode("utf-8"))
    except OSError:
        return False
    return True


class Watchdog:
    """systemd's watchdog (`WatchdogSec=`): `kick()` sends WATCHDOG=1, at most twice a period.

    The period comes from $WATCHDOG_USEC (for this process, if $WATCHDOG_PID says
    so). Without it `kick()` does nothing. It may be called from any thread, as
    often as wanted: the main loop kicks it every frame and the step thread
    between steps while a move is waited on.
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        notify: Callable[[str], bool] = sd_notify,
    ) -> None:
        env = os.environ if environ is None else environ
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        mine = not pid or (pid.isdigit() and int(pid) == os.getpid())
        self.period_s = int(usec) / 1e6 if usec.isdigit() and int(usec) > 0 and mine else None
        self._monotonic = monotonic
        self._notify = notify
        self._next_s = float("-inf")
        self.kicks = 0

    @property
    def enabled(self) -> bool:
        return self.period_s is not None

    def kick(self) -> None:
        if self.period_s is None:
            return
        now = self._monotonic()
        if now < self._next_s:
            return
        self._next_s = now + self.period_s / 2.0
        self.kicks += 1
        self._notify("WATCHDOG=1")
