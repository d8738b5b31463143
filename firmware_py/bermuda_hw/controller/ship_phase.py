"""One stable board of the ship phase, decided: the referee's verdict, gated by the belief.

`decide(game, observation, dice)` is pure: no state, no time. It returns what the
daemon is to do:

- `Take`: a move the belief is sure some legal move explains and the referee's
  groups single out, or one of the moves the colours leave tied that the belief is
  decisive on (the tokens counted, or the cloud's rim, tell them apart; its places
  out of sight provisional, unless a rival's are ones it leaves unchecked); a move into
  places out of sight is provisional, where the belief holds it the likeliest
  explanation or the cloud's rim shows its ship on the landing; so is the likeliest
  move whose places are not all seen whole (a port's berth under the rim), where what
  keeps the belief from deciding is settled by seeing them;
- `DoubtfulBump`: a bump whose bumped ship is still on the landing space, left in
  doubt: the ship put back tells (asked first), else the table is asked (unless the
  belief holds the mover likelier in a hand or moved against the rules: a `Fix`);
- `Tied`: moves that explain the board as well: put-backs that tell them apart
  are asked for first where they tell more than a question (`inform`), else the
  table is asked which (unless the belief holds a
  ship likelier still in a hand, or moved against the rules: a `Fix`);
- `Waiting`: a move out of sight, with something else on the board it does not
  explain: that is a fix, and the move waits for the rest to match (where the same
  ship miscounted by one is likelier: a `Fix` that names the miscount);
- `AskWhether`: the likeliest explanation is a legal move, but not decisively
  (a ship in a hand, or an illegal move, also explain the board): the table is
  asked whether it was made, with "not yet"; also a move into places out of sight
  that the belief does not hold the likeliest explanation (a ship still in a hand
  leaves the same board) and the cloud's rim does not show: never taken
  provisionally then;
- `Matches`: the board is the game;
- `Fix`: the board differs and nothing legal explains it decisively: what to do,
  in words (finish the move; the illegal move named, with its count; what differs).

Nothing is ever taken for a board that is merely likely; a board seen again is the
same decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bermuda_hw.controller import rim
from bermuda_hw.controller.belief import Belief, Explanation, Hypothesis, weigh
from bermuda_hw.controller.consequences import back_board, difference_after, left_over, made
from bermuda_hw.controller.identify import Difference, difference, explain
from bermuda_hw.controller.inform import putback_first
from bermuda_hw.controller.putback import CONFIRM_OBSERVABILITY, bump_in_doubt
from bermuda_hw.controller.referee import (
    Group,
    Outcome,
    changed_places,
    judge,
    observation_evidence,
    out_of_sight,
    putback_tells,
    seen_whole,
)
from bermuda_hw.rules.candidates import Bump, Candidate, Content, candidates, contents
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.vision.types import BoardObservation

#: more moves than this explaining the board as well is no question (a ship gone out of
#: sight that could be anywhere): the table is asked to show it instead; a question of
#: more options than this is one a person cannot answer by counting presses
MAX_OPTIONS = 3
#: a tied move the belief holds at nothing still counts this much in weighing requests (a
#: move the colours tie with the best is never impossible)
MIN_WEIGHT = 1e-6


@dataclass(frozen=True)
class Take:
    group: Group
    provisional: tuple[str, ...]  # the places it arrives at that are out of sight


@dataclass(frozen=True)
class DoubtfulBump:
    group: Group


@dataclass(frozen=True)
class Tied:
    groups: tuple[Group, ...]
    #: the bumped ships put back are asked for first: they tell the moves apart, even put
    #: in a wrong port, and more than a question would (`inform`)
    putback: bool = False


@dataclass(frozen=True)
class Waiting:
    move: Candidate
    places: tuple[str, ...]  # out of sight
    diff: Difference  # what the move does not explain

    def message(self, color: str) -> str:
        return (
            f"{color}'s move looks like {self.move.move} (die {self.move.die}), decided once "
            f"the rest matches: fix the board: {self.diff.describe()}"
        )


@dataclass(frozen=True)
class AskWhether:
    group: Group
    unseen: tuple[str, ...] = ()  # the places it arrives at that are out of sight


@dataclass(frozen=True)
class Matches:
    pass


@dataclass(frozen=True)
class Fix:
    diff: Difference
    message: str


ShipDecision = Take | DoubtfulBump | Tied | Waiting | AskWhether | Matches | Fix


def decide(
    game: Game,
    observation: BoardObservation,
    dice: frozenset[int] | None,
    *,
    reference: BoardObservation | None = None,
    held: frozenset[str] = frozenset(),
) -> ShipDecision:
    """The ship phase's decision on one stable observation (see the module's text).

    `dice`: the die values possible (`belief.weigh`); `reference`: the last board that
    matched the game's placement; `held`: the spaces the roll told the player to leave
    a ship landed on (`belief.FOLLOWED`). A provisional move that would end the game is
    asked about instead: no later board would check it (its ship may still be in a
    hand), and the game's end rests on it."""
    decision = _decided(game, observation, dice, reference=reference, held=held)
    if (
        isinstance(decision, Take)
        and decision.provisional
        and made(game, decision.group.best).is_over()
    ):
        return AskWhether(decision.group, decision.provisional)
    return decision


