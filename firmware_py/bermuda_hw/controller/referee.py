"""The referee: the rules propose the candidate boards, vision's evidence scores them.

For a stable observation in the ship phase, every candidate board of the
active player's turn (`rules.candidates`) is scored against the per-place
evidence (`vision.evidence`): the score is the sum over the places of the
log-likelihood of the content the candidate expects there, each scaled by how
much the camera sees of the place, so a place under the cloud adds nothing and
"it went somewhere invisible" earns no evidence. A port's ships may stand in
any of its berths: the best assignment counts.

Candidates are grouped by consequence (what they do to the game); a group's
score is its best candidate's. The best group is accepted only when it beats
"no change" and every group with a different consequence by `MARGIN`. When
another group comes as close, the verdict is a tie (ask the table, or use the
die if known); when nothing beats "no change", the board has not changed in a
way the rules allow, and what differs is left to the caller to report.

A bump whose bumped ship is still on the landing space, beside the mover, can
read as one ship there (one ship per place is read; an own ship bumped looks
like the mover): the verdict leaves that to the belief (`controller.belief`),
whose evidence counts the tokens of each colour on a place (`vision.counts`).

Some moves leave the same colours on every place once a bumped ship is back: a
dock, against a bump of an own ship back into the port docked at. The colours tie
them; the token on the landing space tells them apart (the one that stood there, or
the mover set down where it was), which the belief weighs (`controller.moved`). With
the die known before the move (the virtual die) the roll names such landing spaces
(`same_board_bumps`) and tells the player to set the mover down beside a ship landed
on there and leave both until asked to put one back, so that such a bump shows itself
whole first.

What the accepted candidate does not explain (a stray token, a bumped ship not
yet put back) is reported apart from the move, as its own fix.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from bermuda_hw.controller.identify import Difference
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.candidates import (
    Bump,
    Candidate,
    Consequence,
    Content,
    Kind,
    as_contents,
    candidates,
    contents,
)
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.vision.types import BoardEvidence, BoardObservation

#: How much better (in log-likelihood) the accepted group must explain the board than
#: "no change" and than any group with another consequence: about half a place.
MARGIN = 2.0
#: A changed place seen less than this makes the move provisional: under half of the
#: place's disk in view, its colour alone does not tell a token there (fill 0.45 on the
#: whole disk, under 0.23 on the half) from one beside it. An answered move is checked up
#: to `putback.CONFIRM_OBSERVABILITY`, a stricter bound for confirming than for judging.
PROVISIONAL_BELOW = 0.5
#: The colour fraction a hard reading stands for when an observation has no evidence:
#: a ship's fill on its place's disk, as measured on rendered boards
#: (`belief.PRESENT_FILL`, the same measurement).
READING_FILL = 0.45
#: A port holding more ships than berths (bumps send ships back even into a full port,
#: ruling 5) is scored over every assignment of its ships to its berths while there are at
#: most this many (four berths, six ships); beyond, one round-robin assignment stands for
#: them, as `Game.ship_positions` sets such ships out. A bound on one port's scoring,
#: which grows as berths to the power of ships.
MAX_BERTH_ASSIGNMENTS = 4096


class Outcome(StrEnum):
    NONE = "none"  # nothing the active player did: the board is as the game has it
    MOVE = "move"  # one consequence explains the board clearly
    TIE = "tie"  # groups with different consequences explain it as well: ask or use the die
    UNCLEAR = "unclear"  # no move beats "no change" clearly: wait, or report what differs


@dataclass(frozen=True)
class Group:
    """Candidates with one consequence; the best explains the board as `score`."""

    consequence: Consequence = field(compare=False)
    best: Candidate
    score: float
    members: tuple[Candidate, ...] = field(compare=False)

    @property
    def dice(self) -> frozenset[int]:
        return frozenset(c.die for c in self.members if c.die is not None)

    @property
    def kind(self) -> Kind:
        return self.best.kind


@dataclass(frozen=True)
class Verdict:
    """What the referee makes of one observation."""

    outcome: Outcome
    accepted: Group | None = None  # MOVE: the group taken
    tied: tuple[Group, ...] = ()  # TIE: the best group and its rivals, best first
    provisional: tuple[str, ...] = ()  # MOVE: changed places the camera does not see well


def places_of(board: Board) -> tuple[tuple[str, int | None], ...]:
    """Every place evidence is kept for: path spaces, then each port's berths."""
    out: list[tuple[str, int | None]] = [
        (s.id, None) for s in board.spaces.values() if s.kind == "path"
    ]
    for port in board.ports.values():
        out.extend((port.id, i) for i in range(len(port.berths)))
    return tuple(out)


