"""Provisional decisions the board, now in view, contradicts: the game as it should have been.

A cloud phase's captures from places the cloud covered, and a move taken into
places the camera could not see, are the camera's best word until it sees them.
When it does and the board says otherwise, these work out the corrected game:
the journal from the provisional entry on, played again with the correction.
Pure: the daemon writes the corrected journal (an undo entry naming the rows
taken back, then the corrected rows; nothing is deleted) and says what changed.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.identify import Difference, difference
from bermuda_hw.controller.referee import Outcome, changed_places, judge
from bermuda_hw.errors import RulesError, StateError
from bermuda_hw.rules.candidates import Bump, Candidate, Kind, candidates, contents
from bermuda_hw.rules.events import Event, Swept
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.moves import split_ship_id
from bermuda_hw.rules.record import played_on, rewound
from bermuda_hw.vision.types import BoardObservation

log = logging.getLogger("bermuda_hw.controller")


@dataclass(frozen=True)
class CorrectedCaptures:
    """A cloud phase's captures as the board shows them, and the game played on from them."""

    game: Game
    captured: frozenset[str]
    changes: tuple[str, ...]  # in words: "the magnets left blue-2 on S7"


@dataclass(frozen=True)
class Unplayable:
    """Captures to correct that the game since does not follow from (a pass the ship left
    there would have moved, say): the game as it was just after that cloud phase, with
    the corrected captures (`at_phase`), is what it can go back to."""

    changes: tuple[str, ...]
    why: str
    at_phase: Game | None  # (None: the phase itself cannot hold them)


def corrected_captures(
    game: Game, item: Provisional, seen: Difference
) -> CorrectedCaptures | Unplayable | None:
    """The captures of the cloud phase `item`, against what differs on its places now in view
    (`seen`): a ship of a colour seen on a place it was taken from was left there by the
    magnets; one missing from a place where a swept ship was left was taken. None if the
    board agrees, or no correction of that phase explains it; `Unplayable` if the game
    since does not follow from the correction."""
    entries = list(game.journal)
    if item.count >= len(entries):
        return None
    entry = entries[item.count]
    if "cloud" not in entry:
        return None
    try:
        before = rewound(game, item.count)
    except (RulesError, StateError):
        return None
    captured = set(entry["captured"])
    changes = _seen_changes(before, captured, seen, set(item.places))
    if not changes:
        return None
    return _replayed(game, item, before, captured, changes)


def _seen_changes(
    before: Game, captured: set[str], seen: Difference, places: set[str]
) -> list[str]:
    """The board's word on a cloud phase's captures from `places` (in view): `captured`
    changed to what `seen` shows there, and the changes in words."""
    extra = Counter(e for e in seen.extra if e[1] in places)
    missing = Counter(m for m in seen.missing if m[1] in places)
    changes: list[str] = []
    for (color, place), n in sorted(extra.items(), key=lambda kv: str(kv[0])):
        left = [
            s
            for s in before.ship_ids
            if s in captured and split_ship_id(s)[0] == color and before.ship(s).location == place
        ]
        for sid in left[:n]:
            captured.discard(sid)
            changes.append(f"the magnets left {sid} on {place}")
    for (color, place), n in sorted(missing.items(), key=lambda kv: str(kv[0])):
        taken = [s.id for s in before.ships(color) if s.location == place and s.id not in captured]
        for sid in taken[:n]:
            captured.add(sid)
            changes.append(f"the magnets took {sid} from {place}")
    return changes


def _replayed(
    game: Game,
    item: Provisional,
    before: Game,
    captured: set[str],
    changes: list[str],
    still: tuple[str, ...] = (),
) -> CorrectedCaptures | Unplayable:
    """The game played on from the cloud phase `item` with `captured` as its captures
    (provisional still on the places `still`); `Unplayable` if the journal since cannot be
    played on from them."""
    entries = list(game.journal)
    corrected = {k: v for k, v in entries[item.count].items() if k != "provisional"}
    corrected["captured"] = [s for s in before.ship_ids if s in captured]
    if still:
        corrected["provisional"] = list(still)
    try:
        fixed = played_on(before, [corrected, *entries[item.count + 1 :]])
    except (RulesError, StateError) as exc:
        log.info("the captures of %s cannot be corrected: %s", item.move, exc)
        try:
            at_phase: Game | None = played_on(before, [corrected])
        except (RulesError, StateError):
            at_phase = None
        return Unplayable(tuple(changes), str(exc), at_phase)
    return CorrectedCaptures(fixed, frozenset(captured), tuple(changes))


