"""Hands and arms over the board mark a frame occluded; ordinary frames are not."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from vision_helpers import TILTED, cloud_at, on_space, random_camera

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import Cover, Hand, Scene, ShipToken, random_scene
from bermuda_hw.vision.reader import BoardReader, start_layout
from bermuda_hw.vision.types import FrameReading

Shoot = Callable[..., np.ndarray]
Read = Callable[[np.ndarray], FrameReading]


@pytest.mark.parametrize(
    ("side", "skin", "sleeve"),
    [
        ("S", (120, 150, 205), (60, 60, 70)),
        ("W", (80, 110, 160), (200, 120, 40)),  # a darker hand, a blue sleeve
        ("N", (150, 170, 220), (40, 150, 40)),
        ("E", (100, 140, 200), (230, 230, 230)),
    ],
)
def test_a_hand_over_the_board_is_occluded(
    classic_board: Board,
    shoot: Shoot,
    read: Read,
    side: str,
    skin: tuple[int, int, int],
    sleeve: tuple[int, int, int],
) -> None:
    board = classic_board
    hand = Hand(300.0, 260.0, side, 100.0, skin, sleeve)  # type: ignore[arg-type]
    scene = Scene((on_space(board, "S20", "red"),), cloud_at(board, 2, 2, 1), hand)
    assert read(shoot(scene, TILTED)).occluded


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_ordinary_frames_are_not_occluded(
    classic_board: Board, shoot: Shoot, read: Read, seed: int
) -> None:
    camera, palette = random_camera(seed, classic_board)
    scene = random_scene(classic_board, random.Random(seed))
    reading = read(shoot(scene, camera, seed, palette))
    assert reading.board_found and not reading.occluded


def test_glare_is_not_a_hand(classic_board: Board, shoot: Shoot, read: Read) -> None:
    glare = Cover(330.0, 300.0, 45.0, (252, 252, 252), 0.0)
    reading = read(shoot(Scene(covers=(glare,)), TILTED))
    assert reading.board_found and not reading.occluded


def test_printed_patches_are_learned_by_calibration_and_by_a_steady_camera(
    classic_board: Board, shoot: Shoot
) -> None:
    """A large printed cartouche on the sea looks foreign at first; the board's own print
    must not mark every frame occluded."""
    board = classic_board
    cartouche = Cover(300.0, 330.0, 40.0, (60, 120, 190), 0.0)
    start = tuple(
        ShipToken(c, *board.ports[p].berths[b or 0], 0.0)
        for (p, b), c in start_layout(board).items()
    )
    frame = shoot(Scene(start, covers=(cartouche,)), TILTED)
    assert BoardReader(board).read(frame).occluded
    # Calibration on the start layout learns it as the board's own look, without an
    # ignore circle that would hide a ship put down on it.
    calibration = BoardReader(board).calibrate(frame)
    assert calibration.ignore == ()
    assert calibration.background is not None
    assert not BoardReader(board, calibration).read(frame).occluded
    on_it = ShipToken("blue", 300.0, 330.0, 30.0)
    seen = BoardReader(board, calibration).read(
        shoot(Scene((*start, on_it), covers=(cartouche,)), TILTED, 2)
    )
    assert [
        (s.color, s.space)
        for s in seen.ships
        if abs(s.x_mm - 300.0) < 10 and abs(s.y_mm - 330.0) < 10
    ] == [("blue", None)]
    # A steady camera learns it over a few hundred frames, and still sees hands.
    reader = BoardReader(board)
    readings = [reader.read(frame) for _ in range(160)]
    assert readings[0].occluded and not readings[-1].occluded
    hand = Hand(150.0, 200.0, "W", 90.0)
    assert reader.read(shoot(Scene(start, covers=(cartouche,), hand=hand), TILTED, 1)).occluded
