"""A virtual clock for the simulated table: runs faster than real time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


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
        #: called after each sleep with the time reached (the simulated people, who act
        #: on the table's time when no camera frame comes)
        self.listeners: list[Callable[[], None]] = []

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
        for listener in list(self.listeners):
            listener()

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
