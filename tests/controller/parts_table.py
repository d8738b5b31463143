"""A stand-in for the controller that the daemon's parts are handed (`computer.Table`,
`board_checks.Table`, ...): a real game session on a journal of its own, a real status,
button, asking and turns; a recording rig, LED and clock. No camera, no frame, no loop:
the parts' tests call them as the daemon does and look at what they did."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bermuda_hw.controller.answers import Answers
from bermuda_hw.controller.asking import Asking
from bermuda_hw.controller.board_checks import BoardChecks
from bermuda_hw.controller.buttons import SpinButton
from bermuda_hw.controller.computer import Seats
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.signals import Pattern
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.controller.turn import Turns
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.vision.types import BoardObservation

BOARD: Board = load_board()


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now_s = 100.0

    def monotonic(self) -> float:
        return self.now_s

    def sleep(self, seconds: float) -> None:
        self.now_s += seconds

    def wait_until(self, deadline_s: float, stop: object = None) -> bool:
        self.now_s = max(self.now_s, deadline_s)
        return True


class Rig:
    """What the parts ask of the rig, recorded; `fails` is raised by a cloud's placing."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.state: object = "quiet board"
        self.fails: Exception | None = None
        self.look = True  # vision knows the empty board's look (calibrated)
        self.learns = True  # learning the start layout succeeds

    def forget(self) -> None:
        self.calls.append("forget")

    def reading_state(self) -> object:
        return self.state

    def knows_board_look(self) -> bool:
        return self.look

    def learn_start_layout(self, game: Game, also: Iterable[str] = ()) -> None:
        self.calls.append(("learn start layout", frozenset(also)))
        self.look = self.look or self.learns

    def place_again(self, game: Game, goal: object, leave: frozenset[str]) -> None:
        self.calls.append(("place again", goal))

    def place_cloud(self, game: Game) -> None:
        if self.fails is not None:
            raise self.fails
        self.calls.append(("place cloud", game.pose))


class Signals:
    """The LED's patterns and counts shown, recorded."""

    def __init__(self) -> None:
        self.shown: list[Any] = []

    def show(self, pattern: Pattern, beep: bool = True) -> None:
        self.shown.append(pattern)

    def count(self, n: int) -> None:
        self.shown.append(("count", n))


class Table:
    """The controller as its parts see it, recording the modes set, the lines said and the
    faults; `set_mode`, `saved` and `pass_turn` do what the controller's do for the status."""

    def __init__(
        self, tmp_path: Path, *, players: int = 2, seed: int = 1, options: GameOptions | None = None
    ) -> None:
        self.lines: list[str] = []
        self.modes: list[tuple[Mode, str]] = []
        self.faults: list[str] = []
        self.observed: list[BoardObservation] = []
        self.over = 0
        self.journal = Journal(tmp_path / "bermuda.db")
        self.session = GameSession(
            BOARD,
            self.journal,
            players=players,
            seed=seed,
            options=options,
            say=self.say,
            on_write_error=self.fault,
        )
        self.session.new()
        self.status = Status(seq=len(self.game.journal))
        self.clock = Clock()
        self.button = SpinButton(self.clock)
        self.signals: Any = Signals()
        self.rig: Any = Rig()
        self.turns = Turns()
        self.asking = Asking()
        self.spinner: Any = None
        self.last_observation: BoardObservation | None = None
        self.aligned = True
        self.seats = Seats(self)
        self.checks = BoardChecks(self)
        self.answers = Answers(self)

    @property
    def game(self) -> Game:
        return self.session.current

    def say(self, text: str) -> None:
        self.lines.append(text)

    def set_mode(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None:
        self.status.unfinished = False
        if mode is not Mode.FIX:
            self.status.waiting = None
            self.checks.end_putback()
        self.status.mode, self.status.message = mode, message
        self.modes.append((mode, message))

    def saved(self, committed: bool) -> bool:
        if committed:
            self.status.seq = len(self.game.journal)
            self.status.fix_attempts = 0
        self.status.provisional = self.session.provisional_moves
        return committed

    def pass_turn(self) -> str:
        if self.answers.capture_before_pass():
            return f"asked first: {self.status.message}"
        text, committed = self.session.pass_turn()
        if self.saved(committed):
            self.checks.settled()
        return text

    def publish(self) -> None:
        pass

    def observe(self, observation: BoardObservation) -> None:
        self.observed.append(observation)

    def announce_over(self) -> None:
        self.over += 1
        self.status.mode = Mode.OVER

    def fault(self, message: str) -> None:
        self.faults.append(message)
        self.status.mode = Mode.FAULT

    def journalled(self) -> list[dict[str, Any]]:
        """The rows the journal holds for the game, as the rules wrote them."""
        loaded = self.journal.load(BOARD)
        assert loaded is not None
        return [dict(entry) for entry in loaded[1].journal]
