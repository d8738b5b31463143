"""The renderer: deterministic, geometrically faithful, and the perturbations it promises."""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Palette, Scene, ShipToken, random_scene, render
from bermuda_hw.vision.pose import detect_markers, make_detector


def test_same_seed_same_frame_other_seed_other_noise(classic_board: Board) -> None:
    scene = Scene((ShipToken("red", 100.0, 100.0),))
    a = render(classic_board, scene, seed=4)
    b = render(classic_board, scene, seed=4)
    c = render(classic_board, scene, seed=5)
    assert a.shape == (960, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.abs(a.astype(int) - c.astype(int)).mean() < 6  # only the noise differs


def test_markers_appear_where_the_camera_model_projects_them(classic_board: Board) -> None:
    camera = CameraModel(
        x_mm=180.0,
        y_mm=300.0,
        target_x_mm=260.0,
        roll_deg=8.0,
        barrel=0.04,
        noise=0.0,
        jpeg_quality=100,
    )
    frame = render(classic_board, Scene(), camera)
    found = detect_markers(make_detector("DICT_4X4_50"), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    for marker in classic_board.markers.corners:
        centre = np.array(camera.project(marker.x_mm, marker.y_mm))
        assert np.linalg.norm(found[marker.id].mean(axis=0) - centre) < 1.5


def test_raised_objects_show_parallax(classic_board: Board) -> None:
    camera = CameraModel(x_mm=254.0, y_mm=254.0, height_mm=700.0)
    (x, y), scale = camera.parallax(454.0, 254.0, 70.0)
    assert scale > 1.0 and x > 454.0 and math.isclose(y, 254.0)
    assert math.isclose(camera.parallax(254.0, 254.0, 70.0)[0][0], 254.0)


def test_random_scene_keeps_ships_clear_of_the_cloud_edge(classic_board: Board) -> None:
    radius = classic_board.cloud.footprint_radius_mm
    for seed in range(20):
        scene = random_scene(classic_board, random.Random(seed))
        assert scene.cloud is not None
        assert len({s.color for s in scene.ships}) <= 4
        for ship in scene.ships:
            d = math.dist((ship.x_mm, ship.y_mm), (scene.cloud.x_mm, scene.cloud.y_mm))
            assert d < radius * 0.75 or d > radius + 22.0


def test_lighting_gradient_darkens_one_side(classic_board: Board) -> None:
    flat = render(classic_board, Scene(), CameraModel(noise=0.0, vignette=0.0))
    lit = render(
        classic_board,
        Scene(),
        CameraModel(noise=0.0, vignette=0.0, gradient=0.8, gradient_deg=90.0),
    )
    west = (slice(400, 560), slice(350, 450))
    east = (slice(400, 560), slice(830, 930))
    ratio_w = lit[west].mean() / flat[west].mean()
    ratio_e = lit[east].mean() / flat[east].mean()
    assert ratio_e > ratio_w + 0.3  # east brighter than west


def test_palette_random_is_reproducible() -> None:
    assert Palette.random(random.Random(3)) == Palette.random(random.Random(3))
