"""A move out of sight against a bump whose ship is not back yet: the table is asked to put
back any bumped ship (no move named) before anyone is asked which move was made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import set_out, set_out_ready

from bermuda_hw.controller.asking import PUTBACK_GIVE_UP_S, PUTBACK_WAIT_S
from bermuda_hw.controller.hand_edits import ACCEPT_AFTER_ATTEMPTS
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Mode
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move
from bermuda_hw.sim.players import SimulatedPlayers
from bermuda_hw.sim.render import Hand
from bermuda_hw.sim.scene import WorldScene
from bermuda_hw.sim.truth import place_of

MakeTable = Callable[..., Any]


def _own_ship_or_out_of_sight(table: Any) -> tuple[Move, Move, str]:
    """The active player's ship A on a space from which the die takes it either onto their
    own ship B (a bump) or into a place the cloud hides: (the move out of sight, the bump,
    B)."""
    c = table.controller
    game: Game = c.game
    board = table.board
    hidden = set_out_ready(table)
    color = game.active
    a, b = (s.id for s in game.ships(color)[:2])
    paths = sorted(s for s in board.spaces if s not in board.ports)
    for die in range(1, 7):
        for start in paths:
            if start in hidden or game.ships_at(start):
                continue
            game.set_ship(a, start)
            moves = [m for m in game.legal_moves(die) if m.ship == a]
            into = [
                m
                for m in moves
                if m.end in hidden
                and m.end not in game.blocked
                and m.end in paths
                and not game.ships_at(m.end)
            ]
            onto = [
                m
                for m in moves
                if m.end not in hidden and m.end in paths and not game.ships_at(m.end)
            ]
            if into and onto:
                game.set_ship(b, onto[0].end)
                game.set_turn(color)
                game.set_die(die)
                assert c._commit()
                set_out(table)
                table.run_until(lambda: table.mode() is Mode.READY, limit=80)
                bump = next(m for m in game.legal_moves(die) if m.end == onto[0].end)
                return into[0], bump, b
    pytest.fail("no such position with the cloud at its start")


def _set_down_beside(table: Any, bump: Move) -> None:
    """The bump made on the table: the mover set down beside the ship on its landing space."""
    x_mm, y_mm = table.board.spaces[bump.end].position
    table.world.remove(bump.ship)
    table.world.place_ship(bump.ship, x_mm + 6.0, y_mm)


@pytest.mark.parametrize("die", ["table", "virtual"])
def test_no_ship_put_back_is_asked_about_never_taken_by_the_wait(
    make_table: MakeTable, die: str
) -> None:
    table = make_table(with_players=False, seed=1, options=GameOptions(die=die))
    c = table.controller
    hidden_move, bump, _b = _own_ship_or_out_of_sight(table)
    table.world.remove(hidden_move.ship)
    table.world.place_ship(hidden_move.ship, *table.board.spaces[hidden_move.end].position)
    table.run_until(lambda: c.status.putback, limit=80)
    assert table.mode() is Mode.FIX and c.status.question is None
    assert "if your move bumped a ship, put it back" in c.status.message
    assert str(bump) not in c.status.message and str(hidden_move) not in c.status.message
    asked = c.clock.monotonic()
    table.run_until(lambda: table.mode() is Mode.ASK, limit=400)
    # the quiet board took nothing: the table is asked, with "none of these" and "not yet"
    assert c.clock.monotonic() - asked >= PUTBACK_WAIT_S
    assert not _taken(c, hidden_move) and not _taken(c, bump)
    question = c.status.question
    assert question is not None and question.options[-2:] == (NONE_OF_THESE, NOT_YET)
    table.steps(40)
    assert table.mode() is Mode.ASK and not _taken(c, hidden_move)
    k = next(i for i, moves in enumerate(question.moves, 1) if str(hidden_move) in moves)
    c.answer(k)
    table.run_until(lambda: _taken(c, hidden_move), limit=50)
    entry = next(e for e in c.game.journal if e.get("move") == str(hidden_move))
    assert entry.get("provisional") == [hidden_move.end]
    assert not c.status.putback and c.status.question is None


def test_a_ship_put_back_settles_the_bump(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    _hidden_move, bump, b = _own_ship_or_out_of_sight(table)
    port = game.ship(b).previous_port
    _set_down_beside(table, bump)  # beside B, which stays for now
    table.run_until(lambda: c.status.putback, limit=80)
    asked = c.clock.monotonic()
    table.steps(3)
    table.world.remove(b)
    free = next(
        p
        for p in table.board.ports[port].berths
        if all(
            abs(p[0] - q[0]) + abs(p[1] - q[1]) > 4 for q in table.world.ship_positions().values()
        )
    )
    table.world.place_ship(b, *free)
    table.run_until(lambda: any(e.get("move") == str(bump) for e in c.game.journal), limit=200)
    assert c.clock.monotonic() - asked < PUTBACK_WAIT_S
    assert c.game.ship(bump.ship).location == bump.end
    assert c.game.ship(b).location == port
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert not c.status.putback
    assert not any("which move" in line for line in table.log)


def _taken(c: Any, move: Move) -> bool:
    return any(e.get("move") == str(move) for e in c.game.journal)


def test_the_wait_counts_only_while_the_board_is_quiet(make_table: MakeTable) -> None:
    """A hand over the board (someone about to put a ship back) near the end of the wait
    starts it again: the table is asked only once the board has been clear and unchanged
    for the whole wait after the hand left; nothing is ever taken by the wait."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    hidden_move, _bump, _b = _own_ship_or_out_of_sight(table)
    table.world.remove(hidden_move.ship)
    table.world.place_ship(hidden_move.ship, *table.board.spaces[hidden_move.end].position)
    table.run_until(lambda: c.status.putback, limit=80)
    asked = c.clock.monotonic()
    table.run_until(lambda: c.clock.monotonic() - asked >= 0.7 * PUTBACK_WAIT_S, limit=200)
    table.backend.scene.hand = Hand(250.0, 250.0, side="S")
    table.run_until(lambda: c.clock.monotonic() - asked >= 1.2 * PUTBACK_WAIT_S, limit=200)
    assert table.mode() is not Mode.ASK and c.status.putback
    table.backend.scene.hand = None
    left = c.clock.monotonic()
    table.run_until(lambda: table.mode() is Mode.ASK, limit=400)
    assert c.clock.monotonic() - left >= PUTBACK_WAIT_S
    assert not _taken(c, hidden_move)


