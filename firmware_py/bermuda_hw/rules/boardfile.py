"""Board files: TOML checked against declared models into the board model of `rules.board`.

The classic board ships in the package (`rules/data/classic.toml`); an owner
can describe their own copy and load it with `load_board(path)`. Every key's
type, shape and bounds are declared below; the checks that span the file
(ids used once, paths to known spaces, everything reachable from the Home
Port, points on the board) follow. Any problem is one `BoardFileError` naming
the file, the key (`spaces[4].id`) and the problem.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import deque
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import AfterValidator, Field, field_validator, model_validator

from bermuda_hw.checked import (
    Integer,
    KeyProblem,
    Name,
    NonNegative,
    Number,
    Positive,
    Strict,
    Text,
    check,
    parse_toml,
    read_toml,
)
from bermuda_hw.errors import BoardFileError
from bermuda_hw.geometry import CLASSIC_LETTER_ANGLES_DEG, LETTERS, gap_deg, wrap_deg
from bermuda_hw.rules.board import (
    CLASSIC_SOURCE,
    DIRECTION_LETTERS,
    DIRECTION_WORDS,
    MAX_BERTHS,
    MIN_LETTER_GAP_DEG,
    PRODUCTS,
    SHIP_COLORS,
    Board,
    CloudGeometry,
    DotGrid,
    Magnet,
    Marker,
    Markers,
    Port,
    Product,
    Space,
    SpinnerRings,
)

_ID = re.compile(r"[A-Za-z0-9_]+")
# Semantic limits of a board file: a table-top board, markers a camera can read
MIN_BOARD_MM, MAX_BOARD_MM = 100.0, 2000.0
MIN_MARKER_MM = 5.0


def _ident(value: str) -> str:
    if not _ID.fullmatch(value):
        raise ValueError(f"{value!r}: ids use only letters, digits and underscores")
    return value


def _letter(value: str) -> str:
    if len(value) != 1 or value not in LETTERS:
        raise ValueError(f"must be a letter A-H, not {value!r}")
    return value


def _direction(value: str) -> str:
    if value not in DIRECTION_LETTERS + DIRECTION_WORDS:
        raise ValueError(f"must be N, E, S, W or North, East, South, West, not {value!r}")
    return value


Ident = Annotated[Text, AfterValidator(_ident)]
Letter = Annotated[Text, AfterValidator(_letter)]
Direction = Annotated[Text, AfterValidator(_direction)]
PointFile = tuple[Number, Number]


class _Head(Strict):
    name: Name
    # a table-top board: the classic one is 508 mm square
    width_mm: Positive = Field(ge=MIN_BOARD_MM, le=MAX_BOARD_MM)
    height_mm: Positive = Field(ge=MIN_BOARD_MM, le=MAX_BOARD_MM)
    ship_colors: list[Name] = Field(default=list(SHIP_COLORS), min_length=2)

    @field_validator("ship_colors")
    @classmethod
    def _distinct(cls, colors: list[str]) -> list[str]:
        if len(set(colors)) != len(colors):
            raise ValueError(f"must list distinct colour names, not {colors!r}")
        return colors


class _PortFile(Strict):
    id: Ident
    product: Product
    x_mm: Number
    y_mm: Number
    berths: list[PointFile] = Field(min_length=1, max_length=MAX_BERTHS)


class _SpaceFile(Strict):
    id: Ident
    x_mm: Number
    y_mm: Number
    heading_deg: Number = 0.0


class _PathFile(Strict):
    spaces: list[Text] = Field(min_length=2)


class _GridFile(Strict):
    cols: Integer = Field(ge=3)
    rows: Integer = Field(ge=3)
    pitch_mm: Positive
    origin_x_mm: NonNegative
    origin_y_mm: NonNegative
    centre: tuple[Integer, Integer]

    @model_validator(mode="after")
    def _inside(self) -> _GridFile:
        grid = self.typed()
        if not grid.contains(*grid.centre) or grid.is_outside(*grid.centre):
            raise KeyProblem("centre", f"{list(self.centre)!r} must be an inside dot of the grid")
        return self

    def typed(self) -> DotGrid:
        return DotGrid(
            self.cols, self.rows, self.pitch_mm, self.origin_x_mm, self.origin_y_mm, self.centre
        )


class _MagnetFile(Strict):
    radius_mm: NonNegative
    angle_deg: Number


class _CloudFile(Strict):
    footprint_radius_mm: Positive
    capture_radius_mm: Positive
    magnets: list[_MagnetFile] = Field(min_length=1)
    letter_angles_deg: list[Number] = Field(
        default=list(CLASSIC_LETTER_ANGLES_DEG), min_length=len(LETTERS), max_length=len(LETTERS)
    )

    @model_validator(mode="after")
    def _geometry(self) -> _CloudFile:
        for i, magnet in enumerate(self.magnets):
            if magnet.radius_mm > self.footprint_radius_mm:
                raise KeyProblem(
                    f"magnets[{i}].radius_mm", "a magnet must lie within the cloud's footprint"
                )
        angles = [wrap_deg(a) for a in self.letter_angles_deg]
        if angles[0] != 0.0:
            raise KeyProblem(
                "letter_angles_deg", "letter A is where the angles are measured from: it must be 0"
            )
        for i, a in enumerate(angles):
            for j in range(i):
                gap = gap_deg(a, angles[j])
                if gap < MIN_LETTER_GAP_DEG:
                    raise KeyProblem(
                        "letter_angles_deg",
                        f"letters {LETTERS[j]} and {LETTERS[i]} are only {gap:g} degrees apart",
                    )
        return self

    def typed(self) -> CloudGeometry:
        return CloudGeometry(
            self.footprint_radius_mm,
            self.capture_radius_mm,
            tuple(Magnet(m.radius_mm, wrap_deg(m.angle_deg)) for m in self.magnets),
            tuple(wrap_deg(a) for a in self.letter_angles_deg),
        )


class _SpinnerFile(Strict):
    letters: list[Letter] = Field(min_length=1)
    numbers: list[Annotated[int, Field(strict=True, ge=1)]] = Field(min_length=1)
    directions: list[Direction] = Field(min_length=1)


class _MarkerFile(Strict):
    id: Integer = Field(ge=0)
    x_mm: Number
    y_mm: Number
    size_mm: Positive


class _CloudMarkerFile(Strict):
    id: Integer = Field(ge=0)
    size_mm: Positive
    height_mm: NonNegative = 0.0


class _MarkersFile(Strict):
    dictionary: Name
    corners: list[_MarkerFile] = Field(min_length=4, max_length=4)
    cloud: _CloudMarkerFile

    @model_validator(mode="after")
    def _ids(self) -> _MarkersFile:
        if not self.dictionary.startswith("DICT_"):
            raise KeyProblem(
                "dictionary", f"must name an ArUco dictionary, not {self.dictionary!r}"
            )
        ids = [m.id for m in self.corners]
        if sorted(ids) != ids or len(set(ids)) != 4:
            raise KeyProblem("corners", "ids must be distinct and listed clockwise from north-west")
        if self.cloud.id in ids:
            raise KeyProblem("cloud.id", f"{self.cloud.id} is also a corner marker's id")
        return self


class _LandFile(Strict):
    name: Text = ""
    points: list[PointFile] = Field(min_length=3)


class _BoardFile(Strict):
    """A whole board file as written."""

    board: _Head
    ports: list[_PortFile] = Field(min_length=1)
    spaces: list[_SpaceFile] = Field(min_length=1)
    paths: list[_PathFile] = Field(min_length=1)
    grid: _GridFile
    cloud: _CloudFile
    spinner: _SpinnerFile
    markers: _MarkersFile
    land: list[_LandFile] = Field(default_factory=list)


# --- loading ----------------------------------------------------------------------------------


def load_board(path: str | Path | None = None) -> Board:
    """Load and validate a board file; with no path, the classic board.

    >>> board = load_board()
    >>> len(board.spaces), sorted(board.ports)
    (46, ['BANANAS', 'HOME', 'LUMBER', 'OIL', 'SUGAR'])
    """
    if path is None:
        return parse_board(classic_board_text(), CLASSIC_SOURCE)
    file = Path(path)
    return board_from_table(read_toml(file, BoardFileError), str(file))


@functools.cache
def classic_board() -> Board:
    """The classic board, read once: a `Board` is an immutable value that every game may share.

    This is the default of `Game.new`, `rules.record.replay` and `from_json` when no
    board is passed.
    """
    return load_board()


def classic_board_text() -> str:
    """The text of the classic board's file, as shipped in the package."""
    return resources.files("bermuda_hw.rules").joinpath("data/classic.toml").read_text("utf-8")


