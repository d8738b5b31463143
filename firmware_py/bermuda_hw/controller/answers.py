"""The table's requests and questions, carried out: bumped ships asked back, a question
put, and what its answer does.

`asking` decides when the table is asked and what an answer means; this module
shows it (the mode, the line, the LED) and acts on it: an answer naming a move
takes it (its arrivals out of sight checked once in view), "none of these" asks
for the board back as the game has it, "not yet" lets the player finish. A put-
back request that runs out becomes the question; a quiet board never commits a
move. Captures under the cloud that a pass or the game's end rests on are asked about
too: the answer confirms them or corrects the game from that cloud phase.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from bermuda_hw.clock import Clock
from bermuda_hw.controller.asking import Asking, NoneOfThese, NoSuchAnswer, NotYet, Settled
from bermuda_hw.controller.board_checks import BoardChecks
from bermuda_hw.controller.buttons import SpinButton
from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.corrections import CaptureDoubt, Unplayable
from bermuda_hw.controller.identify import Difference, difference
from bermuda_hw.controller.provisional_checks import (
    check_provisional,
    correct_captures,
    rewind,
    rewind_captures,
)
from bermuda_hw.controller.putback import out_of_sight_choice, unseen_arrivals
from bermuda_hw.controller.questions import capture_question, landing_question
from bermuda_hw.controller.referee import Group
from bermuda_hw.controller.rig import Rig
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.signals import Pattern
from bermuda_hw.controller.status import NONE_OF_THESE, Mode, Question, Status
from bermuda_hw.controller.turn import AskedCaptures, Request, RequestKey
from bermuda_hw.controller.wording import press_hint
from bermuda_hw.rules.candidates import contents
from bermuda_hw.vision.types import BoardObservation


class Table(Protocol):
    """What asking the table needs of the controller."""

    session: GameSession
    rig: Rig
    clock: Clock
    asking: Asking
    button: SpinButton
    checks: BoardChecks
    last_observation: BoardObservation | None

    @property
    def status(self) -> Status: ...

    def say(self, text: str) -> None: ...

    def set_mode(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None: ...

    def publish(self) -> None: ...

    def observe(self, observation: BoardObservation) -> None:
        """Act on a stable observation, as the loop does."""
        ...

    def pass_turn(self) -> str:
        """Pass the active player's turn (ActionRefused if the die gives a move)."""
        ...

    def saved(self, committed: bool) -> bool: ...

    def announce_over(self) -> None: ...

    def fault(self, message: str) -> None: ...