def test_no_long_press_accepts_the_board_while_a_put_back_is_asked(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    hidden_move, _bump, _b = _own_ship_or_out_of_sight(table)
    table.world.remove(hidden_move.ship)
    table.world.place_ship(hidden_move.ship, *table.board.spaces[hidden_move.end].position)
    table.run_until(lambda: c.status.putback, limit=80)
    count = len(c.game.journal)
    c.status.fix_attempts = ACCEPT_AFTER_ATTEMPTS
    assert not c.accept_board()
    assert len(c.game.journal) == count and c.status.putback


def test_simulated_players_put_back_only_what_their_move_bumped(make_table: MakeTable) -> None:
    """The players' answer to the request: the ship their move (not yet taken) bumped goes
    back to its port; after a move the controller took already, or one that bumps
    nobody, nothing is moved."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    hidden_move, bump, b = _own_ship_or_out_of_sight(table)
    port = game.ship(b).previous_port
    _set_down_beside(table, bump)
    players = SimulatedPlayers(
        c,
        table.world,
        WorldScene(table.world, table.board),
        table.backend.pin(table.config.controls.spin_button_pin),
        seed=1,
    )
    assert game.die is not None
    before = dict(table.world.ship_positions())
    # a move already taken by the controller, or one that bumps nobody: nothing moves
    players._made, players._moved_token = (len(game.journal) - 1, bump, game.die), bump.ship
    players._put_back_bumped()
    assert table.world.ship_positions() == before
    players._made = (len(game.journal), hidden_move, game.die)
    players._put_back_bumped()
    assert table.world.ship_positions() == before
    players._moved_token = bump.ship
    players._made = (len(game.journal), bump, game.die)
    players._put_back_bumped()
    after = table.world.ship_positions()
    assert place_of(table.board, after[b]) == port
    assert {s: p for s, p in after.items() if s != b} == {s: p for s, p in before.items() if s != b}


def test_a_request_made_again_after_the_board_matched_waits_again(make_table: MakeTable) -> None:
    """A ship set back at its start ends the request with the board as the game has it;
    moved out of sight again more than a minute later, the request waits its full time
    again (it does not give up at once from the first request's time)."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    hidden_move, _bump, _b = _own_ship_or_out_of_sight(table)
    start = c.game.ship(hidden_move.ship).location
    assert start is not None
    table.world.remove(hidden_move.ship)
    table.world.place_ship(hidden_move.ship, *table.board.spaces[hidden_move.end].position)
    table.run_until(lambda: c.status.putback, limit=80)
    table.world.remove(hidden_move.ship)
    table.world.place_ship(hidden_move.ship, *table.board.spaces[start].position)
    table.run_until(lambda: table.mode() is Mode.READY, limit=200)
    back = c.clock.monotonic()
    # a quiet minute: a frame a second (the wait is in the table's seconds, not in frames)
    table.run_until(lambda: c.clock.monotonic() - back > PUTBACK_GIVE_UP_S, 200, every_s=1.0)
    table.world.remove(hidden_move.ship)
    table.world.place_ship(hidden_move.ship, *table.board.spaces[hidden_move.end].position)
    table.run_until(lambda: c.status.putback, limit=80)
    asked = c.clock.monotonic()
    table.run_until(lambda: c.clock.monotonic() - asked > PUTBACK_WAIT_S / 2, limit=400)
    assert c.status.putback and not _taken(c, hidden_move)


def test_a_board_never_quiet_is_asked_about_a_minute_after_the_first_request(
    make_table: MakeTable,
) -> None:
    """Boards that keep changing (a stray token set down and lifted again, elsewhere) end
    the request and bring it back; a minute after the first request the table is asked,
    not put off for ever, and nothing is taken meanwhile."""
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    hidden_move, bump, _b = _own_ship_or_out_of_sight(table)
    table.world.remove(hidden_move.ship)
    table.world.place_ship(hidden_move.ship, *table.board.spaces[hidden_move.end].position)
    table.run_until(lambda: c.status.putback, limit=80)
    first = c.clock.monotonic()
    stray = next(s.id for s in game.ships(game.active) if s.id != hidden_move.ship)
    home = table.world.ship_positions()[stray]
    spot = next(
        table.board.spaces[s].position
        for s in sorted(table.board.spaces)
        if s not in table.board.ports
        and not game.ships_at(s)
        and s not in (hidden_move.end, bump.end)
        and s not in c.last_observation.hidden_spaces
    )
    # set down for 2.5 s of the table's time, lifted for 2.5 s (never quiet for
    # PUTBACK_WAIT_S), a frame every half second
    for _ in range(40):
        if table.mode() is Mode.ASK:
            break
        table.world.remove(stray)
        table.world.place_ship(stray, *spot)
        table.sparse_steps(5, every_s=0.5)
        table.world.remove(stray)
        table.world.place_ship(stray, *home)
        table.sparse_steps(5, every_s=0.5)
    assert table.mode() is Mode.ASK
    assert not _taken(c, hidden_move) and not _taken(c, bump)
    assert PUTBACK_GIVE_UP_S <= c.clock.monotonic() - first < 2 * PUTBACK_GIVE_UP_S
