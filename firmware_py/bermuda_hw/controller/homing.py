"""Bringing the cloud home and back to the game's pose without dragging it through ships.

With ships on the board (a game resumed, or any homing after the first) the
cloud is steered from where the camera sees it along a route clear of the ships
to the endstops (`planning.route.homing_approach`); when the camera cannot see
the cloud or no clear route exists, nothing moves and the table is asked to
clear the way (`HomeRefused`). After homing, the cloud goes to the game's pose
along a route whose magnet tracks stay clear of the ships
(`planning.route.clear_route`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping

from bermuda_hw.controller.consequences import ship_points
from bermuda_hw.controller.seams import Mover
from bermuda_hw.errors import HardwareError
from bermuda_hw.planning.route import HomingApproach, clear_route, homing_approach
from bermuda_hw.rules.board import Board, Point
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import FrameReading


class HomeRefused(HardwareError):
    """Homing would drag the cloud through ships: the table is asked to clear the way."""


def ships_to_avoid(
    game: Game | None,
    reading: FrameReading | None,
    may_hold_ships: bool,
    leave: frozenset[str] = frozenset(),
) -> dict[str, Point]:
    """Where ships may stand: the game's places (once the board may hold the game's ships)
    and every ship the camera sees now; `leave`: the game's ships not to count."""
    seen = [s for s in reading.ships if not s.hidden] if reading is not None else []
    ships: dict[str, Point] = {}
    if game is not None and may_hold_ships:
        # a ship in a port may stand at any of its berths, unless the camera sees which
        berths = {(s.color, s.space, s.berth) for s in seen if s.berth is not None}
        for sid, point in ship_points(game).items():
            ship_id, _, berth = sid.partition("#")
            if ship_id in leave:
                continue
            if berth:
                color = game.ship(ship_id).color
                port = game.ship(ship_id).location
                if (
                    any(c == color and p == port for c, p, _ in berths)
                    and (color, port, int(berth)) not in berths
                ):
                    continue
            ships[sid] = point
    for ship in seen:
        ships[f"the {ship.color} ship at ({ship.x_mm:.0f}, {ship.y_mm:.0f}) mm"] = (
            ship.x_mm,
            ship.y_mm,
        )
    return ships


def homing_route(
    board: Board, mover: Mover, ships: Mapping[str, Point], reading: FrameReading | None
) -> HomingApproach | None:
    """The route to the endstops clear of `ships`, from where the camera sees the cloud;
    None with no ships. HomeRefused, saying why and what to do, if there is no clear one
    (the press that answers it homes straight)."""
    if not ships:
        return None
    cloud = reading.cloud if reading is not None else None
    if cloud is None:
        why = (
            "the camera cannot see the cloud's marker, so the gantry cannot steer it "
            "clear of the ships"
        )
    else:
        mover.assume_letter(cloud.letter)
        home_mm = mover.kinematics.steps_to_board((0, 0))
        approach = homing_approach(
            board,
            (cloud.x_mm, cloud.y_mm),
            cloud.letter,
            home_mm,
            ships,
            clockwise_only=mover.clockwise_only,
        )
        if approach.clear:
            return approach
        names = sorted({sid.partition("#")[0].strip() for sid in approach.swept})
        why = f"every way from the cloud to the home corner passes near {', '.join(names)}"
    raise HomeRefused(
        f"before homing: {why}. Clear the way from the cloud to the home corner "
        "(north-west), or clear the board, then press spin: the gantry then homes "
        "straight to its endstops"
    )


def place_cloud(
    board: Board,
    mover: Mover,
    game: Game,
    goal: CloudPose | None = None,
    leave: frozenset[str] = frozenset(),
    say: Callable[[str], None] = lambda _: None,
) -> None:
    """Bring the cloud to the game's pose, or `goal` (after homing, or after it left the
    board).

    The rules set the cloud down there without a sweep, but the rig drags it: it
    takes a route whose magnet tracks stay clear of the ships (`leave`: ships not to
    count), and names the ships no route can avoid.
    """
    goal = goal if goal is not None else game.pose
    start = mover.pose()
    mover.goto_dot(start.col, start.row)  # after homing: onto the nearest dot first
    avoid = {sid: p for sid, p in ship_points(game).items() if sid.partition("#")[0] not in leave}
    route = clear_route(board, start, goal, avoid, clockwise_only=mover.clockwise_only)
    if route.swept:
        names = sorted({sid.partition("#")[0] for sid in route.swept})
        say(
            f"the cloud passes near {', '.join(names)} on its way to dot "
            f"({goal.col}, {goal.row}): if it picks them up, put them back"
        )
    for here, there in itertools.pairwise(route.poses):
        if there.letter != here.letter:
            mover.turn_to(there.letter)
        else:
            mover.goto_dot(there.col, there.row)
    if mover.pose() != goal:  # the route ends at the goal; make sure of it
        mover.goto_dot(goal.col, goal.row)
        mover.turn_to(goal.letter)
