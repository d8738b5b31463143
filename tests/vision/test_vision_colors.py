"""Colour profiles: the calibration file, its errors, and calibrating from a start frame."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from vision_helpers import TILTED, on_space, placed

from bermuda_hw.errors import CalibrationError
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import CameraModel, Palette, Scene, ShipToken
from bermuda_hw.vision.colors import (
    calibration_to_toml,
    default_calibration,
    lab_distance,
    load_calibration,
    parse_calibration,
)
from bermuda_hw.vision.reader import BoardReader, start_layout

Shoot = Callable[..., np.ndarray]
COLORS = ("blue", "yellow", "green", "red")


def start_scene(board: Board) -> Scene:
    ships = []
    for (port, berth), color in start_layout(board).items():
        x, y = board.ports[port].berths[berth or 0]
        ships.append(ShipToken(color, x, y, 0.0))
    return Scene(tuple(ships))


def test_start_layout_is_one_ship_of_each_colour_in_each_product_port(
    classic_board: Board,
) -> None:
    layout = start_layout(classic_board)
    assert len(layout) == 16
    for color in COLORS:
        ports = {port for (port, _), c in layout.items() if c == color}
        assert ports == {"LUMBER", "OIL", "BANANAS", "SUGAR"}


def test_file_round_trip(tmp_path: Path) -> None:
    cal = default_calibration(COLORS)
    file = tmp_path / "colors.toml"
    file.write_text(calibration_to_toml(cal))
    back = load_calibration(file, COLORS)
    assert [p.name for p in back.profiles] == list(COLORS)
    for a, b in zip(cal.profiles, back.profiles, strict=True):
        assert lab_distance(a.lab, b.lab) < 0.1 and abs(a.tolerance - b.tolerance) < 0.1


def test_example_file_in_the_repository_is_valid() -> None:
    example = Path(__file__).parents[2] / "calibration" / "colors.example.toml"
    cal = load_calibration(example, COLORS)
    assert cal.names == COLORS


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[colors.purple]\nlab = [1, 2, 3]\n", "colors.purple", "no ship colour"),
        ("[colors.red]\nlab = [1, 2]\n", "colors.red.lab", "too few items"),
        ("[colors.red]\nlab = [150, 2, 3]\n", "colors.red.lab[0]", "at most 100"),
        ("[colors.red]\nlab = [50, 2, 3]\ntolerance = 'wide'\n", "colors.red.tolerance", "number"),
        ("[colors.red]\nlab = [50, 2, 3]\nhue = 4\n", "colors.red.hue", "unknown key"),
        ("[colors.red]\ntolerance = 20\n", "colors.red.lab", "is missing"),
        ("[[ignore]]\nx_mm = 1\ny_mm = 2\n", "ignore[0].radius_mm", "is missing"),
        ("colours = 1\n", "colours", "unknown key"),
        ("[colors.red\n", None, "not valid TOML"),
    ],
)
def test_errors_name_file_key_and_problem(text: str, key: str | None, problem: str) -> None:
    with pytest.raises(CalibrationError) as info:
        parse_calibration(text, "cal.toml", COLORS)
    assert info.value.file == "cal.toml"
    assert info.value.key == key
    assert problem in info.value.problem
    assert str(info.value).startswith("cal.toml")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="file not found"):
        load_calibration(tmp_path / "none.toml", COLORS)


def test_colour_without_a_default_needs_calibration() -> None:
    with pytest.raises(CalibrationError, match=r"colors\.teal"):
        default_calibration(("teal", "red"))


def test_calibrating_from_a_start_frame(classic_board: Board, shoot: Shoot) -> None:
    """Odd plastics: a pale blue and an orange "yellow"; calibrated profiles follow them."""
    board = classic_board
    palette = Palette(
        ships=(
            ("blue", (200, 110, 40)),
            ("yellow", (20, 140, 245)),
            ("green", (90, 170, 60)),
            ("red", (40, 40, 200)),
        )
    )
    reader = BoardReader(board)
    cal = reader.calibrate(shoot(start_scene(board), TILTED, 0, palette))
    assert cal.names == COLORS
    defaults = default_calibration(COLORS)
    # The measured yellow is redder (higher a*), the pale blue lighter, than the defaults.
    assert cal.profile("yellow").lab[1] > defaults.profile("yellow").lab[1] + 8
    assert cal.profile("blue").lab[0] > defaults.profile("blue").lab[0] + 4
    calibrated = BoardReader(board, cal)
    ships = tuple(
        on_space(board, sid, c) for sid, c in zip(("S03", "S14", "S21", "S37"), COLORS, strict=True)
    )
    reading = calibrated.read(shoot(Scene(ships), CameraModel(), 1, palette))
    assert placed(reading) == sorted(zip(COLORS, ("S03", "S14", "S21", "S37"), strict=True))


def test_calibrating_without_the_board_fails_clearly(classic_board: Board) -> None:
    with pytest.raises(CalibrationError, match="not in view"):
        BoardReader(classic_board).calibrate(np.zeros((480, 640, 3), np.uint8))


def test_calibrating_an_empty_board_fails_clearly(classic_board: Board, shoot: Shoot) -> None:
    with pytest.raises(CalibrationError, match="too close"):
        BoardReader(classic_board).calibrate(shoot(Scene()))
