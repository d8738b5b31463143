"""The table's working parts over one backend: the cloud mover, the controls and the controller.

`build_parts` is the one place that wires a controller to its devices, on the
rig (`bermuda-hw run`) and on the simulated table (`bermuda_hw.sim.table`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Self

from bermuda_hw.controller.daemon import Controller
from bermuda_hw.devices.controls import TableControls
from bermuda_hw.motion.build import Motion, build_motion
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.vision.stability import StabilitySettings

if TYPE_CHECKING:
    from bermuda_hw.backends import Backend
    from bermuda_hw.backends.camera import CameraSource
    from bermuda_hw.camera_config import CameraConfig
    from bermuda_hw.config import Config
    from bermuda_hw.controller.journal import Journal
    from bermuda_hw.rules.board import Board
    from bermuda_hw.rules.game import GameOptions
    from bermuda_hw.vision.reader import BoardReader


@dataclass
class TableParts:
    """The devices built over a backend and the controller that drives them."""

    motion: Motion
    controller: Controller
    closed: bool = field(default=False, init=False)

    @property
    def mover(self) -> CloudMover:
        return self.motion.mover

    @property
    def controls(self) -> TableControls:
        return self.motion.controls

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the controller, then release the controls and the mover; twice is fine."""
        if self.closed:
            return
        self.closed = True
        try:
            self.controller.close()
        finally:
            self.motion.close()


def build_parts(
    backend: Backend,
    board: Board,
    config: Config,
    journal: Journal,
    *,
    camera: CameraConfig,
    reader: BoardReader | None = None,
    players: int = 4,
    seed: int | None = None,
    options: GameOptions | None = None,
    on_camera: Callable[[], None] | None = None,
) -> TableParts:
    """The mover, the controls and the controller over `backend`, journalling into `journal`.

    `on_camera` runs each time the controller opens the camera (the simulated
    players start acting before the frames the camera renders).
    """
    motion = build_motion(config, backend, board)

    def open_camera() -> CameraSource:
        source = backend.open_camera(board, camera)
        if on_camera is not None:
            on_camera()
        return source

    try:
        controller = Controller(
            board=board,
            journal=journal,
            open_camera=open_camera,
            mover=motion.mover,
            controls=motion.controls,
            clock=backend.clock,
            reader=reader,
            stability=StabilitySettings(camera.stable_frames, camera.stable_min_time_s),
            players=players,
            seed=seed,
            options=options,
        )
    except BaseException:
        motion.close()
        raise
    return TableParts(motion, controller)
