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

from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import CaptureDoubt
from bermuda_hw.controller.referee import Group
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Question
from bermuda_hw.controller.wording import dice_text, either
from bermuda_hw.rules.moves import Move, split_ship_id


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
    option per answer the table can give, by how many of each colour each place lost
    (alike tokens are told apart by nobody), the game's guess first; and the ships each
    option takes. Option k's moves name the ships it takes as `ship@place`."""
    groups: dict[tuple[str, str], list[str]] = {}
    for ship, place in doubt.ships:
        groups.setdefault((split_ship_id(ship)[0], place), []).append(ship)
    keys = sorted(groups)
    answers: list[tuple[int, ...]] = [()]  # (count taken per group, in key order)
    for key in keys:
        answers = [(*a, k) for a in answers for k in range(len(groups[key]) + 1)]
    guess = tuple(sum(s in doubt.taken for s in groups[key]) for key in keys)
    answers.sort(key=lambda a: a != guess)  # (stable: the rest keep their order)
    takes = tuple(
        frozenset(
            s for key, k in zip(keys, a, strict=True) for s in _taking(groups[key], k, doubt.taken)
        )
        for a in answers
    )
    places = sorted({p for _, p in keys})
    where = " and ".join(places)
    if len(doubt.ships) == 1:
        ship, place = doubt.ships[0]
        text = f"{color}, {UNDER_THE_CLOUD}: did the magnets take {ship} from {place}?"
    elif len(keys) == 1:
        (ship_color, place), n = keys[0], len(doubt.ships)
        text = (
            f"{color}, {UNDER_THE_CLOUD}: how many of the {n} {ship_color} ships on {place} "
            "did the magnets take?"
        )
    else:
        text = f"{color}, {UNDER_THE_CLOUD}: which ships did the magnets take from {where}?"
    text += f" The camera cannot see {where} whole"
    options = tuple(
        "; ".join(_count_text(key, groups[key], k) for key, k in zip(keys, a, strict=True))
        for a in answers
    )
    ships_at = dict(doubt.ships)
    question = Question(
        text,
        (*options, NONE_OF_THESE, NOT_YET),
        tuple(frozenset() for _ in range(len(options) + 2)),
        (*(tuple(f"{s}@{ships_at[s]}" for s in sorted(t)) for t in takes), (), ()),
        color,
    )
    return question, takes


def _taking(ships: list[str], k: int, guessed: frozenset[str]) -> list[str]:
    """`k` of a place's alike ships taken: those the game has taken first."""
    return sorted(ships, key=lambda s: s not in guessed)[:k]


def _count_text(key: tuple[str, str], ships: list[str], k: int) -> str:
    """What one answer says of a colour's ships on a place: how many the magnets took."""
    color, place = key
    n = len(ships)
    if n == 1:
        return f"the magnets took {ships[0]}" if k else f"{ships[0]} still stands on {place}"
    every = "both" if n == 2 else f"all {n}"
    if k == n:
        return f"the magnets took {every} {color} ships on {place}"
    if k == 0:
        return f"{every} {color} ships still stand on {place}"
    stand = "stands" if n - k == 1 else "stand"
    return f"the magnets took {k} of the {n} {color} ships on {place}; {n - k} still {stand} there"
