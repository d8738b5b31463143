"""The cloud on rendered frames: dot and letter, parallax, and the ships it hides."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from vision_helpers import TILTED, cloud_at, in_berth, on_space, placed

from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.sim.render import CameraModel, CloudState, Cover, Scene
from bermuda_hw.vision.pose import make_detector
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import StabilitySettings, Stabilizer
from bermuda_hw.vision.types import FrameReading

Shoot = Callable[..., np.ndarray]
Read = Callable[[np.ndarray], FrameReading]


@pytest.mark.parametrize("letter", range(8))
def test_every_letter_at_the_notch(
    classic_board: Board, shoot: Shoot, read: Read, letter: int
) -> None:
    col, row = [(4, 4), (1, 7), (7, 1), (2, 3)][letter % 4]
    reading = read(shoot(Scene(cloud=cloud_at(classic_board, col, row, letter)), TILTED))
    assert reading.cloud is not None
    assert (reading.cloud.col, reading.cloud.row) == (col, row)
    assert reading.cloud.letter_name == LETTERS[letter]


@pytest.mark.parametrize("dot", [(0, 0), (8, 0), (8, 8), (0, 8), (3, 6)])
def test_cloud_position_corrected_for_its_height(
    classic_board: Board, shoot: Shoot, read: Read, dot: tuple[int, int]
) -> None:
    """The marker stands above the board: near the edges a naive reading is off by mm."""
    camera = CameraModel(height_mm=650.0, focal_px=950.0)
    cloud = cloud_at(classic_board, *dot, 3)
    reading = read(shoot(Scene(cloud=cloud), camera))
    assert reading.cloud is not None
    assert (reading.cloud.col, reading.cloud.row, reading.cloud.letter) == (*dot, 3)
    assert math.dist((reading.cloud.x_mm, reading.cloud.y_mm), (cloud.x_mm, cloud.y_mm)) < 4.0


def test_cloud_between_letters_reads_the_nearest(
    classic_board: Board, shoot: Shoot, read: Read
) -> None:
    x, y = classic_board.grid.dot_mm(5, 5)
    reading = read(shoot(Scene(cloud=CloudState(x, y, 45.0 * 6 + 14.0))))
    assert reading.cloud is not None and reading.cloud.letter_name == "G"
    assert reading.cloud.confidence < 0.9


def test_the_cloud_hides_ships_and_they_are_hidden_not_missing(
    classic_board: Board, shoot: Shoot
) -> None:
    board = classic_board
    ships = (
        on_space(board, "S34", "red"),
        on_space(board, "S38", "blue"),
        on_space(board, "S30", "green"),
        in_berth(board, "OIL", 0, "yellow"),
    )
    reader = BoardReader(board)
    stable = Stabilizer(StabilitySettings(frames=2, min_time_s=0.0))
    first = None
    for t in (0.0, 0.1):
        first = stable.push(reader.read(shoot(Scene(ships)), t)) or first
    assert first is not None
    assert sorted((s.color, s.space) for s in first.ships) == placed(
        reader.read(shoot(Scene(ships)))
    )
    # The cloud comes over S34 and S38.
    covered = Scene(ships, cloud_at(board, 4, 4, 2))
    reading = reader.read(shoot(covered), 0.2)
    assert {"S34", "S38"} <= reading.hidden_spaces
    assert placed(reading) == sorted([("green", "S30"), ("yellow", "OIL")])
    observation = None
    for t in (0.2, 0.3):
        observation = stable.push(reader.read(shoot(covered), t)) or observation
    assert observation is not None
    hidden = sorted((s.color, s.space) for s in observation.ships if s.hidden)
    assert hidden == [("blue", "S38"), ("red", "S34")]
    assert sorted((s.color, s.space) for s in observation.ships if not s.hidden) == [
        ("green", "S30"),
        ("yellow", "OIL"),
    ]


def test_no_cloud_on_the_board(classic_board: Board, shoot: Shoot, read: Read) -> None:
    reading = read(shoot(Scene((on_space(classic_board, "S01", "red"),))))
    assert reading.cloud is None and reading.hidden_spaces == frozenset()


def test_an_unreadable_cloud_marker_keeps_the_cloud_and_its_hidden_ships(
    classic_board: Board, shoot: Shoot
) -> None:
    board = classic_board
    ships = (on_space(board, "S34", "red"), on_space(board, "S01", "green"))
    cloud = cloud_at(board, 4, 4, 5)
    reader = BoardReader(board)
    first = reader.read(shoot(Scene(ships, cloud), TILTED))
    assert first.cloud is not None and first.cloud.confidence > 0.5
    # A sticker of glare over the marker: the cloud is still there.
    glare = Cover(cloud.x_mm, cloud.y_mm, 16.0, (255, 255, 255), 45.0)
    second = reader.read(shoot(Scene(ships, cloud, covers=(glare,)), TILTED, 1))
    assert second.cloud is not None and second.cloud.confidence == 0.0
    assert (second.cloud.col, second.cloud.row, second.cloud.letter) == (4, 4, 5)
    assert "S34" in second.hidden_spaces
    # The cloud taken off the board: gone, and what it hid is seen again.
    third = reader.read(shoot(Scene(ships), TILTED, 2))
    assert third.cloud is None and ("red", "S34") in placed(third)


def test_a_port_partly_under_the_cloud_keeps_only_the_hidden_ships(
    classic_board: Board, shoot: Shoot
) -> None:
    board = classic_board
    port = board.ports["LUMBER"]
    ships = tuple(in_berth(board, "LUMBER", i, c) for i, c in enumerate(board.ship_colors))
    stable = Stabilizer(StabilitySettings(frames=1, min_time_s=0.0))
    reader = BoardReader(board)
    assert stable.push(reader.read(shoot(Scene(ships), TILTED), 0.0)) is not None
    # The cloud sits south-west of the port: it covers the southern berths only.
    cloud = CloudState(port.berths[2][0] - 30.0, port.berths[2][1] + 60.0, 0.0)
    reading = reader.read(shoot(Scene(ships, cloud), TILTED, 1), 0.1)
    seen = [s.color for s in reading.ships if s.space == "LUMBER"]
    observation = stable.push(reading)
    assert observation is not None
    at_port = sorted(s.color for s in observation.ships if s.space == "LUMBER")
    assert at_port == sorted(board.ship_colors)  # each ship once: seen or hidden
    assert len([s for s in observation.ships if s.hidden]) == 4 - len(seen)


@pytest.mark.parametrize("first_scale_finds", [True, False])
def test_a_cloud_moved_far_under_a_still_camera_is_found_at_its_new_dot(
    classic_board: Board, shoot: Shoot, first_scale_finds: bool
) -> None:
    """The cloud moved across the board between two frames of a still camera: it is looked
    for over the whole board at one threshold scale, and at the second scale only where
    the first finds nothing (a lamp's gradient across the marker): found either way."""
    board = classic_board
    reader = BoardReader(board)
    first = reader.read(shoot(Scene(cloud=cloud_at(board, 1, 1, 2)), TILTED))
    assert first.cloud is not None and (first.cloud.col, first.cloud.row) == (1, 1)
    reader.read(shoot(Scene(cloud=cloud_at(board, 1, 1, 2)), TILTED, 1))  # the pose kept
    first_scale, second_scale = reader._cloud_detectors
    windows = [
        (p.adaptiveThreshWinSizeMin, p.adaptiveThreshWinSizeMax)
        for p in (d.getDetectorParameters() for d in (first_scale, second_scale))
    ]
    assert windows == [(7, 7), (17, 17)]  # each window once: the second only after the first
    if not first_scale_finds:
        # a first scale that finds no marker of the board's dictionary
        first_scale = make_detector("DICT_6X6_50", window_sizes=(7, 7), refine=False)
    looked = Looked(first_scale), Looked(second_scale)
    reader._cloud_detectors = looked
    moved = reader.read(shoot(Scene(cloud=cloud_at(board, 7, 6, 5)), TILTED, 2))
    assert moved.pose_source == "steady"
    assert moved.cloud is not None
    assert (moved.cloud.col, moved.cloud.row, moved.cloud.letter) == (7, 6, 5)
    assert [d.calls for d in looked] == ([1, 0] if first_scale_finds else [1, 1])


class Looked:
    """An ArUco detector that counts the images it is given."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        self.calls = 0

    def detectMarkers(self, gray: np.ndarray) -> Any:  # (OpenCV's name)
        self.calls += 1
        return self.detector.detectMarkers(gray)


def test_a_cloud_turned_where_it_stands_is_found_near_its_last_place(
    classic_board: Board, shoot: Shoot
) -> None:
    """The cloud turned a letter on its dot under a still camera: its marker is found near
    where it was (one threshold window, corners refined), never searched for over the
    board."""
    board = classic_board
    reader = BoardReader(board)
    for seed in range(2):  # the pose detected, then kept
        reader.read(shoot(Scene(cloud=cloud_at(board, 4, 4, 2)), TILTED, seed))
    near = Looked(reader._cloud_near)
    over_board = Looked(reader._cloud_detectors[0]), Looked(reader._cloud_detectors[1])
    reader._cloud_near = near
    reader._cloud_detectors = over_board
    turned = reader.read(shoot(Scene(cloud=cloud_at(board, 4, 4, 3)), TILTED, 2))
    assert turned.pose_source == "steady"
    assert turned.cloud is not None
    assert (turned.cloud.col, turned.cloud.row, turned.cloud.letter) == (4, 4, 3)
    x_mm, y_mm = board.grid.dot_mm(4, 4)
    assert math.dist((turned.cloud.x_mm, turned.cloud.y_mm), (x_mm, y_mm)) < 4.0
    assert near.calls == 1 and [d.calls for d in over_board] == [0, 0]
