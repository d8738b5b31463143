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
import math
from collections.abc import Mapping
from dataclasses import dataclass

from bermuda_hw.rules.board import LETTERS, Board, Point
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
    turn_deg = ((end.letter - start.letter) % len(LETTERS)) * (360.0 / len(LETTERS))
    turned = CloudPose(start.col, start.row, end.letter)
    return SpinPath(spin=Spin(end.letter, 1, "N"), start=start, turned=turned, end=end,
                    turn_deg=turn_deg, dots=((start.col, start.row), (end.col, end.row)),
                    leaves_board=False)


def clear_route(board: Board, start: CloudPose, goal: CloudPose,
                ships: Mapping[str, Point], *, margin_mm: float = MARGIN_MM,
                clockwise_only: bool = True) -> Route:
    """The shortest route from `start` to `goal` that sweeps the fewest ships (see above).

    `clockwise_only`: the rotation actuator turns clockwise only (a stepper);
    otherwise (a servo) it turns either way between letters A and H, never
    across from H to A.
    """
    wide = dataclasses.replace(board, cloud=dataclasses.replace(
        board.cloud, capture_radius_mm=board.cloud.capture_radius_mm + margin_mm))
    grid = board.grid
    pitch = grid.pitch_mm
    letters = len(LETTERS)

    def sweeps(a: CloudPose, b: CloudPose) -> frozenset[str]:
        if not ships:
            return frozenset()
        if (a.col, a.row) == (b.col, b.row) and (a.letter - b.letter) % letters == 1:
            a, b = b, a  # a counter-clockwise eighth sweeps the same arc as the clockwise one
        # only ships near the edge's two dots can be reached by its magnets
        reach = max((m.radius_mm for m in board.cloud.magnets), default=0.0) \
            + wide.cloud.capture_radius_mm + pitch * 1.5
        near = {sid: p for sid, p in ships.items()
                if math.dist(p, grid.dot_mm(a.col, a.row)) <= reach}
        return swept_ships(wide, _edge(board, a, b), near) if near else frozenset()

    best: dict[CloudPose, float] = {start: 0.0}
    came: dict[CloudPose, tuple[CloudPose, frozenset[str]]] = {}
    queue: list[tuple[float, int, CloudPose]] = [(0.0, 0, start)]
    counter = 1
    while queue:
        cost, _, pose = heapq.heappop(queue)
        if pose == goal:
            break
        if cost > best.get(pose, math.inf):
            continue
        steps: list[tuple[CloudPose, float]] = []
        if clockwise_only:
            steps.append((CloudPose(pose.col, pose.row, (pose.letter + 1) % letters),
                          TURN_COST_MM))
        else:
            steps.extend((CloudPose(pose.col, pose.row, letter), TURN_COST_MM)
                         for letter in (pose.letter - 1, pose.letter + 1)
                         if 0 <= letter < letters)
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
    poses = [goal]
    passed: set[str] = set()
    while poses[-1] != start:
        previous, swept = came[poses[-1]]
        passed.update(swept)
        poses.append(previous)
    poses.reverse()
    return Route(_straighten(poses), tuple(sorted(passed)))


def _straighten(poses: list[CloudPose]) -> tuple[CloudPose, ...]:
    """Drop the dots in the middle of straight runs (one move covers them)."""
    out = [poses[0]]
    for i in range(1, len(poses)):
        if i + 1 < len(poses):
            a, b, c = out[-1], poses[i], poses[i + 1]
            same_letter = a.letter == b.letter == c.letter
            d1 = (b.col - a.col, b.row - a.row)
            d2 = (c.col - b.col, c.row - b.row)
            if same_letter and d1 != (0, 0) and d1[0] * d2[1] == d1[1] * d2[0] \
                    and d1[0] * d2[0] + d1[1] * d2[1] > 0:
                continue
        out.append(poses[i])
    return tuple(out)
