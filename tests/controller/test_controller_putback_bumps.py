"""Two moves that both bump an own ship, seen while the bumped ship is still on its landing
space: once the bumped ship is back in its port the boards differ. A mover set down under
the ship it bumped hardly shows, and to the tokens' counts such a board reads as a ship
still in a hand (`belief.HIDDEN`): the player is told to finish the move and to put back
any ship it lands on, no move named, and nobody is asked which move was made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import put_in_port, set_down_under, set_out, set_out_ready, taken_moves

from bermuda_hw.controller.referee import putback_tells
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move

MakeTable = Callable[..., Any]


def _two_bumps(
    table: Any, *, own: bool = False, from_port: bool = False
) -> tuple[Move, Move, str, str]:
    """The active player's ship A where the die takes it onto ship B of the next player or,
    the other way, onto their own ship D, both in plain view (with `own`, B is theirs too).
    With `from_port` A starts in a port and D's previous port is that port; B's previous
    port is always another one. Returns (the bump onto B, the bump onto D, B, D) with the
    die rolled."""
    c = table.controller
    game: Game = c.game
    board = table.board
    hidden = set_out_ready(table)
    color = game.active
    other = game.players[(game.players.index(color) + 1) % len(game.players)]
    a, d = (s.id for s in game.ships(color)[:2])
    b = game.ships(color)[2].id if own else game.ships(other)[0].id
    paths = [s for s in sorted(board.spaces) if s not in board.ports and s not in hidden]
    starts = sorted(board.ports) if from_port else paths
    for die in range(1, 7):
        for start in starts:
            if start in hidden or (not from_port and game.ships_at(start)):
                continue
            game.set_ship(a, start)
            ends = sorted(
                {
                    m.end
                    for m in game.legal_moves(die)
                    if m.ship == a and m.end in paths and not game.ships_at(m.end)
                }
            )
            if len(ends) < 2:
                continue
            x, y = ends[:2]
            port_d = start if from_port else sorted(board.ports)[0]
            port_b = next(p for p in sorted(board.ports) if p not in (start, port_d))
            game.set_ship(b, x, previous_port=port_b)
            game.set_ship(d, y, previous_port=port_d)
            game.set_turn(color)
            game.set_die(die)
            onto_b = [m for m in game.legal_moves(die) if m.ship == a and m.end == x]
            onto_d = [m for m in game.legal_moves(die) if m.ship == a and m.end == y]
            if not (onto_b and onto_d):
                continue
            assert c._commit()
            set_out(table)
            table.run_until(lambda: table.mode() is Mode.READY, limit=80)
            return onto_b[0], onto_d[0], b, d
    pytest.fail("no such position with the cloud at its start")


@pytest.mark.parametrize("onto", ["other", "own"])
def test_the_ship_put_back_tells_which_bump_it_was(make_table: MakeTable, onto: str) -> None:
    """The mover set down under the ship it bumps: the table is told to finish the move and
    to put back a ship it lands on, naming neither move; the bumped ship back in its port
    takes that move, no question asked."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    onto_b, onto_d, b, d = _two_bumps(table)
    move, bumped = (onto_b, b) if onto == "other" else (onto_d, d)
    port = game.ship(bumped).previous_port
    before = len(taken_moves(c))
    set_down_under(table, move, bumped)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    assert c.status.question is None and len(taken_moves(c)) == before
    assert "if it lands on a ship, put that ship back in its port" in c.status.message
    assert str(onto_b) not in c.status.message and str(onto_d) not in c.status.message
    table.steps(3)
    put_in_port(table, bumped, port)
    table.run_until(lambda: len(taken_moves(c)) > before, limit=200)
    assert taken_moves(c)[-1] == str(move)
    assert c.game.ship(move.ship).location == move.end
    assert c.game.ship(bumped).location == port
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert not c.status.putback
    assert not any("which move" in line or "did you roll" in line for line in table.log)


def test_own_ships_that_a_wrong_port_could_swap_are_asked_about_at_once(
    make_table: MakeTable,
) -> None:
    """Both moves bump the player's own ships: a ship put back in the wrong port would
    make the board show the other move exactly, so no put-back is asked for; the question
    comes straight away."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    onto_b, onto_d, b, _d = _two_bumps(table, own=True)
    set_down_under(table, onto_b, b)
    table.run_until(lambda: table.mode() is Mode.ASK or c.status.putback, limit=80)
    assert not c.status.putback
    question = c.status.question
    assert question is not None and set(question.options[:-2]) == {str(onto_b), str(onto_d)}
    assert not putback_tells(c.game, c._turn.tied)


def test_the_move_taken_back_ends_the_request(make_table: MakeTable) -> None:
    """The player takes the mover back to where it was: no move is taken, and it is still
    their turn with the same die."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    onto_b, _onto_d, b, _d = _two_bumps(table)
    start = game.ship(onto_b.ship).location
    assert start is not None
    before, active, die = len(taken_moves(c)), game.active, game.die
    set_down_under(table, onto_b, b)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    table.world.remove(onto_b.ship)
    table.world.place_ship(onto_b.ship, *table.board.spaces[start].position)
    table.run_until(lambda: table.mode() is Mode.READY, limit=200)
    assert not c.status.putback and c.status.question is None
    assert len(taken_moves(c)) == before and game.active == active and game.die == die


def test_a_ship_put_back_into_the_port_its_mover_left_is_asked_about(make_table: MakeTable) -> None:
    """The mover left a port and the own ship it bumped goes back into that port: the board
    then reads exactly as before the move, which the move taken back would show too; the
    table is asked which move was made."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    onto_b, onto_d, _b, d = _two_bumps(table, from_port=True)
    port = game.ship(d).previous_port
    assert port == game.ship(onto_d.ship).location
    before = len(taken_moves(c))
    set_down_under(table, onto_d, d)
    table.run_until(lambda: c.status.putback, limit=80)
    table.steps(3)
    put_in_port(table, d, port)
    table.run_until(lambda: table.mode() is Mode.ASK, limit=200)
    question = c.status.question
    assert question is not None and set(question.options[:-2]) == {str(onto_b), str(onto_d)}
    assert len(taken_moves(c)) == before and not c.status.putback
