"""Computer seats at the table: the table rolls (or asks for the die), chooses, says and
shows the move, a person makes it, and the referee checks it like any other."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import ask, set_out, taken_moves

from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.controller.history import History
from bermuda_hw.controller.status import Mode, Suggestion
from bermuda_hw.rules.computer import TABLE_SEAT, ComputerPlayer
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move

from .conftest import Table

BOTH = {"blue": "best", "yellow": "easy"}
SEATS = tuple(BOTH.items())


def chosen(table: Table) -> Suggestion:
    table.run_until(lambda: table.controller.status.suggestion is not None, limit=400)
    suggestion = table.controller.status.suggestion
    assert suggestion is not None
    return suggestion


def seats_first_choice(make_table: Callable[..., Table]) -> tuple[Table, Suggestion, Game]:
    """Both seats the table's, the virtual die, seed 3: the board set out and the first
    seat's move chosen."""
    table = make_table(
        options=GameOptions(die="virtual", computer=SEATS), with_players=False, seed=3
    )
    set_out(table)
    suggestion = chosen(table)
    game = table.controller.game
    assert game is not None
    return table, suggestion, game


def make_it(table: Table, move: Move) -> None:
    """A person makes `move` on the board: the token, and any ship it bumps, set where the
    rules then have them."""
    game = table.controller.game
    assert game is not None
    before = game.ship_positions()
    after = game.copy()
    after.push(move)
    for sid, point in after.ship_positions().items():
        if before.get(sid) != point:
            table.world.remove(sid)
            table.world.place_ship(sid, *point)


def test_with_the_virtual_die_the_table_rolls_for_its_seat_and_names_its_choice(
    make_table: Callable[..., Table],
) -> None:
    table, suggestion, game = seats_first_choice(make_table)
    c = table.controller
    # no press: the table rolled its seat's die itself, with the game's own random source
    assert game.journal[-1] == {"roll": suggestion.die, "engine": True}
    assert game.die == suggestion.die == c.status.die
    # the move "best" makes with that die, seeded by the game and the turn
    expected = ComputerPlayer(
        "best" if game.active == "blue" else "easy", seed=f"3:{len(game.journal)}"
    )
    move = expected.choose(game)
    assert (suggestion.ship, suggestion.path) == (move.ship, move.walk)
    assert suggestion.color == game.active and suggestion.seq == len(game.journal)
    assert c.status.mode is Mode.READY
    assert c.status.message.startswith(
        f"{game.active}, {TABLE_SEAT}, rolls {suggestion.die}: "
        f"{move.ship} from {move.start} to {move.end}"
    )
    # nothing is journalled until a person makes the move on the board
    table.steps(30)
    assert taken_moves(c) == []
    make_it(table, move)
    table.run_until(lambda: taken_moves(c) == [str(move)], limit=200)
    assert c.status.suggestion is None or c.status.suggestion.seq > suggestion.seq


def test_a_different_legal_move_is_taken_as_made_and_said(
    make_table: Callable[..., Table],
) -> None:
    table, suggestion, game = seats_first_choice(make_table)
    c = table.controller
    other = next(
        m
        for m in game.legal_moves()
        if not m.is_pass
        and m.end != suggestion.end
        and not game.ships_at(m.end)
        and m.end not in game.board.ports
    )
    make_it(table, other)
    table.run_until(lambda: taken_moves(c) == [str(other)], limit=200)
    assert any(
        f"{suggestion.color} moved {other}, not the move {TABLE_SEAT} chose" in line
        for line in table.log
    )


def test_with_the_table_die_the_table_asks_for_it_and_takes_presses_or_the_page(
    make_table: Callable[..., Table],
) -> None:
    table = make_table(options=GameOptions(die="table", computer=SEATS), with_players=False)
    c = table.controller
    set_out(table)
    table.run_until(lambda: c.status.die_for is not None, limit=400)
    game = c.game
    assert game is not None
    color = game.active
    assert c.status.die_for == color and c.status.mode is Mode.READY
    assert f"{color} is {TABLE_SEAT}: roll the die for it" in c.status.message
    # waiting adds nothing: no die is taken while nobody tells it
    journal = list(game.journal)
    table.steps(60)
    assert game.journal == journal and c.status.suggestion is None
    # three presses of spin, taken once the button rests: a 3
    for _ in range(3):
        table.press()
    table.run_until(lambda: c.status.suggestion is not None, limit=200)
    assert game.journal[-1] == {"roll": 3, "engine": False}
    suggestion = c.status.suggestion
    assert suggestion is not None and suggestion.die == 3 and c.status.die_for is None
    make_it(table, Move(suggestion.ship, suggestion.path))
    # the next seat: its die told on the page
    table.run_until(lambda: c.status.die_for is not None, limit=400)
    for wrong in (7, 0, 3.0, True, "3"):
        with pytest.raises(ActionRefused) as info:
            ask(table, "die", {"value": wrong})
        assert info.value.status == 400, wrong
    asked = c.status.die_for
    assert ask(table, "die", {"value": 5}) == f"die 5 for {asked}"
    table.run_until(lambda: c.status.suggestion is not None, limit=50)
    assert game.journal[-1] == {"roll": 5, "engine": False}