@dataclass(frozen=True)
class CaptureDoubt:
    """A cloud phase's provisional captures the table is asked about: the swept ships of
    one colour that stood on one of its places the camera does not see whole and may
    stand there still (alike: told apart by nobody), and which of them the game has the
    magnets take."""

    item: Provisional
    ships: tuple[tuple[str, str], ...]  # (ship, the place it stood on), in seat order
    taken: frozenset[str]


def capture_doubts(
    game: Game, item: Provisional, unseen: frozenset[str], told: Mapping[str, bool]
) -> list[CaptureDoubt]:
    """What the table can tell of the cloud phase `item` that the camera cannot, by colour
    and place: the ships its spin swept from its places in `unseen`, taken by the magnets
    in the game or still standing there in it (a ship the game has moved on since was
    left, as its move showed), and not `told` of already. None if the journal does not
    hold the phase."""
    entries = list(game.journal)
    if not item.captures or item.count >= len(entries):
        return []
    entry = entries[item.count]
    if "cloud" not in entry:
        return []
    try:
        before = rewound(game, item.count)
        events = before.copy().cloud_phase(entry["cloud"], capture=())
    except (RulesError, StateError):
        return []
    swept = next((frozenset(e.ships) for e in events if isinstance(e, Swept)), frozenset())
    captured = set(entry["captured"])
    groups: dict[tuple[str, str], list[str]] = {}
    for s in before.ships():
        if (
            s.location is not None
            and s.location in unseen
            and s.location in item.places
            and s.id in swept
            and s.id not in told
            and (s.id in captured or game.ship(s.id).location == s.location)
        ):
            groups.setdefault((s.color, s.location), []).append(s.id)
    return [
        CaptureDoubt(
            item, tuple((s, place) for s in ships), frozenset(s for s in ships if s in captured)
        )
        for (_, place), ships in sorted(groups.items())
    ]


def captures_told(
    game: Game,
    item: Provisional,
    told: Mapping[str, bool],
    seen: Difference | None = None,
    still: tuple[str, ...] = (),
) -> CorrectedCaptures | Unplayable | None:
    """The game with the cloud phase `item`'s ships the table told of taken or left as it
    said (`told`: ship -> taken), its places in view as the board shows them (`seen`, what
    differs there: `corrected_captures`), and the rest as the camera guessed (provisional
    still on `still`); None if that is the game as it is; `Unplayable` if the game since
    does not follow from it."""
    entry = game.journal[item.count]
    if "cloud" not in entry:
        return None
    before = rewound(game, item.count)
    guessed = set(entry["captured"])
    captured = {s for s in guessed if told.get(s, True)} | {s for s, t in told.items() if t}
    changes = [
        f"the magnets took {s} from {before.ship(s).location}"
        if taken
        else f"the magnets left {s} on {before.ship(s).location}"
        for s, taken in sorted(told.items())
        if taken != (s in guessed)
    ]
    if seen is not None:
        changes += _seen_changes(before, captured, seen, set(item.places) - set(still))
    if not changes:
        return None
    return _replayed(game, item, before, captured, changes, still)


def outcome_hangs_on(game: Game, doubt: CaptureDoubt) -> bool:
    """Whether a game's outcome hangs on the table's word on `doubt` at its end: some of the
    doubt's ships taken or left otherwise than the game has them ends the game otherwise
    (its winners, totals or reason), or not at all, or leaves a game since that does not
    follow. Alike ships are told apart by nobody, so every choice of them counts. A doubt
    the outcome does not hang on is no question: whatever the table said, the game would
    end as it has."""
    ships = [s for s, _ in doubt.ships]
    ended = game.outcome()
    for k in range(len(ships) + 1):
        for taken in itertools.combinations(ships, k):
            told = dict(doubt.item.told) | {s: s in taken for s in ships}
            result = captures_told(game, doubt.item, told)
            if result is None:
                continue  # (the game as it is)
            if isinstance(result, Unplayable) or result.game.outcome() != ended:
                return True
    return False


