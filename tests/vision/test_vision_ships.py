"""Ships on rendered frames: spaces, ports, neighbours, blue on the sea, off their spaces."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np
import pytest
from vision_helpers import TILTED, in_berth, on_space, placed, random_camera

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Palette, Scene, ShipToken
from bermuda_hw.vision.types import FrameReading

Shoot = Callable[..., np.ndarray]
Read = Callable[[np.ndarray], FrameReading]


def test_every_ship_on_its_space(classic_board: Board, shoot: Shoot, read: Read) -> None:
    board = classic_board
    paths = [s.id for s in board.spaces.values() if s.kind == "path"]
    rng = random.Random(1)
    chosen = rng.sample(paths, 16)
    colors = [c for c in board.ship_colors for _ in range(4)]
    ships = tuple(on_space(board, sid, c) for sid, c in zip(chosen, colors, strict=True))
    reading = read(shoot(Scene(ships), TILTED))
    assert reading.board_found and not reading.occluded
    assert placed(reading) == sorted(zip(colors, chosen, strict=True))
    for ship in reading.ships:
        truth = board.spaces[ship.space or ""]
        assert math.dist((ship.x_mm, ship.y_mm), truth.position) < 8.0
        assert 0.0 < ship.confidence <= 1.0


def test_four_ships_in_one_port(classic_board: Board, shoot: Shoot, read: Read) -> None:
    ships = tuple(
        in_berth(classic_board, "OIL", i, c) for i, c in enumerate(classic_board.ship_colors)
    )
    reading = read(shoot(Scene(ships), TILTED))
    assert placed(reading) == sorted((c, "OIL") for c in classic_board.ship_colors)
    assert sorted(s.berth for s in reading.ships) == [0, 1, 2, 3]


def test_two_ships_of_one_colour_in_a_port_and_neighbours(
    classic_board: Board, shoot: Shoot, read: Read
) -> None:
    board = classic_board
    ships = (
        in_berth(board, "HOME", 0, "red"),
        in_berth(board, "HOME", 1, "red"),
        on_space(board, "S01", "red"),
        on_space(board, "S02", "green"),
        on_space(board, "S03", "green"),
        on_space(board, "S31", "yellow"),
    )
    reading = read(shoot(Scene(ships)))
    assert placed(reading) == sorted(
        [
            ("red", "HOME"),
            ("red", "HOME"),
            ("red", "S01"),
            ("green", "S02"),
            ("green", "S03"),
            ("yellow", "S31"),
        ]
    )


def test_blue_ships_on_the_blue_sea(classic_board: Board, shoot: Shoot, read: Read) -> None:
    spots = [(150.0, 200.0, 30.0), (330.0, 390.0, 200.0), (260.0, 120.0, 95.0)]
    ships = tuple(ShipToken("blue", x, y, h) for x, y, h in spots)
    ships += (on_space(classic_board, "S20", "blue"),)
    for camera in (CameraModel(), TILTED):
        reading = read(shoot(Scene(ships), camera))
        off = [s for s in reading.ships if s.space is None]
        assert [s.color for s in reading.ships].count("blue") == 4
        assert ("blue", "S20") in placed(reading)
        assert len(off) == 3
        for x, y, _ in spots:
            assert min(math.dist((x, y), (s.x_mm, s.y_mm)) for s in off) < 8.0


def test_a_ship_off_its_space_is_reported_off(
    classic_board: Board, shoot: Shoot, read: Read
) -> None:
    s = classic_board.spaces["S35"]
    # 28 mm beside its space: not on it, not on any other.
    ship = ShipToken("yellow", s.x_mm + 20.0, s.y_mm + 20.0, 10.0)
    reading = read(shoot(Scene((ship,)), TILTED))
    assert len(reading.ships) == 1
    found = reading.ships[0]
    assert found.color == "yellow" and found.space is None
    assert math.dist((found.x_mm, found.y_mm), (ship.x_mm, ship.y_mm)) < 8.0


def test_a_ship_set_down_sloppily_counts_on_its_space(
    classic_board: Board, shoot: Shoot, read: Read
) -> None:
    ship = on_space(classic_board, "S12", "green", jitter_mm=7.0)
    reading = read(shoot(Scene((ship,))))
    assert placed(reading) == [("green", "S12")]


@pytest.mark.parametrize("seed", [3, 11, 17])
def test_empty_board_has_no_phantom_ships(
    classic_board: Board, shoot: Shoot, read: Read, seed: int
) -> None:
    camera, palette = random_camera(seed, classic_board)
    reading = read(shoot(Scene(), camera, seed, palette))
    assert reading.board_found
    assert reading.ships == ()


def test_strong_lighting_gradient_and_shadows(
    classic_board: Board, shoot: Shoot, read: Read
) -> None:
    board = classic_board
    camera = CameraModel(
        gradient=0.9,
        gradient_deg=135.0,
        vignette=0.4,
        exposure=0.9,
        shadows=((150.0, 350.0, 120.0, 0.45), (380.0, 150.0, 90.0, 0.4)),
    )
    ships = (
        on_space(board, "S27", "blue"),
        on_space(board, "S10", "yellow"),
        on_space(board, "S40", "green"),
        on_space(board, "S24", "red"),
        in_berth(board, "SUGAR", 2, "yellow"),
    )
    reading = read(shoot(Scene(ships), camera))
    assert placed(reading) == sorted(
        [("blue", "S27"), ("yellow", "S10"), ("green", "S40"), ("red", "S24"), ("yellow", "SUGAR")]
    )


def test_warm_light_colour_cast(classic_board: Board, shoot: Shoot, read: Read) -> None:
    board = classic_board
    camera = CameraModel(tint=(0.75, 0.95, 1.2))
    ships = tuple(
        on_space(board, sid, c)
        for sid, c in zip(("S05", "S15", "S25", "S35"), board.ship_colors, strict=True)
    )
    reading = read(shoot(Scene(ships), camera))
    assert placed(reading) == sorted(
        zip(board.ship_colors, ("S05", "S15", "S25", "S35"), strict=True)
    )


def test_blur_and_noise(classic_board: Board, shoot: Shoot, read: Read) -> None:
    board = classic_board
    camera = CameraModel(blur_px=2.2, noise=9.0, jpeg_quality=45)
    ships = (
        on_space(board, "S08", "red"),
        on_space(board, "S18", "blue"),
        in_berth(board, "LUMBER", 1, "green"),
        ShipToken("yellow", 200.0, 330.0, 45.0),
    )
    reading = read(shoot(Scene(ships), camera, 5))
    assert placed(reading) == sorted(
        [("red", "S08"), ("blue", "S18"), ("green", "LUMBER"), ("yellow", None)]
    )


def test_other_token_shapes_and_plastics(classic_board: Board, shoot: Shoot, read: Read) -> None:
    """Square-bowed, wider, differently coloured tokens on a differently printed board."""
    board = classic_board
    rng = random.Random(8)
    palette = Palette.random(rng)
    for bow in ("square", "round"):
        style = type(palette.ship_style)(length_mm=26.0, beam_mm=12.0, bow=bow)
        pal = Palette(
            sea=palette.sea,
            land=palette.land,
            table=palette.table,
            ships=palette.ships,
            ship_style=style,
        )
        ships = tuple(
            on_space(board, sid, c)
            for sid, c in zip(("S02", "S13", "S22", "S39"), board.ship_colors, strict=True)
        )
        reading = read(shoot(Scene(ships), TILTED, 2, pal))
        assert placed(reading) == sorted(
            zip(board.ship_colors, ("S02", "S13", "S22", "S39"), strict=True)
        )


@pytest.mark.parametrize(
    ("ship", "sea"),
    [
        ((146, 77, 21), (214, 141, 78)),  # a lighter blue plastic on a deep blue sea
        ((144, 71, 6), (209, 157, 93)),
        ((170, 40, 20), (200, 120, 40)),  # saturated on saturated
    ],
)
def test_blue_ships_against_other_seas(
    classic_board: Board,
    shoot: Shoot,
    read: Read,
    ship: tuple[int, int, int],
    sea: tuple[int, int, int],
) -> None:
    board = classic_board
    colors = dict(Palette().ships)
    colors["blue"] = ship
    palette = Palette(sea=sea, ships=tuple(colors.items()))
    ships = (
        on_space(board, "S10", "blue"),
        in_berth(board, "OIL", 0, "blue"),
        ShipToken("blue", 300.0, 380.0, 70.0),
        on_space(board, "S30", "red"),
    )
    reading = read(shoot(Scene(ships), TILTED, 3, palette))
    assert placed(reading) == sorted(
        [("blue", "S10"), ("blue", "OIL"), ("blue", None), ("red", "S30")],
        key=lambda t: (t[0], t[1] or ""),
    )


def test_ports_painted_in_a_ship_colour(classic_board: Board, shoot: Shoot, read: Read) -> None:
    """Yellow-sand ports: empty berths are no yellow ships; real ships in them are read."""
    board = classic_board
    palette = Palette(port=(120, 225, 250))
    ships = (
        in_berth(board, "OIL", 1, "yellow"),
        in_berth(board, "OIL", 2, "red"),
        in_berth(board, "HOME", 3, "yellow"),
    )
    reading = read(shoot(Scene(ships), TILTED, 4, palette))
    assert placed(reading) == [("red", "OIL"), ("yellow", "HOME"), ("yellow", "OIL")]
    assert read(shoot(Scene(), TILTED, 5, palette)).ships == ()
