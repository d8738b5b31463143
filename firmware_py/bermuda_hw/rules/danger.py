"""The danger map: the exact chance that the next spin sweeps each ship.

The spinner is one pointer over three rings (ruling 13): a single uniform
angle picks the letter, the number and the direction together. Every ring's
sectors are equal, so the sector boundaries of all three rings cut the circle
into arcs on which the spinner shows one outcome. Each arc's share of the
circle is its outcome's exact probability (a `Fraction`). For each outcome
the rules engine plays the cloud phase on a copy of the game, with the ships
where they stand now, and reports what the cloud would sweep; nothing is
re-derived beside the engine.

>>> from bermuda_hw.rules.game import Game
>>> odds = sweep_odds(Game.new(2, seed=1))
>>> sum(o.probability for o in spinner_outcomes(Game.new(2, seed=1).board.spinner))
Fraction(1, 1)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from bermuda_hw.geometry import FULL_TURN_DEG
from bermuda_hw.rules.board import Board, Point, SpinnerRings
from bermuda_hw.rules.cloud import CloudPose, Spin, Spinner, plan_spin, swept_ships
from bermuda_hw.rules.cover import STAND_TOLERANCE_MM
from bermuda_hw.rules.events import CloudRemoved, Swept
from bermuda_hw.rules.game import Game, Phase, ShipStatus


@dataclass(frozen=True)
class SpinOutcome:
    """One outcome of the spinner, its exact probability and the arcs (degrees) that show it."""

    spin: Spin
    probability: Fraction
    arcs_deg: tuple[tuple[Fraction, Fraction], ...]

    @property
    def angle_deg(self) -> float:
        """A pointer angle that shows this outcome: the middle of its widest arc."""
        start, end = max(self.arcs_deg, key=lambda a: a[1] - a[0])
        return float((start + end) / 2)


def spinner_outcomes(rings: SpinnerRings) -> list[SpinOutcome]:
    """Every outcome of one pointer over the three rings, with its exact probability."""
    cuts = {Fraction(0), Fraction(FULL_TURN_DEG)}
    for ring in (rings.letters, rings.numbers, rings.directions):
        cuts.update(Fraction(FULL_TURN_DEG * k, len(ring)) for k in range(len(ring)))
    ordered = sorted(cuts)
    spinner = Spinner(rings)
    arcs: dict[Spin, list[tuple[Fraction, Fraction]]] = {}
    for start, end in itertools.pairwise(ordered):
        spin = spinner.at(float((start + end) / 2))
        arcs.setdefault(spin, []).append((start, end))
    return [
        SpinOutcome(spin, sum((e - s for s, e in spans), Fraction(0)) / FULL_TURN_DEG, tuple(spans))
        for spin, spans in arcs.items()
    ]


@dataclass(frozen=True)
class DangerMap:
    """What the next spin would do, with the ships where they stand now."""

    swept: Mapping[str, Fraction]  # every ship on the board: the chance it is swept
    leaves_board: Fraction  # the chance the cloud ends on an outside dot
    in_cloud: tuple[str, ...]  # ships inside the cloud now (lost if it leaves the board)
    outcomes: int  # distinct spinner outcomes enumerated


def sweep_odds(game: Game) -> DangerMap:
    """The exact chance that the next spin sweeps each ship on the board.

    The spin is played on copies of the game as if the cloud phase came now;
    the game itself is not touched. A finished game has no next spin: every
    chance is 0.
    """
    on_board = [s.id for s in game.ships() if s.location is not None]
    in_cloud = tuple(s.id for s in game.ships() if s.status is ShipStatus.IN_CLOUD)
    swept: dict[str, Fraction] = dict.fromkeys(on_board, Fraction(0))
    outcomes = spinner_outcomes(game.board.spinner)
    if game.is_over():
        return DangerMap(swept, Fraction(0), in_cloud, len(outcomes))
    leaves = Fraction(0)
    for outcome in outcomes:
        trial = game.copy()
        trial.position = trial.position._replace(phase=Phase.CLOUD)
        events = trial.cloud_phase(outcome.spin, capture=())
        for event in events:
            if isinstance(event, Swept):
                for ship in event.ships:
                    swept[ship] += outcome.probability
            elif isinstance(event, CloudRemoved):
                leaves += outcome.probability
    return DangerMap(swept, leaves, in_cloud, len(outcomes))


@dataclass(frozen=True)
class PlaceOdds:
    """What the next spin from a cloud pose would do to a ship on each place of the board."""

    swept: Mapping[str, Fraction]  # every space and port: the chance a ship there is swept
    leaves_board: Fraction  # the chance the cloud ends on an outside dot


def place_odds(board: Board, pose: CloudPose) -> PlaceOdds:
    """The exact chance that the next spin from `pose` sweeps a ship on each space and port.

    The same sweep as the cloud phase's (`Game.sweep_points`): a ship on a
    path space stands at the space; a ship in a port is swept if the magnets
    reach any of the port's berths. Whether a ship is swept does not depend
    on the other ships, so this map, one per cloud pose, gives every ship's
    danger (`sweep_odds`) wherever the ships stand.
    """
    points: dict[str, Point] = {}
    for sid, space in board.spaces.items():
        port = board.ports.get(sid)
        if port is None:
            points[sid] = space.position
        else:
            for k, berth in enumerate(port.berths):
                points[f"{sid}#{k}"] = berth
    swept: dict[str, Fraction] = dict.fromkeys(board.spaces, Fraction(0))
    leaves = Fraction(0)
    cloud = board.cloud
    reach_mm = max((m.radius_mm for m in cloud.magnets), default=0.0)
    reach_mm += cloud.capture_radius_mm + STAND_TOLERANCE_MM + 1.0
    for outcome in spinner_outcomes(board.spinner):
        path = plan_spin(board.grid, pose, outcome.spin, cloud)
        # a magnet stays within its radius of the locater: points farther than that (and
        # the capture radius) from the locater's straight track cannot be swept
        a = board.grid.dot_mm(path.start.col, path.start.row)
        b = board.grid.dot_mm(path.end.col, path.end.row)
        near = {k: p for k, p in points.items() if _distance_mm(p, a, b) <= reach_mm}
        hit = {p.partition("#")[0] for p in swept_ships(board, path, near, STAND_TOLERANCE_MM)}
        for place in hit:
            swept[place] += outcome.probability
        if path.leaves_board:
            leaves += outcome.probability
    return PlaceOdds(swept, leaves)


def _distance_mm(point: Point, a: Point, b: Point) -> float:
    """The distance from a point to the segment from a to b."""
    vx, vy = b[0] - a[0], b[1] - a[1]
    length2 = vx * vx + vy * vy
    t = 0.0 if length2 == 0.0 else ((point[0] - a[0]) * vx + (point[1] - a[1]) * vy) / length2
    t = min(max(t, 0.0), 1.0)
    return math.hypot(point[0] - (a[0] + t * vx), point[1] - (a[1] + t * vy))
