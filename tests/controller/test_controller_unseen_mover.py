"""A move onto another ship, seen only as that ship still on the landing space: the mover
may be under it, or nowhere (held in a hand, or a glare where it left). To the tokens'
counts a mover wholly under another token is rare (`belief.HIDDEN`), so such a board reads
as a ship still in a hand: the player is told to finish the move and to put back any ship
it lands on, nothing is taken and nothing is asked; the board then decides."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import put_in_port, set_down_under, set_out, set_out_ready, taken_moves

from bermuda_hw.controller.asking import PUTBACK_GIVE_UP_S
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move
from bermuda_hw.sim.render.scene import Scene

MakeTable = Callable[..., Any]


def _one_bump(table: Any, *, two: bool = False) -> tuple[Move, str, str, str | None]:
    """The active player's ship A where the die takes it onto the next player's ship B, in
    plain view, onto no other ship, and into no place out of sight (with `two`, also onto a
    free space in plain view). Returns (the bump, B, A's start, that free space) with the
    die rolled."""
    c = table.controller
    game: Game = c.game
    board = table.board
    hidden = set_out_ready(table)
    color = game.active
    other = game.players[(game.players.index(color) + 1) % len(game.players)]
    a = game.ships(color)[0].id
    b = game.ships(other)[0].id
    paths = [s for s in sorted(board.spaces) if s not in board.ports and s not in hidden]
    for die in range(1, 7):
        for start in paths:
            if game.ships_at(start):
                continue
            game.set_ship(a, start)
            reach = {m.end for m in game.legal_moves(die) if m.ship == a}
            if reach & hidden:
                continue
            ends = sorted(e for e in reach if e in paths and not game.ships_at(e))
            if len(ends) < (2 if two else 1):
                continue
            port_b = next(p for p in sorted(board.ports) if p != game.ship(b).location)
            game.set_ship(b, ends[0], previous_port=port_b)
            game.set_turn(color)
            game.set_die(die)
            onto = [m for m in game.legal_moves(die) if m.ship == a and m.end == ends[0]]
            if not onto:
                continue
            assert c._commit()
            set_out(table)
            table.run_until(lambda: table.mode() is Mode.READY, limit=80)
            return onto[0], b, start, ends[1] if two else None
    pytest.fail("no such position with the cloud at its start")


def test_the_ship_put_back_shows_the_mover_and_takes_the_move(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    move, bumped, start, _free = _one_bump(table)
    port = game.ship(bumped).previous_port
    before = len(taken_moves(c))
    set_down_under(table, move, bumped)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    assert len(taken_moves(c)) == before and not c.status.putback
    assert f"finish your move: a {game.active} ship is off {start}" in c.status.message
    assert "if it lands on a ship, put that ship back in its port" in c.status.message
    assert str(move) not in c.status.message
    table.steps(3)
    put_in_port(table, bumped, port)
    table.run_until(lambda: len(taken_moves(c)) > before, limit=200)
    assert taken_moves(c)[-1] == str(move)
    assert game.ship(move.ship).location == move.end and game.ship(bumped).location == port
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert not any(
        "did you roll" in line or "which move" in line or "did you make" in line
        for line in table.log
    )


def test_a_board_left_as_it_is_takes_nothing_and_asks_nothing(make_table: MakeTable) -> None:
    """Nobody puts the bumped ship back: however long the board stays as it is, nothing is
    taken and nothing is asked (the ship likelier still in a hand, no question about a move
    not made); the table is still told to finish the move. The ship put back then takes it."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    move, bumped, _start, _free = _one_bump(table)
    port = game.ship(bumped).previous_port
    before = len(taken_moves(c))
    set_down_under(table, move, bumped)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    told = c.clock.monotonic()
    # two minutes of the table's time, a frame a second
    table.run_until(lambda: c.clock.monotonic() - told > 2 * PUTBACK_GIVE_UP_S, 300, every_s=1.0)
    assert table.mode() is Mode.FIX and c.status.question is None
    assert len(taken_moves(c)) == before and "finish your move" in c.status.message
    put_in_port(table, bumped, port)
    table.run_until(lambda: len(taken_moves(c)) > before, limit=200)
    assert taken_moves(c)[-1] == str(move)


def test_a_ship_gone_from_sight_is_not_taken_as_a_bump(make_table: MakeTable) -> None:
    """The mover's ship vanishes from its start (held in a hand, or lost in a glare) while
    the ship it could have bumped stays where it was: the player is told to finish the
    move, nothing is taken; the ship seen again where it was takes nothing either."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    move, _bumped, start, _free = _one_bump(table)
    before, active, die = len(taken_moves(c)), game.active, game.die
    table.world.remove(move.ship)
    table.run_until(lambda: table.mode() is Mode.FIX, limit=80)
    assert len(taken_moves(c)) == before and not c.status.putback
    assert f"finish your move: a {active} ship is off {start}" in c.status.message
    table.steps(3)
    table.world.place_ship(move.ship, *table.board.spaces[start].position)
    table.run_until(lambda: table.mode() is Mode.READY, limit=200)
    assert not c.status.putback and len(taken_moves(c)) == before
    assert game.active == active and game.die == die


def test_a_bump_seen_on_top_is_taken_at_once(make_table: MakeTable) -> None:
    """The mover set down on top of the ship it bumps shows: the move is taken without the
    request, and the bumped ship is named to go back."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    move, bumped, _start, _free = _one_bump(table)
    before = len(taken_moves(c))
    x_mm, y_mm = table.board.spaces[move.end].position
    table.world.remove(move.ship)
    table.world.place_ship(move.ship, x_mm + 2.0, y_mm)
    table.run_until(lambda: len(taken_moves(c)) > before or c.status.putback, limit=80)
    assert not c.status.putback and taken_moves(c)[-1] == str(move)
    assert any(f"put {bumped} back" in line for line in table.log)


def test_a_ship_seen_in_the_movers_colour_is_not_taken_as_a_bump(make_table: MakeTable) -> None:
    """A glare draws the ship on one landing space in the mover's colour while the mover
    truly went to the other: the board reads as the bump (its ship on top there) with a
    ship left over, or as the move with a wrong colour. The bump is not taken: the request
    comes first, and the board seen without the glare takes the move truly made."""
    glare: dict[str, Any] = {}

    def wrapper(scene: Callable[[], Scene]) -> Callable[[], Scene]:
        def glared() -> Scene:
            made = scene()
            at, color = glare.get("at"), glare.get("color")
            if at is None:
                return made
            ships = tuple(
                dataclasses.replace(t, color=color)
                if abs(t.x_mm - at[0]) + abs(t.y_mm - at[1]) < 6.0
                else t
                for t in made.ships
            )
            return dataclasses.replace(made, ships=ships)

        return glared

    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"), start=False)
    table.backend.scene_wrapper = wrapper
    table.controller.start()
    c = table.controller
    game: Game = c.game
    onto, bumped, _start, end = _one_bump(table, two=True)
    free = next(m for m in game.legal_moves(game.die) if m.ship == onto.ship and m.end == end)
    before = len(taken_moves(c))
    glare.update(at=table.board.spaces[onto.end].position, color=game.active)
    table.world.remove(free.ship)
    table.world.place_ship(free.ship, *table.board.spaces[free.end].position)
    table.run_until(lambda: c.status.putback or len(taken_moves(c)) > before, limit=80)
    assert c.status.putback and len(taken_moves(c)) == before
    glare.clear()
    table.run_until(lambda: len(taken_moves(c)) > before, limit=200)
    assert taken_moves(c)[-1] == str(free)
    assert game.ship(bumped).location == onto.end


def test_an_own_ship_bumped_into_the_port_its_mover_left_is_asked_about(
    make_table: MakeTable,
) -> None:
    """The player's ship leaves a port and lands on their own ship whose previous port is
    that one, set down on it: put back, the board would read as before the move, so no
    put-back is asked for; the board is also that of the ship lifted off its port, still
    in a hand. The table is asked; a yes takes the move, and the ship put back ends it."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    board = table.board
    hidden = set_out_ready(table)
    color = game.active
    a, d = (s.id for s in game.ships(color)[:2])
    paths = [s for s in sorted(board.spaces) if s not in board.ports and s not in hidden]
    for die in range(1, 7):
        port = game.ship(a).location
        assert port in board.ports
        reach = {m.end for m in game.legal_moves(die) if m.ship == a}
        ends = sorted(e for e in reach if e in paths and not game.ships_at(e))
        if not ends or reach & hidden:
            continue
        game.set_ship(d, ends[0], previous_port=port)
        game.set_turn(color)
        game.set_die(die)
        onto = [m for m in game.legal_moves(die) if m.ship == a and m.end == ends[0]]
        if onto:
            break
    else:
        pytest.fail("no such position with the cloud at its start")
    assert c._commit()
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    move = onto[0]
    before = len(taken_moves(c))
    x_mm, y_mm = board.spaces[move.end].position
    table.world.remove(move.ship)
    table.world.place_ship(move.ship, x_mm + 2.0, y_mm)
    table.run_until(lambda: table.mode() is Mode.ASK or len(taken_moves(c)) > before, limit=80)
    assert not c.status.putback and len(taken_moves(c)) == before
    question = c.status.question
    assert question is not None and str(move) in question.moves[0]
    c.answer(1)
    table.run_until(lambda: len(taken_moves(c)) > before, limit=20)
    assert taken_moves(c)[-1] == str(move)
    put_in_port(table, d, port)
    table.run_until(lambda: table.mode() is Mode.READY, limit=200)
    assert game.ship(d).location == port and game.ship(move.ship).location == move.end
