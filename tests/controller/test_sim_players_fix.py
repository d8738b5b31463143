"""The simulated players look before they act on a fix: a fix the table already shows as
the game has it (the camera misread a place) leaves the tokens alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from bermuda_hw.controller.status import Status
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game
from bermuda_hw.sim.players import SimulatedPlayers
from bermuda_hw.sim.world import World


@dataclass
class _View:
    board: Board
    game: Game
    status: Status = field(default_factory=Status)


def _table(board: Board) -> tuple[Game, World, SimulatedPlayers]:
    game = Game.new(2, seed=1, board=board)
    world = World(board)
    for sid, (x, y) in game.ship_positions().items():
        world.place_ship(sid, x, y)
    players = SimulatedPlayers(_View(board, game), world, cast(Any, None), None)
    return game, world, players


def test_a_misread_fix_moves_no_token(board: Board) -> None:
    game, world, players = _table(board)
    yellow, blue = game.players
    port = game.ship(f"{yellow}-1").location
    assert port is not None and game.ship(f"{blue}-1").location == port
    before = dict(world.ship_positions())
    # the camera read the yellow token in the port as a blue one
    players._fix(((yellow, port),), ((blue, port),))
    assert dict(world.ship_positions()) == before
    assert players.actions == []


def test_a_true_fix_is_made(board: Board) -> None:
    game, world, players = _table(board)
    yellow, blue = game.players
    port = game.ship(f"{yellow}-1").location
    assert port is not None
    world.remove(f"{yellow}-1")
    stray = next(s for s in sorted(board.spaces) if s not in board.ports)
    world.place_ship(f"{blue}-2", *board.spaces[stray].position)
    players._fix(((yellow, port), (blue, game.ship(f"{blue}-2").location)), ((blue, stray),))
    assert f"{yellow}-1" in world.ship_positions()
    assert any(a.startswith(f"fix: {blue}-2 to") for a in players.actions), players.actions
