"""Fixtures for the vision tests: rendered frames of the simulated table."""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import bermuda_hw.sim.render
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Palette, Scene
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.types import FrameReading

Image = npt.NDArray[np.uint8]


def _kept_frames(render: Callable[..., Image]) -> Callable[..., Image]:
    """`render`, keeping each frame for the same board, scene and options (rendering is
    deterministic); callers get copies."""
    frames: dict[bytes, Image] = {}

    def kept(board: Board, *args: Any, **kwargs: Any) -> Image:
        key = pickle.dumps((repr(board), args, sorted(kwargs.items())))
        if key not in frames:
            frames[key] = render(board, *args, **kwargs)
        return frames[key].copy()

    return kept


# `make mutation` runs these tests once per mutant, each run forked from a process that has
# run them all already: the frames rendered there serve every mutant (the renderer is never
# mutated), which saves most of a run's time. Test modules import `render` after this file.
if os.environ.get("BERMUDA_HW_KEEP_FRAMES") == "1":
    bermuda_hw.sim.render.render = _kept_frames(bermuda_hw.sim.render.render)

# The helpers module beside this file.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def shoot(classic_board: Board) -> Callable[..., Image]:
    """Render a scene of the classic board (default: the still camera, default palette)."""

    def _shoot(
        scene: Scene,
        camera: CameraModel | None = None,
        seed: int = 0,
        palette: Palette | None = None,
    ) -> Image:
        return bermuda_hw.sim.render.render(
            classic_board, scene, camera or CameraModel(), seed=seed, palette=palette or Palette()
        )

    return _shoot


@pytest.fixture
def read(classic_board: Board) -> Callable[[Image], FrameReading]:
    """Read one frame with a fresh reader."""

    def _read(image: Image) -> FrameReading:
        return BoardReader(classic_board).read(image)

    return _read
