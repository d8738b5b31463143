"""What a reader keeps from frame to frame while the camera and the light stay, and when it
lets it go: the camera moved, the light changed, the board was calibrated again."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from printing_trial import RENDERERS, Shoot, start_ships
from vision_helpers import TILTED, placed

import bermuda_hw.vision.reader as reader_module
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, CloudState, Scene, random_scene
from bermuda_hw.vision.background import (
    REVEAL_FRAMES,
    BackgroundComparison,
    BackgroundLearner,
    BoardBackground,
)
from bermuda_hw.vision.lighting import LightingNormaliser, SeaColour
from bermuda_hw.vision.reader import BoardReader

Image = npt.NDArray[np.uint8]


def _setup(board: Board) -> tuple[Shoot, random.Random]:
    """The project renderer's setup 0 (its camera does not clip the sea)."""
    return RENDERERS["project renderer"](board, random.Random(0)), random.Random(0)


def _fitted_afresh(reader: BoardReader, frame: Image) -> SeaColour:
    """The sea's colour that a normaliser that never saw another frame fits on the board
    the reader's pose rectifies from a frame."""
    assert reader.tracker.pose is not None
    rect = reader.rectify(frame, reader.tracker.pose).rect
    fresh = LightingNormaliser(reader.layout)
    fresh.normalise(rect)
    assert fresh.sea_colour is not None
    return fresh.sea_colour


def test_a_steady_camera_and_light_keep_the_sea_colour(classic_board: Board) -> None:
    """Under a steady camera and light the sea's colour fitted on one frame serves the
    next frames, and they are read as a fresh reader reads them."""
    shoot, rng = _setup(classic_board)
    reader = BoardReader(classic_board)
    reader.read(shoot(random_scene(classic_board, rng), rng.randrange(1 << 30)))
    reader.read(shoot(random_scene(classic_board, rng), rng.randrange(1 << 30)))
    kept = reader.normaliser.sea_colour
    assert kept is not None
    frame = shoot(random_scene(classic_board, rng), rng.randrange(1 << 30))
    reading = reader.read(frame)
    assert reading.pose_source == "steady"
    assert reader.normaliser.sea_colour is kept
    assert placed(reading) == placed(BoardReader(classic_board).read(frame))


def test_the_sea_colour_is_fitted_again_when_the_light_changes(classic_board: Board) -> None:
    """A warmer or cooler light, the camera steady (the markers look the same to the pose
    check): the sea's colour is fitted on the new light's frame, not kept."""
    shoot, rng = _setup(classic_board)
    reader = BoardReader(classic_board)
    for _ in range(2):
        reader.read(shoot(random_scene(classic_board, rng), rng.randrange(1 << 30)))
    assert reader.normaliser.sea_colour is not None
    for light in ("warmer", "cooler"):
        frame = shoot(random_scene(classic_board, rng), rng.randrange(1 << 30), light)
        reading = reader.read(frame)
        assert reading.pose_source == "steady"
        sea = reader.normaliser.sea_colour
        assert sea is not None
        assert np.array_equal(sea.chroma, _fitted_afresh(reader, frame).chroma)


def test_the_sea_colour_is_fitted_again_after_the_camera_moved(
    classic_board: Board, shoot: Callable[..., Image]
) -> None:
    """The camera moved (the light the same): the sea's colour is fitted on the first
    frame of the new view, and a reader reset forgets it."""
    ships = start_ships(classic_board)
    reader = BoardReader(classic_board)
    for seed in (1, 2):
        reader.read(shoot(Scene(ships), TILTED, seed=seed))
    assert reader.normaliser.sea_colour is not None
    frame = shoot(Scene(ships), CameraModel(), seed=3)
    reading = reader.read(frame)
    assert reading.pose_source != "steady"
    sea = reader.normaliser.sea_colour
    assert sea is not None
    assert np.array_equal(sea.chroma, _fitted_afresh(reader, frame).chroma)
    reader.read(frame)
    assert reader.normaliser.sea_colour is not None
    reader.reset()
    assert reader.normaliser.sea_colour is None


def test_a_calibration_after_play_is_a_fresh_readers(classic_board: Board) -> None:
    """Calibrating again, after frames under another light, measures what a fresh reader
    measures on the same frame: nothing kept from play reaches the calibration."""
    shoot, rng = _setup(classic_board)
    reader = BoardReader(classic_board)
    for _ in range(2):
        reader.read(shoot(random_scene(classic_board, rng), rng.randrange(1 << 30), "warmer"))
    frame = shoot(Scene(start_ships(classic_board)), rng.randrange(1 << 30))
    again = reader.calibrate(frame)
    fresh = BoardReader(classic_board).calibrate(frame)
    assert again.profiles == fresh.profiles
    assert again.token_area_mm2 == fresh.token_area_mm2
    assert again.background is not None and fresh.background is not None
    assert np.array_equal(again.background.bgr, fresh.background.bgr)


