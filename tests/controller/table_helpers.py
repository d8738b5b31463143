"""Helpers for the controller tests that drive the simulated table by hand."""

from __future__ import annotations

from typing import Any

from bermuda_hw.controller.status import Mode
from bermuda_hw.rules.game import Game


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
