"""A route for the cloud between two poses that keeps its magnets clear of the ships.

When the rules move the cloud without a sweep (back to the centre after it
left the board, or out to the game's pose after homing) the rig still drags
it across the board, and its magnets pick up any ship their track passes
within the capture radius. `clear_route` searches the grid's dots and the
cloud's eight letters for a route of straight moves between neighbouring
dots and eighth turns (clockwise only for a stepper; what the gantry and
the rotation actuator do) whose magnet tracks stay a margin clear of every ship, using
the rules' own sweep (`rules.cloud.swept_ships`). When no such route
exists, it returns the one that passes the fewest ships, and names them.

>>> from bermuda_hw.rules.boardfile import load_board
>>> from bermuda_hw.rules.cloud import CloudPose
>>> board = load_board()
>>> route = clear_route(board, CloudPose(0, 4, 2), CloudPose(4, 4, 0), {})
>>> route.poses[-1], route.swept
(CloudPose(col=4, row=4, letter=0), ())
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bermuda_hw.geometry import LETTERS, Point, polar_point
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose, Spin, SpinPath, swept_ships

MARGIN_MM = 8.0  # beyond the capture radius: tokens stand a little off their space's centre
TURN_COST_MM = 20.0  # an eighth turn costs about as much time as this much travel
SWEEP_COST_MM = 10_000.0  # passing a ship costs more than any detour
NEIGHBOURS = ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1))


@dataclass(frozen=True)
class Route:
    """The poses to go through, in order (the first is where the cloud is), and the ships
    that the route's magnet tracks pass (empty when the route is clear)."""

    poses: tuple[CloudPose, ...]
    swept: tuple[str, ...]

    @property
    def clear(self) -> bool:
        return not self.swept


def _edge(board: Board, start: CloudPose, end: CloudPose) -> SpinPath:
    """A move or a turn as the rules' sweep describes one (the spin is only a label)."""
    turn_deg = board.cloud.turn_deg(start.letter, end.letter)
    turned = CloudPose(start.col, start.row, end.letter)
    return SpinPath(
        spin=Spin(end.letter, 1, "N"),
        start=start,
        turned=turned,
        end=end,
        turn_deg=turn_deg,
        dots=((start.col, start.row), (end.col, end.row)),
        leaves_board=False,
    )


def clear_route(
    board: Board,
    start: CloudPose,
    goal: CloudPose,
    ships: Mapping[str, Point],
    *,
    margin_mm: float = MARGIN_MM,
    clockwise_only: bool = True,
) -> Route:
    """The shortest route from `start` to `goal` that sweeps the fewest ships (see above).

    `clockwise_only`: the rotation actuator turns clockwise only (a stepper);
    otherwise (a servo) it turns either way between letters A and H, never
    across from H to A.
    """

    def finish(pose: CloudPose) -> tuple[float, frozenset[str]] | None:
        return (0.0, frozenset()) if pose == goal else None

    return _search(board, start, finish, ships, margin_mm, clockwise_only)


def _widened(board: Board, margin_mm: float) -> Board:
    return dataclasses.replace(
        board,
        cloud=dataclasses.replace(
            board.cloud, capture_radius_mm=board.cloud.capture_radius_mm + margin_mm
        ),
    )


# The cost and the ships swept of ending the route at a pose, or None if it cannot end there.
Finish = Callable[[CloudPose], "tuple[float, frozenset[str]] | None"]


