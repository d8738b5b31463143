"""The cloud's phase decided from what the camera sees; the daemon carries the decisions out.

A press spins: `plan_spin` previews the game's seeded spin (the dot the cloud
goes to, the ships its magnets sweep, whether it leaves the board) and keeps
what the camera saw in the magnets' track before it. Once the cloud has moved,
each stable observation gives one decision (`after_spin`), closing the loop on
the camera before any capture is decided:

- `Replace`: the cloud is not seen, or seen at another dot than planned
  (missed steps, a slipped belt): home, then place it again;
- `TurnTo`: it shows another letter: believe the camera and turn it;
- `GiveUp`: either went wrong more often than `MAX_POSE_RETRIES` or
  `MAX_LETTER_RETRIES`: a fault that names what to check;
- `Captures`: the cloud is where the plan has it: the swept ships the camera
  no longer sees are captured; those on places the cloud now covers are the
  camera's best word from before the spin, provisional until it has left.

Every retry is counted in the spin's state; none depends on time.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from bermuda_hw.controller.consequences import captured_ships, taken_by_track, unseen_sweep
from bermuda_hw.rules.board import LETTERS
from bermuda_hw.rules.cloud import CloudPose, Spin
from bermuda_hw.rules.events import (
    CloudMoved,
    CloudRemoved,
    Event,
    GameOver,
    Spun,
    Swept,
    usd,
)
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import BoardObservation

#: re-homings to bring the cloud where the plan has it before a fault: one can follow a
#: stall or a knock; a second failure in a row says the belts, pulleys or endstops slip
MAX_POSE_RETRIES = 2
#: turns to correct the letter the camera sees before a fault: the same reasoning, for
#: the rotation's coupling
MAX_LETTER_RETRIES = 2


@dataclass(frozen=True)
class PendingSpin:
    """A spin carried out on the rig whose captures are still to be decided."""

    spin: Spin
    swept: frozenset[str]
    end: tuple[int, int]  # the dot the plan takes the cloud to
    leaves_board: bool
    #: the ships seen before the spin where they stood within the magnets' track: by
    #: (colour, place), for the places the camera saw then (`taken_from`)
    taken: Counter[tuple[str, str | None]] = field(default_factory=Counter)
    taken_from: frozenset[str] = frozenset()
    pose_retries: int = 0
    letter_retries: int = 0

    @property
    def goal(self) -> CloudPose:
        return CloudPose(*self.end, self.spin.letter)


def plan_spin(game: Game, seen: BoardObservation | None) -> PendingSpin:
    """The game's next spin, previewed on a copy (the game itself is unchanged), with what
    `seen` (the last observation before it) showed in the magnets' track."""
    events = game.copy().cloud_phase(None, capture=())
    spin = next(e.spin for e in events if isinstance(e, Spun))
    moved = next(e for e in events if isinstance(e, CloudMoved))
    swept = next((frozenset(e.ships) for e in events if isinstance(e, Swept)), frozenset())
    leaves = any(isinstance(e, CloudRemoved) for e in events)
    taken, taken_from = taken_by_track(game, spin, seen)
    return PendingSpin(spin, swept, (moved.end.col, moved.end.row), leaves, taken, taken_from)


@dataclass(frozen=True)
class Replace:
    """Home the rig, then place the cloud at the plan's dot and letter again."""

    why: str
    end: tuple[int, int]
    attempt: int

    def __str__(self) -> str:
        return (
            f"{self.why}: homing and placing the cloud at dot {self.end} again "
            f"(attempt {self.attempt} of {MAX_POSE_RETRIES})"
        )


@dataclass(frozen=True)
class TurnTo:
    """The cloud shows letter `seen`: believe the camera, and turn it to `wanted`."""

    seen: int
    wanted: int

    def __str__(self) -> str:
        seen, wanted = LETTERS[self.seen], LETTERS[self.wanted]
        return f"the cloud shows letter {seen}, not {wanted}: turning it to {wanted}"


@dataclass(frozen=True)
class GiveUp:
    """The rig did not bring the cloud where the plan has it: a fault, with what to check."""

    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Captures:
    """The cloud is where the plan has it: these swept ships are captured; the places the
    cloud covers (`unseen`) decide theirs provisionally."""

    captured: frozenset[str]
    unseen: tuple[str, ...]


AfterSpin = Replace | TurnTo | GiveUp | Captures


def place_again(pending: PendingSpin, why: str) -> tuple[PendingSpin, Replace | GiveUp]:
    """The cloud is not where the plan has it (`why`): place it again, or give up."""
    pending = replace(pending, pose_retries=pending.pose_retries + 1)
    if pending.pose_retries > MAX_POSE_RETRIES:
        return pending, GiveUp(
            f"{why}, and homing {MAX_POSE_RETRIES} times did not bring the cloud to dot "
            f"{pending.end}: check the belts, pulleys and endstops"
        )
    return pending, Replace(why, pending.end, pending.pose_retries)


def after_spin(
    game: Game, pending: PendingSpin, observation: BoardObservation
) -> tuple[PendingSpin, AfterSpin]:
    """What one stable observation after the spin decides (see the module's text)."""
    cloud = observation.cloud
    if cloud is None:
        return place_again(pending, "the camera does not see the cloud's marker")
    if (cloud.col, cloud.row) != pending.end:
        return place_again(
            pending,
            f"the cloud is seen at dot ({cloud.col}, {cloud.row}), not at dot {pending.end}",
        )
    if cloud.letter != pending.spin.letter:
        pending = replace(pending, letter_retries=pending.letter_retries + 1)
        if pending.letter_retries > MAX_LETTER_RETRIES:
            seen, wanted = LETTERS[cloud.letter], LETTERS[pending.spin.letter]
            return pending, GiveUp(
                f"the cloud still shows letter {seen}, not {wanted}, after "
                f"{MAX_LETTER_RETRIES} corrections: check the rotation's coupling"
            )
        return pending, TurnTo(cloud.letter, pending.spin.letter)
    captured = captured_ships(game, pending.swept, observation, pending.taken, pending.taken_from)
    return pending, Captures(captured, unseen_sweep(game, pending.swept, observation))


def capture_lines(events: list[Event], pending: PendingSpin, decided: Captures) -> list[str]:
    """What the table is told of a cloud phase: its events, the swept ships still on the
    board, and the places whose captures are checked once the cloud has left them."""
    lines = [f"cloud: {e}" for e in events if not isinstance(e, GameOver)]
    survived = sorted(pending.swept - decided.captured)
    if survived:
        lines.append(f"    swept but still on the board: {', '.join(survived)}")
    if decided.unseen:
        lines.append(
            f"    provisional: the cloud covers {', '.join(decided.unseen)}; its captures "
            "there are checked when it has left"
        )
    removed = next((e for e in events if isinstance(e, CloudRemoved)), None)
    if removed is not None:
        lost = ", ".join(removed.ships) or "no ships"
        lines.append(
            f"the cloud reached an outside dot: {lost} out of the game; take them out of "
            "the cloud. The cloud returns to the centre at letter A"
        )
    return lines


def totals_line(game: Game) -> str:
    totals = game.totals()
    return "totals: " + ", ".join(f"{c} {usd(totals[c])}" for c in game.players)
