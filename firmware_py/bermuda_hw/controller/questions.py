"""The question put to the table when the board leaves moves tied, and what its answer means.

One question at a time, with "none of these" and "not yet" always last: by die when
the tied moves' dice do not overlap ("did you roll 2 or 5?"), whether a move was made
when one move is in doubt, else which move it was; before a spin, whether a ship
stands on a landing the camera never saw; and, before a pass or the game's end that
rests on them, which ships the cloud took where the camera cannot see. Pure: the daemon
asks, counts the presses and carries the answer out (option k: the k-th move; then none
of these, then not yet).
"""

from __future__ import annotations

from itertools import combinations

from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import CaptureDoubt
from bermuda_hw.controller.referee import Group
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Question
from bermuda_hw.controller.wording import dice_text, either
from bermuda_hw.rules.moves import Move


def question_for(
    color: str, groups: tuple[Group, ...], unseen: tuple[str, ...] = ()
) -> tuple[Question, tuple[Group, ...]]:
    """The question for `color`'s tied moves, and the moves in the order of its options.
    `unseen`: for one move, the places it arrives at that the camera cannot see (said, so
    that the table knows why it is asked)."""
    dice = [g.dice for g in groups]
    by_die = len(groups) > 1 and all(not (a & b) for i, a in enumerate(dice) for b in dice[i + 1 :])
    if by_die:
        groups = tuple(sorted(groups, key=lambda g: min(g.dice)))
        dice = [g.dice for g in groups]
        options = tuple(dice_text(ds) for ds in dice)
        text = f"{color}: did you roll {either(options)}?"
    elif len(groups) == 1:
        options = (f"yes: {groups[0].best.describe()}",)
        text = f"{color}: did you make {groups[0].best.describe()}?"
        if unseen:
            text += f" The camera cannot see {', '.join(unseen)}: only you can tell"
    else:
        options = tuple(str(g.best.move) for g in groups)
        text = f"{color}: which move did you make: {either(options)}?"
    moves = tuple(tuple(sorted({str(c.move) for c in g.members})) for g in groups)
    question = Question(
        text,
        (*options, NONE_OF_THESE, NOT_YET),
        (
            *(tuple(dice) if by_die else tuple(frozenset() for _ in groups)),
            frozenset(),
            frozenset(),
        ),
        (*moves, (), ()),
        color,
    )
    return question, groups


#: what a question about a move's landing, asked before the spin, says it is
BEFORE_SPIN = "before the spin"


def landing_question(item: Provisional) -> Question:
    """Whether the ship of a move taken out of sight stands where the game has it: asked
    before the spin (`GameSession.unseen_landing`), while a person can still look under
    the cloud's rim."""
    move = Move.parse(item.move)
    color = move.color
    text = (
        f"{color}, {BEFORE_SPIN}: is {move.ship} on {move.end}? The camera never saw it "
        f"land there ({item.move})"
    )
    return Question(
        text,
        (f"yes: {move.ship} is on {move.end}", NONE_OF_THESE, NOT_YET),
        (frozenset(), frozenset(), frozenset()),
        ((item.move,), (), ()),
        color,
    )


#: what a question about a cloud phase's captures the camera cannot check says it is
UNDER_THE_CLOUD = "under the cloud's rim"


def capture_question(
    doubt: CaptureDoubt, color: str
) -> tuple[Question, tuple[frozenset[str], ...]]:
    """Which of the ships that stood where the camera cannot see the magnets took
    (`GameSession.capture_behind_pass`, or at the game's end), asked of `color`'s turn: one
    option per answer the table could give, the game's guess first; and the ships each
    option takes. Option k's moves name the ships it takes as `ship@place`."""
    ships = [s for s, _ in doubt.ships]
    where = dict(doubt.ships)
    subsets = [frozenset(c) for n in range(len(ships), -1, -1) for c in combinations(ships, n)]
    subsets.sort(key=lambda t: t != doubt.taken)  # (stable: the rest keep their order)
    places = sorted(set(where.values()))
    if len(ships) == 1:
        (ship,) = ships
        text = (
            f"{color}, {UNDER_THE_CLOUD}: did the magnets take {ship} from {where[ship]}? "
            f"The camera cannot see {where[ship]} whole"
        )
        options = tuple(
            f"yes: the cloud holds {ship}" if t else f"no: {ship} stands on {where[ship]}"
            for t in subsets
        )
    else:
        text = (
            f"{color}, {UNDER_THE_CLOUD}: which of {', '.join(ships[:-1])} and {ships[-1]} "
            f"did the magnets take? The camera cannot see {', '.join(places)} whole"
        )
        options = tuple(_taken_text(t, ships, where) for t in subsets)
    question = Question(
        text,
        (*options, NONE_OF_THESE, NOT_YET),
        tuple(frozenset() for _ in range(len(options) + 2)),
        (*(tuple(f"{s}@{where[s]}" for s in ships if s in t) for t in subsets), (), ()),
        color,
    )
    return question, tuple(subsets)


def _taken_text(taken: frozenset[str], ships: list[str], where: dict[str, str]) -> str:
    """One answer about several ships: which the cloud holds, and where the rest stand."""
    left = [f"{s} stands on {where[s]}" for s in ships if s not in taken]
    held = [s for s in ships if s in taken]
    if not left:
        return "the cloud holds them all"
    if not held:
        return "the cloud holds none of them: " + "; ".join(left)
    return f"the cloud holds {' and '.join(held)}; " + "; ".join(left)
