"""A whole simulated table in this process (rig, camera, players, controller) on a state dir.

The chaos campaign's games use the fastest settings the tests use: quarter
microsteps, 640x480 frames, two stable frames.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gpiozero import Device

from bermuda_hw.config import Config, load_config
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game, ShipStatus
from bermuda_hw.sim.table import SimTable
from bermuda_hw.sim.world import World

FAST_TABLE = """
[gantry.x]
microsteps = 4
[gantry.y]
microsteps = 4
[controls]
estop_pin = 4
buzzer_pin = 12
[camera]
width_px = 640
height_px = 480
stable_frames = 2
stable_min_time_s = 0.1
"""


def fast_config(folder: Path) -> Config:
    path = folder / "chaos-table.toml"
    path.write_text(FAST_TABLE, encoding="utf-8")
    return load_config(path)


class Table(SimTable):
    """One simulated table and its controller, built like `bermuda-hw run --simulate`."""

    @classmethod
    def on(
        cls,
        state_dir: Path,
        config: Config,
        *,
        players: int = 2,
        seed: int = 1,
        board: Board | None = None,
    ) -> Table:
        """A table on `state_dir` (the board: the classic one unless given)."""
        return cls.build(config, board or load_board(), state_dir, players=players, seed=seed)

    def close(self) -> None:
        super().close()
        Device.pin_factory = None


def invariant_holds(game: Game, world: World) -> str | None:
    """The table invariant: the world's tokens are where the game has its ships, by colour.

    Places under the cloud (which the camera cannot see) are left out. None
    when it holds, else what differs.
    """
    hidden = set(game.blocked)
    expected: Counter[tuple[str, str | None]] = Counter(
        (s.color, s.location)
        for s in game.ships()
        if s.location is not None
        and s.location not in hidden
        and s.status is not ShipStatus.UNDER_CLOUD
    )
    seen: Counter[tuple[str, str | None]] = Counter()
    for sid, (x_mm, y_mm) in world.ship_positions().items():
        if sid in world.carried:
            continue
        place = _nearest_place(game.board, x_mm, y_mm)
        if place not in hidden:
            seen[(sid.split("-")[0], place)] += 1
    if expected == seen:
        return None
    return f"missing {dict(expected - seen)}, extra {dict(seen - expected)}"


def _nearest_place(board: Board, x_mm: float, y_mm: float) -> str | None:
    best: tuple[float, str] | None = None
    for sid, space in board.spaces.items():
        sx, sy = space.position
        d = (sx - x_mm) ** 2 + (sy - y_mm) ** 2
        if best is None or d < best[0]:
            best = (d, sid)
    for pid, port in board.ports.items():
        for bx, by in port.berths:
            d = (bx - x_mm) ** 2 + (by - y_mm) ** 2
            if best is None or d < best[0]:
                best = (d, pid)
    return None if best is None or best[0] > 15.0**2 else best[1]


def with_camera(config: Config, **camera: object) -> Config:
    return config.model_copy(update={"camera": config.camera.model_copy(update=camera)})
