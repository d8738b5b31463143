"""What the table is asked in the ship phase, and when: to put bumped ships back, which of
the tied moves was made; and what an answer means.

Every request and question is about one state of the game (`turn.Turn`, which
holds them); `Asking` keeps what outlives it: when the question was last put,
and an answer given on the page. The times here only decide when to ask,
never what is taken: after asking for bumped ships to go back, a board that
reads the same, clear of hands, for `PUTBACK_WAIT_S` (a put-back takes a
person 2-4 s), or a request standing `PUTBACK_GIVE_UP_S`, is asked about
instead; a question unanswered, or a "not yet" on a board left as it was, is
asked again after `announce.REPEAT_S`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from bermuda_hw.controller import announce
from bermuda_hw.controller.questions import question_for
from bermuda_hw.controller.referee import Group, Outcome, Verdict
from bermuda_hw.controller.status import Question
from bermuda_hw.controller.turn import PutBack, Request, RequestKey, Turn
from bermuda_hw.rules.candidates import Bump, Content

#: a board that reads the same, clear of hands, this long after bumped ships were asked
#: back, is asked about (the request ran out): a put-back takes a person 2-4 s, and a board
#: left as it was for half again as long is a table that is not doing it. Only when to ask:
#: nothing is taken when it runs out
PUTBACK_WAIT_S = 6.0
#: a put-back request standing this long, the board never quiet for PUTBACK_WAIT_S (hands
#: in and out), is asked about instead: the question's own repeat (`announce.REPEAT_S`), so
#: a table busy with something else is asked no sooner than an unanswered question is
#: repeated. Only when to ask: nothing is taken when it runs out
PUTBACK_GIVE_UP_S = 60.0


class Settled(Enum):
    """What a stable board does to a put-back request between moves that all bumped ships."""

    STANDS = "stands"  # the same tie: the request stands, quiet from now
    ASK = "ask"  # the board reads as the game has it: the camera cannot tell, ask
    OTHER = "other"  # the board says something else: judged as usual


@dataclass(frozen=True)
class NoSuchAnswer:
    option: int
    count: int

    def __str__(self) -> str:
        return f"there is no answer {self.option}: press 1 to {self.count} times"


@dataclass(frozen=True)
class NotYet:
    """The move is not finished: asked again when the board changes."""

    option: int


@dataclass(frozen=True)
class NoneOfThese:
    """None of the moves asked about: nothing is taken."""

    option: int


@dataclass(frozen=True)
class Chosen:
    option: int
    group: Group


Answer = NoSuchAnswer | NotYet | NoneOfThese | Chosen


class Asking:
    """When the table is asked, and what its answers mean."""

    def __init__(self) -> None:
        self.asked_s = 0.0  # when the pending question was last put to the table
        self._given: int | None = None  # an answer given on the page

    # --- put-back requests --------------------------------------------------------------

    def request_putback(
        self,
        turn: Turn,
        kind: Request,
        key: RequestKey,
        tied: tuple[Group, ...],
        state: object | None,
        now: float,
    ) -> bool | None:
        """Stand a request to put back any ship the move bumped: True if it is made now (the
        table is to be told), False if it stood already (the board settled anew: quiet from
        now), None if it ran out once already in this state of the game (the table is asked,
        or the move taken, instead)."""
        if key in turn.ran_out:
            return None
        asked = turn.putback
        if asked is not None and asked.key == key:
            asked.state, asked.quiet_s = state, now
            return False
        if turn.putback_first is None:
            turn.putback_first = {}
        # (a request ended by another board and made again gives up as the first would)
        since = turn.putback_first.setdefault(key, now)
        turn.putback = PutBack(kind, key, since, state, now, tied)
        turn.tied = ()
        return True

    def putback_lapsed(self, turn: Turn, state: object | None, now: float) -> PutBack | None:
        """A frame with no new stable board while a put-back is asked for: the request, once
        the board has read the same (`state`, None with a hand over it), for
        `PUTBACK_WAIT_S`, or the request has stood for `PUTBACK_GIVE_UP_S`; it ran out (it
        is not made again in this state of the game). None while it stands."""
        asked = turn.putback
        assert asked is not None
        if state is None or state != asked.state:
            asked.quiet_s = now  # a hand over the board, or it reads otherwise for now
        quiet = now - asked.quiet_s >= PUTBACK_WAIT_S
        if not quiet and now - asked.asked_s < PUTBACK_GIVE_UP_S:
            return None
        turn.ran_out.add(asked.key)
        return asked

    def settle_putback(
        self,
        turn: Turn,
        verdict: Verdict,
        placement: Mapping[str, Content],
        state: object | None,
        now: float,
    ) -> Settled:
        """A stable board (judged: `verdict`) while the table is asked to put back the ships
        of one of several moves that all bumped ships. A board that reads exactly as the
        game has it (`placement`: a ship bumped back into the port its mover left, or the
        move taken back) is asked about: the camera cannot tell these apart."""
        asked = turn.putback
        assert asked is not None
        tied = {g.consequence for g in asked.tied}
        if verdict.outcome is Outcome.TIE and {g.consequence for g in verdict.tied} == tied:
            asked.state, asked.quiet_s = state, now  # not yet: quiet from now
            return Settled.STANDS
        if verdict.outcome is Outcome.NONE and any(
            dict(c.contents) == placement
            for g in asked.tied
            for c in g.members
            if c.bump is Bump.BACK
        ):
            turn.ran_out.add(asked.key)
            return Settled.ASK
        return Settled.OTHER

    # --- questions ----------------------------------------------------------------------

    def should_ask(
        self, turn: Turn, groups: tuple[Group, ...], pending: bool, state: object | None, now: float
    ) -> bool:
        """Whether to ask about `groups`: not if the same question is `pending`, nor after a
        "not yet" on this very board (asked again once it changes, or after REPEAT_S)."""
        if pending and {g.consequence for g in groups} == {g.consequence for g in turn.tied}:
            return False
        declined = turn.not_yet
        return not (
            declined is not None and declined[0] == state and now - declined[1] < announce.REPEAT_S
        )

    def ask(
        self,
        turn: Turn,
        active: str,
        groups: tuple[Group, ...],
        now: float,
        unseen: tuple[str, ...] = (),
    ) -> Question:
        """The question which of the tied moves was made (`questions.question_for`;
        `unseen`: for one move, its places out of sight)."""
        question, turn.tied = question_for(active, groups, unseen)
        turn.unseen = unseen if len(groups) == 1 else ()
        self.put(now)
        return question

    def put(self, now: float) -> None:
        """A question put now: an answer given on the page before it is no answer to it."""
        self.asked_s = now
        self._given = None

    def give(self, option: int) -> None:
        """An answer given on the page (option `option`, from 1)."""
        self._given = option

    def take(self, counted: Callable[[], int | None]) -> int | None:
        """The answer given on the page, else the presses `counted` once the button rests."""
        option, self._given = self._given, None
        return option if option is not None else counted()

    def repeat_due(self, now: float) -> bool:
        """The question unanswered for REPEAT_S: it is to be said again (from now)."""
        if now - self.asked_s < announce.REPEAT_S:
            return False
        self.asked_s = now
        return True

    def answer(self, turn: Turn, option: int, state: object | None, now: float) -> Answer:
        """What option `option` answers to the question pending (its moves: `turn.tied`);
        "not yet" is remembered with the board it was given on."""
        groups = turn.tied
        if not 1 <= option <= len(groups) + 2:
            return NoSuchAnswer(option, len(groups) + 2)
        turn.tied, turn.unseen = (), ()
        if option == len(groups) + 2:
            turn.not_yet = (state, now)
            return NotYet(option)
        if option == len(groups) + 1:
            return NoneOfThese(option)
        return Chosen(option, groups[option - 1])

    @staticmethod
    def not_yet_lapsed(turn: Turn, now: float) -> bool:
        """A "not yet" answered REPEAT_S ago, the board left as it was: ask again."""
        declined = turn.not_yet
        return declined is not None and now - declined[1] >= announce.REPEAT_S
