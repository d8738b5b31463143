"""The die option: who rolls, checked at setup and kept with the game's record."""

from __future__ import annotations

import pytest

from bermuda_hw.errors import RulesError
from bermuda_hw.rules.game import Game, GameOptions


def test_die_is_table_or_virtual() -> None:
    assert GameOptions().die == "table"
    assert GameOptions(die="virtual").die == "virtual"
    with pytest.raises(RulesError, match="die must be one of table, virtual"):
        GameOptions(die="dice")


def test_the_die_mode_is_journalled_with_the_game() -> None:
    game = Game.new(2, seed=3, options=GameOptions(die="virtual"))
    game.roll_die()
    game.push(game.legal_moves()[0])
    again = Game.replay(game.record())
    assert again.options.die == "virtual"
    assert again.to_dict() == game.to_dict()
    # a record made before the option existed replays with the default
    old = game.record()
    del old["setup"]["options"]["die"]
    assert Game.replay(old).options.die == "table"


def test_a_provisional_note_stays_with_its_move() -> None:
    game = Game.new(2, seed=3)
    game.set_die(2)
    game.push(game.legal_moves()[0])
    game.journal[-1] = {**game.journal[-1], "provisional": ["S35"]}
    again = Game.replay(game.record())
    assert again.journal == game.journal
