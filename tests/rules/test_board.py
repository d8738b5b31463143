"""The board loader: the classic board's facts and every validation error."""

from __future__ import annotations

import math
import re
from collections import deque
from pathlib import Path

import pytest

from bermuda_hw.errors import BoardFileError, ConfigError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board, parse_board

DATA = Path(__file__).resolve().parents[2] / "firmware_py/bermuda_hw/rules/data/classic.toml"


def classic_text() -> str:
    return DATA.read_text(encoding="utf-8")


def reachable(board: Board, start: str) -> set[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for nxt in board.adjacency[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def test_classic_board_matches_the_published_facts(classic_board: Board) -> None:
    assert len(classic_board.spaces) == 46  # the path counts the ports
    products = sorted(p.product for p in classic_board.ports.values())
    assert products == ["bananas", "home", "lumber", "oil", "sugar"]
    assert 450 <= classic_board.width_mm <= 550
    assert 450 <= classic_board.height_mm <= 550
    assert classic_board.ship_colors == ("blue", "yellow", "green", "red")


def test_classic_board_every_port_reachable(classic_board: Board) -> None:
    for port in classic_board.ports:
        assert reachable(classic_board, port) == set(classic_board.spaces)


def test_classic_adjacency_is_symmetric(classic_board: Board) -> None:
    for a, near in classic_board.adjacency.items():
        for b in near:
            assert a in classic_board.adjacency[b]


def test_classic_ports_hold_four_ships(classic_board: Board) -> None:
    for port in classic_board.ports.values():
        assert len(port.berths) == 4
        assert len(set(port.berths)) == 4


def test_classic_cloud_footprint_covers_a_few_spaces(classic_board: Board) -> None:
    grid = classic_board.grid
    radius = classic_board.cloud.footprint_radius_mm
    covered = []
    for col, row in grid.dots():
        centre = grid.dot_mm(col, row)
        covered.append(
            sum(math.dist(s.position, centre) <= radius for s in classic_board.spaces.values())
        )
    assert max(covered) >= 3
    assert max(covered) <= 10


def test_classic_grid_spans_the_sea(classic_board: Board) -> None:
    grid = classic_board.grid
    xs = [s.x_mm for s in classic_board.spaces.values()]
    ys = [s.y_mm for s in classic_board.spaces.values()]
    west, north = grid.dot_mm(0, 0)
    east, south = grid.dot_mm(grid.cols - 1, grid.rows - 1)
    # The outside dots reach the ring of paths on every side.
    assert west - min(xs) < 50 and max(xs) - east < 50
    assert north - min(ys) < 50 and max(ys) - south < 50
    assert grid.dot_mm(*grid.centre) == (254.0, 254.0)


def test_classic_spaces_do_not_overlap(classic_board: Board) -> None:
    spaces = list(classic_board.spaces.values())
    for i, a in enumerate(spaces):
        for b in spaces[i + 1 :]:
            assert math.dist(a.position, b.position) > 25, (a.id, b.id)


def test_classic_berths_stand_clear_of_path_spaces(classic_board: Board) -> None:
    # A ship in a berth must never be mistaken for one on the space beside the port.
    for port in classic_board.ports.values():
        for berth in port.berths:
            for space in classic_board.spaces.values():
                if space.kind == "path":
                    assert math.dist(berth, space.position) > 25, (port.id, space.id)


def test_classic_markers(classic_board: Board) -> None:
    m = classic_board.markers
    assert m.dictionary == "DICT_4X4_50"
    assert [c.id for c in m.corners] == [0, 1, 2, 3]
    nw, ne, se, sw = m.corners
    assert nw.x_mm < ne.x_mm and nw.y_mm < sw.y_mm
    assert se.x_mm > sw.x_mm and se.y_mm > ne.y_mm
    assert m.cloud_id == 10


def test_grid_outside_dots(classic_board: Board) -> None:
    grid = classic_board.grid
    outside = {d for d in grid.dots() if grid.is_outside(*d)}
    assert len(outside) == 2 * grid.cols + 2 * grid.rows - 4
    assert not grid.is_outside(*grid.centre)
    assert not grid.is_outside(-1, 0)  # off the grid is not an outside dot
    assert grid.nearest_dot(*grid.dot_mm(3, 6)) == (3, 6)
    assert grid.nearest_dot(-500.0, 9999.0) == (0, grid.rows - 1)


def test_load_by_path_matches_the_built_in(tmp_path: Path, classic_board: Board) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(classic_text(), encoding="utf-8")
    board = load_board(path)
    assert board.source == str(path)
    assert board.spaces == classic_board.spaces
    assert board.adjacency == classic_board.adjacency


def test_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(BoardFileError, match=re.escape(str(tmp_path / "nope.toml"))):
        load_board(tmp_path / "nope.toml")


def test_board_errors_are_config_errors_and_value_errors() -> None:
    assert issubclass(BoardFileError, ConfigError)
    assert issubclass(BoardFileError, ValueError)


BROKEN = [
    # (description, edit applied to the classic text, expected key, expected problem)
    ("bad toml", lambda t: t + "\n[[[", None, "not valid TOML"),
    ("unknown top key", lambda t: t + "\n[extras]\na = 1\n", "extras", "unknown key"),
    (
        "unknown space key",
        lambda t: t.replace('id = "S05"\n', 'id = "S05"\ncolour = "red"\n', 1),
        "spaces[4].colour",
        "unknown key",
    ),
    (
        "duplicate id",
        lambda t: t.replace('id = "S05"', 'id = "S04"', 1),
        "spaces[4].id",
        "duplicate id 'S04'",
    ),
    (
        "id with a dash",
        lambda t: t.replace('id = "S05"', 'id = "S-5"', 1).replace('"S05"', '"S-5"'),
        "spaces[4].id",
        "ids use only letters, digits and underscores",
    ),
    (
        "dangling id in a path",
        lambda t: t.replace('"S03", "S04"', '"S03", "S99"', 1),
        "paths[0].spaces[4]",
        "no space or port with id 'S99'",
    ),
    (
        "unreachable island",
        lambda t: (
            t
            + '\n[[spaces]]\nid = "X1"\nx_mm = 250.0\ny_mm = 400.0\n'
            + '\n[[spaces]]\nid = "X2"\nx_mm = 290.0\ny_mm = 400.0\n'
            + '\n[[paths]]\nspaces = ["X1", "X2"]\n'
        ),
        "paths",
        "cannot be reached from 'HOME'",
    ),
    (
        "space on no path",
        lambda t: t + '\n[[spaces]]\nid = "X1"\nx_mm = 250.0\ny_mm = 400.0\n',
        "paths",
        "space 'X1' is on no path",
    ),
    (
        "grid without a centre",
        lambda t: t.replace("centre = [4, 4]\n", ""),
        "grid.centre",
        "is missing",
    ),
    (
        "centre on the outside ring",
        lambda t: t.replace("centre = [4, 4]", "centre = [0, 4]"),
        "grid.centre",
        "inside dot",
    ),
    (
        "grid beyond the board",
        lambda t: t.replace("pitch_mm = 44.0", "pitch_mm = 60.0"),
        "grid",
        "beyond the board",
    ),
    (
        "negative radius",
        lambda t: t.replace("footprint_radius_mm = 70.0", "footprint_radius_mm = -1"),
        "cloud.footprint_radius_mm",
        "greater than 0",
    ),
    (
        "space off the board",
        lambda t: t.replace('id = "S05"\nx_mm = ', 'id = "S05"\nx_mm = 9', 1),
        "spaces[4]",
        "outside the 508.0 x 508.0 board",
    ),
    (
        "missing product port",
        lambda t: t.replace('product = "oil"', 'product = "oyl"'),
        "ports[2].product",
        "must be one of",
    ),
    (
        "bad spinner letter",
        lambda t: t.replace('letters = ["A", "B"', 'letters = ["Z", "B"'),
        "spinner.letters[0]",
        "letter A-H",
    ),
    (
        "bad direction",
        lambda t: t.replace('directions = ["N"', 'directions = ["Up"'),
        "spinner.directions[0]",
        "must be N, E, S, W",
    ),
    (
        "cloud marker id clash",
        lambda t: t.replace("cloud = { id = 10", "cloud = { id = 2"),
        "markers.cloud.id",
        "also a corner marker",
    ),
    (
        "string where a number belongs",
        lambda t: t.replace("width_mm = 508.0", 'width_mm = "wide"'),
        "board.width_mm",
        "must be a number",
    ),
]


@pytest.mark.parametrize(("what", "edit", "key", "problem"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_board_names_file_key_and_problem(
    what: str, edit: object, key: str | None, problem: str
) -> None:
    assert callable(edit)
    text = edit(classic_text())
    assert text != classic_text(), f"the edit for {what!r} changed nothing"
    with pytest.raises(BoardFileError) as info:
        parse_board(text, "my-board.toml")
    err = info.value
    assert err.file == "my-board.toml"
    assert err.key == key
    assert problem in err.problem
    assert str(err).startswith("my-board.toml")


def test_the_board_model_is_plain_values_apart_from_its_loader() -> None:
    """rules.board holds the values; reading and checking files is rules.boardfile's."""
    import subprocess
    import sys

    code = (
        "import sys, bermuda_hw.rules.board\n"
        "print(' '.join(m for m in ('tomllib', 'pydantic', 'bermuda_hw.checked',"
        " 'bermuda_hw.rules.boardfile') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
