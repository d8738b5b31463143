"""Light at play unlike the calibration's: re-learned, never a hand."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
from printing_trial import RENDERERS, score, start_ships, visible_truth

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import Scene, random_scene
from bermuda_hw.vision.background import BackgroundComparison, BackgroundLearner, BoardBackground
from bermuda_hw.vision.reader import BoardReader


def _frames(board: Board, renderer: str, seed: int, calibrated_under: str, read_under: str,
            count: int) -> list[tuple[bool, int, int, int]]:
    """Calibrate under one light, then read `count` random tables under another, each
    frame with a fresh reader (as `detect --calibration`): (occluded, ships, right, extra)
    per frame."""
    rng = random.Random(seed)
    shoot = RENDERERS[renderer](board, rng)
    calibration = BoardReader(board).calibrate(
        shoot(Scene(start_ships(board)), rng.randrange(1 << 30), calibrated_under))
    out = []
    for _ in range(count):
        scene = random_scene(board, rng, cloud=rng.random() < 0.95)
        reading = BoardReader(board, calibration).read(
            shoot(scene, rng.randrange(1 << 30), read_under))
        truth = visible_truth(board, scene)
        right, extra = score(truth, reading)
        out.append((reading.occluded, len(truth), right, extra))
    return out


def test_a_brighter_light_that_clips_the_whites_is_no_hand(classic_board: Board) -> None:
    """Pale paint and white spaces clip under a brighter light: they are not foreign."""
    for occluded, ships, right, extra in _frames(classic_board, "project renderer", 7,
                                                 "as calibrated", "brighter", 2):
        assert not occluded
        assert (right, extra) == (ships, 0)


def test_pixels_clipped_while_learning_are_not_compared(tmp_path: Path) -> None:
    """A white the camera clipped while the board was learned is brighter than learned:
    later, under a dimmer light, it differs from the learned look but is not foreign,
    and the saved look keeps which pixels they are."""
    shape = (40, 60)
    learner = BackgroundLearner(shape, 0.5)
    board = np.full((*shape, 3), (180, 140, 60), np.uint8)  # sea
    board[10:30, 10:40] = 250  # a white space, clipped
    clipped = np.zeros(shape, bool)
    clipped[10:30, 10:40] = True
    learner.add(board, np.ones(shape, bool), clipped)
    learned = learner.result()
    assert learned.saturated is not None and learned.saturated[15, 20]
    assert not learned.saturated[5, 5]
    # Unclipped, the white shows the cream it is (its red channel had clipped first).
    frame = board.copy()
    frame[10:30, 10:40] = (150, 215, 250)
    comparison = BackgroundComparison(learned, frame, np.ones(shape, bool))
    assert comparison.distance[15, 20] > 22.0
    assert not comparison.foreign(22.0).any()
    learned.save(tmp_path / "look.png")
    again = BoardBackground.load(tmp_path / "look.png", shape, 0.5)
    assert again.saturated is not None
    assert np.array_equal(again.saturated, learned.saturated)
    assert np.array_equal(again.known, learned.known)
