"""The die option: who rolls, checked at setup and kept with the game's record."""

from __future__ import annotations

import pytest

from bermuda_hw.errors import RulesError
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.rules.record import record as game_record
from bermuda_hw.rules.record import replay, to_dict


def test_die_is_table_or_virtual() -> None:
    assert GameOptions().die == "table"
    assert GameOptions(die="virtual").die == "virtual"
    with pytest.raises(RulesError, match="die must be one of table, virtual"):
        GameOptions(die="dice")


def test_the_die_mode_is_journalled_with_the_game() -> None:
    game = Game.new(2, seed=3, options=GameOptions(die="virtual"))
    game.roll_die()
    game.push(game.legal_moves()[0])
    again = replay(game_record(game))
    assert again.options.die == "virtual"
    assert to_dict(again) == to_dict(game)
    # a record made before the option existed replays with the default
    old = game_record(game)
    del old["setup"]["options"]["die"]
    assert replay(old).options.die == "table"


def test_a_provisional_note_stays_with_its_move() -> None:
    game = Game.new(2, seed=3)
    game.set_die(2)
    game.push(game.legal_moves()[0], provisional=["S35"])
    assert game.journal[-1]["provisional"] == ["S35"]
    while game.phase is not Phase.CLOUD:
        game.set_die(1)
        game.push(game.legal_moves()[0])
    game.cloud_phase(None, capture=(), provisional=("S20", "S21"))
    assert game.journal[-1]["provisional"] == ["S20", "S21"]
    again = replay(game_record(game))
    assert again.journal == game.journal
    # without a note the entries are as before
    plain = Game.new(2, seed=3)
    plain.set_die(2)
    plain.push(plain.legal_moves()[0])
    assert set(plain.journal[-1]) == {"move"}