def _decided(
    game: Game,
    observation: BoardObservation,
    dice: frozenset[int] | None,
    *,
    reference: BoardObservation | None,
    held: frozenset[str],
) -> ShipDecision:
    """`decide`, before a provisional move that ends the game is turned into a question."""
    boards = candidates(game, dice) if game.phase is Phase.SHIPS else None
    verdict = judge(game, observation, dice, boards=boards)
    belief = weigh(game, observation, dice, reference=reference, held=held, boards=boards)
    if verdict.outcome is Outcome.TIE:
        chosen = _decisive(belief, verdict.tied)
        unseen = None if chosen is None else _unseen_tie(game, observation, belief, verdict.tied)
        if chosen is not None and unseen is not None:
            # the colours leave moves tied that the tokens tell apart (a bump with its
            # ship still beside the mover, counted twice there, against a move that leaves
            # one; a ship the cloud's rim shows on one landing, against a mover under the
            # ship it bumped on another): the belief is sure of one of them. Its places
            # out of sight are provisional, as a move singled out by the colours: checked
            # once seen, and rewound if need be
            return Take(chosen, unseen)
    accepted = verdict.accepted
    if verdict.outcome is Outcome.MOVE and accepted is not None:
        doubt = bump_in_doubt(game, accepted.best, observation)
        if not (doubt or verdict.provisional) and belief.some_move < 1.0 - belief.alpha:
            # not sure some legal move was made (a ship still in a hand, or a move the
            # rules do not allow, explain the board too): asked if the move is the
            # likeliest explanation, else told what to do. Where the move changes a place
            # the camera does not see whole (a port with a berth under the cloud's rim: the
            # ship perhaps still in it), the board cannot tell more until the cloud
            # moves: the likeliest move is taken provisionally then, as a move into a place
            # out of sight, and checked once every place is seen whole
            if _likeliest(belief, accepted):
                partly = _partly_seen(game, observation, accepted)
                if partly and _settled_by(belief, accepted, partly) < belief.alpha:
                    return Take(accepted, partly)
                return AskWhether(accepted)
        elif verdict.provisional and left_over(game, accepted.best, observation):
            # a move into places the camera cannot see, with something else that differs:
            # only what it does not explain is a fix (a misread elsewhere must not make
            # the players undo a real move). Not where the belief holds likelier that the
            # same ship was miscounted by one (`_miscount_of`): a ship seen a space short
            # of a legal landing out of sight is the miscount named, never the legal move
            # with "the ship belongs" there (a fix a hand cannot carry out under the
            # cloud). A stray of the mover's colour farther off stays a fix beside the
            # move. A ship in a hand and one set down out of sight leave the same board:
            # once the rest matches, the move is decided as with nothing else differing
            # (taken provisionally, or asked about)
            if not _miscount_of(game, belief, accepted.best):
                diff = difference_after(game, accepted.best, observation)
                return Waiting(accepted.best, verdict.provisional, diff)
        elif doubt:
            if belief.decisive and belief.best.consequence == accepted.consequence:
                # the counts show the mover on its landing space beside the ship it bumped
                return Take(accepted, verdict.provisional)
            if belief.best.kind is Explanation.MOVE:
                return DoubtfulBump(accepted)
            # the mover seen nowhere, the bumped ship still where it was: likelier still in
            # its player's hand, or set down where the rules do not allow; the table is told
            # to finish the move, or which move it made against the rules
        elif (
            verdict.provisional
            and not _likeliest(belief, accepted)
            and not _shown_at_rim(game, observation, accepted.best)
        ):
            # a move out of sight with nothing else differing, where the belief holds
            # something else likelier: mostly its ship still in a hand (the board shows
            # only the ship gone from its start, and the priors alone weigh the two), or
            # no change (its start seen in part). Only the table knows, unless the cloud's
            # rim shows the ship on its landing; the game does not go on with a move the
            # belief holds less likely than another explanation, so the table is asked
            # now, with "not yet"
            return AskWhether(accepted, verdict.provisional)
        else:
            # sure some legal move was made, or a move out of sight with nothing else
            # differing that the belief holds the likeliest explanation, or whose ship the
            # cloud's rim shows (provisional: checked, and rewound if need be, once seen;
            # asked before the spin if never)
            return Take(accepted, verdict.provisional)
    elif (
        verdict.outcome is Outcome.TIE
        and len(verdict.tied) <= MAX_OPTIONS
        and belief.best.kind is Explanation.MOVE
    ):
        # moves that explain the board as well, unless a ship still in a hand or a move the
        # rules do not allow explains it better: a question then would ask about a move
        # not made (yet)
        return Tied(verdict.tied, _putback_first(game, belief, verdict.tied))
    diff = difference(game, observation)
    if not diff:
        return Matches()
    return Fix(diff, unclear(game, belief, diff, dice))


