"""The cloud: its pose, the spinner, spins, blocked spaces and the ships it sweeps.

Pure geometry, no I/O. The cloud's pose is the grid dot under its locater and
the letter at the notch (A-H). How far the cloud has turned clockwise from its
start pose (letter A at the notch, which always points north) to show a letter
is board data: `CloudGeometry.heading_deg(letter)`, from the order of the
letters round the rim (on the classic board, letter k means k x 45 degrees).
A spin first turns the cloud clockwise to the spun letter, then moves it dot
by dot; it never passes an outside dot.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from bermuda_hw import geometry
from bermuda_hw.errors import ParseError
from bermuda_hw.geometry import polar_point
from bermuda_hw.rules.board import (
    DIRECTION_LETTERS,
    DIRECTION_WORDS,
    LETTERS,
    Board,
    CloudGeometry,
    DotGrid,
    Point,
    SpinnerRings,
)

Direction = Literal["N", "E", "S", "W"]
STEP: Mapping[str, tuple[int, int]] = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}


def letter_index(letter: str) -> int:
    """A = 0 ... H = 7."""
    try:
        return geometry.letter_index(letter)
    except ValueError as exc:
        raise ParseError(str(exc)) from None


@dataclass(frozen=True, order=True)
class CloudPose:
    """Where the cloud is: the dot under its locater and the letter at the notch."""

    col: int
    row: int
    letter: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.letter < len(LETTERS):
            raise ValueError(f"letter must be 0..7, not {self.letter}")

    @property
    def heading_deg(self) -> float:
        """How far the classic cloud has turned clockwise from its start pose.

        Another board's letters may sit elsewhere round the rim: use
        `CloudGeometry.heading_deg(pose.letter)` with the board at hand.
        """
        return geometry.CLASSIC_LETTER_HEADINGS_DEG[self.letter]

    @property
    def dot(self) -> tuple[int, int]:
        return (self.col, self.row)

    def __str__(self) -> str:
        return f"({self.col}, {self.row}) {LETTERS[self.letter]}"


def start_pose(grid: DotGrid) -> CloudPose:
    """The cloud's pose at the start and after every reset: the centre dot, letter A."""
    return CloudPose(grid.centre[0], grid.centre[1], 0)


@dataclass(frozen=True)
class Spin:
    """A spinner outcome: a letter, then a number of dots and a direction, or a full word.

    >>> Spin.parse("C 2 N")
    Spin(letter=2, dots=2, direction='N')
    >>> str(Spin.parse("f north"))
    'F North'
    """

    letter: int
    dots: int | None
    direction: Direction

    def __post_init__(self) -> None:
        if not 0 <= self.letter < len(LETTERS):
            raise ParseError(f"letter must be 0..7, not {self.letter}")
        if self.dots is not None and self.dots < 1:
            raise ParseError(f"a spin moves at least 1 dot, not {self.dots}")
        if self.direction not in STEP:
            raise ParseError(f"direction must be N, E, S or W, not {self.direction!r}")

    @property
    def full_word(self) -> bool:
        """True when the cloud runs to the last dot in its direction."""
        return self.dots is None

    @classmethod
    def parse(cls, text: str) -> Spin:
        parts = text.split()
        if len(parts) not in (2, 3):
            raise ParseError(f"{text!r} is not a spin: expected like 'C 2 N' or 'F North'")
        letter = letter_index(parts[0])
        if len(parts) == 2:
            word = parts[1].capitalize()
            if word not in DIRECTION_WORDS:
                raise ParseError(f"{text!r}: expected North, East, South or West, not {parts[1]!r}")
            return cls(letter, None, _direction(word[0]))
        if not parts[1].isdigit():
            raise ParseError(f"{text!r}: the number of dots must be a whole number")
        direction = parts[2].upper()
        if direction not in DIRECTION_LETTERS:
            raise ParseError(f"{text!r}: expected a direction N, E, S or W, not {parts[2]!r}")
        return cls(letter, int(parts[1]), _direction(direction))

    def __str__(self) -> str:
        if self.dots is None:
            word = DIRECTION_WORDS[DIRECTION_LETTERS.index(self.direction)]
            return f"{LETTERS[self.letter]} {word}"
        return f"{LETTERS[self.letter]} {self.dots} {self.direction}"


def _direction(text: str) -> Direction:
    if text == "N":
        return "N"
    if text == "E":
        return "E"
    if text == "S":
        return "S"
    if text == "W":
        return "W"
    raise ParseError(f"{text!r} is not a direction")


class Spinner:
    """One pointer over three rings: one uniform angle picks every ring's sector."""

    def __init__(self, rings: SpinnerRings) -> None:
        self.rings = rings

    @staticmethod
    def _sector(sectors: tuple[object, ...], angle_deg: float) -> int:
        return geometry.sector(angle_deg, len(sectors))

    def at(self, angle_deg: float) -> Spin:
        """What the spinner shows with its pointer at an angle clockwise from north."""
        letter = letter_index(self.rings.letters[self._sector(self.rings.letters, angle_deg)])
        direction = self.rings.directions[self._sector(self.rings.directions, angle_deg)]
        if direction in DIRECTION_WORDS:
            return Spin(letter, None, _direction(direction[0]))
        number = self.rings.numbers[self._sector(self.rings.numbers, angle_deg)]
        return Spin(letter, number, _direction(direction))

    def spin(self, rng: random.Random) -> Spin:
        return self.at(rng.uniform(0.0, geometry.FULL_TURN_DEG))


