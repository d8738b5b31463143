"""The homing approach: a route from where the camera sees the cloud to the endstops that keeps
the magnets clear of the ships, or the ships that no route avoids."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from bermuda_hw.planning import route as route_module
from bermuda_hw.planning.route import homing_approach, line_sweeps
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import swept_ships

BOARD: Board = load_board()
HOME_MM = (20.0, 20.0)  # the reference rig: board_offset_mm = 20 on both axes
SPACES = sorted(BOARD.spaces)


def _all_sweeps(approach, ships):  # type: ignore[no-untyped-def]
    """Every ship that the whole approach passes within the capture radius (no margin)."""
    poses = approach.route.poses
    first = BOARD.grid.dot_mm(poses[0].col, poses[0].row)
    swept = set(line_sweeps(BOARD, approach.start_mm, first, poses[0].letter, ships, margin_mm=0.0))
    for a, b in itertools.pairwise(poses):
        swept |= swept_ships(BOARD, route_module._edge(BOARD, a, b), ships)
    last = poses[-1].letter
    corner = approach.corner_mm
    swept |= line_sweeps(BOARD, approach.last_mm, corner, last, ships, margin_mm=0.0)
    swept |= line_sweeps(BOARD, corner, approach.home_mm, last, ships, margin_mm=0.0)
    swept |= line_sweeps(BOARD, approach.home_mm, approach.last_mm, last, ships, margin_mm=0.0)
    return swept


def test_ships_on_the_straight_way_home_are_steered_round() -> None:
    lumber = BOARD.ports["LUMBER"].berths
    ships = {f"ship-{k}": berth for k, berth in enumerate(lumber)}
    start = BOARD.grid.dot_mm(4, 4)
    # straight north from the centre runs through LUMBER's berths
    assert line_sweeps(BOARD, start, (start[0], HOME_MM[1]), 0, ships, margin_mm=0.0)
    approach = homing_approach(BOARD, start, 0, HOME_MM, ships)
    assert approach.clear and approach.route.poses[0].letter == 0
    assert not _all_sweeps(approach, ships)


def test_no_clear_way_names_the_ships() -> None:
    # ships all round the cloud: every way out passes one
    col, row = 4, 4
    pitch = BOARD.grid.pitch_mm
    x, y = BOARD.grid.dot_mm(col, row)
    ring = {
        f"ship-{k}": (x + 1.6 * pitch * dx, y + 1.6 * pitch * dy)
        for k, (dx, dy) in enumerate(route_module.NEIGHBOURS)
    }
    approach = homing_approach(BOARD, (x, y), 0, HOME_MM, ring)
    assert not approach.clear and approach.swept


@settings(max_examples=15, deadline=None)
@given(
    spaces=st.lists(st.sampled_from(SPACES), min_size=1, max_size=12, unique=True),
    col=st.integers(0, BOARD.grid.cols - 1),
    row=st.integers(0, BOARD.grid.rows - 1),
    letter=st.integers(0, 7),
)
def test_a_clear_approach_passes_no_ship(
    spaces: list[str], col: int, row: int, letter: int
) -> None:
    ships = {space: BOARD.spaces[space].position for space in spaces}
    start = BOARD.grid.dot_mm(col, row)
    approach = homing_approach(BOARD, start, letter, HOME_MM, ships)
    carried = {
        s
        for s, p in ships.items()
        if line_sweeps(BOARD, start, start, letter, {s: p}, margin_mm=0.0)
    }
    passed = _all_sweeps(approach, {s: p for s, p in ships.items() if s not in carried})
    if approach.clear:
        assert not passed
    else:
        assert set(approach.swept) >= passed
