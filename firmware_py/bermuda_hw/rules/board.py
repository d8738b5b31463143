"""The board definition: spaces, paths, ports, dot grid, cloud, spinner and markers.

These are plain values: the board model that the rules, the planner and
vision read. A board file (TOML) becomes one through `rules.boardfile`, which
checks everything and names the file, the key and the problem of any error.

Coordinates are millimetres in the board frame: origin at the north-west
corner, x grows east, y grows south. Headings are degrees clockwise from north.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from bermuda_hw import geometry
from bermuda_hw.geometry import CLASSIC_LETTER_ANGLES_DEG as CLASSIC_LETTER_ANGLES_DEG
from bermuda_hw.geometry import LETTERS as LETTERS
from bermuda_hw.geometry import Point as Point

Product = Literal["sugar", "oil", "bananas", "lumber", "home"]
PRODUCTS: tuple[Product, ...] = ("sugar", "oil", "bananas", "lumber", "home")
SHIP_COLORS: tuple[str, ...] = ("blue", "yellow", "green", "red")
DIRECTION_LETTERS = ("N", "E", "S", "W")
DIRECTION_WORDS = ("North", "East", "South", "West")
MAX_BERTHS = 4
CLASSIC_SOURCE = "<classic>"


@dataclass(frozen=True)
class Space:
    """One place a ship can be: a ship-shaped path space or a port."""

    id: str
    kind: Literal["path", "port"]
    x_mm: float
    y_mm: float
    heading_deg: float = 0.0

    @property
    def position(self) -> Point:
        return (self.x_mm, self.y_mm)


@dataclass(frozen=True)
class Port:
    """A port: its product (or the Home Port) and one berth per ship it can hold."""

    id: str
    product: Product
    x_mm: float
    y_mm: float
    berths: tuple[Point, ...]


@dataclass(frozen=True)
class DotGrid:
    """The cloud's grid of dots; the border ring holds the outside dots."""

    cols: int
    rows: int
    pitch_mm: float
    origin_x_mm: float
    origin_y_mm: float
    centre: tuple[int, int]

    def dot_mm(self, col: int, row: int) -> Point:
        """The board position of a dot (it need not be on the grid)."""
        return (self.origin_x_mm + col * self.pitch_mm, self.origin_y_mm + row * self.pitch_mm)

    def contains(self, col: int, row: int) -> bool:
        return 0 <= col < self.cols and 0 <= row < self.rows

    def is_outside(self, col: int, row: int) -> bool:
        """True for a dot on the grid's border ring (where the cloud leaves the board)."""
        return self.contains(col, row) and (col in (0, self.cols - 1) or row in (0, self.rows - 1))

    def nearest_dot(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        """The grid dot nearest to a board position."""
        col = round((x_mm - self.origin_x_mm) / self.pitch_mm)
        row = round((y_mm - self.origin_y_mm) / self.pitch_mm)
        return (min(max(col, 0), self.cols - 1), min(max(row, 0), self.rows - 1))

    def dots(self) -> Iterator[tuple[int, int]]:
        """Every dot, row by row from the north-west."""
        for row in range(self.rows):
            for col in range(self.cols):
                yield (col, row)


@dataclass(frozen=True)
class Magnet:
    """A magnet in the cloud's base: distance from the locater, angle clockwise from letter A."""

    radius_mm: float
    angle_deg: float


MIN_LETTER_GAP_DEG = 10.0


@dataclass(frozen=True)
class CloudGeometry:
    """The cloud's footprint, the magnets in its base, and where its letters sit on the rim.

    `letter_angles_deg[k]` is where letter k (A = 0) is printed round the rim,
    degrees clockwise from letter A seen from above. The notch always points
    north and shows A at the start, so letter k is at the notch once the cloud
    has turned `heading_deg(k)` = -letter_angles_deg[k] (mod 360) clockwise.

    >>> cloud = CloudGeometry(70.0, 18.0, ())
    >>> cloud.heading_deg(2), cloud.letter_at(91.0)
    (90.0, 2)
    """

    footprint_radius_mm: float
    capture_radius_mm: float
    magnets: tuple[Magnet, ...]
    letter_angles_deg: tuple[float, ...] = CLASSIC_LETTER_ANGLES_DEG

    def heading_deg(self, letter: int) -> float:
        """How far the cloud has turned clockwise from its start pose to show `letter`."""
        return geometry.letter_heading_deg(self.letter_angles_deg, letter)

    @property
    def letter_headings_deg(self) -> tuple[float, ...]:
        """Every letter's heading (`heading_deg`), A first."""
        return geometry.letter_headings_deg(self.letter_angles_deg)

    def letter_offset_deg(self, heading_deg: float, letter: int) -> float:
        """Signed degrees (-180..180) from a letter's heading to a heading."""
        return geometry.letter_offset_deg(self.letter_angles_deg, heading_deg, letter)

    def letter_at(self, heading_deg: float) -> int:
        """The letter nearest the notch with the cloud turned to a heading."""
        return geometry.letter_at(self.letter_angles_deg, heading_deg)

    def letter_gap_deg(self, letter: int) -> float:
        """Half the angle to the nearest other letter: how far off a reading may be."""
        return geometry.letter_gap_deg(self.letter_angles_deg, letter)

    def turn_deg(self, from_letter: int, to_letter: int) -> float:
        """How far the cloud turns clockwise from showing one letter to another (0..360)."""
        return geometry.letter_turn_deg(self.letter_angles_deg, from_letter, to_letter)


@dataclass(frozen=True)
class SpinnerRings:
    """The spinner's three rings; each ring's equal sectors listed clockwise from north."""

    letters: tuple[str, ...]
    numbers: tuple[int, ...]
    directions: tuple[str, ...]


@dataclass(frozen=True)
class Marker:
    """An ArUco marker: id, centre and side length of its black square."""

    id: int
    x_mm: float
    y_mm: float
    size_mm: float


@dataclass(frozen=True)
class Markers:
    """The corner markers that fix the board in the image, and the cloud's marker."""

    dictionary: str
    corners: tuple[Marker, ...]
    cloud_id: int
    cloud_size_mm: float
    cloud_height_mm: float = 0.0  # the cloud's marker above the board (0: not measured)


@dataclass(frozen=True)
class Board:
    """A loaded, validated board definition."""

    name: str
    source: str
    width_mm: float
    height_mm: float
    spaces: Mapping[str, Space]
    ports: Mapping[str, Port]
    adjacency: Mapping[str, frozenset[str]]
    grid: DotGrid
    cloud: CloudGeometry
    spinner: SpinnerRings
    markers: Markers
    land: tuple[tuple[Point, ...], ...] = ()
    ship_colors: tuple[str, ...] = SHIP_COLORS
    path_order: tuple[str, ...] = field(default=())

    def space(self, space_id: str) -> Space:
        try:
            return self.spaces[space_id]
        except KeyError:
            raise KeyError(f"no space {space_id!r} on board {self.name!r}") from None

    def neighbours(self, space_id: str) -> frozenset[str]:
        return self.adjacency[space_id]

    def is_port(self, space_id: str) -> bool:
        return space_id in self.ports

    def distance(self, start: str, end: str) -> int | None:
        """The fewest spaces a walk from `start` to `end` counts (a port is one space, and
        a walk passes through no port); None if no walk gets there."""
        seen = {start: 0}
        frontier = [start]
        while frontier:
            following = []
            for here in frontier:
                if here == end:
                    return seen[here]
                if here != start and here in self.ports:
                    continue  # a walk that reaches a port stops there
                for there in sorted(self.adjacency[here]):
                    if there not in seen:
                        seen[there] = seen[here] + 1
                        following.append(there)
            frontier = following
        return None

    def port_for(self, product: Product) -> Port:
        for port in self.ports.values():
            if port.product == product:
                return port
        raise KeyError(product)

    @property
    def home_port(self) -> Port:
        return self.port_for("home")

    def nearest_space(self, x_mm: float, y_mm: float) -> tuple[str, float]:
        """The space (or port) nearest to a board position, and its distance in mm."""
        best = min(self.spaces.values(), key=lambda s: math.dist(s.position, (x_mm, y_mm)))
        return best.id, math.dist(best.position, (x_mm, y_mm))
