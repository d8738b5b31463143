"""The rules' sweep, the rotor's targets and the simulated cloud agree on every letter's heading.

The simulated rig turns the cloud by the coil currents the rotation stepper
receives: its heading is physics, not the kinematics' belief. For the classic
ring and for a ring whose letters run clockwise, every letter in turn must
show at the heading the rules sweep with and vision reads it from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from bermuda_hw.backends.sim import SimBackend
from bermuda_hw.config import Config
from bermuda_hw.geometry import gap_deg, steps_to_deg
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.planning.route import Route, clear_route
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.cloud import CloudPose, Spin, plan_spin, swept_ships

CLASSIC = "letter_angles_deg = [0, 315, 270, 225, 180, 135, 90, 45]"
RINGS = {
    "classic": CLASSIC,
    "clockwise": "letter_angles_deg = [0, 45, 90, 135, 180, 225, 270, 315]",
    "uneven": "letter_angles_deg = [0, 200, 30, 300, 100, 250, 160, 60]",
}
# B, D, C (a long way round on some rings), H, A: each turn clockwise from the last
LETTERS_IN_TURN = (1, 3, 2, 7, 0)


def _ring_board(tmp_path: Path, ring: str) -> Board:
    """The classic board with its cloud's letters in another order round the rim."""
    text = (resources.files("bermuda_hw") / "rules" / "data" / "classic.toml").read_text("utf-8")
    assert CLASSIC in text
    path = tmp_path / "board.toml"
    path.write_text(text.replace(CLASSIC, RINGS[ring]))
    return load_board(path)


@pytest.mark.parametrize("ring", sorted(RINGS))
def test_every_letter_shows_where_the_rules_and_the_rotor_put_it(
    make_backend: Callable[..., SimBackend], fast_config: Config, tmp_path: Path, ring: str
) -> None:
    board = _ring_board(tmp_path, ring)
    backend = make_backend(fast_config)
    rev = fast_config.rotation.stepper.half_steps_per_cloud_rev
    step_deg = steps_to_deg(1, rev)
    # the rotor settles within a half step of the field, which is rounded to a half step
    tol_deg = 2 * step_deg
    world = backend.rig.world
    with CloudMover(fast_config, backend, board) as mover:
        mover.home()
        pose = CloudPose(*board.grid.centre, 0)
        for letter in LETTERS_IN_TURN:
            spin_path = plan_spin(board.grid, pose, Spin(letter, 1, "N"), board.cloud)
            before = world.cloud_heading_deg
            turned = mover.turn_to(letter)
            # the rig turned as far as the rules' sweep, to the heading the rules sweep with
            assert abs(turned - spin_path.turn_deg) <= tol_deg
            assert gap_deg(before + spin_path.turn_deg, world.cloud_heading_deg) <= 2 * tol_deg
            assert gap_deg(world.cloud_heading_deg, board.cloud.heading_deg(letter)) <= tol_deg
            assert board.cloud.letter_at(world.cloud_heading_deg) == letter
            assert mover.letter == letter
            pose = CloudPose(pose.col, pose.row, letter)
    assert backend.rig.rotor.lost_steps == 0


def test_a_route_turns_as_far_as_the_board_s_letters_say(tmp_path: Path) -> None:
    """On a ring whose letters run clockwise, a stepper turns 315 degrees from A to B: a
    ship that only that long arc reaches must not be turned past in place."""
    board = _ring_board(tmp_path, "clockwise")
    cx, cy = board.grid.dot_mm(4, 4)
    # west of the locater (bearing 270), as far as a magnet: clear of the four magnets
    # (22.5 degrees and every 90 from it) before the turn, after it and on a 45 degree arc
    ships = {"red-1": (cx - 52.0, cy)}
    start, goal = CloudPose(4, 4, 0), CloudPose(4, 4, 1)
    in_place = plan_spin(board.grid, start, Spin(1, 1, "N"), board.cloud)
    assert in_place.turn_deg == 315.0
    assert "red-1" in swept_ships(board, dataclasses.replace(in_place, end=goal), ships)
    route = clear_route(board, start, goal, ships, margin_mm=0.0)
    assert route.poses[0] == start and route.poses[-1] == goal
    assert route.poses != (start, goal) or route.swept == ("red-1",)
    # the classic ring turns 45 degrees there, clear of that ship
    classic = load_board()
    assert clear_route(classic, start, goal, ships, margin_mm=0.0) == Route((start, goal), ())


def test_a_servo_route_turns_back_the_way_the_servo_does(tmp_path: Path) -> None:
    """A servo shows letter k at servo angle heading(k) / gearing: from B to C on a clockwise
    ring (headings 315 and 270) it turns back 45 degrees, sweeping only that arc."""
    board = _ring_board(tmp_path, "clockwise")
    cx, cy = board.grid.dot_mm(4, 4)
    ships = {"red-1": (cx, cy - 52.0)}  # north of the locater: on the arc 315..360, not 270..315
    start, goal = CloudPose(4, 4, 1), CloudPose(4, 4, 2)
    assert board.cloud.heading_deg(1) > board.cloud.heading_deg(2)
    route = clear_route(board, start, goal, ships, margin_mm=0.0, clockwise_only=False)
    assert route == Route((start, goal), ())