def _miscount_of(game: Game, belief: Belief, legal: Candidate) -> bool:
    """Whether the belief's likeliest explanation is the legal move's ship moved against
    the rules to a place one space more or fewer than the die from its start (a
    miscount, the illegal move people make most). The belief holds every illegal move
    alike (`PRIOR_ILLEGAL` over every start and place), so it also prefers one to a
    legal move with a stray of the mover's colour elsewhere: that stray is no miscount
    of this move, and stays a fix beside it."""
    best, move = belief.best, legal.move
    if best.kind is not Explanation.ILLEGAL or best.target is None or legal.die is None:
        return False
    if move is None or move.is_pass or best.place != move.start:
        return False
    steps = game.board.distance(move.start, best.target)
    return steps is not None and abs(steps - legal.die) == 1


def _shown_at_rim(game: Game, observation: BoardObservation, candidate: Candidate) -> bool:
    """Whether the cloud's rim shows the candidate's ship on its landing out of sight, as
    the session's check at a press of spin reads it (`rim.shows`, on the game with the move
    made): a ship seen there is no ship in a hand."""
    move = candidate.move
    if move is None or move.is_pass or move.end is None or candidate.die is None:
        return False
    evidence = observation_evidence(game.board, observation)
    return rim.shows(made(game, candidate), observation, evidence, move)


def _likeliest(belief: Belief, group: Group) -> bool:
    """Whether the belief's likeliest explanation is the group's legal move."""
    return belief.best.kind is Explanation.MOVE and belief.best.consequence == group.consequence


def _putback_first(game: Game, belief: Belief, groups: tuple[Group, ...]) -> bool:
    """Whether tied moves' bumped ships put back are asked for before the question: only
    where no ship put back in any port can leave another move's board
    (`referee.putback_tells`), and where the put-back tells more (`inform.putback_first`,
    the moves weighed by the belief)."""
    if not putback_tells(game, groups):
        return False
    posterior = {h.consequence: h.posterior for h in belief.hypotheses if h.consequence}
    weights = [max(posterior.get(g.consequence, 0.0), MIN_WEIGHT) for g in groups]
    boards = [
        frozenset(next(c for c in g.members if c.bump is Bump.BACK).contents.items())
        for g in groups
    ]
    return putback_first(weights, boards)


