"""The empty board's learned look: boards whose printing differs from their file."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st
from printing_trial import run_trial, start_ships
from vision_helpers import TILTED, cloud_at, on_space

from bermuda_hw.errors import CalibrationError
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import (
    CameraModel,
    CloudState,
    Hand,
    LandShape,
    Palette,
    Printing,
    Rose,
    Scene,
    ShipToken,
    Title,
    coloured_light,
    random_scene,
    render,
)
from bermuda_hw.vision.background import BoardBackground
from bermuda_hw.vision.reader import BoardReader, start_layout

Shoot = Callable[..., np.ndarray]

# Greenish land, blue lettering and yellowish and reddish port paint, none in the file.
PRINTING = Printing(
    land=(
        LandShape(
            ((110.0, 300.0), (150.0, 285.0), (175.0, 320.0), (140.0, 350.0), (105.0, 335.0)),
            (75, 145, 85),
        ),
        LandShape(((330.0, 180.0), (365.0, 170.0), (372.0, 205.0), (340.0, 214.0)), (95, 160, 110)),
    ),
    titles=(Title("SARGASSO SEA", 300.0, 400.0, 12.0, (150, 80, 30)),),
    port_paint=(("BANANAS", (120, 195, 225)), ("OIL", (110, 135, 215)), ("HOME", (125, 205, 230))),
)
WARM = CameraModel(
    x_mm=230.0,
    y_mm=280.0,
    height_mm=760.0,
    roll_deg=4.0,
    barrel=0.02,
    tint=(0.8, 0.95, 1.12),
    tint_gradient=(-0.12, 0.0, 0.14),
    gradient=0.2,
    gradient_deg=120.0,
    blur_px=0.8,
    noise=3.0,
    jpeg_quality=85,
)


def test_printing_not_in_the_file_fools_a_reader_that_knows_only_the_file(
    classic_board: Board, shoot: Shoot
) -> None:
    """The hard case is real: the board file's land alone does not explain this board."""
    board = classic_board
    scene = Scene((on_space(board, "S20", "red"),), cloud_at(board, 2, 2))
    reading = BoardReader(board).read(shoot(scene, WARM, 1, Palette(printing=PRINTING)))
    extra = [s for s in reading.ships if (s.color, s.space) != ("red", "S20")]
    assert reading.occluded or extra


def test_learning_the_start_layout_makes_the_printing_part_of_the_board(
    classic_board: Board, shoot: Shoot
) -> None:
    board = classic_board
    palette = Palette(printing=PRINTING)
    centre = board.grid.dot_mm(*board.grid.centre)
    reader = BoardReader(board)
    reader.learn_background(shoot(Scene(start_ships(board), CloudState(*centre)), WARM, 1, palette))
    scene = Scene(
        (on_space(board, "S20", "red"), ShipToken("green", 140.0, 318.0, 10.0)),
        cloud_at(board, 6, 2),
    )
    reading = reader.read(shoot(scene, WARM, 2, palette))
    assert not reading.occluded
    # A green ship on the green land that the file does not know is still a ship.
    assert sorted((s.color, s.space) for s in reading.ships) == [("green", None), ("red", "S20")]
    hand = Hand(280.0, 250.0, "E", 90.0)
    assert reader.read(shoot(Scene(scene.ships, scene.cloud, hand), WARM, 3, palette)).occluded


def test_port_paint_that_drifts_toward_a_ship_colour_is_no_ship(
    classic_board: Board, shoot: Shoot
) -> None:
    """Calibrated under white light; read under a warm lamp that yellows one side."""
    board = classic_board
    palette = Palette(printing=PRINTING)
    calibration = BoardReader(board).calibrate(shoot(Scene(start_ships(board)), TILTED, 1, palette))
    reader = BoardReader(board, calibration)
    empty_ports = Scene((on_space(board, "S05", "yellow"), on_space(board, "S30", "red")))
    for seed in range(3):
        reading = reader.read(shoot(empty_ports, WARM, seed, palette))
        assert sorted((s.color, s.space) for s in reading.ships) == [
            ("red", "S30"),
            ("yellow", "S05"),
        ]
    # A yellow ship in the yellowish port is still seen.
    x, y = board.ports["BANANAS"].berths[1]
    reading = reader.read(shoot(Scene((ShipToken("yellow", x, y),)), WARM, 5, palette))
    assert [(s.color, s.space) for s in reading.ships] == [("yellow", "BANANAS")]