class Answers:
    """Bumped ships asked back, the table's questions put, and their answers carried out."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def ask_putback(
        self, tied: tuple[Group, ...], observation: BoardObservation, putback: bool
    ) -> bool:
        """Ask for bumped ships to go back before asking which of the tied moves was made
        (`controller.putback`); True while that is what the table is asked. `putback`: the
        tied moves' bumped ships put back tell them apart, even put in a wrong port, and
        tell more than the question (`ship_phase.Tied.putback`)."""
        game = self.table.session.current
        choice = out_of_sight_choice(game, tied, observation)
        if choice is not None:
            return self.request_putback(Request.OUT_OF_SIGHT, choice[0].consequence)
        if not putback:
            self.table.checks.end_putback()
            return False
        return self.request_putback(Request.BUMPS, tuple(g.consequence for g in tied), tied)

    def request_putback(self, kind: Request, key: RequestKey, tied: tuple[Group, ...] = ()) -> bool:
        """Ask the active player to put back any ship the move bumped (without saying which
        move); True while that is what the table is asked, False if this request ran out
        once already in this state of the game."""
        table = self.table
        now, state = table.clock.monotonic(), table.rig.reading_state()
        made = table.asking.request_putback(table.checks.turn, kind, key, tied, state, now)
        if made is None:  # ran out once already: the table is asked, or the move taken
            table.checks.end_putback()
            return False
        if made:
            status = table.status
            status.putback = True
            status.fix = None
            status.waiting = None
            status.question = None
            table.set_mode(
                Mode.FIX,
                f"{table.session.current.active}: if your move bumped a ship, "
                "put it back in its port",
                Pattern.FIX,
            )
        return True

    def putback_step(self) -> None:
        """A frame with no new stable board while a put-back is asked for: once the request
        ran out (`asking`), the table is asked which move it was (a bump in doubt: whether
        that move was made), with "none of these" and "not yet" among the answers. No move
        is ever taken for a quiet board."""
        table = self.table
        observation = table.last_observation
        if observation is None or table.status.mode is not Mode.FIX:
            table.checks.end_putback()
            return
        now, state = table.clock.monotonic(), table.rig.reading_state()
        asked = table.asking.putback_lapsed(table.checks.turn, state, now)
        if asked is None:
            return
        table.checks.end_putback()
        if asked.kind is Request.BUMPS:
            # the board never showed one move's ships put back: ask which move it was
            self.ask(asked.tied)
            return
        # the board is judged again: a tie, or a bump still in doubt, is asked about
        table.observe(observation)

    def settle_putback(self, observation: BoardObservation) -> bool:
        """A stable board while the table is asked to put back the ships of one of several
        moves that all bumped ships: True while the request stands or once it became the
        question; False when the board says something else, judged then as usual."""
        table = self.table
        turn = table.checks.turn
        asked = turn.putback
        assert asked is not None
        verdict = table.checks.judge(observation)
        now, state = table.clock.monotonic(), table.rig.reading_state()
        game = table.session.current
        settled = table.asking.settle_putback(turn, verdict, contents(game), state, now)
        if settled is Settled.STANDS:
            return True
        table.checks.end_putback()
        if settled is Settled.ASK:
            self.ask(asked.tied)
            return True
        return False

    def ask(self, groups: tuple[Group, ...], unseen: tuple[str, ...] = ()) -> None:
        """Ask the table which of the tied moves was made (one question, by die if it can;
        whether it was made, for one move in doubt, `unseen` its places out of sight).
        "None of these" and "not yet" are always among the answers; nothing is taken until
        the table answers."""
        table = self.table
        turn, now, state = table.checks.turn, table.clock.monotonic(), table.rig.reading_state()
        if not table.asking.should_ask(turn, groups, table.status.mode is Mode.ASK, state, now):
            return
        self._put(table.asking.ask(turn, table.session.current.active, groups, now, unseen))

    def ask_landing(self, item: Provisional) -> None:
        """Ask, before the spin, whether the ship of a move taken out of sight stands where
        the game has it (`questions.landing_question`); the spin waits."""
        table = self.table
        table.checks.turn.landing = item
        table.asking.put(table.clock.monotonic())
        self._put(landing_question(item))

    def ask_capture(self, doubt: CaptureDoubt, color: str, for_pass: bool = False) -> None:
        """Ask which of the ships where the camera cannot see the magnets took
        (`questions.capture_question`): before a pass that rests on it, or at the game's
        end. The game waits for the answer; nothing is taken until it comes."""
        table = self.table
        question, takes = capture_question(doubt, color)
        table.checks.turn.capture = (doubt, takes, for_pass)
        table.asking.put(table.clock.monotonic())
        self._put(question)

    def capture_before_pass(self) -> bool:
        """Before the active player's pass: True if the table is asked first about captures
        under the cloud the pass rests on (`GameSession.capture_behind_pass`)."""
        table = self.table
        doubt = table.session.capture_behind_pass(table.last_observation)
        if doubt is None:
            return False
        self.ask_capture(doubt, table.session.current.active, for_pass=True)
        return True

    def asked_board(self, observation: BoardObservation) -> bool:
        """A stable board while the table is asked about a move's landing or about captures
        (`landing_board`, `capture_board`); False if no such question stands."""
        turn = self.table.checks.turn
        if self.table.status.mode is not Mode.ASK:
            return False
        if turn.landing is not None:
            self.landing_board(observation)
        elif turn.capture is not None:
            self.capture_board(observation)
        else:
            return False
        return True

    def end_board(self, observation: BoardObservation) -> None:
        """A stable board once the game has ended on captures still to be checked (the
        cloud back at the centre): those the board shows are checked; those it cannot are
        asked about where the game's outcome hangs on them (a capture under the cloud may
        decide a fleet, so the outcome: `GameSession.end_doubts`); the game is announced
        over once none is left to ask."""
        table = self.table
        if self.asked_board(observation) or check_provisional(table, observation):
            return
        doubts = table.session.end_doubts(observation)
        if doubts:
            first = doubts[0].ships[0][0]
            self.ask_capture(doubts[0], table.session.current.ship(first).color)
            return
        if not check_provisional(table, observation, final=True):
            table.announce_over()

    def capture_board(self, observation: BoardObservation) -> None:
        """A stable board while the table is asked about captures: the question stands
        unless the board itself now answers it (every place in view: the captures checked
        by `provisional_checks.check_provisional`, confirmed or corrected)."""
        table = self.table
        asked = table.checks.turn.capture
        assert asked is not None
        if check_provisional(table, observation):
            return  # corrected (its question with it)
        if asked[0].item in table.session.provisional:
            return
        table.checks.turn.capture = None
        table.status.question = None
        self._go_on(observation)

    def _go_on(self, observation: BoardObservation | None) -> None:
        """After captures were settled: the game's end checked on (more captures to check
        or ask about, or the game announced over), or the board checked before play goes
        on."""
        table = self.table
        if observation is None:
            table.rig.forget()  # checked on a fresh observation
            table.set_mode(Mode.SETUP, "checking the board", Pattern.BUSY)
        elif table.session.current.is_over():
            self.end_board(observation)
        else:
            table.checks.check(observation)

    def _answer_capture(self, asked: AskedCaptures, option: int) -> None:
        """The table's answer on captures the camera cannot check: how many of the ships
        the magnets took, as the game has it (confirmed once nothing else of that cloud
        phase is left to check) or not (the game corrected from that cloud phase, its
        places in view as the board shows them; taken back to it where the game since
        does not follow). "None of these" and "not yet" take nothing: the question
        stands, said again while the game waits, as it cannot go on without the answer.
        Asked before a pass, the pass follows where it still stands."""
        table = self.table
        question = self._asked(option)
        if question is None:
            return
        doubt, takes, for_pass = asked
        chosen = question.options[option - 1]
        table.say(f"answer {option}: {chosen}")
        if option > len(takes):
            if chosen == NONE_OF_THESE:
                table.say(
                    "none of these: nothing is taken; set a ship knocked off its place back "
                    "where it stood, then answer"
                )
            else:
                table.say("not yet: nothing is taken; the game waits for the answer")
            table.asking.put(table.clock.monotonic())
            self._put(replace(question))  # (asked anew: a page or a player sees it again)
            return
        table.checks.turn.capture = None
        table.status.question = None
        session = table.session
        item = doubt.item
        told, still = session.told_captures(doubt, takes[option - 1], table.last_observation)
        if isinstance(told, Unplayable):
            rewind_captures(table, item, told, still)
            return
        if told is not None:
            correct_captures(table, item, told, still)
            return
        session.replace_item(item, still)
        if still is None:
            session.confirmed_captures(item)
        table.status.provisional = session.provisional_moves
        if for_pass and not session.current.is_over():
            try:
                table.pass_turn()  # (asked first again where another capture holds it)
                return
            except ActionRefused as exc:
                table.say(str(exc))
        self._go_on(table.last_observation)

    def _asked(self, option: int) -> Question | None:
        """The question standing, if `option` is one of its answers (else said, None)."""
        question = self.table.status.question
        assert question is not None
        if not 1 <= option <= len(question.options):
            self.table.say(str(NoSuchAnswer(option, len(question.options))))
            return None
        return question

    def _put(self, question: Question) -> None:
        """Show a question put to the table (mode ASK); presses from now answer it."""
        table = self.table
        table.status.question = question
        table.button.forget()
        table.set_mode(Mode.ASK, f"{question.text} ({press_hint(question.options)})", Pattern.ASK)

    def landing_board(self, observation: BoardObservation) -> None:
        """A stable board while the table is asked about a move's landing: the question
        stands (the board is checked once it is answered) unless the board itself answers
        it: the landing in view (the move confirmed, or the game taken back by
        `provisional_checks.check_provisional`; or the move left to be checked with the
        rest of its places)."""
        table = self.table
        item = table.checks.turn.landing
        if check_provisional(table, observation):
            return  # the game was taken back or corrected (its question with it)
        if item in table.session.provisional and table.session.unseen_landing(observation) == item:
            return
        table.checks.turn.landing = None
        table.status.question = None
        table.checks.check(observation)

    def _answer_landing(self, item: Provisional, option: int) -> None:
        """The table's answer on a move's landing: yes (the move stands, no longer checked),
        none of these (the game goes back to before the move, and the moves since), not
        yet (asked again at the next press of spin). Then the board is checked before the
        spin, as after any change."""
        table = self.table
        question = self._asked(option)
        if question is None:
            return
        table.checks.turn.landing = None
        table.status.question = None
        table.say(f"answer {option}: {question.options[option - 1]}")
        if question.options[option - 1] == NONE_OF_THESE:
            rewind(table, item, [], "the table says so")
            return
        if option == 1:
            table.session.confirmed(item)
            table.status.provisional = table.session.provisional_moves
        observation = table.last_observation
        if observation is not None:
            table.checks.check(observation)  # SPIN once the board is as the game has it
        else:
            table.rig.forget()  # checked on a fresh observation
            table.set_mode(Mode.SETUP, "checking the board", Pattern.BUSY)

    def answer_step(self) -> None:
        """In mode ASK: take an answer from the page, or from presses once the button rests.
        Unanswered, the question is said again every `announce.REPEAT_S` while the game waits."""
        table = self.table
        option = table.asking.take(table.button.counted)
        question = table.status.question
        if option is None:
            if question is not None and table.asking.repeat_due(table.clock.monotonic()):
                # asked again: a question of its own (a page or a player sees it anew)
                table.status.question = replace(question)
                table.say(
                    f"still waiting for an answer, the game is paused: {question.text} "
                    f"({press_hint(question.options)})"
                )
            return
        table.button.gate.used()  # answered: a press from now is a new one
        landing, capture = table.checks.turn.landing, table.checks.turn.capture
        if landing is not None:
            self._answer_landing(landing, option)
            return
        if capture is not None:
            self._answer_capture(capture, option)
            return
        game = table.session.current
        now, state = table.clock.monotonic(), table.rig.reading_state()
        named = table.checks.turn.unseen  # out of sight, and named by the question
        answer = table.asking.answer(table.checks.turn, option, state, now)
        if isinstance(answer, NoSuchAnswer):
            table.say(str(answer))
            return
        table.status.question = None
        observation = table.last_observation
        if isinstance(answer, NotYet):  # the move is not finished
            table.say(f"answer {option}: not yet")
            table.set_mode(
                Mode.READY,
                f"{game.active}: finish your move, then press spin (the table asks again "
                "when the board changes)",
                Pattern.READY,
            )
            table.status.unfinished = True
            table.publish()
            return
        if isinstance(answer, NoneOfThese):  # nothing is taken
            table.say(f"answer {option}: none of these; nothing is taken")
            diff = difference(game, observation) if observation is not None else Difference()
            table.checks.show_fix(
                diff,
                f"{game.active}: none of these: set the board back as the "
                f"game has it ({diff.describe() if diff else 'it is'}), "
                "then make your move again",
            )
            return
        group = answer.group
        table.say(f"answer {option}: {group.best.describe()}")
        # the places the move arrives at that the camera does not see well are checked
        # once it does (the answer names the move; the board will show it), unless the
        # question said the camera cannot see the move's places ("did you make ...? The
        # camera cannot see S23"): its yes is the table's word on where the ship stands,
        # as a yes before the spin is, and it is not asked again
        provisional: tuple[str, ...] = ()
        if observation is not None and not named:
            provisional = unseen_arrivals(game, group.best, observation)
        if not table.checks.apply(group.best, provisional):
            return
        if named:
            table.say(f"    on the table's word: the camera cannot see {', '.join(named)}")
        if observation is not None:
            table.checks.check(observation)
        else:
            table.checks.settled()