def _search(
    board: Board,
    start: CloudPose,
    finish: Finish,
    ships: Mapping[str, Point],
    margin_mm: float,
    clockwise_only: bool,
) -> Route:
    """Dijkstra over the dots and letters: the cheapest route to a pose where `finish` lets
    the route end, counting each ship swept (on the way or by the finish) as a long detour."""
    wide = _widened(board, margin_mm)
    grid = board.grid
    pitch = grid.pitch_mm
    letters = len(LETTERS)

    def sweeps(a: CloudPose, b: CloudPose) -> frozenset[str]:
        if not ships:
            return frozenset()
        if (
            (a.col, a.row) == (b.col, b.row)
            and not clockwise_only
            and (board.cloud.heading_deg(b.letter) < board.cloud.heading_deg(a.letter))
        ):
            # a servo turning back (counter-clockwise) sweeps the arc of the clockwise turn
            a, b = b, a
        # only ships near the edge's two dots can be reached by its magnets
        reach = (
            max((m.radius_mm for m in board.cloud.magnets), default=0.0)
            + wide.cloud.capture_radius_mm
            + pitch * 1.5
        )
        near = {
            sid: p for sid, p in ships.items() if math.dist(p, grid.dot_mm(a.col, a.row)) <= reach
        }
        return swept_ships(wide, _edge(board, a, b), near) if near else frozenset()

    best: dict[CloudPose, float] = {start: 0.0}
    came: dict[CloudPose, tuple[CloudPose, frozenset[str]]] = {}
    queue: list[tuple[float, int, CloudPose]] = [(0.0, 0, start)]
    counter = 1
    end: tuple[float, CloudPose, frozenset[str]] | None = None
    while queue:
        cost, _, pose = heapq.heappop(queue)
        if end is not None and cost >= end[0]:
            break
        if cost > best.get(pose, math.inf):
            continue
        ending = finish(pose)
        if ending is not None:
            total = cost + ending[0] + SWEEP_COST_MM * len(ending[1])
            if end is None or total < end[0]:
                end = (total, pose, ending[1])
        steps: list[tuple[CloudPose, float]] = []
        if clockwise_only:
            steps.append((CloudPose(pose.col, pose.row, (pose.letter + 1) % letters), TURN_COST_MM))
        else:
            steps.extend(
                (CloudPose(pose.col, pose.row, letter), TURN_COST_MM)
                for letter in (pose.letter - 1, pose.letter + 1)
                if 0 <= letter < letters
            )
        for dc, dr in NEIGHBOURS:
            col, row = pose.col + dc, pose.row + dr
            if grid.contains(col, row):
                steps.append((CloudPose(col, row, pose.letter), pitch * math.hypot(dc, dr)))
        for nxt, length in steps:
            swept = sweeps(pose, nxt)
            total = cost + length + SWEEP_COST_MM * len(swept)
            if total < best.get(nxt, math.inf):
                best[nxt] = total
                came[nxt] = (pose, swept)
                heapq.heappush(queue, (total, counter, nxt))
                counter += 1
    if end is None:
        raise ValueError(f"no route from {start} ends anywhere")  # every pose is reachable
    goal = end[1]
    poses = [goal]
    passed: set[str] = set(end[2])
    while poses[-1] != start:
        previous, swept = came[poses[-1]]
        passed.update(swept)
        poses.append(previous)
    poses.reverse()
    return Route(_straighten(poses), tuple(sorted(passed)))


def line_sweeps(
    board: Board,
    a_mm: Point,
    b_mm: Point,
    letter: int,
    ships: Mapping[str, Point],
    *,
    margin_mm: float = MARGIN_MM,
) -> frozenset[str]:
    """The ships that the magnets pass within the capture radius (plus `margin_mm`) when the
    cloud's locater goes straight from `a_mm` to `b_mm` showing `letter` (anywhere on the
    board, on a dot or not)."""
    capture = board.cloud.capture_radius_mm + margin_mm
    heading = board.cloud.heading_deg(letter)
    swept: set[str] = set()
    for magnet in board.cloud.magnets:
        a = polar_point(a_mm, magnet.radius_mm, magnet.angle_deg + heading)
        b = polar_point(b_mm, magnet.radius_mm, magnet.angle_deg + heading)
        for ship, position in ships.items():
            if ship not in swept and _distance_to_segment(position, a, b) <= capture:
                swept.add(ship)
    return frozenset(swept)