def _unseen_tie(
    game: Game, observation: BoardObservation, belief: Belief, groups: tuple[Group, ...]
) -> tuple[str, ...] | None:
    """The places out of sight of the board the belief holds likeliest (its move decisive),
    to be checked once seen; None where a tied move changes a place out of sight that this
    board does not: a count alone never settles a tie whose other places the camera cannot
    check, as nothing would ever check them (a dock under the cloud against a bump whose
    ship a stray token beside the mover seems to show)."""
    best = belief.best.best
    assert best is not None
    evidence = observation_evidence(game.board, observation)
    base = contents(game)
    changed = set(changed_places(base, best.contents))
    hidden = {p for g in groups for p in out_of_sight(evidence, base, g, every=True)}
    if not hidden <= changed:
        return None
    return tuple(sorted(hidden))


def _settled_by(belief: Belief, group: Group, places: tuple[str, ...]) -> float:
    """How much of the belief is on explanations other than the group's move that leave
    `places` as the move does: the check of those places, once seen whole, could not tell
    them from the move (a ship still in a hand off the move's own start, against a ship
    still standing in the part of its port the cloud's rim covers, which that check
    settles)."""
    want = group.best.contents

    def alike(h: Hypothesis) -> bool:
        board = h.leaves
        return all(sorted(board.get(p, ())) == sorted(want.get(p, ())) for p in places)

    return sum(
        h.posterior for h in belief.hypotheses if h.consequence != group.consequence and alike(h)
    )


def _partly_seen(game: Game, observation: BoardObservation, group: Group) -> tuple[str, ...]:
    """The places the group's move changes that the camera does not see whole, as a
    provisional move's places are checked (`putback.CONFIRM_OBSERVABILITY`)."""
    evidence = observation_evidence(game.board, observation)
    changed = changed_places(contents(game), group.best.contents)
    return tuple(p for p in changed if not seen_whole(evidence, p, CONFIRM_OBSERVABILITY))


def _decisive(belief: Belief, groups: tuple[Group, ...]) -> Group | None:
    """The group whose consequence the belief is decisive on, if one is."""
    best = belief.best
    if not belief.decisive or best.kind is not Explanation.MOVE or best.is_none:
        return None
    return next((g for g in groups if g.consequence == best.consequence), None)


def unclear(game: Game, belief: Belief, diff: Difference, dice: frozenset[int] | None) -> str:
    """What the table is told of a board no legal move explains decisively: the move not
    finished (a ship in a hand), a move the rules do not allow named as such, or what
    differs."""
    best = belief.best
    if best.kind is Explanation.IN_HAND and best.place is not None:
        return (
            f"{game.active}: finish your move: a {game.active} ship is off {best.place}; set "
            "it down where the die takes it"
            + (
                "; if it lands on a ship, put that ship back in its port"
                if _putback_shows(game, belief)
                else ""
            )
            + " (a ship set down where the camera cannot see, under the cloud, is no move: "
            f"put it back on {best.place} first)"
        )
    return explain(game, diff, dice)


def _putback_shows(game: Game, belief: Belief) -> bool:
    """Whether a bump the belief holds possible (its mover perhaps set down under the ship
    it bumped) would show itself with its bumped ships put back: not where that board is
    the game's as it stands (an own ship bumped back into the port its mover left), which
    would read as no move made."""
    base = contents(game)
    return any(
        h.posterior >= belief.alpha and back_board(game, c) != base
        for h in belief.moves
        for c in h.members
        if c.bump is Bump.LANDING
    )


def reference_board(
    kept: tuple[Game, Mapping[str, Content], BoardObservation] | None, game: Game
) -> BoardObservation | None:
    """The last board that matched the game's placement, if `kept` is still for it (a die
    rolled since changes no ship)."""
    if kept is None or kept[0] is not game or kept[1] != contents(game):
        return None
    return kept[2]
