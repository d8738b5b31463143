"""Two moves that both bump an own ship, seen while the bumped ship is still on its landing
space: the boards are the same (the camera sees one ship per place), but once the bumped
ship is back in its port they differ. The table is asked to put it back before anyone is
asked which move was made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import set_out

from bermuda_hw.controller.daemon import PUTBACK_WAIT_S
from bermuda_hw.controller.referee import back_boards
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move

MakeTable = Callable[..., Any]


def _two_bumps(table: Any, *, from_port: bool, same_port: bool = False
               ) -> tuple[Move, Move, str, str]:
    """The active player's ship A where the die takes it onto their own ship B or, the
    other way, onto their own ship C, both in plain view; B's previous port is A's port
    (when A starts in one and `from_port`), C's another one (or B's, with `same_port`).
    Returns (the bump onto B, the bump onto C, B, C) with the die rolled."""
    c = table.controller
    game: Game = c.game
    board = table.board
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    observation = c.last_observation
    assert observation is not None
    hidden = observation.hidden_spaces
    color = game.active
    a, b, d = (s.id for s in game.ships(color)[:3])
    paths = [s for s in sorted(board.spaces) if s not in board.ports and s not in hidden]
    starts = sorted(board.ports) if from_port else paths
    for die in range(1, 7):
        for start in starts:
            if start in hidden or (not from_port and game.ships_at(start)):
                continue
            game.set_ship(a, start)
            ends = sorted({m.end for m in game.legal_moves(die) if m.ship == a
                           and m.end in paths and not game.ships_at(m.end)})
            if len(ends) < 2:
                continue
            x, y = ends[:2]
            port_b = start if from_port else sorted(board.ports)[0]
            port_d = port_b if same_port else next(p for p in sorted(board.ports)
                                                   if p != port_b)
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


def _set_down_beside(table: Any, move: Move) -> None:
    """The mover set down beside the ship on its landing space, which stays there for now."""
    x_mm, y_mm = table.board.spaces[move.end].position
    table.world.remove(move.ship)
    table.world.place_ship(move.ship, x_mm + 6.0, y_mm)


def _put_in_port(table: Any, ship: str, port: str) -> None:
    table.world.remove(ship)
    free = next(p for p in table.board.ports[port].berths
                if all(abs(p[0] - q[0]) + abs(p[1] - q[1]) > 4
                       for q in table.world.ship_positions().values()))
    table.world.place_ship(ship, *free)


def _taken(c: Any) -> list[str]:
    return [str(e["move"]) for e in c.game.journal if "move" in e]


@pytest.mark.parametrize("from_port", [False, True])
def test_the_ship_put_back_tells_which_bump_it_was(make_table: MakeTable,
                                                  from_port: bool) -> None:
    """The bumped ship goes back to its port: that bump is taken, no question asked. With
    the mover leaving the very port the bumped ship goes back to, the board then reads
    exactly as before the move, and it is still that bump, not "no change"."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    onto_b, onto_d, b, _d = _two_bumps(table, from_port=from_port)
    port = game.ship(b).previous_port
    before = len(_taken(c))
    _set_down_beside(table, onto_b)
    table.run_until(lambda: c.status.putback, limit=80)
    assert table.mode() is Mode.FIX and c.status.question is None
    assert "if your move bumped a ship, put it back" in c.status.message
    assert str(onto_b) not in c.status.message and str(onto_d) not in c.status.message
    asked = c.clock.monotonic()
    table.steps(3)
    _put_in_port(table, b, port)
    table.run_until(lambda: len(_taken(c)) > before, limit=200)
    assert _taken(c)[-1] == str(onto_b)
    assert c.clock.monotonic() - asked < PUTBACK_WAIT_S
    assert c.game.ship(onto_b.ship).location == onto_b.end
    assert c.game.ship(b).location == port
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert not c.status.putback
    assert not any("which move" in line or "did you roll" in line for line in table.log)


def test_a_board_left_as_it_is_is_asked_about(make_table: MakeTable) -> None:
    """Nobody puts the bumped ship back: once the board has stayed as it is for the wait,
    the table is asked which of the two moves was made."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    onto_b, onto_d, _b, _d = _two_bumps(table, from_port=False)
    before = len(_taken(c))
    _set_down_beside(table, onto_b)
    table.run_until(lambda: c.status.putback, limit=80)
    asked = c.clock.monotonic()
    table.run_until(lambda: table.mode() is Mode.ASK, limit=400)
    assert c.clock.monotonic() - asked >= PUTBACK_WAIT_S
    assert not c.status.putback and len(_taken(c)) == before
    question = c.status.question
    assert question is not None and "which move" in question.text
    assert set(question.options) == {str(onto_b), str(onto_d)}
    c.answer(question.options.index(str(onto_b)) + 1)
    table.run_until(lambda: len(_taken(c)) > before, limit=80)
    assert _taken(c)[-1] == str(onto_b)


def test_bumped_ships_of_one_port_are_asked_about_at_once(make_table: MakeTable) -> None:
    """Both bumped ships go back to the same port: putting one back cannot tell the moves
    apart, so no put-back is asked for; the question comes straight away."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    onto_b, onto_d, _b, _d = _two_bumps(table, from_port=False, same_port=True)
    _set_down_beside(table, onto_b)
    table.run_until(lambda: table.mode() is Mode.ASK or c.status.putback, limit=80)
    assert not c.status.putback
    question = c.status.question
    assert question is not None and set(question.options) == {str(onto_b), str(onto_d)}
    assert back_boards(c._tied) is None
