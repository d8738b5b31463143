"""A dock and a bump of an own ship back into the same port leave the same colours on every
place: the rendered table tells them apart by the tokens, with no question asked."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import put_in_port, set_out_ready, set_out_seen, taken_moves

from bermuda_hw.controller.referee import same_board_bumps
from bermuda_hw.controller.status import Mode
from bermuda_hw.geometry import heading_vector
from bermuda_hw.rules.board import Point
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import MAX_DIE, Move

MakeTable = Callable[..., Any]

SET_DOWN_MM = 6.0  # a token set down beside another stands this far across the space


def next_roll(game: Game) -> int:
    """The die the virtual die's next press rolls (the game's seeded random source)."""
    rng = random.Random()
    rng.setstate(game.rng.getstate())
    return rng.randint(1, MAX_DIE)


def beside(table: Any, space: str, side: float = 1.0) -> Point:
    """Where a token set down beside the one on a space stands."""
    s = table.board.spaces[space]
    ux, uy = heading_vector(s.heading_deg + 90.0)
    return (s.x_mm + side * SET_DOWN_MM * ux, s.y_mm + side * SET_DOWN_MM * uy)


def dock_or_bump(table: Any, die: int) -> tuple[Move, Move, str, str]:
    """The active player's ship A beside a port P it may enter, their ship B (from P) where
    the die takes A: A docks at P, or lands on B, which goes back to P, and both leave the
    same colours everywhere. Returns (the dock, the bump, B, P), the tokens set out."""
    c = table.controller
    game: Game = c.game
    board = table.board
    hidden = set_out_ready(table)
    color = game.active
    a, b = (s.id for s in game.ships(color)[:2])
    for port in sorted(board.ports):
        for x in sorted(board.neighbours(port) - set(board.ports)):
            if x in hidden or game.ships_at(x):
                continue
            game.set_ship(a, x, previous_port=port)
            for bump in [m for m in game.legal_moves(die) if m.ship == a]:
                z = bump.end
                if z is None or z in board.ports or z in hidden or game.ships_at(z):
                    continue
                game.set_ship(b, z, previous_port=port)
                game.set_turn(color)
                if z not in same_board_bumps(game, die):
                    game.set_ship(b, None)
                    continue
                dock = next(m for m in game.legal_moves(die) if m.ship == a and m.end == port)
                assert c._commit()
                set_out_seen(table)
                return dock, bump, b, port
    pytest.fail(f"no dock beside a bump with a {die} and the cloud at its start")


def rolled(table: Any) -> tuple[Move, Move, str, str]:
    """With the virtual die: the position for the die the next press rolls, and the press."""
    c = table.controller
    die = next_roll(c.game)
    found = dock_or_bump(table, die)
    table.press()
    table.run_until(lambda: c.status.die is not None, limit=20)
    assert c.status.die == die
    return found


def answer_either(table: Any, dock: Move, bump: Move, made: Move, before: int) -> None:
    """The table is asked which of the two moves was made, no move taken since the journal
    held `before`; the answer takes the move made."""
    c = table.controller
    table.run_until(lambda: table.mode() is Mode.ASK, limit=200)
    question = c.status.question
    assert question is not None and len(taken_moves(c)) == before
    assert {str(dock), str(bump)} <= set(question.options)
    c.answer(question.options.index(str(made)) + 1)
    table.run_until(lambda: len(taken_moves(c)) > before, limit=80)
    assert taken_moves(c)[-1] == str(made)


def asked(table: Any) -> bool:
    return any("which move" in line or "did you roll" in line for line in table.log)


def test_told_to_leave_the_ship_landed_on_the_bump_shows_first(make_table: MakeTable) -> None:
    """The roll names the space: a player who lands there leaves both ships; the board shows
    the bump whole (a second token beside the first) and it is taken at once (the bumped
    ship then named), no question."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    _dock, bump, b, port = rolled(table)
    assert c.status.hold == (bump.end,)
    assert f"if you land on your ship at {bump.end}, set yours down beside it" in c.status.message
    before = len(taken_moves(c))
    assert bump.end is not None
    table.world.place_ship(bump.ship, *beside(table, bump.end))
    table.run_until(lambda: len(taken_moves(c)) > before, limit=200)
    assert taken_moves(c)[-1] == str(bump) and not c.status.putback
    assert f"put {b} back in {port}" in "\n".join(table.log)
    put_in_port(table, b, port)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert c.game.ship(b).location == port and c.game.ship(bump.ship).location == bump.end
    assert not asked(table) and c.status.hold == ()


def test_told_to_leave_both_the_dock_is_still_asked(make_table: MakeTable) -> None:
    """The roll named the space; the dock leaves the ship there untouched. Most players told
    to leave both there would have (`belief.FOLLOWED`), but one who put their own ship back
    at once may have lifted the mover instead and left that very board: the dock is asked,
    never taken unasked; the answer takes it."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    dock, bump, b, port = rolled(table)
    before = len(taken_moves(c))
    put_in_port(table, dock.ship, port)
    answer_either(table, dock, bump, dock, before)
    assert c.game.ship(dock.ship).location == port and c.game.ship(b).location == bump.end


def test_the_same_board_after_a_dock_is_asked_with_the_table_die(make_table: MakeTable) -> None:
    """With the table's die nobody was told to leave a ship landed on: the dock leaves the
    board a bump with its ship back at once would, so it is asked, never taken either way
    unasked; the answer takes the dock."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="table"))
    c = table.controller
    dock, bump, _b, port = dock_or_bump(table, 1)
    before = len(taken_moves(c))
    put_in_port(table, dock.ship, port)
    answer_either(table, dock, bump, dock, before)
    assert c.game.ship(dock.ship).location == port


def test_a_mover_set_down_on_the_ship_it_lands_on_is_asked_to_show_it(
    make_table: MakeTable,
) -> None:
    """The mover set down squarely on the ship landed on (no second token shows): the bump
    is not shown whole, but the token read there is not the one that stood there (a
    millimetre off it): the table is asked to put a bumped ship back, and the board with
    the bumped ship back is then a question, never the dock unasked."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    dock, bump, b, port = rolled(table)
    assert bump.end is not None
    x_mm, y_mm = table.board.spaces[bump.end].position
    table.world.place_ship(bump.ship, x_mm + 1.0, y_mm)
    table.run_until(lambda: "put it back in its port" in c.status.message, limit=80)
    assert c.status.question is None
    before = len(taken_moves(c))
    put_in_port(table, b, port)
    table.run_until(lambda: table.mode() is Mode.ASK or len(taken_moves(c)) > before, limit=200)
    assert len(taken_moves(c)) == before
    question = c.status.question
    assert question is not None and set(question.options[:-2]) == {str(dock), str(bump)}


@pytest.mark.parametrize("die", ["table", "virtual"])
def test_a_bump_whose_ship_went_back_at_once_is_asked(make_table: MakeTable, die: str) -> None:
    """The player does not wait: the bumped ship back at once, the mover beside where it
    stood. A token read elsewhere proves no bump (a nudge before a dock reads the same), so
    the table is asked, in both die modes; the answer takes the bump."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die=die))
    c = table.controller
    if die == "virtual":
        dock, bump, b, port = rolled(table)
    else:
        dock, bump, b, port = dock_or_bump(table, 1)
    assert bump.end is not None
    before = len(taken_moves(c))
    table.world.place_ship(bump.ship, *beside(table, bump.end))
    put_in_port(table, b, port)
    answer_either(table, dock, bump, bump, before)
