"""Helpers for the vision tests: placing ships and the cloud, summarising readings."""

from __future__ import annotations

import random

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, CloudState, Palette, ShipToken
from bermuda_hw.vision.types import FrameReading


def on_space(board: Board, space_id: str, color: str, jitter_mm: float = 0.0) -> ShipToken:
    """A ship standing on a path space, bow along the space's heading."""
    s = board.spaces[space_id]
    return ShipToken(color, s.x_mm + jitter_mm, s.y_mm, s.heading_deg)


def in_berth(board: Board, port_id: str, berth: int, color: str) -> ShipToken:
    x, y = board.ports[port_id].berths[berth]
    return ShipToken(color, x, y, 0.0)


def cloud_at(board: Board, col: int, row: int, letter: int = 0) -> CloudState:
    x, y = board.grid.dot_mm(col, row)
    return CloudState(x, y, 45.0 * letter)


def placed(reading: FrameReading) -> list[tuple[str, str | None]]:
    """The (colour, place) of every ship read, sorted."""
    return sorted(((s.color, s.space) for s in reading.ships), key=lambda t: (t[0], t[1] or ""))


# A camera that is placed, lit and focused imperfectly, but not at the extremes.
TILTED = CameraModel(
    x_mm=200.0,
    y_mm=320.0,
    height_mm=720.0,
    target_x_mm=260.0,
    target_y_mm=250.0,
    roll_deg=5.0,
    focal_px=1000.0,
    barrel=0.03,
    gradient=0.3,
    gradient_deg=60.0,
    vignette=0.2,
    blur_px=0.9,
    noise=3.0,
    jpeg_quality=80,
)


def random_camera(seed: int, board: Board) -> tuple[CameraModel, Palette]:
    rng = random.Random(seed)
    return CameraModel.random(rng, board), Palette.random(rng)
