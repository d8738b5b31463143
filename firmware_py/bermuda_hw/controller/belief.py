"""The referee's belief over one turn: every explanation of the board, each with a posterior.

For one stable observation in the ship phase the hypotheses are:

- each consequence the rules allow this turn (`rules.candidates`, grouped by what it
  does to the game; "no change" is one of them), its board scored by vision's
  per-place evidence (`referee.Scorer`): a bump's board with its ships back, still on
  the landing space, or lifted off, each with its own prior;
- **in hand**: one of the active player's ships lifted off its place, the move not
  finished (a person thinking with the ship in hand). Nothing is decided while it is
  likely;
- **illegal**: one of the active player's ships moved where the rules do not allow (a
  miscount, a move into a full port), from any of its places to a place where the board
  now reads one more of its colour, all alike.

Every place's evidence may also be a misread or a stray token (`MISREAD`), in every
hypothesis alike: a stray token beside a clear move leaves the move decisive, and is
reported apart.

posterior ∝ prior × likelihood. A hypothesis is decisive when its posterior reaches
`1 - ALPHA`; only a decisive move is committed. The observation is one stable board:
seeing it again adds no evidence (the stabiliser reports a board once), and time
passing adds none either, so no timer can turn a likely move into a committed one.

Every number here is a named setting with its reason; none is a time.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

import numpy as np

from bermuda_hw.controller.moved import replaced_loglik
from bermuda_hw.controller.referee import Scorer, observation_evidence
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
from bermuda_hw.rules.moves import MAX_DIE
from bermuda_hw.vision.counts import COUNTS, count_loglik
from bermuda_hw.vision.types import BoardEvidence, BoardObservation, Floats

#: A consequence is committed when its posterior reaches 1 - ALPHA: one wrong move in a
#: thousand decided ones if the model's numbers were exact. A game has 60-80 moves, so the
#: table would see a wrong move once in a dozen games at worst; the model's numbers are
#: conservative (below), which keeps the true rate lower.
ALPHA = 1e-3
#: Before the board says anything, how likely a stable board is each kind of thing. A
#: stable run comes before the player has moved about as often as after: NONE 0.4. People
#: hold a ship while they think on about one turn in three, but a stable run needs their
#: hand off the board for several frames: about one stable board in twenty shows a ship in
#: a hand, IN_HAND 0.05. Illegal moves and stray tokens are rare at a table that knows the
#: game, but children miscount: ILLEGAL 0.03. The rest is the legal moves.
PRIOR_NONE = 0.40
PRIOR_IN_HAND = 0.05
PRIOR_ILLEGAL = 0.03
#: A person holding a ship may clear its landing first: the landed-on ship's owner takes
#: it home, or the player puts it back before setting the mover down. That board shows a
#: bump's ships back in port and its mover nowhere, which the bump itself explains but
#: for one place (its mover misread on the landing): without this, a bump nobody made
#: yet is taken. Beside each ship in a hand with a bump within the die's reach, that
#: board weighs this much of the ship in hand's prior more, split over such bumps, and
#: 1 - FOLLOWED of that where the roll told the player to leave a ship landed on there
#: (assumed, not measured: the simulated players never clear a landing first). It adds
#: to the ship in hand's prior rather than taking from it, which would change what the
#: table is told about a mover set down under the ship it bumps.
PRIOR_CLEARED = 0.2
#: How a move that bumped ships leaves them on the first stable board: put back at once
#: (most players), still beside the mover, or on their way back in a hand.
PRIOR_BUMP = {Bump.NONE: 1.0, Bump.BACK: 0.6, Bump.LANDING: 0.25, Bump.LIFTED: 0.15}
#: Told by the roll to set the mover down beside a ship it lands on and leave both there
#: (`referee.same_board_bumps`, a "held" space), a player does so this often: the bump's
#: board with both there takes FOLLOWED of the bump's prior, and each of its boards (both
#: there, ships back, on their way back) 1 - FOLLOWED of its usual share; the bump itself
#: is as likely as where nobody was told
#: (assumed: the simulated people miss one instruction in four and put the ship back at
#: once, `sim.players.PEOPLE`; the obedient players never do)
FOLLOWED = 0.75
#: The chance that one place's evidence says nothing true about it on a stable board (a
#: misread, a glare, a token half off its place): vision puts 0.19 % of ships on a wrong
#: place on boards printed unlike the board file (bench_vision); 1e-3 per place. Under a
#: misread, the place's evidence is as likely whatever the place holds: MISREAD_SPREAD
#: times its likelihood under the best-fitting content of one token or none. Contents of
#: two tokens are left out of that best fit: no colour absent from a place showed a solid
#: part of itself there on rendered boards (1276 colour-places, both renderers, lights
#: unlike the calibration's; docs/vision.md). So a place read with two tokens tells more
#: than the 1 / (MISREAD * MISREAD_SPREAD) any other place can. With them in the fit,
#: about half the bumps left beside their mover with the die on the table would be asked
#: about (the ship in a hand from one place outweighs one bump's prior); a token set
#: across two places is the risk that choice takes (docs/belief.md, "The likelihood").
MISREAD = 1e-3
MISREAD_SPREAD = 0.2
#: A ship's colour fills its place's sampling disk to PRESENT_FILL +- PRESENT_SD; a place
#: without that colour shows it at 0 +- ABSENT_SD (half-normal). Measured on rendered
#: boards: 0.475 +- 0.09 (min 0.17) on path spaces and 0.49 +- 0.06 in berths with a ship,
#: 0.0001 +- 0.0008 (max 0.016) without; widened for other boards, lenses and light.
PRESENT_FILL = 0.45
PRESENT_SD = 0.15
ABSENT_SD = 0.04
#: ABSENT_SD is a floor: a frame whose places show more of a colour they do not hold (a
#: blurrier lens, another light, a colour cast) widens it (`fill_noise`), colour by
#: colour. A colour's four ships stand on at most 4 of the 61 places (berths and path
#: spaces), so the median of its fills over the places seen whole is a half-normal's
#: median, robustly, with no need to know which places hold it first; from at least
#: MIN_NOISE_SAMPLES places. The widest colour's spread is used for every colour (one
#: spread for the whole model, as the floor is). PRESENT_SD is not widened so: where a
#: token stands on its place, not the camera, spreads a ship's fill, and a faint token
#: cannot be told from a noisy empty place before that spread is known.
MIN_NOISE_SAMPLES = 20
#: and never above a third of PRESENT_FILL: a ship's fill then still stands three spreads
#: above an empty place's (a noisier camera would leave nothing to read)
MAX_ABSENT_SD = PRESENT_FILL / 3
#: a half-normal's median in units of its scale
HALF_NORMAL_MEDIAN = 0.6745
#: The fill drops for a token set off its place's centre (0.18 for one 5 mm off), where
#: its colour's area on the place still counts one whole token (`vision.counts`: every
#: pixel within reach of the place, in units of one token's area). Where vision measured
#: the counts, their likelihood (`BoardEvidence.count_loglik`) joins the fill's: a token
#: seen off centre then tells as much as one on it, two tokens of a colour on a place tell
#: from one, and a token under another may show or not (wholly, at a cost: HIDDEN). Both
#: come from the same pixels, so MISREAD (below) bounds what a place adds in all.
#: Where the counts are measured, each token they do not show costs HIDDEN (odds against
#: one shown): two of a colour counted as one, or a colour not seen at all on a place that
#: holds it under another. To the counts a token is hidden when another lies on it within
#: about 3 mm of its centre (tokens are 9 mm across; the strip left shows less than a fifth
#: of a token, docs/vision.md). A player landing on a ship sets the mover beside it or on
#: it, and on it that squarely about one time in six (assumed: how people set a mover down
#: was not measured); a mover under the ship it bumped needs that ship set back over it.
#: So a ship lifted off its start, with another player's ship where the die reaches, reads
#: as a ship in a hand rather than as a bump with its mover under that ship.
HIDDEN = 0.2
LOG_HIDDEN = math.log(HIDDEN)


class PlaceModel:
    """Log-likelihoods of one observation's per-place evidence for a place's content.

    Each colour's fraction is likely under "a ship of that colour here" or "none" as
    measured (above), and its count (0, 1, 2 or more) where vision measured the counts;
    with probability MISREAD the place's evidence is unrelated to what it holds. A place
    seen in part (`observable`, the share of it out of the cloud) holds its ship in the
    part seen or in the part covered, in proportion; a hidden place weighs nothing.
    """

    def __init__(self, evidence: BoardEvidence) -> None:
        self.evidence = evidence
        f = np.clip(evidence.fractions, 0.0, 1.0)
        # as Python lists: read one number at a time, thousands of times per decision
        self._present: list[list[float]] = _present(f).tolist()
        self._absent: list[list[float]] = _absent(f, fill_noise(evidence)).tolist()
        self._counts: list[list[list[float]]] | None = None
        if evidence.areas is not None and evidence.token_area_mm2:
            self._counts = count_loglik(evidence.areas / evidence.token_area_mm2).tolist()
        self._cache: dict[tuple[int, Content], float] = {}
        self._best: dict[int, float] = {}

    def _raw(self, i: int, content: Content) -> float:
        colors = self.evidence.colors
        many = Counter(content)
        idx = [k for k, c in enumerate(colors) if c in many]
        present, absent = self._present[i], self._absent[i]
        rest = sum(absent[k] for k in range(len(colors)) if k not in idx)
        place = None if self._counts is None else self._counts[i]
        if place is not None:
            rest += sum(place[k][0] for k in range(len(colors)) if k not in idx)
        if not idx:
            return rest

        def shown(k: int, top: bool) -> float:
            # the fill: the ship on top shows; those under it may show or not
            value = present[k] if top else max(present[k], absent[k])
            if place is None:
                return value
            # the count: n of a colour on top show 1..n of it, under another 0..n; each
            # token the count does not show is wholly hidden under another (HIDDEN)
            n = min(many[colors[k]], COUNTS[-1])
            shows = max(place[k][m] + (n - m) * LOG_HIDDEN for m in range(1, n + 1))
            if top:
                return value + shows
            gone = absent[k] + place[k][0] + n * LOG_HIDDEN
            return max(value + shows, gone)

        return max(
            shown(top, True) + rest + sum(shown(k, False) for k in idx if k != top) for top in idx
        )

    def _best_raw(self, i: int) -> float:
        """The place's evidence under the content of one token or none that fits it best
        (what a misread shows: MISREAD)."""
        hit = self._best.get(i)
        if hit is None:
            hit = max([self._raw(i, ())] + [self._raw(i, (c,)) for c in self.evidence.colors])
            self._best[i] = hit
        return hit

    def loglik(self, i: int, content: Content) -> float:
        key = (i, tuple(sorted(content)))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        obs = float(self.evidence.observable[i])
        if obs <= 0.0:
            value = 0.0
        else:
            value = self._seen(i, content)
            if obs < 1.0:
                # a place partly under the cloud's rim: its ship is in the part in view (the
                # evidence as if seen) or in the part covered, which shows no ship's colour
                # (as an empty place): a colour seen there still tells all it tells in the
                # clear, a colour not seen tells little
                value = _logaddexp(math.log(obs) + value, math.log1p(-obs) + self._seen(i, ()))
        self._cache[key] = value
        return value

    def _seen(self, i: int, content: Content) -> float:
        misread = math.log(MISREAD * MISREAD_SPREAD) + self._best_raw(i)
        return _logaddexp(math.log1p(-MISREAD) + self._raw(i, content), misread)


def _logaddexp(a: float, b: float) -> float:
    """log(exp(a) + exp(b)), as `numpy.logaddexp` for two floats (without its cost per
    call, which counts at thousands of calls per decision)."""
    high, low = (a, b) if a >= b else (b, a)
    if low == -math.inf:
        return high
    return high + math.log1p(math.exp(low - high))


def _present(f: Floats) -> Floats:
    """Log-density of fills `f` of a colour that is there (PRESENT_FILL +- PRESENT_SD)."""
    z = (f - PRESENT_FILL) / PRESENT_SD
    out: Floats = -0.5 * z**2 - math.log(PRESENT_SD * math.sqrt(2.0 * math.pi))
    return out


def _absent(f: Floats, sd: float) -> Floats:
    """Log-density of fills `f` of a colour that is not there (half-normal from 0)."""
    out: Floats = -0.5 * (f / sd) ** 2 - math.log(sd * math.sqrt(math.pi / 2.0))
    return out


def fill_noise(evidence: BoardEvidence) -> float:
    """The spread of a colour's fill on places that do not hold it, for this observation:
    ABSENT_SD, widened where the observation's own fills of some colour spread wider
    (see MIN_NOISE_SAMPLES)."""
    seen = np.asarray(evidence.observable) >= 1.0
    if int(seen.sum()) < MIN_NOISE_SAMPLES or not evidence.colors:
        return ABSENT_SD
    f = np.clip(np.asarray(evidence.fractions, np.float64)[seen], 0.0, 1.0)
    spread = float(np.median(f, axis=0).max()) / HALF_NORMAL_MEDIAN
    return min(MAX_ABSENT_SD, max(ABSENT_SD, spread))


class Explanation(StrEnum):
    """What a hypothesis is."""

    MOVE = "move"  # a consequence the rules allow (its move made, or none yet)
    IN_HAND = "in hand"  # an active player's ship lifted off, the move not finished
    ILLEGAL = "illegal"  # an active player's ship moved where the rules do not allow


@dataclass(frozen=True)
class Hypothesis:
    """One explanation of the board and how much the evidence believes it."""

    kind: Explanation
    #: MOVE: the consequence, and its candidates best first; IN_HAND: the ship's place
    consequence: Consequence | None = field(default=None, compare=False, repr=False)
    members: tuple[Candidate, ...] = field(default=(), compare=False)
    place: str | None = None  # IN_HAND, ILLEGAL: where the ship was
    target: str | None = None  # ILLEGAL: where it is now
    log_prior: float = 0.0
    log_likelihood: float = 0.0  # relative to the board as the game has it
    posterior: float = 0.0
    #: IN_HAND, ILLEGAL: the board it leaves (MOVE: its best candidate's, `leaves`)
    made: Mapping[str, Content] | None = field(default=None, compare=False, repr=False)

    @property
    def leaves(self) -> Mapping[str, Content]:
        """The board this explanation leaves: every place's content."""
        if self.made is not None:
            return self.made
        assert self.best is not None
        return self.best.contents

    @property
    def best(self) -> Candidate | None:
        return self.members[0] if self.members else None

    @property
    def is_none(self) -> bool:
        """The board as the game has it: no move made (yet)."""
        return (
            self.kind is Explanation.MOVE and self.best is not None and self.best.kind is Kind.NONE
        )


