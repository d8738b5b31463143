"""Helpers for the controller tests that drive the simulated table by hand."""

from __future__ import annotations

from typing import Any

from bermuda_hw.rules.game import Game


def set_out(table: Any) -> None:
    """Put the tokens where the controller's game has the ships."""
    game: Game = table.controller.game
    for sid in list(table.world.ship_positions()):
        table.world.remove(sid)
    for sid, (x, y) in game.ship_positions().items():
        table.world.place_ship(sid, x, y)
