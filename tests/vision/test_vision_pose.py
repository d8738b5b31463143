"""The board's pose from the corner markers: accuracy, tracking, hidden markers, a moved camera."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from vision_helpers import TILTED, on_space, placed

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Cover, Hand, Scene
from bermuda_hw.vision.pose import PoseTracker, marker_corners_mm, project
from bermuda_hw.vision.reader import BoardReader

Shoot = Callable[..., np.ndarray]


def test_marker_corners_start_top_left_and_go_clockwise(classic_board: Board) -> None:
    m = classic_board.markers.corners[0]
    c = marker_corners_mm(m)
    assert c[0][0] < c[1][0] and c[0][1] == c[1][1]  # 0 -> 1 runs east
    assert c[1][1] < c[2][1] and c[1][0] == c[2][0]  # 1 -> 2 runs south
    assert np.allclose(c.mean(axis=0), (m.x_mm, m.y_mm))


def test_pose_maps_the_board_where_the_camera_sees_it(classic_board: Board, shoot: Shoot) -> None:
    camera = CameraModel(x_mm=220.0, y_mm=300.0, target_x_mm=270.0, roll_deg=-6.0)
    reader = BoardReader(classic_board)
    reading = reader.read(shoot(Scene(), camera))
    pose = reader.tracker.pose
    assert reading.board_found and pose is not None
    assert reading.pose_error_px is not None and reading.pose_error_px < 1.0
    assert reading.markers_seen == (0, 1, 2, 3)
    for x, y in [(100.0, 100.0), (254.0, 254.0), (400.0, 380.0), (60.0, 450.0)]:
        got = pose.to_image(np.array([[x, y]]))[0]
        assert np.linalg.norm(got - np.array(camera.project(x, y))) < 1.5


def test_a_steady_camera_is_tracked_not_searched(classic_board: Board, shoot: Shoot) -> None:
    reader = BoardReader(classic_board)
    frames = [shoot(Scene(), TILTED, seed) for seed in range(3)]
    sources = [reader.read(f).pose_source for f in frames]
    assert sources == ["detected", "steady", "steady"]


def test_a_hidden_corner_marker_keeps_the_last_pose(classic_board: Board, shoot: Shoot) -> None:
    board = classic_board
    ships = (on_space(board, "S15", "green"), on_space(board, "S25", "red"))
    reader = BoardReader(board)
    first = reader.read(shoot(Scene(ships), TILTED))
    assert first.pose_source == "detected"
    corner = board.markers.corners[2]
    cover = Cover(corner.x_mm, corner.y_mm, 32.0, (30, 60, 90))
    second = reader.read(shoot(Scene(ships, covers=(cover,)), TILTED, 1))
    assert second.board_found and second.pose_source == "kept"
    assert second.markers_seen == (0, 1, 3)
    assert placed(second) == placed(first) == [("green", "S15"), ("red", "S25")]


def test_a_hand_over_a_corner_marker(classic_board: Board, shoot: Shoot) -> None:
    board = classic_board
    reader = BoardReader(board)
    reader.read(shoot(Scene(), TILTED))
    hand = Hand(70.0, 440.0, "W", 60.0)
    reading = reader.read(shoot(Scene(hand=hand), TILTED, 1))
    assert reading.board_found and reading.occluded
    assert 3 not in reading.markers_seen


def test_three_markers_fix_a_first_pose(classic_board: Board, shoot: Shoot) -> None:
    corner = classic_board.markers.corners[0]
    cover = Cover(corner.x_mm, corner.y_mm, 32.0)
    reading = BoardReader(classic_board).read(shoot(Scene(covers=(cover,)), TILTED))
    assert reading.board_found and reading.markers_seen == (1, 2, 3)


def test_two_markers_are_not_enough_for_a_first_pose(classic_board: Board, shoot: Shoot) -> None:
    covers = tuple(Cover(m.x_mm, m.y_mm, 32.0) for m in classic_board.markers.corners[:2])
    reading = BoardReader(classic_board).read(shoot(Scene(covers=covers)))
    assert not reading.board_found
    assert reading.error is not None and "2 of 4" in reading.error


def test_a_moved_camera_is_found_again(classic_board: Board, shoot: Shoot) -> None:
    reader = BoardReader(classic_board)
    ship = (on_space(classic_board, "S05", "blue"),)
    assert reader.read(shoot(Scene(ship), CameraModel())).pose_source == "detected"
    moved = reader.read(shoot(Scene(ship), TILTED))
    assert moved.board_found and moved.pose_source == "detected"
    assert placed(moved) == [("blue", "S05")]


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_a_corner_marker_stuck_on_turned_still_fits(classic_board: Board, turns: int) -> None:
    """Synthetic detections from a known homography; marker 2 was stuck on turned."""
    tracker = PoseTracker(classic_board)
    truth = np.array([[1.6, 0.1, 200.0], [-0.05, 1.55, 90.0], [1e-5, 2e-5, 1.0]])
    found = {i: project(truth, c) for i, c in tracker.corners_mm.items()}
    found[2] = np.roll(found[2], turns, axis=0)
    pose = tracker.fit(found, (1280, 960))
    assert pose is not None and pose.error_px < 1e-3
    three = {i: found[i] for i in (1, 2, 3)}
    pose3 = tracker.fit(three, (1280, 960))
    assert pose3 is not None and pose3.error_px < 1e-3