@dataclass(frozen=True)
class Belief:
    """The hypotheses of one observation, most believed first."""

    hypotheses: tuple[Hypothesis, ...]
    alpha: float = ALPHA
    #: by landing space: how much likelier its reading is under a token set down there
    #: than under the one that stood there untouched (log; `controller.moved`)
    moved: tuple[tuple[str, float], ...] = ()

    @property
    def best(self) -> Hypothesis:
        return self.hypotheses[0]

    @property
    def decisive(self) -> bool:
        return self.best.posterior >= 1.0 - self.alpha

    @property
    def moves(self) -> tuple[Hypothesis, ...]:
        """The legal consequences other than no change, most believed first."""
        return tuple(h for h in self.hypotheses if h.kind is Explanation.MOVE and not h.is_none)

    def mass(self, kind: Explanation) -> float:
        return sum(h.posterior for h in self.hypotheses if h.kind is kind)

    @property
    def some_move(self) -> float:
        """How sure the belief is that a legal move (some move, not none) was made."""
        return sum(h.posterior for h in self.moves)


def _log(x: float) -> float:
    return math.log(x) if x > 0.0 else -math.inf


def read_contents(game: Game, observation: BoardObservation) -> dict[str, Content]:
    """The colours vision reads on every place (hidden places: as the game has them)."""
    out: dict[str, list[str]] = {}
    for ship in observation.ships:
        if ship.hidden or ship.space is None:
            continue
        out.setdefault(ship.space, []).append(ship.color)
    read = {p: tuple(sorted(c)) for p, c in out.items()}
    expected = contents(game)
    for place in observation.hidden_spaces:
        if place in expected:
            read[place] = expected[place]
        else:
            read.pop(place, None)
    return read