def test_calibration_does_not_hide_ships_under_the_clouds_footprint(
    classic_board: Board, shoot: Shoot
) -> None:
    """Calibrating with the cloud on the centre dot (as documented) writes no ignore
    circle over its footprint: a ship later put down there is seen."""
    board = classic_board
    centre = board.grid.dot_mm(*board.grid.centre)
    calibration = BoardReader(board).calibrate(
        shoot(Scene(start_ships(board), CloudState(*centre)), TILTED)
    )
    radius = board.cloud.footprint_radius_mm
    assert not any(
        np.hypot(z.x_mm - centre[0], z.y_mm - centre[1]) < radius + z.radius_mm
        for z in calibration.ignore
    )
    near = ShipToken("red", centre[0] + 30.0, centre[1] - 25.0, 70.0)
    reading = BoardReader(board, calibration).read(
        shoot(Scene((near,), cloud_at(board, 1, 7)), TILTED, 3)
    )
    assert [(s.color, s.space) for s in reading.ships] == [("red", None)]
    assert not reading.occluded


def test_known_ships_are_masked_and_their_places_filled(classic_board: Board, shoot: Shoot) -> None:
    """Learning with ships on path spaces: when they leave, the spaces read empty; when
    a ship comes back, it is seen."""
    board = classic_board
    ships = (on_space(board, "S10", "blue"), on_space(board, "S22", "green"))
    reader = BoardReader(board)
    background = reader.learn_background(
        shoot(Scene(ships), TILTED, 1), [("S10", None), ("S22", None)]
    )
    x, y = board.spaces["S10"].position
    assert background.known[round(y / 2), round(x / 2)]
    assert reader.read(shoot(Scene(), TILTED, 2)).ships == ()
    back = reader.read(shoot(Scene((on_space(board, "S22", "yellow"),)), TILTED, 3))
    assert [(s.color, s.space) for s in back.ships] == [("yellow", "S22")]


def test_a_saved_background_reads_back_and_a_wrong_one_is_refused(
    classic_board: Board, shoot: Shoot, tmp_path: Path
) -> None:
    reader = BoardReader(classic_board)
    learned = reader.learn_background(shoot(Scene(start_ships(classic_board)), TILTED))
    path = tmp_path / "board.png"
    learned.save(path)
    again = BoardBackground.load(path, learned.shape, learned.px_per_mm)
    assert np.array_equal(again.bgr, learned.bgr) and np.array_equal(again.known, learned.known)
    with pytest.raises(CalibrationError, match=r"board\.png"):
        BoardBackground.load(path, (10, 10), learned.px_per_mm)
    path.write_bytes(b"not a png")
    with pytest.raises(CalibrationError, match=r"board\.png"):
        BoardBackground.load(path, learned.shape, learned.px_per_mm)


def test_learning_without_the_board_in_view_is_refused(classic_board: Board) -> None:
    with pytest.raises(CalibrationError, match="not in view"):
        BoardReader(classic_board).learn_background(np.zeros((480, 640, 3), np.uint8))


def test_random_printings_draw_near_ship_colours_clear_of_the_markers(
    classic_board: Board,
) -> None:
    for seed in range(20):
        printing = Printing.random(random.Random(seed), classic_board)
        assert printing.land and printing.titles
        for shape in printing.land:
            for m in classic_board.markers.corners:
                assert min(np.hypot(x - m.x_mm, y - m.y_mm) for x, y in shape.points) > 20.0
    light = coloured_light(random.Random(1))
    assert CameraModel(**light).tint != (1.0, 1.0, 1.0)


