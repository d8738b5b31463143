"""How far a token moved: whether the one token on a landing space stood still since the
last board that matched the game, and how likely that is if a hand set a token down there
anew in the meantime.

A dock and a bump of the player's own ship back into the port docked at leave the same
colours on every place. They differ in one thing the camera sees: for the dock the token
on the landing space was not touched; for the bump it was lifted and the mover set down in
its stead. Its two readings (on the last board that matched the game, and now) are
evidence, with likelihoods measured on this table's own boards (`HandSample`):

- **read still** (within `referee.UNTOUCHED_MM` of where it stood, its wider disk
  unchanged): if untouched, as often as the tokens no move concerned stayed so from one
  board that matched the game to the next; if set down anew, as often as a token set
  down on a place where another was read before read within that distance of it.
  A token's offset from its place's centre tells nothing of the hand: tokens set down on
  their centres read up to a few millimetres off them (where a token's top shows through
  the lens), the same for any token on that place. Only a token set down where another
  stood measures how a hand sets one down, one per move at most;
- **read moved**: no evidence either way. A hand at work beside a token knocks it more
  often than the board's other tokens show, and that rate is not measured.

Counts are smoothed (one more of each outcome than seen): a table whose tokens were seen
set down again few times tells little (the ratio for "untouched" is at most the number of
such tokens seen plus two), and one whose hands set tokens squarely on their places (two
tokens in a row read on the same spot) tells nothing, as it should.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from bermuda_hw.controller.referee import (
    UNTOUCHED_MM,
    UNTOUCHED_REACH,
    UNTOUCHED_SEEN,
    observation_evidence,
    place_observability,
)
from bermuda_hw.rules.board import Board
from bermuda_hw.vision.types import BoardObservation, ShipReading


@dataclass(frozen=True)
class Stillness:
    """The one token on a landing space read where it stood, and how likely that is."""

    space: str
    moved_mm: float  # how far from where it stood
    untouched: float  # the chance of reading it still if no hand touched it
    set_down: float  # ... if a hand set a token down there anew

    @property
    def log_ratio(self) -> float:
        """log(set down / untouched): what a move that set a token down there gains."""
        return math.log(self.set_down) - math.log(self.untouched)


def _alone(obs: BoardObservation, board: Board) -> dict[str, ShipReading]:
    """The tokens in view alone on their path space."""
    seen: dict[str, list[ShipReading]] = {}
    for ship in obs.ships:
        space = ship.space
        if space is not None and space not in board.ports and not ship.hidden:
            seen.setdefault(space, []).append(ship)
    return {space: ships[0] for space, ships in seen.items() if len(ships) == 1}


def _moved(a: ShipReading, b: ShipReading) -> float:
    return math.dist((a.x_mm, a.y_mm), (b.x_mm, b.y_mm))


@dataclass
class HandSample:
    """What this table's boards showed of tokens set down and left alone, from one board
    that matched the game to the next (see the module's text)."""

    set_again: int = 0  # tokens set down on a path space where another was read before
    same_spot: int = 0  # ... of which read within UNTOUCHED_MM of it
    left: int = 0  # tokens no move concerned, alone on their path space on both boards
    stayed: int = 0  # ... of which read within UNTOUCHED_MM of where they stood

    def coincide(self) -> float:
        """The chance that a token set down anew reads where the one before it stood."""
        return (self.same_spot + 1) / (self.set_again + 2)

    def stay(self) -> float:
        """The chance that a token nobody touched reads where it stood."""
        return (self.stayed + 1) / (self.left + 2)

    def learn(
        self,
        board: Board,
        before: BoardObservation,
        after: BoardObservation,
        set_down: Iterable[str],
        concerned: Iterable[str],
    ) -> None:
        """Count two boards that matched the game, with the moves taken between them:
        `set_down`, the spaces their movers were set down on; `concerned`, every place a
        move or a capture changed (their tokens were handled, or may have been)."""
        landed, handled = set(set_down), set(concerned) | set(set_down)
        was, now = _alone(before, board), _alone(after, board)
        for space, ship in now.items():
            old = was.get(space)
            if old is None:
                continue
            if space in landed:
                self.set_again += 1
                self.same_spot += _moved(old, ship) < UNTOUCHED_MM
            elif space not in handled and old.color == ship.color:
                self.left += 1
                self.stayed += _moved(old, ship) < UNTOUCHED_MM


def stillness(
    board: Board,
    reference: BoardObservation,
    observation: BoardObservation,
    space: str,
    hands: HandSample,
) -> Stillness | None:
    """The evidence of the one token on a path space read still where it stood on
    `reference` (see the module's text), or None: it moved, or its readings cannot be
    compared (more than one token, another colour, out of sight, its wider disk changed)."""
    if space in board.ports or space not in board.spaces:
        return None
    was, now = reference.ships_at(space), observation.ships_at(space)
    if len(was) != 1 or len(now) != 1 or was[0].color != now[0].color:
        return None
    if was[0].hidden or now[0].hidden:
        return None
    before, after = observation_evidence(board, reference), observation_evidence(board, observation)
    if min(place_observability(before, space), place_observability(after, space)) < UNTOUCHED_SEEN:
        return None
    moved_mm = _moved(was[0], now[0])
    if moved_mm >= UNTOUCHED_MM or before.reach is None or after.reach is None:
        return None
    # read still, but its wider disk (`BoardEvidence.reach`) must show what it showed: a
    # second token set down beside it would not move its reading
    i, c = before.index(space), before.colors.index(now[0].color)
    was_there, there = float(before.reach[i, c]), float(after.reach[i, c])
    if was_there <= 0.0 or abs(there - was_there) > UNTOUCHED_REACH * was_there:
        return None
    return Stillness(space, moved_mm, hands.stay(), hands.coincide())
