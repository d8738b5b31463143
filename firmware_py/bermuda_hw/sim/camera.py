"""A camera source that renders each frame of the simulated table from a scene provider.

It behaves like a real camera behind the same interface: frames come with
timestamps from the given clock, each frame has its own sensor noise, and
faults can be injected (a camera that is missing, or that stalls after some
frames) so that tests can rehearse them.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bermuda_hw.backends.camera import DEFAULT_TIMEOUT_S, CameraSource, Frame
from bermuda_hw.errors import CameraError
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Palette, Scene, render


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
    ) -> None:
        super().__init__(timeout_s=timeout_s)
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
        image = render(self.board, self.scene(), self.camera, seed=self.seed + self._index,
                       palette=self.palette)
        frame = Frame(image, self.clock(), self._index)
        self._index += 1
        return frame

    def _close(self) -> None:
        pass