def parse_board(text: str, source: str) -> Board:
    """Parse and validate the text of a board file; `source` names it in errors."""
    return board_from_table(parse_toml(text, source, BoardFileError), source)


def board_from_table(data: Mapping[str, Any], source: str) -> Board:
    """A parsed board file checked, then built into the board model."""
    written = check(_BoardFile, data, source, BoardFileError)

    def fail(key: str, problem: str) -> BoardFileError:
        return BoardFileError(source, key, problem)

    head = written.board
    width_mm, height_mm = head.width_mm, head.height_mm

    def on_board(x_mm: float, y_mm: float, key: str) -> None:
        if not (0 <= x_mm <= width_mm and 0 <= y_mm <= height_mm):
            raise fail(key, f"({x_mm}, {y_mm}) lies outside the {width_mm} x {height_mm} board")

    spaces: dict[str, Space] = {}
    ports: dict[str, Port] = {}
    for i, entry in enumerate(written.ports):
        key = f"ports[{i}]"
        on_board(entry.x_mm, entry.y_mm, key)
        for j, (bx, by) in enumerate(entry.berths):
            on_board(bx, by, f"{key}.berths[{j}]")
        if entry.id in spaces:
            raise fail(f"{key}.id", f"duplicate id {entry.id!r}")
        if any(p.product == entry.product for p in ports.values()):
            raise fail(f"{key}.product", f"a second {entry.product!r} port")
        ports[entry.id] = Port(entry.id, entry.product, entry.x_mm, entry.y_mm, tuple(entry.berths))
        spaces[entry.id] = Space(entry.id, "port", entry.x_mm, entry.y_mm, 0.0)
    for product in PRODUCTS:
        if not any(p.product == product for p in ports.values()):
            raise fail("ports", f"no port for product {product!r}")

    for i, space in enumerate(written.spaces):
        key = f"spaces[{i}]"
        if space.id in spaces:
            raise fail(f"{key}.id", f"duplicate id {space.id!r}")
        on_board(space.x_mm, space.y_mm, key)
        spaces[space.id] = Space(
            space.id, "path", space.x_mm, space.y_mm, wrap_deg(space.heading_deg)
        )

    links, order = _links(written.paths, spaces, ports, fail)
    _check_reachable(ports, links, fail)

    grid = written.grid.typed()
    if (
        grid.origin_x_mm + (grid.cols - 1) * grid.pitch_mm > width_mm
        or grid.origin_y_mm + (grid.rows - 1) * grid.pitch_mm > height_mm
    ):
        raise fail("grid", "the dot grid extends beyond the board")

    markers = written.markers
    largest = min(width_mm, height_mm) / 4
    for i, m in enumerate(markers.corners):
        key = f"markers.corners[{i}]"
        if not MIN_MARKER_MM <= m.size_mm <= largest:
            raise fail(
                f"{key}.size_mm",
                f"{m.size_mm:g} mm: a corner marker is from "
                f"{MIN_MARKER_MM:g} mm (the camera cannot read a smaller one) to a "
                f"quarter of the board's side ({largest:g} mm)",
            )
        half = m.size_mm / 2
        for cx, cy in ((m.x_mm - half, m.y_mm - half), (m.x_mm + half, m.y_mm + half)):
            if not (0 <= cx <= width_mm and 0 <= cy <= height_mm):
                raise fail(
                    key,
                    f"the {m.size_mm:g} mm marker at ({m.x_mm:g}, {m.y_mm:g}) "
                    f"reaches beyond the {width_mm:g} x {height_mm:g} board",
                )
    cloud_side = 2 * written.cloud.footprint_radius_mm
    if not MIN_MARKER_MM <= markers.cloud.size_mm <= cloud_side:
        raise fail(
            "markers.cloud.size_mm",
            f"{markers.cloud.size_mm:g} mm: the cloud's "
            f"marker is from {MIN_MARKER_MM:g} mm to the cloud's width "
            f"({cloud_side:g} mm)",
        )
    if written.cloud.footprint_radius_mm > min(width_mm, height_mm) / 2:
        raise fail("cloud.footprint_radius_mm", "the cloud is larger than the board")
    if markers.cloud.height_mm > MAX_BOARD_MM / 4:
        raise fail(
            "markers.cloud.height_mm",
            f"{markers.cloud.height_mm:g} mm above the board: at most {MAX_BOARD_MM / 4:g} mm",
        )
    spinner = written.spinner

    return Board(
        name=head.name,
        source=source,
        width_mm=width_mm,
        height_mm=height_mm,
        spaces=MappingProxyType(spaces),
        ports=MappingProxyType(ports),
        adjacency=MappingProxyType({k: frozenset(v) for k, v in links.items()}),
        grid=grid,
        cloud=written.cloud.typed(),
        spinner=SpinnerRings(
            tuple(spinner.letters), tuple(spinner.numbers), tuple(spinner.directions)
        ),
        markers=Markers(
            markers.dictionary,
            tuple(Marker(m.id, m.x_mm, m.y_mm, m.size_mm) for m in markers.corners),
            markers.cloud.id,
            markers.cloud.size_mm,
            markers.cloud.height_mm,
        ),
        land=tuple(tuple(land.points) for land in written.land),
        ship_colors=tuple(head.ship_colors),
        path_order=tuple(order),
    )


