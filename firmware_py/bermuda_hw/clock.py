"""Clocks: what devices and the step thread need of time, and the wall clock."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """What devices and the step thread need of time."""

    def monotonic(self) -> float:
        """Seconds since an arbitrary start; never goes back."""
        ...

    def sleep(self, seconds: float) -> None:
        """Let `seconds` pass."""
        ...

    def wait_until(self, deadline_s: float, stop: threading.Event | None = None) -> bool:
        """Wait until monotonic() >= deadline_s, as closely as possible.

        Returns False (early) if `stop` is set, else True.
        """
        ...


class WallClock:
    """Real time: time.monotonic, and a sleep that spins for the last stretch."""

    def __init__(self, spin_s: float = 0.0003) -> None:
        # Linux wakes a sleeping thread some tens of microseconds late; the last
        # `spin_s` before a deadline are spent polling instead.
        self.spin_s = spin_s

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def wait_until(self, deadline_s: float, stop: threading.Event | None = None) -> bool:
        now = time.monotonic()
        remaining = deadline_s - now - self.spin_s
        if remaining > 0:
            if stop is not None:
                if stop.wait(remaining):
                    return False
            else:
                time.sleep(remaining)
        while time.monotonic() < deadline_s:
            if stop is not None and stop.is_set():
                return False
        return not (stop is not None and stop.is_set())
