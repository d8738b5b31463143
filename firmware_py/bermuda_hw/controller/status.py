"""The controller's public state: its mode and what a status page (or a simulated player) reads."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bermuda_hw.controller.identify import Difference
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.game import Game


class Mode(StrEnum):
    """What the controller is doing or waiting for."""

    STARTING = "starting"
    SETUP = "setup"  # waiting for the board to match the game (start, resume, after a fault)
    READY = "ready"  # waiting for the active player's move
    FIX = "fix"  # the board does not match: waiting for the players to fix it
    SPIN = "spin"  # waiting for the spin button
    MOVING = "moving"  # the cloud is moving
    AFTER_SPIN = "after-spin"  # waiting for a stable reading to decide the captures
    FAULT = "fault"  # motors stopped; waiting for a press of the spin button
    OVER = "over"  # the game has ended


@dataclass
class Status:
    """The controller's public state: what a status page (or a simulated player) reads."""

    mode: Mode = Mode.STARTING
    message: str = ""
    seq: int = 0  # grows with every action applied to the game
    round: int = 1
    phase: str = "ships"
    active: str = ""
    fix: Difference | None = None
    last_spin: str | None = None
    lost: tuple[str, ...] = ()
    outcome: str | None = None
    fault: str | None = None
    paused: bool = False  # motion paused from the page: no spin until resumed
    frames: int = 0
    observations: int = 0


class ControllerView(Protocol):
    """What the people at the table can know of the controller: its board, game and status."""

    @property
    def board(self) -> Board: ...

    @property
    def game(self) -> Game | None: ...

    @property
    def status(self) -> Status: ...
