"""The sweep on clouds other than the classic one: one magnet, uneven magnets, clockwise letters.

The classic cloud's four magnets sit 90 degrees apart at one radius, so a sweep computed
with a wrong angle, heading or turn direction can still look right on it. These boards are
board files as a maker would write them (the classic file with another `[cloud]`), loaded
by the real loader; the sweep is checked against the magnets' tracks sampled finely.
"""

from __future__ import annotations

import math
import tempfile
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import CloudPose, Spin, magnet_positions, plan_spin, swept_ships

CLASSIC_MAGNETS = """magnets = [
  { radius_mm = 52.0, angle_deg = 22.5 },
  { radius_mm = 52.0, angle_deg = 112.5 },
  { radius_mm = 52.0, angle_deg = 202.5 },
  { radius_mm = 52.0, angle_deg = 292.5 },
]"""
CLASSIC_LETTERS = "letter_angles_deg = [0, 315, 270, 225, 180, 135, 90, 45]"
CLOCKWISE_LETTERS = "letter_angles_deg = [0, 45, 90, 135, 180, 225, 270, 315]"

CLOUDS = {
    "one magnet": ("magnets = [{ radius_mm = 52.0, angle_deg = 22.5 }]", CLASSIC_LETTERS),
    "uneven magnets": (
        "magnets = [{ radius_mm = 40.0, angle_deg = 10.0 }, "
        "{ radius_mm = 60.0, angle_deg = 200.0 }]",
        CLASSIC_LETTERS,
    ),
    "one magnet, letters clockwise": (
        "magnets = [{ radius_mm = 45.0, angle_deg = 300.0 }]",
        CLOCKWISE_LETTERS,
    ),
    "a magnet under the locater": (
        "magnets = [{ radius_mm = 0.0, angle_deg = 0.0 }, { radius_mm = 50.0, angle_deg = 135.0 }]",
        CLASSIC_LETTERS,
    ),
}


def _board(magnets: str, letters: str) -> Board:
    text = (resources.files("bermuda_hw") / "rules" / "data" / "classic.toml").read_text("utf-8")
    assert CLASSIC_MAGNETS in text and CLASSIC_LETTERS in text
    text = text.replace(CLASSIC_MAGNETS, magnets).replace(CLASSIC_LETTERS, letters)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "board.toml"
        path.write_text(text, encoding="utf-8")
        return load_board(path)


BOARDS = {name: _board(*cloud) for name, cloud in CLOUDS.items()}

spins = st.builds(
    Spin,
    letter=st.integers(0, 7),
    dots=st.one_of(st.none(), st.integers(1, 9)),
    direction=st.sampled_from(["N", "E", "S", "W"]),
)


def _nearest_magnet_mm(
    board: Board,
    pose: CloudPose,
    spin: Spin,
    ship: tuple[float, float],
) -> float:
    """How close any magnet comes to the ship, from the magnets' tracks sampled every 0.2 mm.

    Worked out from the board alone: the turn is clockwise from the start letter's heading to
    the spun letter's, about the locater; then the move to where the spin ends.
    """
    cloud, grid = board.cloud, board.grid
    start_deg = cloud.heading_deg(pose.letter)
    turn_deg = (cloud.heading_deg(spin.letter) - start_deg) % 360.0
    cx, cy = grid.dot_mm(pose.col, pose.row)
    reach = max(m.radius_mm for m in cloud.magnets)
    steps = max(1, math.ceil(math.radians(turn_deg) * reach / 0.2))
    samples = [(cx, cy, start_deg + turn_deg * k / steps) for k in range(steps + 1)]
    end = plan_spin(grid, pose, spin, cloud).end
    ex, ey = grid.dot_mm(end.col, end.row)
    steps = max(1, math.ceil(math.dist((cx, cy), (ex, ey)) / 0.2))
    heading = start_deg + turn_deg
    samples += [
        (cx + (ex - cx) * k / steps, cy + (ey - cy) * k / steps, heading) for k in range(steps + 1)
    ]
    return min(math.dist(ship, m) for x, y, h in samples for m in magnet_positions(board, x, y, h))


@pytest.mark.parametrize("name", sorted(BOARDS))
@settings(max_examples=60)
@given(data=st.data(), spin=spins)
def test_sweep_is_every_ship_a_magnet_passes(name: str, data: st.DataObject, spin: Spin) -> None:
    board = BOARDS[name]
    dots = sorted(board.grid.dots())
    col, row = data.draw(st.sampled_from(dots), label="dot")
    pose = CloudPose(col, row, data.draw(st.integers(0, 7), label="letter"))
    cx, cy = board.grid.dot_mm(col, row)
    # ships within reach of where the cloud starts (most sweeps happen there)
    ship = (
        cx + data.draw(st.floats(-90.0, 90.0), label="dx"),
        cy + data.draw(st.floats(-90.0, 90.0), label="dy"),
    )
    path = plan_spin(board.grid, pose, spin, board.cloud)
    swept = "s" in swept_ships(board, path, {"s": ship})
    near = _nearest_magnet_mm(board, pose, spin, ship)
    capture = board.cloud.capture_radius_mm
    if near <= capture - 0.3:
        assert swept, f"{name}: a magnet passes {near:.1f} mm from the ship"
    if near > capture + 0.3:
        assert not swept, f"{name}: no magnet comes closer than {near:.1f} mm"


def test_one_magnet_sweeps_only_its_own_side() -> None:
    """With one magnet NE of the locater, a turn from A to C sweeps the east side only."""
    board = BOARDS["one magnet"]
    pose = CloudPose(4, 4, 0)
    cx, cy = board.grid.dot_mm(4, 4)
    east, west = (cx + 52.0, cy), (cx - 52.0, cy)
    path = plan_spin(board.grid, pose, Spin.parse("C 1 N"), board.cloud)
    assert path.turn_deg == 90.0
    assert swept_ships(board, path, {"east": east, "west": west}) == frozenset({"east"})
    # the same turn on the classic cloud's four magnets takes both
    classic = load_board()
    path = plan_spin(classic.grid, pose, Spin.parse("C 1 N"), classic.cloud)
    assert swept_ships(classic, path, {"east": east, "west": west}) == {"east", "west"}
