"""The spin carried out on the rig, and the cloud's pose checked on the camera after it.

The plan and every decision on the cloud's pose are `cloud_phase`'s; `Spinner`
carries them out and keeps the spin under way (`pending`) until a stable
observation shows the cloud where the plan has it, so that the captures can be
decided: a move aborted as late, or a cloud seen at another dot, is homed and
placed again; a cloud showing another letter is believed and turned. What
cannot be carried out (or a decision to give up) is a `HardwareError` whose
text is the fault the table is told.
"""

from __future__ import annotations

from collections.abc import Callable

from bermuda_hw.controller.cloud_phase import (
    Captures,
    GiveUp,
    PendingSpin,
    Replace,
    TurnTo,
    after_spin,
    place_again,
)
from bermuda_hw.controller.rig import Rig
from bermuda_hw.controller.seams import Mover
from bermuda_hw.errors import HardwareError, StepTimingError
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import BoardObservation


class Spinner:
    """A spin under way: executed, then its cloud's pose corrected until it is as planned."""

    def __init__(self, mover: Mover, rig: Rig, say: Callable[[str], None]) -> None:
        self.mover = mover
        self.rig = rig
        self.say = say
        #: the spin under way, from its start until its captures are decided
        self.pending: PendingSpin | None = None

    def spin(self, game: Game, pending: PendingSpin) -> None:
        """Turn and move the cloud as planned; a move aborted as late (not interrupted) is
        homed and finished. HardwareError (the spin forgotten) if that cannot be done."""
        self.pending = pending
        try:
            self.mover.execute_spin(pending.spin)
        except StepTimingError as exc:
            # the move was aborted, not interrupted: home and finish it
            self.say(f"{exc}")
            self._correct(game, *place_again(pending, "the move was aborted"))
        except HardwareError:
            self.pending = None
            raise

    def look(self, game: Game, observation: BoardObservation) -> Captures | None:
        """One stable observation after the spin: the captures to decide once the cloud is
        where the plan has it; None once it was placed again or turned (decide on a fresh
        observation). HardwareError (the spin forgotten) if that failed, or gave up."""
        assert self.pending is not None
        pending, decided = after_spin(game, self.pending, observation)
        if isinstance(decided, Captures):
            self.pending = pending
            return decided
        self._correct(game, pending, decided)
        return None

    def _correct(
        self, game: Game, pending: PendingSpin, decision: Replace | TurnTo | GiveUp
    ) -> None:
        """Carry out a decision on the cloud's pose: place it again, or turn it."""
        self.pending = pending
        if isinstance(decision, GiveUp):
            self.pending = None
            raise HardwareError(str(decision))
        self.say(str(decision))
        try:
            if isinstance(decision, TurnTo):
                self.mover.assume_letter(decision.seen)
                self.mover.turn_to(decision.wanted)
                return
            # from where a fresh frame sees the cloud, clear of the ships (not of those the
            # spin swept: they are on its magnets, or captured)
            self.rig.place_again(game, pending.goal, pending.swept)
        except HardwareError as exc:
            self.pending = None
            if isinstance(decision, TurnTo):
                raise HardwareError(f"rotation fault: {exc}") from exc
            raise