def evidence_from_readings(
    board: Board, observation: BoardObservation, colors: Sequence[str]
) -> BoardEvidence:
    """Evidence standing for hard readings (an observation measured without evidence)."""
    places = places_of(board)
    index = {p: i for i, p in enumerate(places)}
    k = {c: i for i, c in enumerate(colors)}
    fractions = np.zeros((len(places), len(colors)), np.float64)
    free: dict[str, list[int]] = {}
    for place, (space, berth) in enumerate(places):
        if berth is not None:
            free.setdefault(space, []).append(place)
    for ship in observation.ships:
        if ship.hidden or ship.space is None or ship.color not in k:
            continue
        if ship.space in board.ports:
            slots = free.get(ship.space) or []
            if ship.berth is not None and (ship.space, ship.berth) in index:
                i = index[(ship.space, ship.berth)]
                if i in slots:
                    slots.remove(i)
            elif slots:
                i = slots.pop(0)
            else:
                continue
        elif (ship.space, None) in index:
            i = index[(ship.space, None)]
        else:
            continue
        fractions[i, k[ship.color]] = READING_FILL
    observable = np.array([0.0 if s in observation.hidden_spaces else 1.0 for s, _ in places])
    return BoardEvidence(
        places,
        tuple(colors),
        fractions,
        1.0 - fractions.sum(axis=1),
        observable,
        observation.frames,
    )


class Scorer:
    """Scores candidate boards against one observation's evidence.

    `loglik(i, content)` is the log-likelihood of place `i`'s evidence given its content
    (default: the evidence's own, `BoardEvidence.loglik`).
    """

    def __init__(
        self,
        board: Board,
        evidence: BoardEvidence,
        loglik: Callable[[int, Content], float] | None = None,
    ) -> None:
        self.board = board
        self.evidence = evidence
        self.loglik = evidence.loglik if loglik is None else loglik
        # each place's score for each content, once: the candidate boards share most of them
        self._cache: dict[tuple[str, Content], float] = {}

    def place_score(self, place: str, content: Content) -> float:
        key = (place, content)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._place_score(place, content)
            self._cache[key] = hit
        return hit

    def _place_score(self, place: str, content: Content) -> float:
        ev = self.evidence
        if place not in self.board.ports:
            try:
                i = ev.index(place)
            except KeyError:
                return 0.0
            return self.loglik(i, content)
        return self._port(ev.berths(place), content)

    def _port(self, berths: list[int], content: Content) -> float:
        loglik = self.loglik
        if not berths:
            return 0.0
        empty = [loglik(b, ()) for b in berths]
        if not content:
            return sum(empty)
        n, k = len(content), len(berths)
        best = -np.inf
        if n <= k:
            for chosen in itertools.permutations(range(k), n):
                s = sum(empty)
                for color, b in zip(content, chosen, strict=True):
                    s += loglik(berths[b], (color,)) - empty[b]
                best = max(best, s)
            return float(best)
        # more ships than berths (a bump-back into a full port): some berths hold two
        assignments = (
            itertools.product(range(k), repeat=n)
            if k**n <= MAX_BERTH_ASSIGNMENTS
            else [tuple(i % k for i in range(n))]
        )
        for chosen in assignments:
            per: dict[int, list[str]] = {}
            for color, b in zip(content, chosen, strict=True):
                per.setdefault(b, []).append(color)
            s = sum(loglik(berths[b], tuple(per.get(b, ()))) for b in range(k))
            best = max(best, s)
        return float(best)

    def score(self, contents: Mapping[str, Content]) -> float:
        """The log-likelihood of a whole board (every place, empty ones included)."""
        total = 0.0
        seen: set[str] = set()
        for space, _ in self.evidence.places:
            if space in seen:
                continue
            seen.add(space)
            total += self.place_score(space, contents.get(space, ()))
        return total

    def relative(self, base: Mapping[str, Content], contents: Mapping[str, Content]) -> float:
        """`score(contents) - score(base)`, computed over the places that differ."""
        total = 0.0
        for place in set(base) | set(contents):
            a, b = base.get(place, ()), contents.get(place, ())
            if a != b:
                total += self.place_score(place, b) - self.place_score(place, a)
        return total


