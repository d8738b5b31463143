"""The cloud's phase, carried out: the spin, the closed loop's look, the captures.

A press in mode SPIN asks first whether a ship stands where a move out of
sight put it, then plans the spin (`cloud_phase.plan_spin`) and has the
spinner execute it (MOVING), then AFTER_SPIN waits for a stable board: the
spinner checks the cloud's pose (placed again or turned until it is where the
plan has it), and the captures it decides are journalled and said. A cloud at
an outside dot returns to the centre (MOVING) and its letter is checked again.
A hardware error on the way is a fault.
"""

from __future__ import annotations

from typing import Protocol

from bermuda_hw.controller.answers import Answers
from bermuda_hw.controller.cloud_phase import capture_lines, plan_spin, totals_line
from bermuda_hw.controller.rig import Rig
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.signals import Pattern
from bermuda_hw.controller.spin import Spinner
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.errors import HardwareError
from bermuda_hw.rules.events import CloudRemoved
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import BoardObservation


class Table(Protocol):
    """What the cloud's phase needs of the controller."""

    session: GameSession
    rig: Rig
    spinner: Spinner
    answers: Answers
    last_observation: BoardObservation | None
    aligned: bool  # the cloud's letter believed from the camera since it last turned

    @property
    def status(self) -> Status: ...

    def say(self, text: str) -> None: ...

    def set_mode(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None: ...

    def saved(self, committed: bool) -> bool: ...

    def announce_over(self) -> None: ...

    def fault(self, message: str) -> None: ...


def spin(table: Table) -> None:
    """Spin and move the cloud (a press in mode SPIN, the board clear of hands). While a
    ship stands on a landing the camera never saw, the table is asked first whether it
    is there (`GameSession.unseen_landing`): the cloud may take the evidence with it. A
    landing whose ship shows at the cloud's rim is no question (`GameSession.confirm_at_rim`)."""
    table.session.confirm_at_rim(table.last_observation)
    table.status.provisional = table.session.provisional_moves
    unseen = table.session.unseen_landing(table.last_observation)
    if unseen is not None:
        table.answers.ask_landing(unseen)
        return
    game = table.session.current
    pending = plan_spin(game, table.last_observation)
    table.status.last_spin = str(pending.spin)
    table.set_mode(Mode.MOVING, f"spin: {pending.spin}", Pattern.BUSY)
    try:
        table.spinner.spin(game, pending)
    except HardwareError as exc:
        table.fault(str(exc))
        return
    table.rig.forget()
    table.set_mode(Mode.AFTER_SPIN, "looking for captures", Pattern.BUSY)


def finish_spin(table: Table, observation: BoardObservation) -> None:
    """A stable board after the spin: the cloud where the plan has it, the captures."""
    game = table.session.current
    try:
        decided = table.spinner.look(game, observation)
    except HardwareError as exc:
        table.fault(str(exc))
        decided = None
    if decided is None:
        table.rig.forget()  # decide on a fresh observation of the corrected cloud
        return
    pending, table.spinner.pending = table.spinner.pending, None
    assert pending is not None
    # the captures from places the cloud covers are the camera's best guess
    events = table.session.cloud_phase(decided)
    table.saved(events is not None)
    if events is None:
        return
    for line in capture_lines(events, pending, decided):
        table.say(line)
    removed = next((e for e in events if isinstance(e, CloudRemoved)), None)
    table.rig.forget()
    if removed is not None:
        table.status.lost = tuple(removed.ships)
        table.set_mode(Mode.MOVING, "the cloud returns to the centre", Pattern.BUSY)
        try:
            table.rig.place_cloud(table.session.current)
        except HardwareError as exc:
            table.fault(f"{exc}")
            return
        table.aligned = False  # check the letter it shows after that turn
    table.say(totals_line(game))
    check_board(table, game, f"round {game.round}: checking the board")


def check_board(table: Table, game: Game, message: str) -> None:
    """With the cloud where the game has it: the board checked against the game (`message`)
    before play goes on, the cloud's unchecked captures first if the game has ended, or
    the game announced over."""
    if game.is_over() and table.session.captures_unchecked:
        table.set_mode(
            Mode.SETUP, "checking the cloud's captures before the game ends", Pattern.BUSY
        )
    elif game.is_over():
        table.announce_over()
    else:
        table.set_mode(Mode.SETUP, message, Pattern.FIX)
