"""A camera source that renders each frame of the simulated table from a scene provider.

It behaves like a real camera behind the same interface: frames come with
timestamps from the given clock, each frame has its own sensor noise, and
faults can be injected (a camera that is missing, or that stalls after some
frames) so that tests can rehearse them. Its sensor (`sim.sensor`) takes
picamera2's controls, by name, and applies them to every frame: exposure and
gain make it brighter or darker, the colour gains warmer or colder, and auto
exposure and white balance converge over some frames, so that `settle_and_lock`
(what `calibrate camera` runs) works as on the Pi.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from bermuda_hw.backends.camera import DEFAULT_TIMEOUT_S, CameraSource, Frame
from bermuda_hw.errors import CameraError
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Palette, Scene, render
from bermuda_hw.sim.sensor import SimulatedSensor


class SimulatedCamera(CameraSource):
    """Renders `scene()` through a camera model on every read."""

    name = "sim"

    def __init__(
        self,
        board: Board,
        scene: Callable[[], Scene],
        camera: CameraModel | None = None,
        *,
        seed: int = 0,
        palette: Palette | None = None,
        clock: Callable[[], float] = time.monotonic,
        missing: bool = False,
        stall_after: int | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        sensor: SimulatedSensor | None = None,
        frame_s: float = 0.1,
    ) -> None:
        super().__init__(timeout_s=timeout_s)
        self.sensor = sensor if sensor is not None else SimulatedSensor()
        self.frame_s = frame_s
        self.board = board
        self.scene = scene
        self.camera = camera or CameraModel()
        self.seed = seed
        self.palette = palette or Palette()
        self.clock = clock
        self.missing = missing
        self.stall_after = stall_after
        self._index = 0

    def _open(self) -> None:
        if self.missing:
            raise CameraError("sim: no camera connected")

    def _read(self, timeout_s: float) -> Frame:
        if self.stall_after is not None and self._index >= self.stall_after:
            raise CameraError(f"sim: camera stalled: no new frame in {timeout_s:g} s")
        image = render(
            self.board,
            self.scene(),
            self.camera,
            seed=self.seed + self._index,
            palette=self.palette,
        )
        image = self.sensor.expose(image)
        frame = Frame(image, self.clock(), self._index)
        self._index += 1
        return frame

    def settle_and_lock(self, settle_s: float) -> dict[str, Any]:
        """As on the Pi: auto exposure and white balance on, frames for `settle_s`, then the
        metadata's exposure, gain and colour gains fixed; returns them as `[camera]` keys."""
        if not self.is_open:
            raise CameraError("sim: settle_and_lock before the camera was opened")
        sensor = self.sensor
        sensor.set_controls({"AeEnable": True, "AwbEnable": True})
        for _ in range(max(1, math.ceil(settle_s / self.frame_s))):
            self.read()
        metadata = sensor.capture_metadata()
        exposure = int(metadata["ExposureTime"])
        gain = float(metadata["AnalogueGain"])
        red, blue = (float(g) for g in metadata["ColourGains"])
        sensor.set_controls(
            {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": exposure,
                "AnalogueGain": gain,
                "ColourGains": (red, blue),
            }
        )
        return {
            "exposure_time_us": exposure,
            "analogue_gain": round(gain, 3),
            "colour_gains": [round(red, 3), round(blue, 3)],
        }

    def _close(self) -> None:
        pass