@dataclass(frozen=True)
class CorrectedMove:
    """Another move of the same turn in place of a provisional one, and the game played on."""

    game: Game
    move: Candidate  # the move the board shows
    events: tuple[Event, ...]  # what that move did


def corrected_move(
    game: Game, item: Provisional, observation: BoardObservation, die_mode: str
) -> CorrectedMove | None:
    """The last move taken into places out of sight (`item`), against a board that now shows
    a ship of its colour the game does not have: another move of that turn that explains
    the board (the ship was held in a hand, or misread, while the camera saw where it had
    left, then shows where it went), with the ship moves made since played again.

    Only a move the board shows whole (no ship it bumps left on its landing space or
    lifted off) replaces it, and only if the corrected game explains every place that
    move changes, leaves nothing of that colour unexplained and explains more of the
    board than before; never one that would end the game (the table is better asked)."""
    color = split_ship_id(item.move.split(" ", 1)[0])[0]
    now = difference(game, observation)
    if not any(c == color for c, _ in now.extra):
        return None
    if _bumped_back(game, color, now):
        return None  # (the next player's move is judged first)
    entries = list(game.journal)
    made = next((i for i in range(item.count, len(entries)) if "move" in entries[i]), None)
    if made is None or entries[made].get("move") != item.move or "provisional" not in entries[made]:
        return None
    rest = entries[made + 1 :]
    if any(set(e) - {"roll", "engine", "move"} for e in rest):
        return None  # a cloud phase, an edit or another move out of sight since
    try:
        before = rewound(game, item.count)
    except (RulesError, StateError):
        return None
    if (
        before.phase is not Phase.SHIPS
        or before.active != color
        or (die_mode == "virtual" and before.die is None)
    ):
        return None
    dice = None if before.die is None else frozenset({before.die})
    verdict = judge(before, observation, dice)
    if verdict.outcome is not Outcome.MOVE or verdict.accepted is None or verdict.provisional:
        return None
    other = verdict.accepted.best
    assert other.move is not None and other.die is not None
    if str(other.move) == item.move or other.bump not in (Bump.NONE, Bump.BACK):
        return None
    head = before.copy()
    try:
        if head.die is None:
            head.set_die(other.die)
        events = head.push(other.move)
        fixed = played_on(head, rest)
    except (RulesError, StateError, ValueError):
        return None
    if fixed.is_over():
        return None
    # what is left must be what others did since (the next player's move not yet taken)
    own = set(changed_places(contents(before), contents(head)))
    left = difference(fixed, observation)
    if any(p[1] in own or p[0] == color for p in (*left.missing, *left.extra)) or len(
        left.missing
    ) + len(left.extra) >= len(now.missing) + len(now.extra):
        return None
    return CorrectedMove(fixed, other, tuple(events))


def _bumped_back(game: Game, color: str, now: Difference) -> bool:
    """Whether a move of the player now to move (another colour) that bumps a ship of
    `color` back to its port explains the ships of that colour the board shows where the
    game has none: a ship taken out of sight, then landed on by the next player and put
    back, is no sign that it went elsewhere."""
    if game.phase is not Phase.SHIPS or game.active == color:
        return False
    dice = None if game.die is None else frozenset({game.die})
    before = contents(game)
    wanted = Counter(place for c, place in now.extra if c == color and place is not None)
    for cand in candidates(game, dice):
        if cand.kind is not Kind.MOVE or cand.bump is not Bump.BACK:
            continue
        if not any(split_ship_id(s)[0] == color for s in cand.bumped):
            continue
        if all(
            cand.contents.get(p, ()).count(color) - before.get(p, ()).count(color) >= n
            for p, n in wanted.items()
        ):
            return True
    return False
