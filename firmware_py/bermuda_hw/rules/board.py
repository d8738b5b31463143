"""The board definition: spaces, paths, ports, dot grid, cloud, spinner and markers.

A board file is TOML. The classic board ships in the package
(`rules/data/classic.toml`); an owner can describe their own copy and load it
with `load_board(path)`. Loading validates everything and raises
`BoardFileError` naming the file, the key and the problem.

Coordinates are millimetres in the board frame: origin at the north-west
corner, x grows east, y grows south. Headings are degrees clockwise from north.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, cast

from bermuda_hw.errors import BoardFileError

Point = tuple[float, float]
Product = Literal["sugar", "oil", "bananas", "lumber", "home"]
PRODUCTS: tuple[Product, ...] = ("sugar", "oil", "bananas", "lumber", "home")
SHIP_COLORS: tuple[str, ...] = ("blue", "yellow", "green", "red")
LETTERS = "ABCDEFGH"
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
        return self.contains(col, row) and (
            col in (0, self.cols - 1) or row in (0, self.rows - 1)
        )

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


# The classic cloud: its letters run anticlockwise round the rim (seen from above),
# so turning it 45 degrees clockwise brings B to the notch, 90 degrees C, and so on.
CLASSIC_LETTER_ANGLES_DEG = tuple((360.0 - 45.0 * k) % 360.0 for k in range(8))
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
        return (360.0 - self.letter_angles_deg[letter]) % 360.0

    def letter_offset_deg(self, heading_deg: float, letter: int) -> float:
        """Signed degrees (-180..180) from a letter's heading to a heading."""
        return (heading_deg - self.heading_deg(letter) + 180.0) % 360.0 - 180.0

    def letter_at(self, heading_deg: float) -> int:
        """The letter nearest the notch with the cloud turned to a heading."""
        return min(
            range(len(self.letter_angles_deg)),
            key=lambda k: abs(self.letter_offset_deg(heading_deg, k)),
        )

    def letter_gap_deg(self, letter: int) -> float:
        """Half the angle to the nearest other letter: how far off a reading may be."""
        head = self.heading_deg(letter)
        return min(
            abs((self.heading_deg(k) - head + 180.0) % 360.0 - 180.0)
            for k in range(len(self.letter_angles_deg))
            if k != letter
        ) / 2.0


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


# --------------------------------------------------------------------------- loading


