"""Fixtures for the vision tests: rendered frames of the simulated table."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Palette, Scene, render
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.types import FrameReading

Image = npt.NDArray[np.uint8]

# The helpers module beside this file.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def shoot(classic_board: Board) -> Callable[..., Image]:
    """Render a scene of the classic board (default: the still camera, default palette)."""

    def _shoot(scene: Scene, camera: CameraModel | None = None, seed: int = 0,
               palette: Palette | None = None) -> Image:
        return render(classic_board, scene, camera or CameraModel(), seed=seed,
                      palette=palette or Palette())

    return _shoot


@pytest.fixture
def read(classic_board: Board) -> Callable[[Image], FrameReading]:
    """Read one frame with a fresh reader."""

    def _read(image: Image) -> FrameReading:
        return BoardReader(classic_board).read(image)

    return _read
