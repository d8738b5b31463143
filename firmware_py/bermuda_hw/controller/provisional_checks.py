"""Provisional moves and captures the board contradicts, carried out: the game taken back
or corrected.

A move taken into places the camera could not see, or captures decided under the
cloud, stay provisional (`consequences.Provisional`) until their places are in
view. When the board then contradicts one, the session takes the game back to
before it (a rewind, mode SETUP) or corrects it (the captures, or the move of
that turn the board now shows: `corrections`), and the table is told.
"""

from __future__ import annotations

from typing import Protocol

from bermuda_hw.controller.board_checks import BoardChecks
from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import CorrectedCaptures, Unplayable, corrected_move
from bermuda_hw.controller.rig import Rig
from bermuda_hw.controller.session import GameSession, NotThere, WrongCaptures, unplayable_text
from bermuda_hw.controller.signals import Pattern
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.errors import HardwareError
from bermuda_hw.rules.game import Game, ShipStatus
from bermuda_hw.vision.types import BoardObservation


class Table(Protocol):
    """What correcting the game needs of the controller."""

    session: GameSession
    rig: Rig
    checks: BoardChecks

    @property
    def status(self) -> Status: ...

    def say(self, text: str) -> None: ...

    def set_mode(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None: ...

    def saved(self, committed: bool) -> bool: ...

    def announce_over(self) -> None: ...

    def fault(self, message: str) -> None: ...


def check_provisional(table: Table, observation: BoardObservation, final: bool = False) -> bool:
    """Check provisional moves and captures whose places are now in view; True if the
    game went back or was corrected. `final`: what cannot be checked now never will
    be (the game is over), and stays as the game has it."""
    wrong = table.session.check_provisional(observation, final)
    table.status.provisional = table.session.provisional_moves
    if isinstance(wrong, WrongCaptures):
        corrected = wrong.corrected
        if isinstance(corrected, Unplayable):
            rewind_captures(table, wrong.item, corrected)
        else:
            correct_captures(table, wrong.item, corrected)
    elif isinstance(wrong, NotThere):
        rewind(table, wrong.item, wrong.wrong, wrong.why)
    return wrong is not None


def correct_captures(
    table: Table, item: Provisional, corrected: CorrectedCaptures, still: Provisional | None = None
) -> bool:
    """Correct a cloud phase's captures that the board, now in view, contradicts
    (`corrections.corrected_captures`), or that the table told otherwise (`still`: the
    item with what is left of the phase to check); False if the journal refused (the
    item then stays as it was)."""
    fixed = corrected.game
    session = table.session
    if not session.correct_captures(item, corrected):
        return False
    session.replace_item(item, still)
    status = table.status
    status.seq = len(fixed.journal)
    status.fix_attempts = 0
    table.checks.end_putback()  # (the state they were about is gone)
    status.question = None
    status.provisional = session.provisional_moves
    removed = {s for s in status.lost if fixed.ship(s).status is ShipStatus.OUT}
    removed |= {s for s in corrected.captured if fixed.ship(s).status is ShipStatus.OUT}
    status.lost = tuple(s for s in fixed.ship_ids if s in removed)
    status.outcome = str(fixed.outcome()) if fixed.is_over() else None
    if fixed.is_over() and not session.captures_unchecked:
        table.announce_over()
        return True
    # the board did not change: it is checked again on a fresh observation (the stabiliser
    # reports a board once), against the corrected game, or, where the game still ends,
    # for the captures still to be checked
    table.rig.forget()
    if not fixed.is_over():
        table.set_mode(
            Mode.SETUP,
            f"round {fixed.round}: the captures were corrected; checking the board",
            Pattern.FIX,
        )
    else:
        table.set_mode(
            Mode.SETUP, "checking the cloud's captures before the game ends", Pattern.BUSY
        )
    return True


def rewind_captures(
    table: Table, item: Provisional, unplayable: Unplayable, still: Provisional | None = None
) -> None:
    """Captures to correct that the game since does not follow from: said, and the game
    taken back to just after that cloud phase with them corrected (the moves since are
    made again; `still`: the item with what is left of the phase to check), or, where the
    phase itself cannot hold them, left to an undo."""
    session = table.session
    table.say(unplayable_text(item, unplayable))
    fixed = unplayable.at_phase
    if fixed is None:
        session.replace_item(item, None)
        table.status.question = None
        table.rig.forget()
        table.set_mode(Mode.SETUP, "checking the board", Pattern.FIX)
        return
    before = session.current
    if not session.rewrite(item, fixed):
        return
    session.forget_provisional(since=item.count + 1)
    session.replace_item(item, still)
    status = table.status
    status.fix_attempts = 0
    status.lost = tuple(s for s in status.lost if fixed.ship(s).status is ShipStatus.OUT)
    status.provisional = session.provisional_moves
    status.seq = len(fixed.journal)
    status.question = None
    status.hold = ()
    status.outcome = str(fixed.outcome()) if fixed.is_over() else None
    table.checks.end_putback()
    _went_back(
        table,
        before,
        f"the game went back to round {fixed.round}'s start: set the board as the game has it",
    )


def correct_provisional_move(table: Table, observation: BoardObservation) -> bool:
    """The last move taken into places out of sight, replaced by the move of that turn
    the board now shows (`corrections.corrected_move`); the journal keeps both (an undo
    entry, then the corrected rows). True if the game was corrected."""
    session = table.session
    moves = [p for p in session.provisional if not p.captures]
    if not moves or table.checks.turn.putback is not None or table.status.mode is Mode.ASK:
        return False
    item = moves[-1]
    corrected = corrected_move(session.current, item, observation, session.die_mode)
    if corrected is None:
        return False
    if not session.correct_move(item, corrected):
        return True
    table.saved(True)
    # the board is judged anew on a fresh observation: a move made since and not yet
    # taken is taken as usual
    table.rig.forget()
    table.checks.settled()
    return True


def rewind(table: Table, item: Provisional, wrong: list[str], why: str = "") -> None:
    """Take the game back to before a provisional move the board contradicts (`wrong`: its
    places seen without it), or the table says was not made (`why`)."""
    session = table.session
    before = session.current
    if not session.rewind(item, wrong, why):
        return
    game = session.current
    table.status.provisional = session.provisional_moves
    table.status.seq = len(game.journal)
    table.status.question = None  # (what it asked about is gone)
    table.status.hold = ()  # (named again once the board is as the game has it)
    _went_back(
        table,
        before,
        f"the game went back: {item.move} was not seen; set the board as the game has it",
    )


def _went_back(table: Table, before: Game, message: str) -> None:
    """The game taken back from `before`: the cloud placed where it now has it, and the
    board asked for as it has it (`message`), on a fresh observation."""
    game = table.session.current
    if game.pose != before.pose:
        try:
            table.rig.place_cloud(game)
        except HardwareError as exc:
            table.fault(f"{exc}")
            return
    table.rig.forget()
    table.set_mode(Mode.SETUP, message, Pattern.FIX)
