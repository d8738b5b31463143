"""Helpers for the controller tests that drive the simulated table by hand."""

from __future__ import annotations

import threading
from typing import Any

from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.moves import Move


def set_out(table: Any) -> None:
    """Put the tokens where the controller's game has the ships."""
    game: Game = table.controller.game
    for sid in list(table.world.ship_positions()):
        table.world.remove(sid)
    for sid, (x, y) in game.ship_positions().items():
        table.world.place_ship(sid, x, y)


def set_out_ready(table: Any) -> frozenset[str]:
    """Set the tokens out as the game has them, wait until the controller is ready for a
    move, and give the spaces the camera cannot see there."""
    set_out(table)
    table.run_until(lambda: table.mode() is Mode.READY, limit=80)
    observation = table.controller.last_observation
    assert observation is not None
    return frozenset(observation.hidden_spaces)


def set_out_seen(table: Any) -> None:
    """Set the tokens out as the game has them and wait until the controller has seen them
    so and is ready for a move (the board it matched last is the one the referee compares
    the tokens with)."""
    c = table.controller
    set_out(table)
    seen = c.status.observations
    table.run_until(lambda: c.status.observations > seen and table.mode() is Mode.READY, limit=120)


def set_down_under(table: Any, move: Move, bumped: str) -> None:
    """The mover set down on its landing space and the ship there nudged back over it: the
    camera sees the bumped ship on top and hardly any of the mover (as after a move whose
    bumped ship was straightened before going back)."""
    assert move.end is not None
    x_mm, y_mm = table.board.spaces[move.end].position
    table.world.remove(move.ship)
    table.world.place_ship(move.ship, x_mm + 2.0, y_mm)
    table.world.remove(bumped)
    table.world.place_ship(bumped, x_mm, y_mm)


def put_in_port(table: Any, ship: str, port: str) -> None:
    """A ship put in a free berth of a port."""
    table.world.remove(ship)
    free = next(
        p
        for p in table.board.ports[port].berths
        if all(
            abs(p[0] - q[0]) + abs(p[1] - q[1]) > 4 for q in table.world.ship_positions().values()
        )
    )
    table.world.place_ship(ship, *free)


def taken_moves(c: Any) -> list[str]:
    """The moves the controller's journal holds, in order."""
    return [str(e["move"]) for e in c.game.journal if "move" in e]


def ask(table: Any, action: str, args: dict[str, Any] | None = None) -> str:
    """Submit from another thread (as the web server does), then let the controller step."""
    box: dict[str, Any] = {}

    def submit() -> None:
        box["future"] = table.controller.commands.submit(action, args)

    thread = threading.Thread(target=submit)
    thread.start()
    thread.join()
    table.controller.step()
    future = box["future"]
    assert future.done()
    result: str = future.result()
    return result