def test_the_die_is_refused_when_the_table_asks_for_none(
    make_table: Callable[..., Table],
) -> None:
    table = make_table(options=GameOptions(die="table"), with_players=False)
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=400)
    with pytest.raises(ActionRefused, match="asks for no die") as info:
        ask(table, "die", {"value": 4})
    assert info.value.status == 409


def test_a_new_game_from_the_page_with_a_seat_that_does_not_play_is_refused(
    make_table: Callable[..., Table],
) -> None:
    table = make_table(with_players=False)
    old = table.controller.game_id
    with pytest.raises(ActionRefused, match="red does not play") as info:
        ask(table, "new-game", {"players": 2, "options": {"computer": {"red": "best"}}})
    assert info.value.status == 400
    with pytest.raises(ActionRefused, match="easy or best"):
        ask(table, "new-game", {"players": 2, "options": {"computer": {"blue": "hard"}}})
    assert table.controller.game_id == old
    ask(table, "new-game", {"players": 3, "options": {"computer": {"green": "easy"}}})
    game = table.controller.game
    assert game is not None and game.options.computer == (("green", "easy"),)
    # kept with the game: a restart resumes the seat
    stored = table.journal.stored(table.controller.game_id)
    assert stored.setup["options"]["computer"] == {"green": "easy"}


def test_undo_of_a_finished_game_forgets_its_history_row(
    make_table: Callable[..., Table],
) -> None:
    # a target of one dollar: the first card wins
    table = make_table(options=GameOptions(target_usd=1, die="virtual", computer=SEATS))
    c = table.controller
    table.run_until(lambda: c.status.mode is Mode.OVER, limit=3000)
    kept = History(table.journal).games()
    assert [g.game_id for g in kept] == [c.game_id]
    ask(table, "undo")
    assert History(table.journal).games() == []
    # finished again: kept again
    table.run_until(lambda: c.status.mode is Mode.OVER, limit=3000)
    again = History(table.journal).games()
    assert [g.game_id for g in again] == [c.game_id]
    assert dict(again[0].computer) == BOTH
    assert again[0].names["blue"] == "table (best)"


def test_undo_takes_back_the_persons_move_not_only_the_roll_the_table_made_after_it(
    make_table: Callable[..., Table],
) -> None:
    # blue is the table's seat; yellow is a person (moved by hand here)
    table = make_table(
        options=GameOptions(die="virtual", computer=(("blue", "best"),)), with_players=False
    )
    c = table.controller
    set_out(table)
    table.run_until(lambda: c.status.mode is Mode.READY, limit=400)
    game = c.game
    assert game is not None
    if game.active == "blue":  # the table's seat first: its move made as it says
        suggestion = chosen(table)
        make_it(table, Move(suggestion.ship, suggestion.path))
        table.run_until(lambda: c.game is not None and c.game.active == "yellow", limit=200)
        table.run_until(lambda: c.status.mode is Mode.READY, limit=200)
    game = c.game
    assert game is not None and game.active == "yellow"
    table.press()  # yellow rolls
    table.run_until(lambda: game.die is not None, limit=50)
    before = list(game.journal)
    move = next(m for m in game.legal_moves() if not m.is_pass)
    make_it(table, move)
    # the move is taken, and at once the table rolls for blue and names its move
    table.run_until(lambda: c.status.suggestion is not None, limit=200)
    assert c.game is not None and c.game.journal[-1].get("engine") is True
    reply = ask(table, "undo")
    assert str(move) in reply
    assert c.game is not None and c.game.journal == before[:-1]  # yellow's roll went too
    assert c.status.suggestion is None and c.status.mode is Mode.SETUP
    # the board put back as it was: yellow is to move again, and no roll is made for it
    set_out(table)
    table.run_until(lambda: c.status.mode is Mode.READY, limit=200)
    table.steps(20)
    assert c.game.active == "yellow" and c.game.journal == before[:-1]
