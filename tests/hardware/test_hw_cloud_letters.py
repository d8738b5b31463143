"""The order of the letters round the cloud's rim is board data: rules, rig and vision agree."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config
from bermuda_hw.errors import BoardFileError
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import CloudPose, Spin, plan_spin, swept_ships
from bermuda_hw.sim.render import CameraModel, CloudState, Scene, render
from bermuda_hw.vision.reader import BoardReader

CLASSIC = "letter_angles_deg = [0, 315, 270, 225, 180, 135, 90, 45]"
CLOCKWISE = "letter_angles_deg = [0, 45, 90, 135, 180, 225, 270, 315]"


def _board_with(tmp_path: Path, line: str) -> Board:
    text = (resources.files("bermuda_hw") / "rules" / "data" / "classic.toml").read_text("utf-8")
    assert CLASSIC in text
    path = tmp_path / "board.toml"
    path.write_text(text.replace(CLASSIC, line))
    return load_board(path)


@pytest.fixture
def clockwise_board(tmp_path: Path) -> Board:
    """The classic board with a cloud whose letters run clockwise round its rim."""
    return _board_with(tmp_path, CLOCKWISE)


def test_the_classic_board_turns_k_times_45_degrees() -> None:
    board = load_board()
    assert [board.cloud.heading_deg(k) for k in range(8)] == [45.0 * k for k in range(8)]


def test_letters_running_clockwise_reverse_every_turn(clockwise_board: Board) -> None:
    cloud = clockwise_board.cloud
    assert cloud.heading_deg(1) == 315.0  # B is 45 degrees clockwise on the rim: 315 to bring it
    assert cloud.letter_at(45.0) == 7  # a 45 degree clockwise turn shows H
    path = plan_spin(
        clockwise_board.grid, CloudPose(4, 4, 0), Spin.parse("B 1 N"), clockwise_board.cloud
    )
    assert path.turn_deg == 315.0
    classic = plan_spin(clockwise_board.grid, CloudPose(4, 4, 0), Spin.parse("B 1 N"))
    assert classic.turn_deg == 45.0  # the classic order when no board's letters are given


def test_the_sweep_follows_the_board_s_letters(clockwise_board: Board) -> None:
    classic = load_board()
    grid = classic.grid
    cx, cy = grid.dot_mm(4, 4)
    # a ship that the magnets reach only on a long clockwise arc: swept by a 315 degree
    # turn (clockwise letters), not by a 45 degree one (classic letters)
    ships = {"red-1": (cx - 52.0, cy)}  # west of the locater: bearing 270
    spin = Spin.parse("B 1 S")
    long_turn = plan_spin(grid, CloudPose(4, 4, 0), spin, clockwise_board.cloud)
    short_turn = plan_spin(grid, CloudPose(4, 4, 0), spin, classic.cloud)
    assert "red-1" in swept_ships(clockwise_board, long_turn, ships)
    assert "red-1" not in swept_ships(classic, short_turn, ships)


def test_the_rig_turns_to_the_board_s_heading_and_vision_reads_the_letter(
    make_backend: Callable[..., SimBackend], fast_config: Config, clockwise_board: Board
) -> None:
    backend = make_backend(fast_config)
    with CloudMover(fast_config, backend, clockwise_board) as mover:
        mover.home()
        mover.goto_dot(4, 4)
        report = mover.execute_spin(Spin.parse("B 1 N"))
        assert report.path.turn_deg == 315.0
        assert mover.rotation.letter == 1
        heading = backend.rig.world.cloud_heading_deg
        assert heading == pytest.approx(315.0, abs=360 / 4096 * 1.5)
    x_mm, y_mm = backend.rig.world.cloud_mm
    frame = render(clockwise_board, Scene(cloud=CloudState(x_mm, y_mm, heading)), CameraModel())
    reading = BoardReader(clockwise_board).read(frame)
    assert reading.cloud is not None
    assert (reading.cloud.col, reading.cloud.row) == (4, 3)
    assert LETTERS[reading.cloud.letter] == "B"
    classic_reading = BoardReader(load_board()).read(frame)
    assert classic_reading.cloud is not None and LETTERS[classic_reading.cloud.letter] == "H"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("letter_angles_deg = [0, 45]", "8 items"),
        ("letter_angles_deg = [10, 45, 90, 135, 180, 225, 270, 315]", "must be 0"),
        ("letter_angles_deg = [0, 45, 50, 135, 180, 225, 270, 315]", "apart"),
        ("letter_angles_deg = [0, 45, 90, 135, 180, 225, 270, 'x']", "number"),
    ],
)
def test_bad_letter_angles_name_the_key(tmp_path: Path, line: str, problem: str) -> None:
    with pytest.raises(BoardFileError, match=rf"cloud\.letter_angles_deg.*{problem}"):
        _board_with(tmp_path, line)
