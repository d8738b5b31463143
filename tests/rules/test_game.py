"""The game model: setup, turns, phases, refusals, and the walk table on the classic board."""

from __future__ import annotations

import pytest

from bermuda_hw.errors import IllegalMoveError, RulesError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cards import BONUS_CARDS, PRODUCT_CARDS_USD
from bermuda_hw.rules.events import Docked, GameOver, Moved
from bermuda_hw.rules.game import Game, GameOptions, Phase, ShipStatus
from bermuda_hw.rules.moves import Move, walk_table
from bermuda_hw.rules.record import to_json


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_one_ship_in_each_product_port(classic_board: Board, players: int) -> None:
    game = Game.new(players, seed=4, board=classic_board)
    assert game.players == ("blue", "yellow", "green", "red")[:players]
    expected = {"blue", "yellow", "green", "red"}
    assert len(game.ship_ids) == 4 * players
    for color in game.players:
        ships = game.ships(color)
        assert [s.id for s in ships] == [f"{color}-{n}" for n in (1, 2, 3, 4)]
        assert [s.location for s in ships] == ["SUGAR", "OIL", "BANANAS", "LUMBER"]
        assert all(s.previous_port == s.location for s in ships)
        assert all(s.status is ShipStatus.ON_BOARD for s in ships)
        assert color in expected
    assert game.ships_at("HOME") == []
    assert game.port_capacity() == players
    assert game.totals() == dict.fromkeys(game.players, 0)
    assert game.bonus_left == BONUS_CARDS
    assert game.phase is Phase.SHIPS and game.round == 1 and game.die is None


@pytest.mark.parametrize("players", [0, 1, 5])
def test_two_to_four_players(classic_board: Board, players: int) -> None:
    with pytest.raises(RulesError, match="2 to 4"):
        Game.new(players, board=classic_board)


def test_same_seed_same_game(classic_board: Board) -> None:
    a = Game.new(4, seed=99, board=classic_board, options=GameOptions(digital_ledger=True))
    b = Game.new(4, seed=99, board=classic_board, options=GameOptions(digital_ledger=True))
    assert to_json(a) == to_json(b)
    assert a.roll_die() == b.roll_die()


def test_roll_before_moving_and_phases_are_enforced(classic_board: Board) -> None:
    game = Game.new(2, seed=1, board=classic_board)
    with pytest.raises(RulesError, match="not rolled"):
        game.push(Move.pass_turn(game.active))
    with pytest.raises(RulesError, match="1 to 6"):
        game.set_die(7)
    with pytest.raises(RulesError, match="turn to move a ship"):
        game.cloud_phase()
    for _ in range(2):
        game.roll_die()
        game.push(game.legal_moves()[0])
    assert game.phase is Phase.CLOUD
    assert game.legal_moves(3) == []
    with pytest.raises(RulesError, match="the cloud moves next"):
        game.roll_die()
    game.cloud_phase()
    assert game.phase is Phase.SHIPS and game.round == 2 and game.turn == 0


def test_illegal_moves_say_why(classic_board: Board) -> None:
    game = Game.new(2, seed=1, board=classic_board, first_player="blue")
    game.set_die(2)
    cases = {
        "yellow-1 SUGAR-S26-S27": "not blue's ship",
        "blue-9 SUGAR-S26-S27": "no ship blue-9",
        "blue-1 OIL-S12-S13": "blue-1 is at SUGAR",
        "blue-1 SUGAR-S01-S02": "not next to each other",
        "blue-1 SUGAR-S26-S99": "no space S99",
        "blue-1 SUGAR-S26-S27-S28": "die shows 2",
        "yellow pass": "blue's turn",
    }
    for text, why in cases.items():
        with pytest.raises(IllegalMoveError, match=why):
            game.push(text)
    assert game.active == "blue" and game.die == 2  # nothing changed


def test_push_returns_what_happened(classic_board: Board) -> None:
    game = Game.new(2, seed=1, board=classic_board, first_player="blue")
    game.set_die(3)
    move = Move.parse("blue-4 LUMBER-S07-S08-S09")
    assert move in game.legal_moves()
    assert game.push(move) == [Moved(move, 3)]
    game.set_die(1)
    events = game.push("yellow-2 OIL-S11")
    assert [str(e) for e in events] == ["yellow-2 OIL-S11"]
    game.cloud_phase("A 1 N", capture=())
    game.set_die(4)
    events = game.push("blue-4 S09-S10-S11-OIL")
    assert Docked("blue-4", "OIL") in events
    assert game.totals()["blue"] == PRODUCT_CARDS_USD["oil"][0]
    assert not any(isinstance(e, GameOver) for e in events)


def test_walk_table_on_the_classic_board(classic_board: Board) -> None:
    table = walk_table(classic_board)
    assert walk_table(classic_board) is table
    full, short = table.moves("HOME", 1, frozenset(), 0)
    assert sorted(w[-1] for w in full) == ["S01", "S30", "S31"]
    assert short == ()
    # the junction S34: HOME-S31-S32-S33-S34-S35-S36-S37-OIL and S34-S38-S39-S40-S41-BANANAS
    full, _ = table.moves("S34", 3, frozenset(), 0)
    assert sorted(full) == [
        ("S34", "S33", "S32", "S31"),
        ("S34", "S35", "S36", "S37"),
        ("S34", "S38", "S39", "S40"),
    ]
    full, _ = table.moves("S34", 4, frozenset(), 0)
    assert {w[-1] for w in full} == {"HOME", "OIL", "S41"}
    # OIL full for this player, S38 under the cloud
    oil = table.port_bit["OIL"]
    full, short = table.moves("S34", 4, frozenset({"S38"}), oil)
    assert full == (("S34", "S33", "S32", "S31", "HOME"),)
    assert set(short) == {("S34", "S35", "S36", "S37")}
