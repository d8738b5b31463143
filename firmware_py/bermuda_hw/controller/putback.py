"""When asking for bumped ships to be put back tells the referee what the board cannot.

Pure decisions on one stable observation; the request itself (what is asked, for
which state of the game, how long the board has been quiet) is kept in
`controller.turn`, and no decision here takes a move.
"""

from __future__ import annotations

from bermuda_hw.controller.consequences import back_board, bump_left_over
from bermuda_hw.controller.referee import (
    MARGIN,
    PROVISIONAL_BELOW,
    Group,
    Scorer,
    changed_places,
    observation_evidence,
    place_observability,
)
from bermuda_hw.rules.candidates import Bump, Candidate, contents
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.types import BoardObservation

#: a move into a place the camera sees less well than this (a share of the place's disk in
#: view) is provisional: it is checked once the place is seen this well
CONFIRM_OBSERVABILITY = 0.9


def unseen_arrivals(
    game: Game, candidate: Candidate, observation: BoardObservation
) -> tuple[str, ...]:
    """The places `candidate` brings a ship to that `observation` does not see well enough
    to confirm it (`CONFIRM_OBSERVABILITY`)."""
    evidence = observation_evidence(game.board, observation)
    return tuple(
        p
        for p in changed_places(contents(game), candidate.contents)
        if candidate.contents.get(p) and place_observability(evidence, p) < CONFIRM_OBSERVABILITY
    )


def out_of_sight_choice(
    game: Game, tied: tuple[Group, ...], observation: BoardObservation
) -> tuple[Candidate, tuple[str, ...]] | None:
    """For a tie between one move out of sight and moves whose bumped ships are not back
    in their ports yet: that move and the places it arrives at that are not seen well
    enough to confirm it (none: None, the table is asked)."""
    settled = [g for g in tied if g.best.bump in (Bump.NONE, Bump.BACK)]
    if len(settled) != 1 or len(settled) == len(tied):
        return None
    choice = settled[0].best
    hidden = unseen_arrivals(game, choice, observation)
    return (choice, hidden) if hidden else None


def bump_in_doubt(game: Game, candidate: Candidate, observation: BoardObservation) -> bool:
    """Whether a move that leaves the ship it bumped on its landing space is in doubt: its
    own ship is not seen there (it could be under that ship, or nowhere: held in a hand,
    or lost in a glare where it left), or the board shows something else the move does
    not explain (a ship seen in the wrong colour there, say, while the move truly made
    shows elsewhere). The board with the bumped ship back shows the move whole. Not in
    doubt, whatever else the board shows: an own ship bumped back into the port its mover
    left, whose board with the ship back reads as before the move (the request could then
    tell nothing; the move is taken as before)."""
    move = candidate.move
    if candidate.bump is not Bump.LANDING or move is None or move.end is None:
        return False
    evidence = observation_evidence(game.board, observation)
    seen = place_observability(evidence, move.end)
    if seen < PROVISIONAL_BELOW:
        return False  # out of sight: the move is provisional, checked when seen
    if back_board(game, candidate) == contents(game):
        # its ships put back, the board reads as before the move (an own ship bumped back
        # into the port its mover left): the put-back would tell nothing
        return False
    if bump_left_over(game, candidate, observation):
        return True
    there = list(candidate.contents.get(move.end, ()))
    if game.active not in there:
        return False
    scorer = Scorer(game.board, evidence)
    without = list(there)
    without.remove(game.active)
    return (
        scorer.place_score(move.end, tuple(there)) - scorer.place_score(move.end, tuple(without))
        < MARGIN * seen
    )
