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
    ASK = "ask"  # two moves explain the board: waiting for the table's answer
    FAULT = "fault"  # motors stopped; waiting for a press of the spin button
    OVER = "over"  # the game has ended


#: the answers every question offers after its moves
NONE_OF_THESE = "none of these"
NOT_YET = "not yet"


@dataclass(frozen=True)
class Question:
    """A question to the table: which of some moves was made.

    Option k (from 1) is answered with k presses of the spin button, or through
    `Controller.answer(k)`. `dice[k-1]` are the die values that option stands for
    (empty if it is not a question of the die), `moves[k-1]` its moves (text). The last
    two options are always NONE_OF_THESE and NOT_YET (their dice and moves empty).
    """

    text: str
    options: tuple[str, ...]
    dice: tuple[frozenset[int], ...]
    moves: tuple[tuple[str, ...], ...]
    color: str = ""


@dataclass(frozen=True)
class Suggestion:
    """A computer seat's move (`rules.computer`), said and shown at the table: a person
    moves the token for it, and the referee checks that move like any other."""

    color: str
    level: str  # "easy" or "best"
    die: int
    ship: str
    start: str
    end: str
    path: tuple[str, ...]  # every place the ship passes, from start to end
    seq: int  # the journal's length when it was chosen: it stands for that turn only
    said: str  # in words, with what it takes and bumps (`rules.computer.describe_move`)

    def describe(self) -> str:
        return self.said


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
    question: Question | None = None  # mode ASK: what the table is asked
    die: int | None = None  # the active player's die, when the controller knows it
    provisional: tuple[str, ...] = ()  # moves taken into places the camera cannot see yet
    fix_attempts: int = 0  # fixes asked for since the game last changed
    # mode FIX: the active player's move the fix is asked beside (it went where the camera
    # cannot see, and is decided once the rest matches); the fix names only the rest
    waiting: str | None = None
    # mode FIX: a move out of sight and moves that bumped a ship explain the board as well;
    # the active player is asked to put back any ship their move bumped (no move is named)
    putback: bool = False
    # with the virtual die, told with the roll: the spaces where a ship the active player
    # lands on stays, beside theirs, until they are asked to put it back (the camera could
    # not tell that bump, its ship put back at once, from another move of the die)
    hold: tuple[str, ...] = ()
    # mode READY: the active player answered "not yet": their move is under way and the
    # board may differ from the game until they finish it
    unfinished: bool = False
    # mode FIX: the fix asks for bumped ships in ports the camera cannot see, still read
    # beside their mover; a press of spin is the table's word that they are back
    back_unseen: bool = False
    # the players who asked the page for hints (their legal moves once the virtual die is
    # rolled, each with what it does); off for everyone at first
    hints: tuple[str, ...] = ()
    # a computer seat's turn: the move the table chose for it (a person moves the token)
    suggestion: Suggestion | None = None
    # a computer seat's turn with the table's physical die: whose die the table asks for
    # (rolled at the table, then told by presses of spin, one per pip, or on the page)
    die_for: str | None = None


def _press_says(status: Status) -> bool:
    """Whether a single press now says something the camera cannot show: the move done
    after "not yet", bumped ships back where the camera cannot see them."""
    return (status.mode is Mode.READY and status.unfinished) or (
        status.mode is Mode.FIX and status.back_unseen
    )


def asks_press(status: Status) -> bool:
    """Whether the table is asked to press spin: to spin, or to say what `_press_says`."""
    return status.mode is Mode.SPIN or _press_says(status)


def press_key(status: Status) -> tuple[object, ...]:
    """What gives a press its meaning now: the mode, the game's length, and the flags that
    make a press confirm something."""
    return (status.mode, status.seq, status.unfinished, status.back_unseen)


def press_confirms(status: Status) -> bool:
    """Whether a press now confirms something: an answer to a question, or what
    `_press_says`."""
    return status.mode is Mode.ASK or _press_says(status)


class ControllerView(Protocol):
    """What the people at the table can know of the controller: its board, game and status."""

    @property
    def board(self) -> Board: ...

    @property
    def game(self) -> Game | None: ...

    @property
    def status(self) -> Status: ...