def weigh(
    game: Game,
    observation: BoardObservation,
    dice: frozenset[int] | None = None,
    *,
    alpha: float = ALPHA,
    reference: BoardObservation | None = None,
    held: frozenset[str] = frozenset(),
    boards: Sequence[Candidate] | None = None,
) -> Belief:
    """The belief over the active player's turn given one stable observation.

    `dice`: the die values possible (the known die; None: any, uniformly; empty: no
    move can have been made yet, as before the virtual die is rolled). `reference`: the
    last board that matched the game before the turn (how far a token moved, `moved`).
    `held`: the landing spaces the roll told the player to leave a ship landed on
    (FOLLOWED). `boards`: `candidates(game, dice)`, where the caller has them already.
    """
    if game.phase is not Phase.SHIPS:
        raise ValueError("the belief is over a turn of the ship phase")
    evidence = observation_evidence(game.board, observation)
    scorer = Scorer(game.board, evidence, PlaceModel(evidence).loglik)
    if boards is None:
        boards = candidates(game, dice)
    cands = [c for c in boards if c.kind is not Kind.PASS]
    base = cands[0].contents
    possible = sorted(range(1, MAX_DIE + 1)) if dice is None else sorted(dice)
    # P(die) x P(consequence | die): each distinct consequence of a die equally likely
    per_die: dict[int, set[Consequence]] = {}
    for cand in cands:
        if cand.kind is Kind.MOVE and cand.die is not None:
            per_die.setdefault(cand.die, set()).add(cand.consequence)
    moving = 1.0 - PRIOR_NONE - PRIOR_IN_HAND - PRIOR_ILLEGAL
    if not per_die:  # no move possible (die not rolled, or no legal move)
        moving = 0.0
    rolled = [d for d in possible if per_die.get(d)]
    replacing = {id(c): _replaces(game, c) for c in cands}
    moved: dict[str, float] = {}
    spaces = frozenset(p for p in replacing.values() if p is not None)
    if reference is not None and spaces:
        before = observation_evidence(game.board, reference)
        moved = replaced_loglik(game.board, evidence, reference, before, observation, spaces)
    groups: dict[Consequence, list[tuple[float, float, Candidate]]] = {}
    for cand in cands:
        like = scorer.relative(base, cand.contents)
        landing = replacing[id(cand)]
        if landing is not None:
            like += moved.get(landing, 0.0)
        if cand.kind is Kind.NONE:
            prior = PRIOR_NONE + (0.0 if per_die else moving)
        else:
            assert cand.die is not None
            share = moving / len(rolled) / len(per_die[cand.die])
            prior = share * PRIOR_BUMP[cand.bump]
            end = cand.move.end if cand.move is not None else None
            if end in held and cand.bump is not Bump.NONE:
                # told to leave both there: the board with both there as often as the
                # players do so, and each board as usual when they do not
                prior *= 1.0 - FOLLOWED
                if cand.bump is Bump.LANDING:
                    prior += share * FOLLOWED
        groups.setdefault(cand.consequence, []).append((prior, like, cand))
    hypotheses: list[Hypothesis] = []
    for key, members in groups.items():
        # a consequence's prior sums its boards' (and dice's); its likelihood is the
        # prior-weighted mixture of its boards'
        log_prior = _log(sum(p for p, _, _ in members))
        top = max(like + _log(p) for p, like, _ in members)
        mix = top + math.log(sum(math.exp(like + _log(p) - top) for p, like, _ in members))
        members.sort(key=lambda m: -(m[1] + _log(m[0])))
        hypotheses.append(
            Hypothesis(
                Explanation.MOVE,
                key,
                tuple(c for _, _, c in members),
                log_prior=log_prior,
                log_likelihood=mix - log_prior,
            )
        )
    legal = {frozenset(c.contents.items()) for c in cands}
    hypotheses.extend(_in_hand(game, scorer, base, cands, legal, held))
    hypotheses.extend(_illegal(game, observation, scorer, base, legal))
    return _normalised(hypotheses, alpha, tuple(sorted(moved.items())))


