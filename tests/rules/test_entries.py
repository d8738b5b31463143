"""The journal's typed entries: what the rules write passes the check unchanged and reads back
from JSON as it was; an entry of no known kind, or with a field missing or of another type,
is refused with the entry and the field named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bermuda_hw.errors import StateError
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.entries import entry_from_json
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.play import simulate_game
from bermuda_hw.rules.record import from_json, to_json

BOARD = load_board()


def _every_kind() -> Game:
    """A simulated game, then a hand edit of each kind and a move the camera did not see."""
    game = simulate_game(players=3, seed=4).game.copy()
    fresh = Game.new(2, seed=3, board=BOARD)
    fresh.set_die(2)
    fresh.push(fresh.legal_moves()[0], provisional=("S1",))
    ship = fresh.ship(fresh.ship_ids[0])
    fresh.set_ship(ship.id, ship.location, ship.previous_port, status=ship.status)
    fresh.set_cloud(fresh.pose)
    fresh.set_turn(fresh.active, Phase.SHIPS)
    game.journal = game.journal + fresh.journal  # (only the entries are looked at)
    return game


def test_every_entry_the_rules_write_passes_unchanged_and_reads_back_from_json() -> None:
    game = _every_kind()
    kinds = set()
    for entry in game.journal:
        assert entry_from_json(entry) is entry
        read = json.loads(json.dumps(entry, sort_keys=True))
        assert entry_from_json(read) == entry
        kinds |= set(entry) & {"roll", "move", "cloud", "set-ship", "set-cloud", "set-turn"}
    assert kinds == {"roll", "move", "cloud", "set-ship", "set-cloud", "set-turn"}


def test_a_saved_game_keeps_its_entries() -> None:
    game = simulate_game(players=2, seed=9).game
    assert from_json(to_json(game), BOARD).journal == game.journal


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"dice": 3}, "unknown journal entry"),
        ([1, 2], "not an object"),
        ({"roll": 3}, "no 'engine'"),
        ({"roll": True, "engine": True}, "'roll' is not int"),
        ({"roll": "3", "engine": False}, "'roll' is not int"),
        ({"move": 3}, "'move' is not str"),
        ({"move": "x", "provisional": "S1"}, "'provisional' is not list"),
        ({"cloud": "A 2", "engine": True, "captured": [], "decided": 1}, "'decided' is not bool"),
        (
            {"set-ship": "red-1", "location": 4, "previous-port": None, "status": "board"},
            "str or None",
        ),
        ({"set-cloud": [4, 4]}, "not \\[col, row, letter\\]"),
        ({"set-cloud": [4, "4", "A"]}, "not \\[col, row, letter\\]"),
        ({"set-turn": "red"}, "no 'phase'"),
    ],
)
def test_an_entry_of_the_wrong_shape_is_refused(entry: Any, problem: str) -> None:
    with pytest.raises(StateError, match=problem):
        entry_from_json(entry)


def test_a_saved_game_with_a_damaged_entry_is_refused() -> None:
    game = Game.new(2, seed=1, board=BOARD)
    game.roll_die()
    data = json.loads(to_json(game))
    data["journal"][0]["roll"] = "four"
    with pytest.raises(StateError, match="'roll' is not int"):
        from_json(json.dumps(data), BOARD)