def changed_places(before: Mapping[str, Content], after: Mapping[str, Content]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p, ()) != after.get(p, ()))


def place_observability(evidence: BoardEvidence, place: str) -> float:
    """How well a space (or the best-seen berth of a port) is seen."""
    values = [
        float(evidence.observable[i]) for i, (s, _) in enumerate(evidence.places) if s == place
    ]
    return max(values) if values else 0.0


def seen_whole(evidence: BoardEvidence, place: str, least: float) -> bool:
    """Whether the camera sees a place at least `least` well: a path space, or every berth
    of a port (a ship may stand in any of them). What a port lacks can only be told from
    every berth: the best-seen one (`place_observability`) shows a ship there, not that
    none stands in the others."""
    berths = evidence.berths(place)
    if berths:
        return min(float(evidence.observable[i]) for i in berths) >= least
    return place_observability(evidence, place) >= least


def observation_evidence(board: Board, observation: BoardObservation) -> BoardEvidence:
    if observation.evidence is not None:
        return observation.evidence
    return evidence_from_readings(board, observation, board.ship_colors)


def same_board_bumps(game: Game, die: int) -> frozenset[str]:
    """The landing spaces where, with this die, a ship bumped back into its port leaves the
    board exactly as another move with another consequence does (an own ship bumped back
    into the port that another of its ships docks at): once the bumped ship is back, the
    colours on every place are the same."""
    cands = [
        c
        for c in candidates(game, frozenset({die}))
        if c.kind is Kind.MOVE and c.bump in (Bump.NONE, Bump.BACK)
    ]
    out = set()
    for cand in cands:
        if cand.bump is not Bump.BACK or cand.move is None or cand.move.end is None:
            continue
        board = dict(cand.contents)
        if any(
            other.consequence != cand.consequence and dict(other.contents) == board
            for other in cands
        ):
            out.add(cand.move.end)
    return frozenset(out)


def judge(
    game: Game,
    observation: BoardObservation,
    dice: frozenset[int] | None = None,
    margin: float = MARGIN,
    *,
    boards: Sequence[Candidate] | None = None,
) -> Verdict:
    """Score the turn's candidate boards against the observation; see the module's text.

    `boards`: `candidates(game, dice)`, where the caller has them already."""
    if game.phase is not Phase.SHIPS:
        return Verdict(Outcome.NONE)
    evidence = observation_evidence(game.board, observation)
    scorer = Scorer(game.board, evidence)
    if boards is None:
        boards = candidates(game, dice)
    cands = [c for c in boards if c.kind is not Kind.PASS]
    base = cands[0].contents
    groups: dict[Consequence, list[tuple[float, Candidate]]] = {}
    for cand in cands:
        score = scorer.relative(base, cand.contents)
        groups.setdefault(cand.consequence, []).append((score, cand))
    made = []
    for key, members in groups.items():
        # best first; among equals, in the order the rules list them (a bump's ship still
        # on the landing space before the same bump's ship lifted off)
        members.sort(key=lambda sc: -sc[0])
        made.append(Group(key, members[0][1], members[0][0], tuple(c for _, c in members)))
    made.sort(key=lambda g: -g.score)
    none = next(g for g in made if g.kind is Kind.NONE)
    best = made[0]
    if best is none:
        return Verdict(Outcome.NONE)
    if best.score - none.score < margin:
        return Verdict(Outcome.UNCLEAR)
    rivals = tuple(g for g in made[1:] if g is not none and g.score > best.score - margin)
    if rivals:
        return Verdict(Outcome.TIE, tied=(best, *rivals))
    provisional = out_of_sight(evidence, base, best)
    return Verdict(Outcome.MOVE, accepted=best, provisional=provisional)