def _replaces(game: Game, cand: Candidate) -> str | None:
    """The path space where a candidate sets the mover down on a ship of its own colour
    (a bump, whichever board: the ship back in port, on its way, or still there under the
    mover, where one token is counted and read, the mover's): the token read there is
    another one than stood there."""
    move = cand.move
    if cand.bump is Bump.NONE or move is None or move.end is None:
        return None
    if move.end not in game.board.spaces:
        return None
    if not any(game.ship(sid).color == game.active for sid in cand.bumped):
        return None
    return move.end


def _in_hand(
    game: Game,
    scorer: Scorer,
    base: Mapping[str, Content],
    cands: list[Candidate],
    legal: set[frozenset[tuple[str, Content]]],
    held: frozenset[str] = frozenset(),
) -> list[Hypothesis]:
    """Per place holding an active player's ship: that ship lifted off; and, where a bump
    from there is within the die's reach, that ship lifted off with the bump's ships
    already back in port (PRIOR_CLEARED), unless a legal move leaves that board. Told to
    leave the ship landed on there (`held`), a player clears that landing first only as
    often as a bump's ships go back at all there (1 - FOLLOWED)."""
    places = sorted(
        {s.location for s in game.ships() if s.color == game.active and s.location is not None}
    )
    cleared_from = _cleared(game.active, cands, legal)
    out = []
    for place in places:
        board = dict(base)
        content = list(board[place])
        content.remove(game.active)
        board[place] = tuple(content)
        cleared = cleared_from.get(place, [])
        share = PRIOR_IN_HAND / len(places)
        out.append(
            Hypothesis(
                Explanation.IN_HAND,
                place=place,
                log_prior=_log(share),
                log_likelihood=scorer.relative(base, board),
                made=as_contents({p: list(c) for p, c in board.items()}),
            )
        )
        out.extend(
            Hypothesis(
                Explanation.IN_HAND,
                place=place,
                log_prior=_log(
                    share
                    * PRIOR_CLEARED
                    / len(cleared)
                    * (1.0 - FOLLOWED if landing in held else 1.0)
                ),
                log_likelihood=scorer.relative(base, made),
                made=made,
            )
            for landing, made in cleared
        )
    return out


