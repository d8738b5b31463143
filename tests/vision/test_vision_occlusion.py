"""Hands and arms over the board mark a frame occluded; ordinary frames are not."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from vision_helpers import TILTED, cloud_at, on_space, random_camera

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import Hand, Scene, random_scene
from bermuda_hw.vision.types import FrameReading

Shoot = Callable[..., np.ndarray]
Read = Callable[[np.ndarray], FrameReading]


@pytest.mark.parametrize(("side", "skin", "sleeve"), [
    ("S", (120, 150, 205), (60, 60, 70)),
    ("W", (80, 110, 160), (200, 120, 40)),  # a darker hand, a blue sleeve
    ("N", (150, 170, 220), (40, 150, 40)),
    ("E", (100, 140, 200), (230, 230, 230)),
])
def test_a_hand_over_the_board_is_occluded(
    classic_board: Board, shoot: Shoot, read: Read, side: str, skin: tuple[int, int, int],
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