def _distance_to_segment(point: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = (
        0.0
        if length2 == 0.0
        else max(0.0, min(1.0, ((point[0] - a[0]) * dx + (point[1] - a[1]) * dy) / length2))
    )
    return math.dist(point, (a[0] + t * dx, a[1] + t * dy))


def carried_ships(
    board: Board, at_mm: Point, letter: int, ships: Mapping[str, Point]
) -> frozenset[str]:
    """The ships already within a magnet's capture radius with the cloud where it stands:
    they go where the cloud goes whatever route it takes."""
    return line_sweeps(board, at_mm, at_mm, letter, ships, margin_mm=0.0)


@dataclass(frozen=True)
class HomingApproach:
    """How to bring the cloud to the endstops without dragging it through ships.

    From where the camera sees it (`start_mm`, showing `start.letter`): onto
    the nearest dot `start`, along `route` (dots and eighth turns) to its last
    pose, then straight to the endstops as homing goes (the y axis first, then
    x) to `home_mm`, and from there straight back to that last dot (the soft
    limits keep the carriage over the grid). `swept` names the ships some part
    of that passes (empty: the way is clear).
    """

    start_mm: Point
    route: Route
    last_mm: Point  # the route's last dot, where the endstop search starts
    home_mm: Point
    swept: tuple[str, ...]

    @property
    def clear(self) -> bool:
        return not self.swept

    @property
    def corner_mm(self) -> Point:
        """Where the y search ends and the x search starts: level with the home corner."""
        return (self.last_mm[0], self.home_mm[1])


def homing_approach(
    board: Board,
    start_mm: Point,
    letter: int,
    home_mm: Point,
    ships: Mapping[str, Point],
    *,
    margin_mm: float = MARGIN_MM,
    clockwise_only: bool = True,
) -> HomingApproach:
    """The route from the cloud's seen place to the endstops that sweeps the fewest ships.

    The homing legs (from a dot straight along y to the home row, then along
    x to the home corner, and straight back to the dot) are checked like the
    route's own moves; the route ends at the nearest dot (by the route's own
    cost) from which they are clear, so a cloud whose straight way is clear
    does not move before the search. Ships
    already on a magnet where the cloud stands are not counted (they go where
    the cloud goes).
    """
    grid = board.grid
    # a ship listed at several places (`ship#k`: any berth of its port) is on a magnet if
    # one of its places is
    held = {sid.partition("#")[0] for sid in carried_ships(board, start_mm, letter, ships)}
    free = {sid: p for sid, p in ships.items() if sid.partition("#")[0] not in held}
    # ships already inside the margin where the cloud stands cannot be kept a margin clear:
    # the route is searched without them, then checked against them with no margin
    close = line_sweeps(board, start_mm, start_mm, letter, free, margin_mm=margin_mm)
    near = {sid: p for sid, p in free.items() if sid in close}
    free = {sid: p for sid, p in free.items() if sid not in close}
    col, row = grid.nearest_dot(*start_mm)
    start = CloudPose(col, row, letter)
    first = line_sweeps(board, start_mm, grid.dot_mm(col, row), letter, free, margin_mm=margin_mm)
    first |= line_sweeps(board, start_mm, grid.dot_mm(col, row), letter, near, margin_mm=0.0)

    def finish(pose: CloudPose) -> tuple[float, frozenset[str]]:
        dot = grid.dot_mm(pose.col, pose.row)
        corner = (dot[0], home_mm[1])
        legs: set[str] = set()
        for ships_here, margin_here in ((free, margin_mm), (near, 0.0)):
            for a, b in ((dot, corner), (corner, home_mm), (home_mm, dot)):
                legs |= line_sweeps(board, a, b, pose.letter, ships_here, margin_mm=margin_here)
        return (0.0, frozenset(legs))  # the nearest dot with clear legs: the search ends there

    route = _search(board, start, finish, free, margin_mm, clockwise_only)
    last = route.poses[-1]
    if near:  # the route and its legs against the ships it starts close to, with no margin
        for a, b in itertools.pairwise(route.poses):
            first |= swept_ships(board, _edge(board, a, b), near)
        dot = grid.dot_mm(last.col, last.row)
        corner = (dot[0], home_mm[1])
        first |= line_sweeps(board, dot, corner, last.letter, near, margin_mm=0.0)
        first |= line_sweeps(board, corner, home_mm, last.letter, near, margin_mm=0.0)
        first |= line_sweeps(board, home_mm, dot, last.letter, near, margin_mm=0.0)
    swept = tuple(sorted(set(route.swept) | first))
    return HomingApproach(start_mm, route, grid.dot_mm(last.col, last.row), home_mm, swept)


def _straighten(poses: list[CloudPose]) -> tuple[CloudPose, ...]:
    """Drop the dots in the middle of straight runs (one move covers them)."""
    out = [poses[0]]
    for i in range(1, len(poses)):
        if i + 1 < len(poses):
            a, b, c = out[-1], poses[i], poses[i + 1]
            same_letter = a.letter == b.letter == c.letter
            d1 = (b.col - a.col, b.row - a.row)
            d2 = (c.col - b.col, c.row - b.row)
            if (
                same_letter
                and d1 != (0, 0)
                and d1[0] * d2[1] == d1[1] * d2[0]
                and d1[0] * d2[0] + d1[1] * d2[1] > 0
            ):
                continue
        out.append(poses[i])
    return tuple(out)