def test_the_lights_fit_follows_what_the_learned_board_reveals() -> None:
    """The learned look's logarithms are kept for the fit of the light, and made again
    when the board reveals what it had never seen: the fit is then the one a board
    learned with those pixels from the start gives."""
    shape = (48, 72)
    learner = BackgroundLearner(shape, 0.5)
    look = np.full((*shape, 3), (170, 130, 70), np.uint8)
    look[:, 36:] = (90, 160, 200)
    seen = np.ones(shape, bool)
    seen[:, 30:] = False  # most of the right side never seen
    learner.add(look, seen)
    learned = learner.result()
    assert not learned.known[:, 40:].any()
    usable = np.ones(shape, bool)
    frame = np.clip(look.astype(np.float32) * (1.0, 1.1, 1.25), 0, 255).astype(np.uint8)
    BackgroundComparison(learned, frame, usable)  # the logarithms made
    for _ in range(REVEAL_FRAMES):
        learned.reveal(look, usable)
    assert learned.known.all()
    again = BackgroundComparison(learned, frame, usable).light_change
    assert learned.saturated is not None
    fresh = BoardBackground(learned.bgr.copy(), learned.known.copy(), 0.5, learned.saturated)
    assert np.array_equal(again, BackgroundComparison(fresh, frame, usable).light_change)


@pytest.mark.parametrize("renderer", ["project renderer", "independent renderer"])
def test_a_still_cloud_is_not_searched_for_and_a_moved_one_is_found_at_once(
    classic_board: Board, renderer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Camera and cloud still (ships moved, new image noise): the cloud's marker is not
    searched for again and the cloud is read as a fresh reader reads it. The next frame
    after the cloud moved (a dot away and a letter on, or a nudge of 2 mm) reads it where
    it is now."""
    board = classic_board
    rng = random.Random(1)
    shoot = RENDERERS[renderer](board, rng)
    x, y = board.grid.dot_mm(*board.grid.centre)

    searches: list[int] = []
    real = reader_module.detect_markers

    def counting(*args: Any, **kwargs: Any) -> Any:
        searches.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(reader_module, "detect_markers", counting)
    reader = BoardReader(board)
    still = CloudState(x, y, 0.0)
    for _ in range(2):
        reader.read(shoot(Scene(start_ships(board), still), rng.randrange(1 << 30)))
    searches.clear()
    image = shoot(Scene(start_ships(board)[:4], still), rng.randrange(1 << 30))
    reading = reader.read(image)
    assert reading.pose_source == "steady"
    assert searches == []
    fresh = BoardReader(board).read(image).cloud
    assert reading.cloud is not None and fresh is not None
    assert reading.cloud.letter == fresh.letter
    assert np.hypot(reading.cloud.x_mm - fresh.x_mm, reading.cloud.y_mm - fresh.y_mm) < 0.2

    pitch = board.grid.pitch_mm
    for moved in (CloudState(x + pitch, y, 45.0), CloudState(x + pitch + 2.0, y, 45.0)):
        reading = reader.read(shoot(Scene(start_ships(board), moved), rng.randrange(1 << 30)))
        assert reading.pose_source == "steady"
        assert reading.cloud is not None
        col, row = board.grid.nearest_dot(moved.x_mm, moved.y_mm)
        assert (reading.cloud.col, reading.cloud.row, reading.cloud.letter) == (col, row, 1)
        assert abs(reading.cloud.x_mm - moved.x_mm) < 1.0


def test_a_moved_cloud_is_searched_for_beside_the_rectification_with_the_same_readings(
    classic_board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A moved cloud's marker is searched for on the reader's search thread while the
    board is rectified; a still cloud's window is checked on the caller's thread. The
    readings are those of a search made in line, frame by frame."""
    board = classic_board
    rng = random.Random(2)
    shoot = RENDERERS["project renderer"](board, rng)
    x, y = board.grid.dot_mm(*board.grid.centre)
    pitch = board.grid.pitch_mm
    clouds = [CloudState(x, y, 0.0)] * 3 + [CloudState(x + pitch, y, 45.0)] * 2
    clouds += [CloudState(x + pitch, y + pitch, 90.0), CloudState(x, y, 0.0)]
    frames = [shoot(Scene(start_ships(board), c), rng.randrange(1 << 30)) for c in clouds]

    threads: list[str] = []
    real = reader_module.detect_markers

    def noting(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(reader_module, "detect_markers", noting)
    on_thread = BoardReader(board)
    threaded = [on_thread.read(f) for f in frames]
    searching = [n for n in threads if n.startswith("cloud-search")]
    assert searching, "a moved cloud is searched for on the search thread"

    class InLine:
        def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
            done: Future[Any] = Future()
            done.set_result(fn(*args))
            return done

    monkeypatch.setattr(reader_module, "_cloud_search", InLine)
    in_line = BoardReader(board)
    for frame, seen in zip(frames, threaded, strict=True):
        again = in_line.read(frame)
        assert again.pose_source == seen.pose_source
        assert placed(again) == placed(seen)
        assert again.cloud == seen.cloud
        assert again.occluded == seen.occluded


def test_each_process_searches_on_a_thread_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked process does not have its parent's threads: it makes its own search thread,
    and keeps it from then on."""
    mine = reader_module._cloud_search()
    assert reader_module._cloud_search() is mine
    pid = reader_module.os.getpid()
    monkeypatch.setattr(reader_module.os, "getpid", lambda: pid + 1)
    child = reader_module._cloud_search()
    assert child is not mine
    assert reader_module._cloud_search() is child
    child.shutdown()