@dataclass(frozen=True)
class SpinPath:
    """What a spin does to the cloud: the clockwise turn, then the dots it passes."""

    spin: Spin
    start: CloudPose
    turned: CloudPose
    end: CloudPose
    turn_deg: float
    dots: tuple[tuple[int, int], ...]
    leaves_board: bool
    start_heading_deg: float = 0.0  # the cloud's heading before the turn, and after it
    end_heading_deg: float = 0.0


_CLASSIC_CLOUD = CloudGeometry(1.0, 1.0, ())


def plan_spin(
    grid: DotGrid, pose: CloudPose, spin: Spin, cloud: CloudGeometry | None = None
) -> SpinPath:
    """Turn clockwise to the spun letter, then move; stop on an outside dot.

    >>> from bermuda_hw.rules.boardfile import load_board
    >>> grid = load_board().grid
    >>> path = plan_spin(grid, start_pose(grid), Spin.parse("C 2 N"))
    >>> path.turn_deg, path.end.dot, path.leaves_board
    (90.0, (4, 2), False)
    """
    if not grid.contains(pose.col, pose.row):
        raise ValueError(f"the cloud is off the grid at {pose}")
    letters = cloud if cloud is not None else _CLASSIC_CLOUD
    start_heading = letters.heading_deg(pose.letter)
    end_heading = letters.heading_deg(spin.letter)
    turn_deg = letters.turn_deg(pose.letter, spin.letter)
    turned = CloudPose(pose.col, pose.row, spin.letter)
    dc, dr = STEP[spin.direction]
    col, row = pose.col, pose.row
    dots = [(col, row)]
    limit = spin.dots if spin.dots is not None else max(grid.cols, grid.rows)
    for _ in range(limit):
        if grid.is_outside(col, row) or not grid.contains(col + dc, row + dr):
            break
        col, row = col + dc, row + dr
        dots.append((col, row))
    end = CloudPose(col, row, spin.letter)
    return SpinPath(
        spin=spin,
        start=pose,
        turned=turned,
        end=end,
        turn_deg=turn_deg,
        dots=tuple(dots),
        leaves_board=grid.is_outside(col, row),
        start_heading_deg=start_heading,
        end_heading_deg=end_heading,
    )


def magnet_positions(board: Board, x_mm: float, y_mm: float, heading_deg: float) -> list[Point]:
    """Where the cloud's magnets are with its locater at a point, turned by a heading."""
    return [
        polar_point((x_mm, y_mm), magnet.radius_mm, magnet.angle_deg + heading_deg)
        for magnet in board.cloud.magnets
    ]


def blocked_spaces(board: Board, pose: CloudPose) -> frozenset[str]:
    """The spaces and ports under the cloud's footprint."""
    cx, cy = board.grid.dot_mm(pose.col, pose.row)
    radius = board.cloud.footprint_radius_mm
    return frozenset(
        s.id for s in board.spaces.values() if math.dist(s.position, (cx, cy)) <= radius
    )


def _distance_to_arc(
    point: Point, centre: Point, radius_mm: float, start_deg: float, sweep_deg: float
) -> float:
    """Distance from a point to a clockwise arc (headings in degrees from north)."""
    dx, dy = point[0] - centre[0], point[1] - centre[1]
    dist = math.hypot(dx, dy)
    if (
        sweep_deg > 0
        and dist > 1e-9
        and geometry.within_clockwise(geometry.bearing_deg(dx, dy), start_deg, sweep_deg)
    ):
        return abs(dist - radius_mm)
    return min(
        math.dist(point, polar_point(centre, radius_mm, heading))
        for heading in (start_deg, start_deg + sweep_deg)
    )


def _distance_to_segment(point: Point, a: Point, b: Point) -> float:
    ax, ay = a
    bx, by = b
    vx, vy = bx - ax, by - ay
    length2 = vx * vx + vy * vy
    if length2 == 0.0:
        return math.dist(point, a)
    t = max(0.0, min(1.0, ((point[0] - ax) * vx + (point[1] - ay) * vy) / length2))
    return math.dist(point, (ax + t * vx, ay + t * vy))


def swept_ships(
    board: Board, path: SpinPath, ships: Mapping[str, Point], margin_mm: float = 0.0
) -> frozenset[str]:
    """The ships that a spin's turn and move bring within a magnet's capture radius.

    The magnets travel along the arc of the turn (the locater stays on its
    dot), then along the straight move with the cloud's new heading. A ship is
    swept if any magnet's track comes within the capture radius (plus
    `margin_mm`, for a ship known only to stand within that of its point) of
    it, not only at the end poses.
    """
    grid = board.grid
    centre = grid.dot_mm(path.start.col, path.start.row)
    end = grid.dot_mm(path.end.col, path.end.row)
    capture = board.cloud.capture_radius_mm + margin_mm
    start_heading = board.cloud.heading_deg(path.start.letter)
    end_heading = board.cloud.heading_deg(path.turned.letter)
    swept: set[str] = set()
    for ship, position in ships.items():
        for magnet in board.cloud.magnets:
            begin_deg = magnet.angle_deg + start_heading
            if magnet.radius_mm == 0.0:
                near = math.dist(position, centre)
            else:
                near = _distance_to_arc(
                    position, centre, magnet.radius_mm, begin_deg, path.turn_deg
                )
            if near > capture:
                a = polar_point(centre, magnet.radius_mm, magnet.angle_deg + end_heading)
                b = polar_point(end, magnet.radius_mm, magnet.angle_deg + end_heading)
                near = _distance_to_segment(position, a, b)
            if near <= capture:
                swept.add(ship)
                break
    return frozenset(swept)