@pytest.mark.parametrize("renderer", ["project renderer", "independent renderer"])
def test_differing_printings_after_the_documented_calibration(
    classic_board: Board, renderer: str
) -> None:
    """The goals of `make bench` on a few frames: ships right, no extras, no false hands."""
    figures = run_trial(classic_board, renderer, setups=2, frames_per_setup=10, seed=11)
    assert figures.not_found == 0
    assert figures.right_pct >= 99.5, figures.line(renderer)
    assert figures.extra_pct <= 0.5, figures.line(renderer)
    assert figures.false_hands == 0, figures.line(renderer)
    assert figures.hands_pct >= 90.0, figures.line(renderer)


def test_random_tables_on_a_learned_board_have_no_false_hands(
    classic_board: Board, shoot: Shoot
) -> None:
    """Once the start layout has been seen, the board's own printing is never a hand."""
    board = classic_board
    rng = random.Random(5)
    palette = replace(Palette.random(rng), printing=Printing.random(rng, board))
    camera = CameraModel.random(rng, board, **coloured_light(rng))
    reader = BoardReader(board)
    centre = board.grid.dot_mm(*board.grid.centre)
    reader.learn_background(
        shoot(Scene(start_ships(board), CloudState(*centre)), camera, 1, palette)
    )
    for seed in range(6):
        scene = random_scene(board, rng)
        assert not reader.read(shoot(scene, camera, seed, palette)).occluded


@settings(max_examples=6, deadline=None, derandomize=True, phases=(Phase.explicit, Phase.generate))
@given(seed=st.integers(0, 10_000))
@example(seed=592)  # a rose half under the cloud while the board was learned
@example(seed=1798)  # a yellow rose wholly under it
@example(seed=3024)  # green land under a path space that the cloud covered
def test_a_learned_board_reads_its_own_start_layout_back(classic_board: Board, seed: int) -> None:
    """Whatever the printing and the light: calibrated on the start layout with the cloud
    left on the centre dot, the same board (new noise, the cloud moved away) shows
    exactly the start layout, no hand, once the reader has seen what the cloud
    uncovered in two calm frames."""
    board = classic_board
    rng = random.Random(seed)
    palette = replace(Palette.random(rng), printing=Printing.random(rng, board))
    camera = CameraModel.random(rng, board, **coloured_light(rng))
    centre = board.grid.dot_mm(*board.grid.centre)
    start = render(
        board, Scene(start_ships(board), CloudState(*centre)), camera, seed=seed, palette=palette
    )
    reader = BoardReader(board, BoardReader(board).calibrate(start))
    for k in range(1, 4):
        frame = render(
            board,
            Scene(start_ships(board), cloud_at(board, 6, 4)),
            camera,
            seed=seed + k,
            palette=palette,
        )
        reading = reader.read(frame)
    assert not reading.occluded
    expected = sorted((color, port) for (port, _), color in start_layout(board).items())
    assert sorted((s.color, s.space or "off-space") for s in reading.ships) == expected


def test_what_the_cloud_uncovers_is_learned_and_ships_there_are_still_seen(
    classic_board: Board, shoot: Shoot
) -> None:
    """Learned at the game start with the cloud on the centre dot, a yellow compass rose
    under it is unknown; once uncovered it becomes board, and a ship on it is a ship."""
    board = classic_board
    centre = board.grid.dot_mm(*board.grid.centre)
    rose = Rose(centre[0] - 45.0, centre[1] + 15.0, 24.0, (40, 190, 225))
    palette = Palette(printing=Printing(roses=(rose,)))
    reader = BoardReader(board)
    reader.learn_background(
        shoot(Scene(start_ships(board), CloudState(*centre)), TILTED, 1, palette)
    )
    away = cloud_at(board, 7, 1)
    readings = [reader.read(shoot(Scene((), away), TILTED, k, palette)) for k in range(2, 6)]
    assert not any(r.occluded for r in readings)
    assert readings[0].ships != ()  # first uncovered: the file alone takes the rose for ships
    assert readings[-1].ships == () and readings[-2].ships == ()
    ship = ShipToken("red", rose.x_mm + 5.0, rose.y_mm, 20.0)
    reading = reader.read(shoot(Scene((ship,), away), TILTED, 9, palette))
    assert [(s.color, s.space) for s in reading.ships] == [("red", None)]
