"""Clocks: the wall clock, and a virtual clock that runs faster than real time."""

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


class VirtualClock:
    """Simulated time that advances only when a thread waits on it.

    `sleep` and `wait_until` move the virtual time forward at once (never back),
    so a five-second move completes in the time the code takes to run. With
    `real_time_factor` > 0 each virtual second also takes that many real seconds
    (1 is real time), which is useful to watch a simulation. Intended for one
    thread at a time driving motion, as on the rig; other threads see the time
    that thread has reached.
    """

    def __init__(self, start_s: float = 0.0, real_time_factor: float = 0.0) -> None:
        self._now_s = start_s
        self._lock = threading.Lock()
        self.real_time_factor = real_time_factor

    def monotonic(self) -> float:
        with self._lock:
            return self._now_s

    def advance(self, seconds: float) -> None:
        """Move the virtual time forward by `seconds` (tests use this to let time pass)."""
        self.sleep(seconds)

    def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        if self.real_time_factor > 0:
            time.sleep(seconds * self.real_time_factor)
        with self._lock:
            self._now_s += seconds

    def wait_until(self, deadline_s: float, stop: threading.Event | None = None) -> bool:
        if stop is not None and stop.is_set():
            return False
        with self._lock:
            remaining = deadline_s - self._now_s
        if remaining > 0:
            if self.real_time_factor > 0 and stop is not None:
                if stop.wait(remaining * self.real_time_factor):
                    return False
            elif self.real_time_factor > 0:
                time.sleep(remaining * self.real_time_factor)
            with self._lock:
                self._now_s = max(self._now_s, deadline_s)
        return not (stop is not None and stop.is_set())