Fail = Callable[[str, str], BoardFileError]


def _links(
    paths: list[_PathFile], spaces: Mapping[str, Space], ports: Mapping[str, Port], fail: Fail
) -> tuple[dict[str, set[str]], list[str]]:
    """Each space's neighbours, and the path spaces in the order the paths list them."""
    links: dict[str, set[str]] = {sid: set() for sid in spaces}
    order: list[str] = []
    for i, entry in enumerate(paths):
        key = f"paths[{i}]"
        for j, sid in enumerate(entry.spaces):
            if sid not in spaces:
                raise fail(f"{key}.spaces[{j}]", f"no space or port with id {sid!r}")
            if sid not in order and spaces[sid].kind == "path":
                order.append(sid)
        for a, b in itertools.pairwise(entry.spaces):
            if a == b:
                raise fail(f"{key}.spaces", f"{a!r} is joined to itself")
            if a in ports and b in ports:
                raise fail(f"{key}.spaces", f"ports {a!r} and {b!r} are joined with no space")
            links[a].add(b)
            links[b].add(a)
    for sid, near in links.items():
        if not near:
            raise fail("paths", f"space {sid!r} is on no path")
    return links, order


def _check_reachable(ports: Mapping[str, Port], links: Mapping[str, set[str]], fail: Fail) -> None:
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
            raise fail("paths", f"{what} {sid!r} cannot be reached from {home!r}")


