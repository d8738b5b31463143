"""How far a token moved: whether the one token on a landing space stood still since the
last board that matched the game, and how likely that is if a hand set a token down there
anew in the meantime.

A dock and a bump of the player's own ship back into the port docked at leave the same
colours on every place. They differ in one thing the camera sees: for the dock the token
on the landing space was not touched; for the bump it was lifted and the mover set down in
its stead. Its two readings (on the last board that matched the game, and now) are
evidence, with likelihoods measured on this table's own boards (`HandSample`):

- **read still** (`reads_still`: within `referee.UNTOUCHED_MM` of where it stood, its
  wider disk unchanged): if untouched, as often as the tokens no move concerned read
  still from one board that matched the game to the next; if set down anew, as often as
  a mover of that colour set down in the stead of a token of its own colour, over a
  single move, read still. The same test counts both and is the evidence.
  A token's offset from its place's centre tells nothing of the hand: tokens set down on
  their centres read up to a few millimetres off them (where a token's top shows through
  the lens), the same for any token on that place. Only a token set down where another
  stood measures how a hand sets one down, one per bump at most;
- **read moved**: no evidence either way. A hand at work beside a token knocks it more
  often than the board's other tokens show, and that rate is not measured.

Counts are smoothed (one more of each outcome than seen): a table whose tokens were seen
set down again few times tells little (the ratio for "untouched" is at most the number of
such tokens seen plus two), and one whose hands set tokens squarely in the place of the
one before tells nothing, as it should. A count that makes a token read still no likelier
untouched than set down again is no evidence (a token's reading never counts for a hand).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bermuda_hw.controller.referee import (
    UNTOUCHED_MM,
    UNTOUCHED_REACH,
    UNTOUCHED_SEEN,
    observation_evidence,
    place_observability,
)
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.moves import Move
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


def _moved(a: ShipReading, b: ShipReading) -> float:
    return math.dist((a.x_mm, a.y_mm), (b.x_mm, b.y_mm))


def reads_still(
    board: Board, before: BoardObservation, after: BoardObservation, space: str
) -> bool | None:
    """Whether the one token on a path space on both boards reads where it stood: within
    `UNTOUCHED_MM`, its wider disk (`BoardEvidence.reach`) showing what it showed (a
    second token set down beside it would not move its reading). None where that cannot
    be judged: not one token on both, the space not seen well on both, the wider disk not
    measured. The colours may differ (a token set down in another's stead)."""
    if space in board.ports or space not in board.spaces:
        return None
    was, now = before.ships_at(space), after.ships_at(space)
    if len(was) != 1 or len(now) != 1 or was[0].hidden or now[0].hidden:
        return None
    then, there = observation_evidence(board, before), observation_evidence(board, after)
    if min(place_observability(then, space), place_observability(there, space)) < UNTOUCHED_SEEN:
        return None
    if then.reach is None or there.reach is None:
        return None
    if _moved(was[0], now[0]) >= UNTOUCHED_MM:
        return False
    if was[0].color not in then.colors or now[0].color not in there.colors:
        return None
    old = float(then.reach[then.index(space), then.colors.index(was[0].color)])
    new = float(there.reach[there.index(space), there.colors.index(now[0].color)])
    return old > 0.0 and abs(new - old) <= UNTOUCHED_REACH * old


@dataclass
class HandSample:
    """What this table's boards showed of tokens set down and left alone, from one board
    that matched the game to the next (see the module's text). Tokens set down again are
    counted per colour (each seat's hand apart), and only where a player's mover took the
    place of a token of its own colour: the one case the evidence is weighed for."""

    set_again: Counter[str] = field(default_factory=Counter)  # per colour
    same_spot: Counter[str] = field(default_factory=Counter)  # ... read still
    left: int = 0  # tokens no move concerned, alone on their path space on both boards
    stayed: int = 0  # ... of which read still

    def coincide(self, color: str) -> float:
        """The chance that a token of this colour set down in the stead of one of its own
        reads still (smoothed)."""
        return (self.same_spot[color] + 1) / (self.set_again[color] + 2)

    def stay(self) -> float:
        """The chance that a token nobody touched reads still (smoothed)."""
        return (self.stayed + 1) / (self.left + 2)

    def learn(
        self,
        board: Board,
        before: BoardObservation,
        after: BoardObservation,
        moves: Sequence[Move],
        changed: Iterable[str],
        skip: Iterable[str] = (),
    ) -> None:
        """Count two boards that matched the game, with the moves taken between them and
        the places whose ships changed (`changed`: moves, bumps, captures, hand edits).
        Tokens set down again are counted only across a single move (with several, a
        space may have been left and taken again); `skip`: spaces not to count (a
        landing the caller cannot vouch for, a space whose reading decided a move)."""
        landed = {m.end: m for m in moves if not m.is_pass}
        handled = set(changed) | set(skip)
        for m in moves:
            if not m.is_pass:
                handled |= {m.start, m.end}
        for space in sorted(board.spaces):
            if space in set(skip):
                continue
            still = reads_still(board, before, after, space)
            if still is None:
                continue
            was, now = before.ships_at(space)[0], after.ships_at(space)[0]
            if space in landed and len(moves) == 1:
                if was.color == now.color:
                    self.set_again[now.color] += 1
                    self.same_spot[now.color] += still
            elif space not in handled and was.color == now.color:
                self.left += 1
                self.stayed += still


def stillness(
    board: Board,
    reference: BoardObservation,
    observation: BoardObservation,
    space: str,
    hands: HandSample,
) -> Stillness | None:
    """The evidence of the one token on a path space read still where it stood on
    `reference` (see the module's text), or None: it moved, its readings cannot be
    compared (`reads_still`), it changed colour, or the table's count does not make a
    token read still likelier untouched than set down again (a token's reading never
    counts for a hand setting one down)."""
    if reads_still(board, reference, observation, space) is not True:
        return None
    was, now = reference.ships_at(space)[0], observation.ships_at(space)[0]
    if was.color != now.color:
        return None
    untouched, set_down = hands.stay(), hands.coincide(now.color)
    if set_down >= untouched:
        return None
    return Stillness(space, _moved(was, now), untouched, set_down)
