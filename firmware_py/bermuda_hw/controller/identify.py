"""How the board differs from the game: expected and seen placements, and the words for it.

Vision reports ships by colour and place, never by number. The expected
placement is the engine's (colour, place) of every ship on the board. The
difference between the two (places under the cloud left out) is what the
players are asked to fix, described in words. Which move was made is the
referee's business (`controller.referee`), not this module's.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass

from bermuda_hw.errors import RulesError
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.hints import why_illegal
from bermuda_hw.rules.moves import MAX_DIE
from bermuda_hw.vision.types import BoardObservation

Place = tuple[str, str | None]  # (colour, space or port id; None: off every space)

#: Two readings of one colour closer than this are one ship seen twice: a ship on a
#: space that lies next to a port's berth can show in both sampling disks.
DOUBLE_READING_MM = 16.0
#: At most this many such pairs are each tried read once (the variants grow as three to
#: the power of the pairs): a board has few places closer than DOUBLE_READING_MM, and the
#: first pairs found stand for a board with more.
MAX_DOUBLE_READINGS = 3


def expected_places(game: Game) -> Counter[Place]:
    """Where the engine has the ships on the board, by colour."""
    return Counter((s.color, s.location) for s in game.ships() if s.location is not None)


def observed_places(observation: BoardObservation) -> Counter[Place]:
    """Where the camera sees ships (ships known hidden under the cloud included)."""
    return Counter((s.color, s.space) for s in observation.ships)


def seen_variants(observation: BoardObservation) -> list[Counter[Place]]:
    """The placements the observation may mean: as read, and with each double reading once."""
    ships = [s for s in observation.ships if not s.hidden]
    pairs = [
        (i, j)
        for i, j in itertools.combinations(range(len(ships)), 2)
        if ships[i].color == ships[j].color
        and ships[i].space != ships[j].space
        and math.hypot(ships[i].x_mm - ships[j].x_mm, ships[i].y_mm - ships[j].y_mm)
        < DOUBLE_READING_MM
    ][:MAX_DOUBLE_READINGS]
    base = observed_places(observation)
    variants = [base]
    for choice in itertools.product(*[(None, i, j) for i, j in pairs]):
        drop = [k for k in choice if k is not None]
        if not drop:
            continue
        variant = Counter(base)
        for k in set(drop):
            variant[(ships[k].color, ships[k].space)] -= 1
        variants.append(+variant)
    return variants


def _visible(places: Counter[Place], hidden: frozenset[str]) -> Counter[Place]:
    return Counter({p: n for p, n in places.items() if p[1] is None or p[1] not in hidden})


def _place_text(place: Place) -> str:
    color, space = place
    return f"a {color} ship {'off every space' if space is None else 'at ' + space}"


@dataclass(frozen=True)
class Difference:
    """Ships the engine expects but the camera does not see, and ships seen but not expected."""

    missing: tuple[Place, ...] = ()
    extra: tuple[Place, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.missing or self.extra)

    def describe(self) -> str:
        """What to fix, in words: where ships should be and where they are."""
        parts = []
        extra = list(self.extra)
        for color, space in self.missing:
            twin = next((e for e in extra if e[0] == color), None)
            if twin is not None:
                extra.remove(twin)
                where = "off every space" if twin[1] is None else f"at {twin[1]}"
                parts.append(f"the {color} ship {where} belongs at {space}")
            else:
                parts.append(f"a {color} ship is missing at {space}")
        parts.extend(f"{_place_text(e)} should not be there" for e in extra)
        return "; ".join(parts)


def difference(game: Game, observation: BoardObservation) -> Difference:
    """The smallest difference between the game and what the observation may mean."""
    hidden = observation.hidden_spaces
    expected = _visible(expected_places(game), hidden)
    best: Difference | None = None
    board = game.board
    # a port holding more ships than it has berths (a bump back into a full port): the
    # extra ones stand beside others, so at most one ship per berth can be seen there
    doubled = Counter(
        {
            port: n - len(p.berths)
            for port, p in board.ports.items()
            if (n := len(game.ships_at(port))) > len(p.berths)
        }
    )
    for variant in seen_variants(observation):
        seen = _visible(variant, hidden)
        missing, extra = expected - seen, seen - expected
        if doubled:
            # unless a ship of that colour is seen where the game has none (the bumped
            # ship not put back yet: it belongs in the port)
            unseen = Counter(doubled)
            astray = {color for color, _ in extra}
            for item in sorted(missing.elements(), key=lambda p: (p[0], p[1] or "")):
                if item[1] is not None and unseen[item[1]] > 0 and item[0] not in astray:
                    unseen[item[1]] -= 1
                    missing[item] -= 1
            missing = +missing
        diff = Difference(_sorted(missing), _sorted(extra))
        if best is None or len(diff.missing) + len(diff.extra) < len(best.missing) + len(
            best.extra
        ):
            best = diff
    assert best is not None
    return best


def _sorted(places: Counter[Place]) -> tuple[Place, ...]:
    return tuple(sorted(places.elements(), key=lambda p: (p[0], p[1] or "")))


def pass_die(game: Game) -> int | None:
    """The lowest die value with which the active player has no move at all, if any."""
    if game.phase is not Phase.SHIPS:
        return None
    for die in range(1, MAX_DIE + 1):
        moves = game.legal_moves(die)
        if len(moves) == 1 and moves[0].is_pass:
            return die
    return None


def explain(game: Game, diff: Difference, dice: frozenset[int] | None = None) -> str:
    """What is wrong with a board that no legal move explains, in words; `dice`: the die
    values the turn may have (the known die), which a move of another count is named
    against."""
    if (
        dice
        and len(dice) == 1
        and not diff.missing[1:]
        and not diff.extra[1:]
        and diff.missing
        and diff.extra
    ):
        (color, start), (color_to, end) = diff.missing[0], diff.extra[0]
        steps = (
            None
            if start is None or end is None or color != color_to
            else game.board.distance(start, end)
        )
        if color == game.active and steps is not None:
            (die,) = dice
            assert start is not None and end is not None
            reason = _rules_reason(game, start, end, die) if steps == die else None
            if reason is not None:
                # the right count, against another rule: the engine's own words
                return f"{color}: {start} to {end}: {reason}: put the ship back on {start}"
            counted = f"{steps} space{'s' if steps != 1 else ''}"
            return (
                f"{color}: {start} to {end} is {counted}; the die says {die}: put the "
                f"ship back on {start} and move {die}"
            )
    return _why(game, diff)


def _rules_reason(game: Game, start: str, end: str, die: int) -> str | None:
    """Why the rules forbid taking an own ship from `start` to `end` with `die`
    (`rules.hints.why_illegal`), or None if they do not."""
    try:
        return why_illegal(game, start, end, die)
    except RulesError:
        return None


def _why(game: Game, diff: Difference) -> str:
    active = game.active
    colors = {p[0] for p in (*diff.missing, *diff.extra)}
    others = sorted(colors - {active})
    if others:
        return f"it is {active}'s turn, but {' and '.join(others)} ships changed: {diff.describe()}"
    if len(diff.missing) == 1 and len(diff.extra) == 1:
        start, end = diff.missing[0][1], diff.extra[0][1]
        if end is None:
            return f"a {active} ship left {start} and is off every space: put it on a space"
        reasons = [f"{active} ship {start} -> {end} is not a legal move with any die"]
        steps = game.board.distance(start, end) if start is not None else None
        reason = (
            _rules_reason(game, start, end, steps)
            if start is not None and steps is not None and 1 <= steps <= MAX_DIE
            else None
        )
        if reason is not None:
            # the count a die can show, against another rule: the engine's own words
            return f"{active} ship {start} -> {end}: {reason}: put it back"
        if end in game.board.ports:
            reasons.append(
                f"(a port takes fewer than {game.port_capacity()} ships, and at "
                "most 2 of one player)"
            )
        return " ".join(reasons) + ": put it back"
    if len(diff.missing) >= 2 and len(diff.extra) >= 2:
        return f"more than one ship moved at once: {diff.describe()}"
    return diff.describe()
