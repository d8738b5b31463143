"""The rules engine of Bermuda Triangle: pure code, no I/O, no hardware, no clock."""

from __future__ import annotations

from bermuda_hw.rules.events import EndReason, Outcome
from bermuda_hw.rules.game import (
    Game,
    GameOptions,
    Phase,
    ShipState,
    ShipStatus,
)
from bermuda_hw.rules.moves import Move

__all__ = [
    "EndReason",
    "Game",
    "GameOptions",
    "Move",
    "Outcome",
    "Phase",
    "ShipState",
    "ShipStatus",
]
