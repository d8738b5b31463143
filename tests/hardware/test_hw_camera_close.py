"""Closing a live camera: the reader thread stops and is joined before the device is released."""

from __future__ import annotations

import threading
import time

import numpy as np

from bermuda_hw.backends.camera import Image, LiveSource


class _Device(LiveSource):
    """A camera whose frames take a moment to arrive, and which notices use after release."""

    name = "fake"

    def __init__(self) -> None:
        super().__init__(timeout_s=2.0)
        self.released = threading.Event()
        self.grabbing = threading.Event()
        self.used_after_release = 0
        self.grabs = 0

    def _start(self) -> None:
        pass

    def _grab(self) -> Image:
        self.grabbing.set()
        time.sleep(0.02)  # a frame arrives at the camera's pace, as on a real device
        if self.released.is_set():
            self.used_after_release += 1
        self.grabs += 1
        return np.zeros((4, 4, 3), np.uint8)

    def _stop(self) -> None:
        self.released.set()


def test_close_joins_the_reader_before_releasing_the_device() -> None:
    for _ in range(20):
        camera = _Device()
        camera.open()
        assert camera.grabbing.wait(2.0)
        camera.read()
        camera.close()
        assert camera.released.is_set()
        grabs = camera.grabs
        time.sleep(0.05)
        assert camera.grabs == grabs  # no reader left behind
        assert camera.used_after_release == 0
        camera.close()  # closing twice is fine
