"""A move out of sight against a bump whose ship is not back yet: the table is asked to put
back any bumped ship (no move named) before anyone is asked which move was made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import set_out

from bermuda_hw.controller.daemon import PUTBACK_WAIT_S
from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move

MakeTable = Callable[..., Any]


def _own_ship_or_out_of_sight(table: Any) -> tuple[Move, Move, str]:
    """The active player's ship A on a space from which the die takes it either onto their
    own ship B (a bump) or into a place the cloud hides: (the move out of sight, the bump,
    B)."""
    c = table.controller
    game: Game = c.game
    board = table.board
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    observation = c.last_observation
    assert observation is not None
    hidden = observation.hidden_spaces
    color = game.active
    a, b = (s.id for s in game.ships(color)[:2])
    paths = sorted(s for s in board.spaces if s not in board.ports)
    for die in range(1, 7):
        for start in paths:
            if start in hidden or game.ships_at(start):
                continue
            game.set_ship(a, start)
            moves = [m for m in game.legal_moves(die) if m.ship == a]
            into = [m for m in moves if m.end in hidden and m.end not in game.blocked
                    and m.end in paths and not game.ships_at(m.end)]
            onto = [m for m in moves if m.end not in hidden and m.end in paths
                    and not game.ships_at(m.end)]
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


@pytest.mark.parametrize("die", ["table", "virtual"])
def test_no_ship_put_back_takes_the_move_out_of_sight(make_table: MakeTable, die: str) -> None:
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
    table.run_until(lambda: any(e.get("move") == str(hidden_move) for e in c.game.journal),
                    limit=400)
    assert c.clock.monotonic() - asked >= PUTBACK_WAIT_S
    entry = next(e for e in c.game.journal if e.get("move") == str(hidden_move))
    assert entry.get("provisional") == [hidden_move.end]
    assert not c.status.putback and c.status.question is None
    assert not any("which move" in line or "did you roll" in line for line in table.log)


def test_a_ship_put_back_settles_the_bump(make_table: MakeTable) -> None:
    table = make_table(with_players=False, seed=1, options=GameOptions(die="virtual"))
    c = table.controller
    game: Game = c.game
    _hidden_move, bump, b = _own_ship_or_out_of_sight(table)
    port = game.ship(b).previous_port
    x_mm, y_mm = table.board.spaces[bump.end].position
    table.world.remove(bump.ship)
    table.world.place_ship(bump.ship, x_mm + 6.0, y_mm)  # beside B, which stays for now
    table.run_until(lambda: c.status.putback, limit=80)
    asked = c.clock.monotonic()
    table.steps(3)
    table.world.remove(b)
    free = next(p for p in table.board.ports[port].berths
                if all(abs(p[0] - q[0]) + abs(p[1] - q[1]) > 4
                       for q in table.world.ship_positions().values()))
    table.world.place_ship(b, *free)
    table.run_until(lambda: any(e.get("move") == str(bump) for e in c.game.journal), limit=200)
    assert c.clock.monotonic() - asked < PUTBACK_WAIT_S
    assert c.game.ship(bump.ship).location == bump.end
    assert c.game.ship(b).location == port
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    assert not c.status.putback
    assert not any("which move" in line for line in table.log)