def _cleared(
    color: str,
    cands: list[Candidate],
    legal: set[frozenset[tuple[str, Content]]],
) -> dict[str, list[tuple[str, dict[str, Content]]]]:
    """By the place a bump starts from: the boards of the bumps (their ships back in port)
    with the mover still in its player's hand, off its landing, on no place, each with
    that landing. Each once, and none that a legal move leaves."""
    out: dict[str, list[tuple[str, dict[str, Content]]]] = {}
    for cand in cands:
        move = cand.move
        if cand.bump is not Bump.BACK or move is None or move.end is None:
            continue
        board = {p: list(c) for p, c in cand.contents.items()}
        board[move.end].remove(color)
        made = as_contents(board)
        boards = out.setdefault(move.start, [])
        if frozenset(made.items()) not in legal and all(made != b for _, b in boards):
            boards.append((move.end, made))
    return out


def _illegal(
    game: Game,
    observation: BoardObservation,
    scorer: Scorer,
    base: Mapping[str, Content],
    legal: set[frozenset[tuple[str, Content]]],
) -> list[Hypothesis]:
    """One hypothesis per move the rules do not allow: an active player's ship from its
    place to a place where the board now shows one more of its colour (a miscount, a move
    into a full port; never under the cloud, which reads as the game has it), each at
    PRIOR_ILLEGAL over every such pair a player could make. A board some legal move
    leaves is no illegal move."""
    read = read_contents(game, observation)
    color = game.active
    starts = sorted(
        {s.location for s in game.ships() if s.color == color and s.location is not None}
    )
    ends = sorted(
        p
        for p in set(read) | set(base)
        if read.get(p, ()).count(color) > base.get(p, ()).count(color)
    )
    pairs = len(starts) * len(game.board.spaces)
    out = []
    for start in starts:
        for end in ends:
            if end == start:
                continue
            board = {p: list(c) for p, c in base.items()}
            board[start].remove(color)
            board.setdefault(end, []).append(color)
            made = as_contents(board)
            if frozenset(made.items()) in legal:
                continue
            out.append(
                Hypothesis(
                    Explanation.ILLEGAL,
                    place=start,
                    target=end,
                    log_prior=_log(PRIOR_ILLEGAL / pairs),
                    log_likelihood=scorer.relative(base, made),
                    made=made,
                )
            )
    return out


def _normalised(
    hypotheses: list[Hypothesis], alpha: float, moved: tuple[tuple[str, float], ...] = ()
) -> Belief:
    scores = [h.log_prior + h.log_likelihood for h in hypotheses]
    top = max(scores)
    weights = [math.exp(s - top) if s > -math.inf else 0.0 for s in scores]
    total = sum(weights)
    made = [replace(h, posterior=w / total) for h, w in zip(hypotheses, weights, strict=True)]
    made.sort(key=lambda h: -h.posterior)
    return Belief(tuple(made), alpha, moved)