def out_of_sight(
    evidence: BoardEvidence, base: Mapping[str, Content], group: Group, every: bool = False
) -> tuple[str, ...]:
    """The places a group's move changes that the camera does not see well: the move is
    provisional there (checked, and rewound if need be, once they are seen). `every`: the
    places any of the group's boards changes (its ships back, still on the landing space,
    lifted off), not only its best board's."""
    boards = group.members if every else (group.best,)
    changed = sorted({p for c in boards for p in changed_places(base, c.contents)})
    return tuple(p for p in changed if place_observability(evidence, p) < PROVISIONAL_BELOW)


def putback_tells(game: Game, groups: Sequence[Group]) -> bool:
    """Whether putting bumped ships back tells tied moves apart: every group bumps ships,
    none has them back yet, and no group's ships put back in any port (the right one or a
    wrong one) leave another group's board with its ships back. Otherwise a player who
    puts a ship in the wrong port would make the board show the other move exactly."""
    landing: list[Candidate] = []
    backs: list[dict[str, Content]] = []
    for group in groups:
        land = next((c for c in group.members if c.bump is Bump.LANDING), None)
        back = next((c for c in group.members if c.bump is Bump.BACK), None)
        if land is None or back is None or group.best.bump is Bump.BACK:
            return False
        landing.append(land)
        backs.append(dict(back.contents))
    for i, land in enumerate(landing):
        assert land.move is not None
        colors = [game.ship(sid).color for sid in land.bumped]
        for ports in itertools.product(sorted(game.board.ports), repeat=len(colors)):
            board = {p: list(c) for p, c in land.contents.items()}
            for color, port in zip(colors, ports, strict=True):
                board[land.move.end].remove(color)
                board.setdefault(port, []).append(color)
            made = as_contents(board)
            if any(made == other for j, other in enumerate(backs) if j != i):
                return False
    return True


def bumped_beside(
    game: Game, observation: BoardObservation, landing: str, bumped: Sequence[str]
) -> Difference:
    """The bumped ships still beside the mover on `landing` whose ports the camera cannot see
    (the game has them there already): one ship per place shows in the readings, so only
    the landing place's evidence for the bumped ship's colour tells. (A port in view shows
    a missing ship in `difference` itself; a bumped ship of the mover's colour adds nothing
    to the evidence of the mover, so it is never asked for.)"""
    if landing not in game.board.spaces or landing in game.board.ports:
        return Difference()
    evidence = observation_evidence(game.board, observation)
    try:
        i = evidence.index(landing)
    except KeyError:
        return Difference()
    on = contents(game).get(landing, ())
    missing: list[tuple[str, str | None]] = []
    extra: list[tuple[str, str | None]] = []
    for sid in bumped:
        ship = game.ship(sid)
        port = ship.location
        if port is None or port not in observation.hidden_spaces:
            continue
        if evidence.loglik(i, (*on, ship.color)) - evidence.loglik(i, on) >= MARGIN:
            missing.append((ship.color, port))
            extra.append((ship.color, landing))
    return Difference(tuple(missing), tuple(extra))