class _Reader:
    """Typed access to a parsed TOML table that reports errors with file and key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, problem: str) -> BoardFileError:
        return BoardFileError(self.source, key, problem)

    def table(self, data: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
        if key not in data:
            raise self.fail(_join(path, key), "is missing")
        value = data[key]
        if not isinstance(value, dict):
            raise self.fail(_join(path, key), "must be a table")
        return value

    def tables(self, data: Mapping[str, Any], key: str, path: str) -> list[Mapping[str, Any]]:
        if key not in data:
            raise self.fail(_join(path, key), "is missing")
        value = data[key]
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(_join(path, key), "must be an array of tables")
        return cast(list[Mapping[str, Any]], value)

    def keys(self, data: Mapping[str, Any], path: str, allowed: set[str]) -> None:
        for key in data:
            if key not in allowed:
                raise self.fail(
                    _join(path, key), f"unknown key (expected one of {', '.join(sorted(allowed))})"
                )

    def number(
        self,
        data: Mapping[str, Any],
        key: str,
        path: str,
        *,
        minimum: float | None = None,
        positive: bool = False,
        default: float | None = None,
    ) -> float:
        if key not in data:
            if default is not None:
                return default
            raise self.fail(_join(path, key), "is missing")
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(_join(path, key), f"must be a number, not {value!r}")
        result = float(value)
        if not math.isfinite(result):
            raise self.fail(_join(path, key), "must be finite")
        if positive and result <= 0:
            raise self.fail(_join(path, key), f"must be greater than 0, not {value!r}")
        if minimum is not None and result < minimum:
            raise self.fail(_join(path, key), f"must be at least {minimum}, not {value!r}")
        return result

    def integer(
        self, data: Mapping[str, Any], key: str, path: str, *, minimum: int | None = None
    ) -> int:
        if key not in data:
            raise self.fail(_join(path, key), "is missing")
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(_join(path, key), f"must be a whole number, not {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(_join(path, key), f"must be at least {minimum}, not {value!r}")
        return value

    def string(self, data: Mapping[str, Any], key: str, path: str) -> str:
        if key not in data:
            raise self.fail(_join(path, key), "is missing")
        value = data[key]
        if not isinstance(value, str) or not value:
            raise self.fail(_join(path, key), f"must be a non-empty string, not {value!r}")
        return value

    def ident(self, data: Mapping[str, Any], key: str, path: str) -> str:
        """An id of a space or port: letters, digits and underscores (move texts use - and >)."""
        value = self.string(data, key, path)
        if not _ID.fullmatch(value):
            raise self.fail(
                _join(path, key), f"{value!r}: ids use only letters, digits and underscores"
            )
        return value

    def point(self, value: Any, path: str) -> Point:
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        ):
            raise self.fail(path, f"must be a point [x_mm, y_mm], not {value!r}")
        return (float(value[0]), float(value[1]))

    def list_of(self, data: Mapping[str, Any], key: str, path: str) -> list[Any]:
        if key not in data:
            raise self.fail(_join(path, key), "is missing")
        value = data[key]
        if not isinstance(value, list) or not value:
            raise self.fail(_join(path, key), "must be a non-empty array")
        return value


_ID = re.compile(r"[A-Za-z0-9_]+")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


_TOP_KEYS = {"board", "ports", "spaces", "paths", "grid", "cloud", "spinner", "markers", "land"}


def load_board(path: str | Path | None = None) -> Board:
    """Load and validate a board file; with no path, the classic board.

    >>> board = load_board()
    >>> len(board.spaces), sorted(board.ports)
    (46, ['BANANAS', 'HOME', 'LUMBER', 'OIL', 'SUGAR'])
    """
    if path is None:
        text = (
            resources.files("bermuda_hw.rules")
            .joinpath("data/classic.toml")
            .read_text(encoding="utf-8")
        )
        return parse_board(text, CLASSIC_SOURCE)
    file = Path(path)
    return parse_board(BoardFileError.read_text(file), str(file))


def parse_board(text: str, source: str) -> Board:
    """Parse and validate the text of a board file; `source` names it in errors."""
    r = _Reader(source)
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:  # ValueError: a 5,000-digit number
        raise BoardFileError(source, None, f"is not valid TOML: {exc}") from None
    r.keys(data, "", _TOP_KEYS)

    head = r.table(data, "board", "")
    r.keys(head, "board", {"name", "width_mm", "height_mm", "ship_colors"})
    name = r.string(head, "name", "board")
    width_mm = r.number(head, "width_mm", "board", positive=True)
    height_mm = r.number(head, "height_mm", "board", positive=True)
    raw_colors = head.get("ship_colors", list(SHIP_COLORS))
    if not isinstance(raw_colors, list):
        raise r.fail("board.ship_colors", f"must be an array of colour names, not {raw_colors!r}")
    colors = tuple(raw_colors)
    if len(colors) < 2 or len(set(colors)) != len(colors) or not all(
        isinstance(c, str) and c for c in colors
    ):
        raise r.fail("board.ship_colors", "must list at least 2 distinct colour names")

    def on_board(x_mm: float, y_mm: float, key: str) -> None:
        if not (0 <= x_mm <= width_mm and 0 <= y_mm <= height_mm):
            raise r.fail(key, f"({x_mm}, {y_mm}) lies outside the {width_mm} x {height_mm} board")

    spaces: dict[str, Space] = {}
    ports: dict[str, Port] = {}
    for i, entry in enumerate(r.tables(data, "ports", "")):
        key = f"ports[{i}]"
        r.keys(entry, key, {"id", "product", "x_mm", "y_mm", "berths"})
        pid = r.ident(entry, "id", key)
        product = r.string(entry, "product", key)
        if product not in PRODUCTS:
            raise r.fail(f"{key}.product", f"must be one of {', '.join(PRODUCTS)}, not {product!r}")
        x_mm = r.number(entry, "x_mm", key)
        y_mm = r.number(entry, "y_mm", key)
        on_board(x_mm, y_mm, key)
        raw_berths = r.list_of(entry, "berths", key)
        if len(raw_berths) > MAX_BERTHS:
            raise r.fail(f"{key}.berths", f"a port holds at most {MAX_BERTHS} ships")
        berths = tuple(r.point(b, f"{key}.berths[{j}]") for j, b in enumerate(raw_berths))
        for j, (bx, by) in enumerate(berths):
            on_board(bx, by, f"{key}.berths[{j}]")
        if pid in spaces:
            raise r.fail(f"{key}.id", f"duplicate id {pid!r}")
        if any(p.product == product for p in ports.values()):
            raise r.fail(f"{key}.product", f"a second {product!r} port")
        ports[pid] = Port(pid, product, x_mm, y_mm, berths)
        spaces[pid] = Space(pid, "port", x_mm, y_mm, 0.0)
    for product in PRODUCTS:
        if not any(p.product == product for p in ports.values()):
            raise r.fail("ports", f"no port for product {product!r}")

    for i, entry in enumerate(r.tables(data, "spaces", "")):
        key = f"spaces[{i}]"
        r.keys(entry, key, {"id", "x_mm", "y_mm", "heading_deg"})
        sid = r.ident(entry, "id", key)
        if sid in spaces:
            raise r.fail(f"{key}.id", f"duplicate id {sid!r}")
        x_mm = r.number(entry, "x_mm", key)
        y_mm = r.number(entry, "y_mm", key)
        on_board(x_mm, y_mm, key)
        heading = r.number(entry, "heading_deg", key, default=0.0) % 360.0
        spaces[sid] = Space(sid, "path", x_mm, y_mm, heading)

    links: dict[str, set[str]] = {sid: set() for sid in spaces}
    order: list[str] = []
    for i, entry in enumerate(r.tables(data, "paths", "")):
        key = f"paths[{i}]"
        r.keys(entry, key, {"spaces"})
        ids = r.list_of(entry, "spaces", key)
        if len(ids) < 2:
            raise r.fail(f"{key}.spaces", "a path joins at least two spaces")
        for j, sid in enumerate(ids):
            if not isinstance(sid, str) or sid not in spaces:
                raise r.fail(f"{key}.spaces[{j}]", f"no space or port with id {sid!r}")
            if sid not in order and spaces[sid].kind == "path":
                order.append(sid)
        for a, b in itertools.pairwise(ids):
            if a == b:
                raise r.fail(f"{key}.spaces", f"{a!r} is joined to itself")
            if a in ports and b in ports:
                raise r.fail(f"{key}.spaces", f"ports {a!r} and {b!r} are joined with no space")
            links[a].add(b)
            links[b].add(a)
    for sid, near in links.items():
        if not near:
            raise r.fail("paths", f"space {sid!r} is on no path")
    _check_reachable(r, ports, links)

    grid = _parse_grid(r, r.table(data, "grid", ""), width_mm, height_mm)
    cloud = _parse_cloud(r, r.table(data, "cloud", ""))
    spinner = _parse_spinner(r, r.table(data, "spinner", ""))
    markers = _parse_markers(r, r.table(data, "markers", ""), on_board)

    land: list[tuple[Point, ...]] = []
    if "land" in data:
        for i, entry in enumerate(r.tables(data, "land", "")):
            key = f"land[{i}]"
            r.keys(entry, key, {"name", "points"})
            pts = tuple(
                r.point(p, f"{key}.points[{j}]")
                for j, p in enumerate(r.list_of(entry, "points", key))
            )
            if len(pts) < 3:
                raise r.fail(f"{key}.points", "a land polygon needs at least 3 points")
            land.append(pts)

    return Board(
        name=name,
        source=source,
        width_mm=width_mm,
        height_mm=height_mm,
        spaces=MappingProxyType(spaces),
        ports=MappingProxyType(ports),
        adjacency=MappingProxyType({k: frozenset(v) for k, v in links.items()}),
        grid=grid,
        cloud=cloud,
        spinner=spinner,
        markers=markers,
        land=tuple(land),
        ship_colors=colors,
        path_order=tuple(order),
    )


def _check_reachable(r: _Reader, ports: Mapping[str, Port], links: Mapping[str, set[str]]) -> None:
    """Every space must be reachable from the Home Port; so every port is."""
    home = next(p.id for p in ports.values() if p.product == "home")
    seen = {home}
    queue = deque([home])
    while queue:
        here = queue.popleft()
        for there in links[here]:
            if there not in seen:
                seen.add(there)
                queue.append(there)
    for sid in links:
        if sid not in seen:
            what = "port" if sid in ports else "space"
            raise r.fail("paths", f"{what} {sid!r} cannot be reached from {home!r}")


def _parse_grid(
    r: _Reader, data: Mapping[str, Any], width_mm: float, height_mm: float
) -> DotGrid:
    r.keys(data, "grid", {"cols", "rows", "pitch_mm", "origin_x_mm", "origin_y_mm", "centre"})
    cols = r.integer(data, "cols", "grid", minimum=3)
    rows = r.integer(data, "rows", "grid", minimum=3)
    pitch_mm = r.number(data, "pitch_mm", "grid", positive=True)
    ox = r.number(data, "origin_x_mm", "grid", minimum=0.0)
    oy = r.number(data, "origin_y_mm", "grid", minimum=0.0)
    if ox + (cols - 1) * pitch_mm > width_mm or oy + (rows - 1) * pitch_mm > height_mm:
        raise r.fail("grid", "the dot grid extends beyond the board")
    if "centre" not in data:
        raise r.fail("grid.centre", "is missing: the grid needs its centre red circle")
    centre = data["centre"]
    if (
        not isinstance(centre, list)
        or len(centre) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in centre)
    ):
        raise r.fail("grid.centre", f"must be [col, row], not {centre!r}")
    grid = DotGrid(cols, rows, pitch_mm, ox, oy, (centre[0], centre[1]))
    if not grid.contains(*grid.centre) or grid.is_outside(*grid.centre):
        raise r.fail("grid.centre", f"{centre!r} must be an inside dot of the grid")
    return grid


def _parse_cloud(r: _Reader, data: Mapping[str, Any]) -> CloudGeometry:
    r.keys(data, "cloud", {"footprint_radius_mm", "capture_radius_mm", "magnets",
                           "letter_angles_deg"})
    footprint = r.number(data, "footprint_radius_mm", "cloud", positive=True)
    capture = r.number(data, "capture_radius_mm", "cloud", positive=True)
    magnets: list[Magnet] = []
    for i, entry in enumerate(r.list_of(data, "magnets", "cloud")):
        key = f"cloud.magnets[{i}]"
        if not isinstance(entry, dict):
            raise r.fail(key, "must be a table { radius_mm, angle_deg }")
        r.keys(entry, key, {"radius_mm", "angle_deg"})
        radius = r.number(entry, "radius_mm", key, minimum=0.0)
        if radius > footprint:
            raise r.fail(f"{key}.radius_mm", "a magnet must lie within the cloud's footprint")
        magnets.append(Magnet(radius, r.number(entry, "angle_deg", key) % 360.0))
    return CloudGeometry(footprint, capture, tuple(magnets), _parse_letter_angles(r, data))


def _parse_letter_angles(r: _Reader, data: Mapping[str, Any]) -> tuple[float, ...]:
    key = "cloud.letter_angles_deg"
    if "letter_angles_deg" not in data:
        return CLASSIC_LETTER_ANGLES_DEG
    raw = data["letter_angles_deg"]
    if not isinstance(raw, list) or len(raw) != len(LETTERS):
        raise r.fail(key, f"must list {len(LETTERS)} angles, one per letter A-H")
    angles: list[float] = []
    for i, value in enumerate(raw):
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise r.fail(key, f"item {i + 1} must be a number of degrees, not {value!r}")
        angles.append(float(value) % 360.0)
    if angles[0] != 0.0:
        raise r.fail(key, "letter A is where the angles are measured from: it must be 0")
    for i, a in enumerate(angles):
        for j in range(i):
            gap = abs((a - angles[j] + 180.0) % 360.0 - 180.0)
            if gap < MIN_LETTER_GAP_DEG:
                raise r.fail(
                    key, f"letters {LETTERS[j]} and {LETTERS[i]} are only {gap:g} degrees apart"
                )
    return tuple(angles)


def _parse_spinner(r: _Reader, data: Mapping[str, Any]) -> SpinnerRings:
    r.keys(data, "spinner", {"letters", "numbers", "directions"})
    letters = r.list_of(data, "letters", "spinner")
    for i, v in enumerate(letters):
        if not isinstance(v, str) or len(v) != 1 or v not in LETTERS:
            raise r.fail(f"spinner.letters[{i}]", f"must be a letter A-H, not {v!r}")
    numbers = r.list_of(data, "numbers", "spinner")
    for i, v in enumerate(numbers):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise r.fail(f"spinner.numbers[{i}]", f"must be a whole number of dots >= 1, not {v!r}")
    directions = r.list_of(data, "directions", "spinner")
    for i, v in enumerate(directions):
        if v not in DIRECTION_LETTERS + DIRECTION_WORDS:
            raise r.fail(
                f"spinner.directions[{i}]",
                f"must be N, E, S, W or North, East, South, West, not {v!r}",
            )
    return SpinnerRings(tuple(letters), tuple(numbers), tuple(directions))


def _parse_markers(
    r: _Reader, data: Mapping[str, Any], on_board: Any
) -> Markers:
    r.keys(data, "markers", {"dictionary", "corners", "cloud"})
    dictionary = r.string(data, "dictionary", "markers")
    if not dictionary.startswith("DICT_"):
        raise r.fail("markers.dictionary", f"must name an ArUco dictionary, not {dictionary!r}")
    corners: list[Marker] = []
    for i, entry in enumerate(r.list_of(data, "corners", "markers")):
        key = f"markers.corners[{i}]"
        if not isinstance(entry, dict):
            raise r.fail(key, "must be a table { id, x_mm, y_mm, size_mm }")
        r.keys(entry, key, {"id", "x_mm", "y_mm", "size_mm"})
        marker = Marker(
            r.integer(entry, "id", key, minimum=0),
            r.number(entry, "x_mm", key),
            r.number(entry, "y_mm", key),
            r.number(entry, "size_mm", key, positive=True),
        )
        on_board(marker.x_mm, marker.y_mm, key)
        corners.append(marker)
    if len(corners) != 4:
        raise r.fail("markers.corners", f"needs exactly 4 corner markers, not {len(corners)}")
    if sorted(m.id for m in corners) != [m.id for m in corners] or len(
        {m.id for m in corners}
    ) != 4:
        raise r.fail("markers.corners", "ids must be distinct and listed clockwise from north-west")
    cloud = r.table(data, "cloud", "markers")
    r.keys(cloud, "markers.cloud", {"id", "size_mm", "height_mm"})
    cloud_id = r.integer(cloud, "id", "markers.cloud", minimum=0)
    if cloud_id in {m.id for m in corners}:
        raise r.fail("markers.cloud.id", f"{cloud_id} is also a corner marker's id")
    cloud_size = r.number(cloud, "size_mm", "markers.cloud", positive=True)
    height = r.number(cloud, "height_mm", "markers.cloud", minimum=0.0, default=0.0)
    return Markers(dictionary, tuple(corners), cloud_id, cloud_size, height)