# --- the JSON document ------------------------------------------------------------------------


def board_to_json(board: Board) -> dict[str, Any]:
    """The board as the stable JSON document that `board show --json` prints."""
    grid = board.grid
    return {
        "name": board.name,
        "source": board.source,
        "board": {"width_mm": board.width_mm, "height_mm": board.height_mm},
        "spaces": [
            {
                "id": s.id,
                "kind": s.kind,
                "x_mm": s.x_mm,
                "y_mm": s.y_mm,
                "heading_deg": s.heading_deg,
                "neighbours": sorted(board.adjacency[s.id]),
            }
            for s in board.spaces.values()
        ],
        "ports": [
            {
                "id": p.id,
                "product": p.product,
                "x_mm": p.x_mm,
                "y_mm": p.y_mm,
                "berths": [{"x_mm": x, "y_mm": y} for x, y in p.berths],
            }
            for p in board.ports.values()
        ],
        "grid": {
            "cols": grid.cols,
            "rows": grid.rows,
            "pitch_mm": grid.pitch_mm,
            "centre": {"col": grid.centre[0], "row": grid.centre[1]},
            "dots": [
                {
                    "col": col,
                    "row": row,
                    "x_mm": grid.dot_mm(col, row)[0],
                    "y_mm": grid.dot_mm(col, row)[1],
                    "centre": (col, row) == grid.centre,
                    "outside": grid.is_outside(col, row),
                }
                for col, row in grid.dots()
            ],
        },
        "markers": {
            "dictionary": board.markers.dictionary,
            "corners": [
                {"id": m.id, "x_mm": m.x_mm, "y_mm": m.y_mm, "size_mm": m.size_mm}
                for m in board.markers.corners
            ],
            # The cloud's marker moves with the cloud: its centre at the start pose.
            "cloud": {
                "id": board.markers.cloud_id,
                "x_mm": grid.dot_mm(*grid.centre)[0],
                "y_mm": grid.dot_mm(*grid.centre)[1],
                "size_mm": board.markers.cloud_size_mm,
            },
        },
        "cloud": {
            "footprint_radius_mm": board.cloud.footprint_radius_mm,
            "capture_radius_mm": board.cloud.capture_radius_mm,
            "magnets": [
                {"radius_mm": m.radius_mm, "angle_deg": m.angle_deg} for m in board.cloud.magnets
            ],
            "letter_angles_deg": list(board.cloud.letter_angles_deg),
        },
        "spinner": {
            "letters": list(board.spinner.letters),
            "numbers": list(board.spinner.numbers),
            "directions": list(board.spinner.directions),
        },
        "ship_colors": list(board.ship_colors),
    }
