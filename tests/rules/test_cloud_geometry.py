"""The cloud's geometry: spins, the spinner, blocked spaces and the ships a spin sweeps."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw.errors import ParseError
from bermuda_hw.geometry import heading_vector
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import (
    CloudPose,
    Spin,
    Spinner,
    blocked_spaces,
    magnet_positions,
    plan_spin,
    start_pose,
    swept_ships,
)

spins = st.builds(
    Spin,
    letter=st.integers(0, 7),
    dots=st.one_of(st.none(), st.integers(1, 12)),
    direction=st.sampled_from(["N", "E", "S", "W"]),
)


@given(spins)
def test_spin_text_round_trips(spin: Spin) -> None:
    assert Spin.parse(str(spin)) == spin


@pytest.mark.parametrize(
    ("text", "letter", "dots", "direction"),
    [
        ("C 2 N", 2, 2, "N"),
        ("a 1 e", 0, 1, "E"),
        ("F North", 5, None, "N"),
        ("H west", 7, None, "W"),
    ],
)
def test_spin_parse(text: str, letter: int, dots: int | None, direction: str) -> None:
    spin = Spin.parse(text)
    assert (spin.letter, spin.dots, spin.direction) == (letter, dots, direction)
    assert spin.full_word == (dots is None)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "'' is not a spin: expected like 'C 2 N' or 'F North'"),
        ("C", "'C' is not a spin"),
        ("Z 2 N", "'Z' is not a cloud letter (A-H)"),
        ("C two N", "'C two N': the number of dots must be a whole number"),
        ("C 2 Q", "'C 2 Q': expected a direction N, E, S or W, not 'Q'"),
        ("C 0 N", "a spin moves at least 1 dot, not 0"),
        ("C Up", "'C Up': expected North, East, South or West, not 'Up'"),
        ("C 2 N X", "'C 2 N X' is not a spin"),
    ],
)
def test_spin_parse_rejects_garbage_saying_why(text: str, words: str) -> None:
    with pytest.raises(ParseError) as refused:
        Spin.parse(text)
    assert words in str(refused.value)


def test_a_spin_path_carries_the_cloud_s_headings(classic_board: Board) -> None:
    path = plan_spin(
        classic_board.grid, CloudPose(4, 4, 2), Spin.parse("E 1 N"), classic_board.cloud
    )
    assert (path.start_heading_deg, path.end_heading_deg, path.turn_deg) == (90.0, 180.0, 90.0)
    back = plan_spin(classic_board.grid, CloudPose(4, 4, 6), Spin.parse("B 1 N"))
    assert (back.start_heading_deg, back.end_heading_deg, back.turn_deg) == (270.0, 45.0, 135.0)


def test_parse_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Spin.parse("nonsense")


def test_turn_is_clockwise_to_the_letter(classic_board: Board) -> None:
    grid = classic_board.grid
    at_c = CloudPose(4, 4, 2)
    # From C back to A is three quarters of a turn clockwise, never a turn back.
    assert plan_spin(grid, at_c, Spin.parse("A 1 N")).turn_deg == 270.0
    assert plan_spin(grid, at_c, Spin.parse("C 1 N")).turn_deg == 0.0
    assert plan_spin(grid, at_c, Spin.parse("B 1 N")).turn_deg == 315.0


def test_move_by_dots_and_directions(classic_board: Board) -> None:
    grid = classic_board.grid
    start = start_pose(grid)
    assert plan_spin(grid, start, Spin.parse("A 2 N")).end.dot == (4, 2)
    assert plan_spin(grid, start, Spin.parse("A 2 S")).end.dot == (4, 6)
    assert plan_spin(grid, start, Spin.parse("A 2 E")).end.dot == (6, 4)
    assert plan_spin(grid, start, Spin.parse("A 2 W")).end.dot == (2, 4)
    path = plan_spin(grid, start, Spin.parse("D 3 E"))
    assert path.dots == ((4, 4), (5, 4), (6, 4), (7, 4))
    assert path.end == CloudPose(7, 4, 3)
    assert path.turned == CloudPose(4, 4, 3)
    assert not path.leaves_board


def test_move_stops_on_the_outside_dot(classic_board: Board) -> None:
    grid = classic_board.grid
    path = plan_spin(grid, CloudPose(6, 4, 0), Spin.parse("A 4 E"))
    assert path.end.dot == (8, 4)
    assert path.leaves_board
    assert path.dots[-1] == (8, 4)


def test_full_word_runs_to_the_last_dot(classic_board: Board) -> None:
    grid = classic_board.grid
    path = plan_spin(grid, CloudPose(2, 3, 0), Spin.parse("B South"))
    assert path.end.dot == (2, grid.rows - 1)
    assert path.leaves_board
    assert len(path.dots) == grid.rows - 3


@given(
    col=st.integers(1, 7),
    row=st.integers(1, 7),
    letter=st.integers(0, 7),
    spin=spins,
)
def test_spin_never_passes_an_outside_dot(col: int, row: int, letter: int, spin: Spin) -> None:
    from bermuda_hw.rules.boardfile import load_board

    grid = load_board().grid
    path = plan_spin(grid, CloudPose(col, row, letter), spin)
    assert all(grid.contains(*d) for d in path.dots)
    assert [grid.is_outside(*d) for d in path.dots[:-1]] == [False] * (len(path.dots) - 1)
    for (c1, r1), (c2, r2) in zip(path.dots, path.dots[1:], strict=False):
        assert abs(c1 - c2) + abs(r1 - r2) == 1
    assert path.leaves_board == grid.is_outside(*path.end.dot)
    if spin.dots is not None and not path.leaves_board:
        assert len(path.dots) == spin.dots + 1
    if spin.dots is None:
        assert path.leaves_board
    assert path.end.letter == spin.letter
    assert 0 <= path.turn_deg <= 315
    assert (letter * 45 + path.turn_deg) % 360 == spin.letter * 45


def test_spinner_one_angle_picks_every_ring(classic_board: Board) -> None:
    spinner = Spinner(classic_board.spinner)
    rings = classic_board.spinner
    # Just past north every ring shows its first sector.
    first = spinner.at(0.1)
    assert first.letter == 0
    assert first.dots == rings.numbers[0]
    # Angles inside one letter sector but across number sectors show different numbers.
    width_letter = 360 / len(rings.letters)
    width_number = 360 / len(rings.numbers)
    assert width_number < width_letter
    a = spinner.at(0.1)
    b = spinner.at(width_number + 0.1)
    assert a.letter == b.letter
    assert a.dots != b.dots


def test_spinner_full_word_sector(classic_board: Board) -> None:
    rings = classic_board.spinner
    index = rings.directions.index("North")
    width = 360 / len(rings.directions)
    spin = Spinner(rings).at(index * width + width / 2)
    assert spin.dots is None and spin.direction == "N"


def test_spinner_is_seeded_and_covers_every_letter(classic_board: Board) -> None:
    spinner = Spinner(classic_board.spinner)
    first = [spinner.spin(random.Random(5)) for _ in range(3)]
    again = [spinner.spin(random.Random(5)) for _ in range(3)]
    assert first == again
    rng = random.Random(1)
    seen = {spinner.spin(rng).letter for _ in range(400)}
    assert seen == set(range(8))


def test_blocked_spaces_lie_under_the_footprint(classic_board: Board) -> None:
    pose = CloudPose(1, 4, 0)
    blocked = blocked_spaces(classic_board, pose)
    centre = classic_board.grid.dot_mm(1, 4)
    radius = classic_board.cloud.footprint_radius_mm
    assert blocked  # near the west ring the footprint covers path spaces
    for space in classic_board.spaces.values():
        inside = math.dist(space.position, centre) <= radius
        assert (space.id in blocked) == inside


def test_heading_vector_clockwise_from_north() -> None:
    north = heading_vector(0)
    east = heading_vector(90)
    assert north == pytest.approx((0.0, -1.0))
    assert east == pytest.approx((1.0, 0.0))


def test_magnets_turn_with_the_cloud(classic_board: Board) -> None:
    m = classic_board.cloud.magnets[0]
    (x0, y0) = magnet_positions(classic_board, 100.0, 100.0, 0.0)[0]
    (x1, y1) = magnet_positions(classic_board, 100.0, 100.0, 90.0)[0]
    assert math.dist((x0, y0), (100.0, 100.0)) == pytest.approx(m.radius_mm)
    # A quarter turn clockwise: the bearing from the centre grows by 90 degrees.
    b0 = math.degrees(math.atan2(x0 - 100, -(y0 - 100))) % 360
    b1 = math.degrees(math.atan2(x1 - 100, -(y1 - 100))) % 360
    assert (b1 - b0) % 360 == pytest.approx(90.0)


def test_sweep_catches_ships_along_the_arc_not_only_at_the_ends(classic_board: Board) -> None:
    grid = classic_board.grid
    cx, cy = grid.dot_mm(4, 4)
    magnet = classic_board.cloud.magnets[0]
    # A ship on the magnet's circle, 20 degrees clockwise past its start: in the arc of a
    # 45-degree turn, but far from both end positions of every magnet.
    bearing = magnet.angle_deg + 20
    ux, uy = heading_vector(bearing)
    ship = (cx + magnet.radius_mm * ux, cy + magnet.radius_mm * uy)
    ends = magnet_positions(classic_board, cx, cy, 0) + magnet_positions(classic_board, cx, cy, 45)
    assert min(math.dist(ship, e) for e in ends) > classic_board.cloud.capture_radius_mm
    turn = plan_spin(grid, CloudPose(4, 4, 0), Spin.parse("B 1 N"))
    # Undo the translation: a one-dot north move passes the ship's row too, so check a
    # spin whose move goes away from it as well.
    assert "s" in swept_ships(classic_board, turn, {"s": ship})
    no_turn = plan_spin(grid, CloudPose(4, 4, 0), Spin.parse("A 1 N"))
    assert "s" not in swept_ships(classic_board, no_turn, {"s": ship})


def test_sweep_catches_ships_along_the_move(classic_board: Board) -> None:
    grid = classic_board.grid
    path = plan_spin(grid, CloudPose(4, 4, 0), Spin.parse("A 3 E"))
    cx, cy = grid.dot_mm(4, 4)
    # Halfway along the move, exactly where the first magnet passes.
    mx, my = magnet_positions(classic_board, cx + 66.0, cy, 0.0)[0]
    far = (cx, cy + 200.0)
    swept = swept_ships(classic_board, path, {"on-track": (mx, my + 5.0), "far": far})
    assert swept == frozenset({"on-track"})


@given(st.floats(0, 508), st.floats(0, 508), st.integers(0, 7), spins)
def test_sweep_contains_every_ship_near_a_sampled_magnet_position(
    x_mm: float, y_mm: float, letter: int, spin: Spin
) -> None:
    from bermuda_hw.rules.boardfile import load_board

    board = load_board()
    grid = board.grid
    path = plan_spin(grid, CloudPose(4, 4, letter), spin)
    swept = swept_ships(board, path, {"s": (x_mm, y_mm)})
    # Sample the motion densely: any sampled magnet within the radius means swept.
    cx, cy = grid.dot_mm(4, 4)
    samples = [(cx, cy, path.start.heading_deg + path.turn_deg * k / 200) for k in range(201)]
    ex, ey = grid.dot_mm(*path.end.dot)
    samples += [
        (cx + (ex - cx) * k / 200, cy + (ey - cy) * k / 200, path.turned.heading_deg)
        for k in range(201)
    ]
    near = min(
        math.dist((x_mm, y_mm), m)
        for (sx, sy, h) in samples
        for m in magnet_positions(board, sx, sy, h)
    )
    if near <= board.cloud.capture_radius_mm - 0.5:
        assert "s" in swept
    if near > board.cloud.capture_radius_mm + 1.0:
        assert "s" not in swept
