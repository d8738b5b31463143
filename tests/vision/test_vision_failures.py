"""Frames and files from which no board can be read: clear answers, no crashes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bermuda_hw.backends.camera import read_image_file
from bermuda_hw.errors import CameraError, VisionError
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Scene
from bermuda_hw.vision.reader import BoardReader

Shoot = Callable[..., np.ndarray]


def test_black_frame(classic_board: Board) -> None:
    reading = BoardReader(classic_board).read(np.zeros((960, 1280, 3), np.uint8))
    assert not reading.board_found
    assert reading.error is not None and "board not found" in reading.error
    assert reading.ships == () and reading.cloud is None


def test_noise_frame_and_tiny_frame(classic_board: Board) -> None:
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    reader = BoardReader(classic_board)
    assert not reader.read(noise).board_found
    assert not reader.read(np.full((3, 3, 3), 200, np.uint8)).board_found


def test_no_board_in_view(classic_board: Board, shoot: Shoot) -> None:
    """The camera looks at the table beside the board."""
    camera = CameraModel(x_mm=1100.0, target_x_mm=1100.0)
    reading = BoardReader(classic_board).read(shoot(Scene(), camera))
    assert not reading.board_found


def test_grey_and_alpha_frames_are_accepted(classic_board: Board, shoot: Shoot) -> None:
    import cv2

    frame = shoot(Scene())
    reader = BoardReader(classic_board)
    assert reader.read(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)).board_found
    assert reader.read(cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)).board_found


def test_not_an_image_is_a_vision_error(classic_board: Board) -> None:
    with pytest.raises(VisionError):
        BoardReader(classic_board).read(np.zeros((0, 0, 3), np.uint8))


def test_corrupt_and_missing_image_files(tmp_path: Path) -> None:
    bad = tmp_path / "frame.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    with pytest.raises(CameraError, match=r"frame\.jpg: not a readable image"):
        read_image_file(bad)
    with pytest.raises(CameraError, match="file not found"):
        read_image_file(tmp_path / "nothing.png")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(CameraError, match="not a readable image"):
        read_image_file(empty)
