"""Small hand-made boards and positions for the rules engine's tests.

A tiny board is given as its paths (lists of space and port ids). Its five
ports are named HOME, SUGAR, OIL, BANANAS and LUMBER. Spaces listed as
`blocked` are laid out under the cloud's footprint at the centre dot (where
the cloud starts); every other space lies far from it, along the board's top
edge. So a test states what is blocked, and the real `blocked_spaces` agrees.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import parse_board
from bermuda_hw.rules.game import Game, ShipStatus
from bermuda_hw.rules.record import from_json, to_dict

PORT_PRODUCTS = {
    "HOME": "home",
    "SUGAR": "sugar",
    "OIL": "oil",
    "BANANAS": "bananas",
    "LUMBER": "lumber",
}

RING = [
    ["HOME", "A", "B", "C", "SUGAR"],
    ["SUGAR", "D", "E", "OIL"],
    ["OIL", "F", "G", "BANANAS"],
    ["BANANAS", "H", "I", "LUMBER"],
    ["LUMBER", "J", "K", "HOME"],
]

sys.path.insert(0, str(Path(__file__).parent))  # midgames: positions of random games


def build_board(
    paths: Sequence[Sequence[str]],
    blocked: Iterable[str] = (),
    name: str = "tiny",
    at: Mapping[str, tuple[float, float]] | None = None,
) -> Board:
    """A board file for the given paths, with `blocked` under the cloud at the centre dot.

    `at` puts chosen spaces at chosen board positions (mm) instead. The cloud's
    one magnet sits 50 mm north of its locater (at letter A); the grid's dots
    are 100 mm apart, from (100, 100); the centre dot is (500, 500).
    """
    blocked = list(blocked)
    ids: list[str] = []
    for path in paths:
        for sid in path:
            if sid not in ids:
                ids.append(sid)
    where: dict[str, tuple[float, float]] = {}
    for k, sid in enumerate(blocked):
        # the centre dot is (500, 500); the footprint radius is 70 mm
        where[sid] = (460.0 + 15.0 * (k % 6), 490.0 + 20.0 * (k // 6))
    where.update(at or {})
    free = [sid for sid in ids if sid not in where]
    for k, sid in enumerate(free):
        where[sid] = (30.0 + 18.0 * k, 30.0)
    lines = [
        "[board]",
        f'name = "{name}"',
        "width_mm = 1000.0",
        "height_mm = 1000.0",
    ]
    for sid in ids:
        x, y = where[sid]
        if sid in PORT_PRODUCTS:
            berths = [[x - 4, y - 4], [x + 4, y - 4], [x - 4, y + 4], [x + 4, y + 4]]
            lines += [
                "[[ports]]",
                f'id = "{sid}"',
                f'product = "{PORT_PRODUCTS[sid]}"',
                f"x_mm = {x}",
                f"y_mm = {y}",
                f"berths = {berths}",
            ]
    for sid in ids:
        if sid not in PORT_PRODUCTS:
            x, y = where[sid]
            lines += ["[[spaces]]", f'id = "{sid}"', f"x_mm = {x}", f"y_mm = {y}"]
    for path in paths:
        quoted = ", ".join(f'"{s}"' for s in path)
        lines += ["[[paths]]", f"spaces = [{quoted}]"]
    lines += [
        "[grid]",
        "cols = 9",
        "rows = 9",
        "pitch_mm = 100.0",
        "origin_x_mm = 100.0",
        "origin_y_mm = 100.0",
        "centre = [4, 4]",
        "[cloud]",
        "footprint_radius_mm = 70.0",
        "capture_radius_mm = 18.0",
        "magnets = [{ radius_mm = 50.0, angle_deg = 0.0 }]",
        "[spinner]",
        'letters = ["A", "B", "C", "D", "E", "F", "G", "H"]',
        "numbers = [1, 2, 3, 4]",
        'directions = ["N", "E", "S", "W"]',
        "[markers]",
        'dictionary = "DICT_4X4_50"',
        "corners = [",
        "  { id = 0, x_mm = 20.0, y_mm = 20.0, size_mm = 30.0 },",
        "  { id = 1, x_mm = 980.0, y_mm = 20.0, size_mm = 30.0 },",
        "  { id = 2, x_mm = 980.0, y_mm = 980.0, size_mm = 30.0 },",
        "  { id = 3, x_mm = 20.0, y_mm = 980.0, size_mm = 30.0 },",
        "]",
        "cloud = { id = 10, size_mm = 40.0 }",
    ]
    return parse_board("\n".join(lines) + "\n", f"<{name}>")


ShipSpec = str | Mapping[str, Any]


def build_position(
    board: Board,
    players: int,
    ships: Mapping[str, ShipSpec],
    active: str,
    die: int | None = None,
) -> Game:
    """A game on `board` with exactly the listed ships placed; the others are out of the game.

    A ship is given as a space id, as "in-cloud" or "out", or as a table
    `{ at = SPACE, previous = PORT }`.
    """
    game = Game.new(players, board=board, first_player=active)
    for sid in game.ship_ids:
        spec = ships.get(sid, "out")
        previous: str | None = "HOME"
        if isinstance(spec, Mapping):
            previous = spec.get("previous", "HOME")
            spec = spec["at"]
        assert isinstance(spec, str)
        if spec == "out":
            game.set_ship(sid, None, status=ShipStatus.OUT)
        elif spec == "in-cloud":
            game.set_ship(sid, None, status=ShipStatus.IN_CLOUD)
        else:
            game.set_ship(sid, spec, previous)
    unknown = set(ships) - set(game.ship_ids)
    assert not unknown, f"no such ships: {unknown}"
    game.set_turn(active)
    if die is not None:
        game.set_die(die)
    return game


def with_cards(
    game: Game,
    hands: Mapping[str, Sequence[tuple[str, int]]] | None = None,
    piles: Mapping[str, Sequence[int]] | None = None,
    bonus_left: int | None = None,
) -> Game:
    """The same position with the given hands, piles and bonus cards (through the JSON state)."""
    data = to_dict(game)
    for color, cards in (hands or {}).items():
        data["hands"][color] = [list(c) for c in cards]
    for product, values in (piles or {}).items():
        data["piles"][product] = list(values)
    if bonus_left is not None:
        data["bonus_left"] = bonus_left
    return from_json(json.dumps(data), game.board)


@pytest.fixture
def cards() -> Callable[..., Game]:
    return with_cards


@pytest.fixture
def tiny_board() -> Callable[..., Board]:
    return build_board


@pytest.fixture
def position() -> Callable[..., Game]:
    return build_position


@pytest.fixture
def ring() -> Callable[..., Board]:
    """The ring board: HOME-A-B-C-SUGAR-D-E-OIL-F-G-BANANAS-H-I-LUMBER-J-K-HOME."""

    def make(blocked: Iterable[str] = ()) -> Board:
        return build_board(RING, blocked, name="ring")

    return make
