"""A stable board of the ship phase, carried out: what `ship_phase.decide` says, done.

Before a board is judged as a move, what the table is in the middle of comes
first: bumped ships go back before anything else counts as a move, a put-back
request between tied bumps stands until the board settles it, and in SETUP the
board is only checked against the game. Otherwise the decision is carried out:
`Take` journals the move, `DoubtfulBump` and `Tied` ask for bumped ships back
and then ask the table, `Waiting` shows the fix beside the move out of sight,
`AskWhether` asks whether the move was made, `Matches` settles, `Fix` asks for
the fix.
"""

from __future__ import annotations

from typing import Protocol

from bermuda_hw.controller.answers import Answers
from bermuda_hw.controller.board_checks import BoardChecks
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.ship_phase import (
    AskWhether,
    DoubtfulBump,
    Matches,
    Take,
    Tied,
    Waiting,
    decide,
    reference_board,
)
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.controller.turn import Request
from bermuda_hw.vision.types import BoardObservation


class Table(Protocol):
    """What carrying out the ship phase's decisions needs of the controller."""

    session: GameSession
    checks: BoardChecks
    answers: Answers

    @property
    def status(self) -> Status: ...

    def say(self, text: str) -> None: ...


def on_ship_board(table: Table, observation: BoardObservation) -> None:
    """Act on a stable board of the ship phase (the game not over, no undo waiting)."""
    checks, answers = table.checks, table.answers
    game = table.session.current
    turn = checks.turn
    if turn.bumped is not None:
        # the bumped ships go back first: until then a change is no new move (the next
        # player's ship leaving a port looks like a bumped ship not yet put back)
        checks.check(observation)
        return
    if (
        turn.putback is not None
        and turn.putback.kind is Request.BUMPS
        and answers.settle_putback(observation)
    ):
        return
    if table.status.mode is Mode.SETUP:
        # the board is checked against the game (a game's start, after the cloud's
        # phase, after a rewind) before anyone is told to move: what differs is a fix,
        # never a move (a ship the magnets took on the cloud's way back looks like one
        # moved under another)
        checks.check_setup(observation)
        return
    decision = decide(
        game,
        observation,
        checks.known_dice(),
        reference=reference_board(checks.reference, game),
        held=checks.told_to_leave(),
    )
    turn.waiting = None
    if not isinstance(decision, Tied | DoubtfulBump):
        checks.end_putback()
    if isinstance(decision, Take):
        if checks.apply(decision.group.best, decision.provisional):
            checks.check(observation)
    elif isinstance(decision, DoubtfulBump):
        # the bumped ship back tells; once that request ran out, the table is asked
        if not answers.request_putback(Request.DOUBTFUL_BUMP, decision.group.consequence):
            answers.ask((decision.group,))
    elif isinstance(decision, Tied):
        if not answers.ask_putback(decision.groups, observation, decision.putback):
            answers.ask(decision.groups)
    elif isinstance(decision, Waiting):
        turn.waiting = (decision.move, decision.places)
        checks.show_fix(decision.diff, decision.message(game.active))
    elif isinstance(decision, AskWhether):
        # "not yet" lets a player who is still moving finish
        answers.ask((decision.group,), decision.unseen)
    elif isinstance(decision, Matches):
        checks.settled(observation)
    else:
        checks.show_fix(decision.diff, decision.message)
