"""The page's actions checked before the table carries them out (controller.actions): malformed
requests refused with a 400 and nothing changed, and what an undo takes back."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bermuda_hw.controller.actions import (
    answer_request,
    die_request,
    hints_request,
    new_game_request,
    undo_count,
)
from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game, GameOptions, Phase

COLORS = ("yellow", "blue", "green", "red")

JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
)


def refused(call: Any, *args: Any) -> ActionRefused:
    with pytest.raises(ActionRefused) as info:
        call(*args)
    return info.value


def test_a_new_game_keeps_the_players_and_the_die_of_the_game_before() -> None:
    before = GameOptions(die="virtual")
    asked = new_game_request({}, COLORS, 3, before)
    assert (asked.players, asked.seed, asked.options.die) == (3, None, "virtual")
    asked = new_game_request(
        {"players": 2, "seed": 7, "options": {"die": "table", "computer": {"blue": "easy"}}},
        COLORS,
        3,
        before,
    )
    assert (asked.players, asked.seed, asked.options.die) == (2, 7, "table")
    assert asked.options.computer == (("blue", "easy"),)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"players": 5}, "players must be a whole number from 2 to 4"),
        ({"players": 2.0}, "players must be"),
        ({"players": True}, "players must be"),
        ({"seed": -1}, "seed must be a whole number, at least 0"),
        ({"seed": "7"}, "seed must be"),
        ({"options": [1]}, "options must be an object"),
        ({"options": {"die": "loaded"}}, "options:"),
        # what a page's form sends for a field that is no number (JSON's null for NaN)
        ({"options": {"capture_probability": None}}, "capture_probability must be a number"),
        ({"options": {"capture_probability": True}}, "capture_probability must be a number"),
        ({"options": {"target_usd": None}}, "target_usd must be a number of dollars"),
        ({"options": {"target_usd": "350000"}}, "target_usd must be a number"),
        ({"options": {"digital_ledger": "yes"}}, "digital_ledger must be true or false"),
        ({"players": 2, "options": {"computer": {"green": "best"}}}, "green does not play"),
    ],
)
def test_a_malformed_new_game_is_a_400(args: dict[str, Any], says: str) -> None:
    error = refused(new_game_request, args, COLORS, 4, None)
    assert error.status == 400 and says in str(error)


def test_hints_for_a_player_who_plays() -> None:
    assert hints_request({"color": "blue", "on": True}, COLORS[:2]) == ("blue", True)
    assert hints_request({"color": "blue", "on": False}, COLORS[:2]) == ("blue", False)
    for args in (
        {"color": "blue", "on": 1},
        {"color": "blue"},
        {"color": "blue", "on": True, "x": 1},
        {"color": "red", "on": True},
        {"color": ["blue"], "on": True},
    ):
        assert refused(hints_request, args, COLORS[:2]).status == 400


@given(JSON_VALUES)
def test_a_die_is_a_whole_number_from_1_to_6(value: object) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6:
        assert die_request({"value": value}) == value
    else:
        assert refused(die_request, {"value": value}).status == 400


@given(JSON_VALUES)
def test_an_answer_is_an_option_by_its_text_or_number(option: object) -> None:
    options = ("yellow-1 to S5", "none of these", "not yet")
    whole = isinstance(option, int) and not isinstance(option, bool)
    if whole and 1 <= option <= 3:  # type: ignore[operator]
        assert answer_request({"option": option}, options) == option
    else:
        assert refused(answer_request, {"option": option}, options).status == 400
    assert answer_request({"option": "not yet"}, options) == 3


def _moved(game: Game) -> None:
    """The active player rolls and makes its first legal move."""
    die = game.roll_die()
    game.push(game.legal_moves(die)[0])


def test_an_undo_takes_back_a_move_with_its_roll(classic_board: Board) -> None:
    game = Game.new(2, seed=5, board=classic_board)
    assert "nothing to undo" in str(refused(undo_count, game))
    _moved(game)
    assert undo_count(game) == 2
    game.roll_die()
    assert undo_count(game) == 1  # a roll alone


def test_an_undo_never_takes_back_a_spin(classic_board: Board) -> None:
    game = Game.new(2, seed=5, board=classic_board)
    while game.phase is Phase.SHIPS:
        _moved(game)
    game.cloud_phase()
    assert "a spin cannot be taken back" in str(refused(undo_count, game))


def test_an_undo_takes_back_what_the_table_rolled_for_its_seat_since(
    classic_board: Board,
) -> None:
    # yellow (the second to move) is the table's seat: after blue's move, the table rolled
    # for yellow at once
    options = GameOptions(die="virtual", computer=(("yellow", "best"),))
    game = Game.new(2, seed=5, board=classic_board, options=options)
    assert game.players == ("blue", "yellow") and game.active == "blue"
    _moved(game)  # blue: roll and move
    assert game.active == "yellow"
    game.roll_die()  # the table's own roll for yellow
    assert undo_count(game) == 3
    # a person's move for the seat is taken back on its own, with its roll
    game.push(game.legal_moves(game.die)[0])
    assert undo_count(game) == 2
