"""The game session: the game being played and its journal, changed only together.

Every change to the game goes through `GameSession`: a move applied, a pass, a
roll, a die told, the cloud's captures, an undo, a rewind, a corrected
journal, hand edits, a new game (the old one archived). Each is journalled at
once (`commit`); a write the journal refuses is handed to `on_write_error` (a
fault: the motors stop, the game is kept). Only what a move (`apply`) would
have said is then kept until the journal takes it (`say_unsaid`); a pass, a
roll or a cloud phase whose write is refused holds nothing back: what it would
have said (the pass's line, returned to its caller; the roll and the captures,
said by the caller) is not said then, nor once the journal takes it. The
session also keeps the moves and captures taken into places the camera could
not see (`provisional`) until the board confirms or contradicts them
(`check_provisional`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bermuda_hw.controller import rim
from bermuda_hw.controller.actions import undo_count
from bermuda_hw.controller.cloud_phase import Captures, totals_line
from bermuda_hw.controller.commands import ActionRefused
from bermuda_hw.controller.consequences import Provisional, entry_index, provisional_moves
from bermuda_hw.controller.corrections import (
    CaptureDoubt,
    CorrectedCaptures,
    CorrectedMove,
    Unplayable,
    capture_doubts,
    captures_told,
    corrected_captures,
    outcome_hangs_on,
)
from bermuda_hw.controller.history import History
from bermuda_hw.controller.identify import Difference, difference, pass_die
from bermuda_hw.controller.journal import Journal, JournalWriteError
from bermuda_hw.controller.putback import CONFIRM_OBSERVABILITY
from bermuda_hw.controller.referee import (
    observation_evidence,
    place_observability,
    seen_whole,
)
from bermuda_hw.controller.seats import as_made, standing
from bermuda_hw.controller.status import Suggestion
from bermuda_hw.errors import BermudaError, StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.candidates import Candidate, contents
from bermuda_hw.rules.events import Event
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.moves import Move, split_ship_id
from bermuda_hw.rules.record import rewound
from bermuda_hw.vision.types import BoardEvidence, BoardObservation


@dataclass(frozen=True)
class WrongCaptures:
    """A cloud phase's captures that the board, now in view, contradicts."""

    item: Provisional
    corrected: CorrectedCaptures | Unplayable


@dataclass(frozen=True)
class NotThere:
    """A provisional move the board contradicts: `wrong` are its places seen without it."""

    item: Provisional
    wrong: list[str]
    why: str = ""  # what the board shows, where it is not the ship missing there


def _stayed(game: Game, item: Provisional, seen: Difference) -> str | None:
    """The start of a provisional move, if it is among the places checked and the board
    shows one more ship of the mover's colour there than the game has (the ship never
    left: a move taken while its start was seen in part)."""
    move = Move.parse(item.move)
    start = move.start
    if move.is_pass or start not in item.places:
        return None
    color = split_ship_id(move.ship)[0]
    return start if any(e == (color, start) for e in seen.extra) else None


class GameSession:
    """The game and its journal (and the finished games' history beside it)."""

    def __init__(
        self,
        board: Board,
        journal: Journal,
        *,
        players: int,
        seed: int | None,
        options: GameOptions | None,
        say: Callable[[str], None],
        on_write_error: Callable[[str], None],
    ) -> None:
        self.board = board
        self.journal = journal
        self.players = players
        self.seed = seed
        self.options = options
        self.say = say
        self.on_write_error = on_write_error
        self.game: Game | None = None
        self.game_id = 0
        #: moves and captures taken into places the camera could not see, to be checked
        self.provisional: list[Provisional] = []
        # what a change would have said while its commit failed: said once the journal
        # takes it (recovery), never before
        self._unsaid: list[str] = []

    @property
    def current(self) -> Game:
        """The game (there is one once the session is loaded)."""
        game = self.game
        assert game is not None
        return game

    @property
    def die_mode(self) -> str:
        game = self.game
        return game.options.die if game is not None else "table"

    @property
    def provisional_moves(self) -> tuple[str, ...]:
        """The provisional moves and captures, in words (the status shows them)."""
        return tuple(p.move for p in self.provisional)

    @property
    def captures_unchecked(self) -> bool:
        """Some cloud phase's captures are still to be checked against the board."""
        return any(p.captures for p in self.provisional)

    # --- starting -----------------------------------------------------------------------

    def load(self) -> bool:
        """Resume the journal's game; False if it holds none (`new` starts one)."""
        loaded = self.journal.load(self.board)
        if loaded is None:
            return False
        self.game_id, self.game = loaded
        game = self.game
        self.provisional = provisional_moves(game, self.journal.settled(self.game_id))
        if game.is_over():
            self.say(f"game {self.game_id} is over: {game.outcome()}")
        else:
            self.say(
                f"resuming game {self.game_id}: round {game.round}, "
                f"{game.phase.value} phase, {game.active} to play"
            )
        return True

    def new(self) -> Game:
        """Start a new game with the session's players, seed and options (the journal
        archives the one before)."""
        seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "big")
        game = Game.new(self.players, seed=seed, board=self.board, options=self.options)
        self.game = game
        self.game_id = self.journal.start(game)
        self.provisional = []
        self._unsaid.clear()
        self.say(
            f"new game {self.game_id}: {len(game.players)} players "
            f"({', '.join(game.order)} in turn order), seed {seed}; "
            "set up the ships in the ports"
        )
        return game

    # --- the journal --------------------------------------------------------------------

    def commit(self) -> bool:
        """Journal what the game holds and the database does not; False (and
        `on_write_error`) if the journal refuses it."""
        try:
            self.journal.sync(self.game_id, self.current)
        except JournalWriteError as exc:
            self.on_write_error(str(exc))
            return False
        return True

    def say_unsaid(self) -> None:
        """Say what changes said while the journal could not take them (now it has)."""
        for line in self._unsaid:
            self.say(line)
        self._unsaid.clear()

    def keep_history(self, change: Callable[[History], object]) -> None:
        """Keep the finished games' history (controller.history) beside the journal. The
        history is for the page's list and replays: a failure to write it is said, and the
        game goes on."""
        try:
            change(History(self.journal))
        except (BermudaError, sqlite3.Error) as exc:
            self.say(f"the history of finished games was not updated: {exc}")

    # --- the ship phase -----------------------------------------------------------------

    def apply(
        self,
        candidate: Candidate,
        provisional: tuple[str, ...] = (),
        chosen: Suggestion | None = None,
    ) -> tuple[Move, bool]:
        """Make a candidate's move in the game (as the computer seat's `chosen` move if it
        is that one, and still stands) and journal it, provisional if it went where the
        camera cannot see. The move as made, and whether the journal took it (what it says
        is said then)."""
        game = self.current
        assert candidate.move is not None and candidate.die is not None
        color = game.active
        count = len(game.journal)
        if game.die is None:
            game.set_die(candidate.die)
        made, note = as_made(game, candidate, standing(game, chosen))
        if note:
            self.say(note)
        events = game.push(made, provisional=provisional)
        if provisional:
            self.provisional.append(Provisional(count, str(made), provisional))
        committed = self.commit()
        first, *rest = events
        lines = [
            f"{color} (die {candidate.die}): {first}",
            *(f"    {e}" for e in rest),
            *(
                f"    put {ship} back in {game.ship(ship).previous_port}"
                for ship in candidate.bumped
            ),
        ]
        if provisional:
            lines.append(
                f"    provisional: the camera cannot see {', '.join(provisional)} whole; "
                "the move is checked when it can"
            )
        if committed:
            for line in lines:
                self.say(line)
        else:
            self._unsaid.extend(lines)
        return made, committed

    def pass_turn(self) -> tuple[str, bool]:
        """Pass the active player's turn: with the die rolled, if it gives no move; else if
        some die value leaves no move at all (ActionRefused if not). What it says, and
        whether the journal took it (it is said then)."""
        game = self.current
        if game.die is not None:
            die: int | None = game.die
            if game.legal_moves(game.die) != [Move.pass_turn(game.active)]:
                raise ActionRefused(
                    f"{game.active} cannot pass: the {game.die} rolled gives a move"
                )
        else:
            die = pass_die(game)
            if die is None:
                raise ActionRefused(f"{game.active} cannot pass: every die value gives a move")
            game.set_die(die)
        events = game.push(Move.pass_turn(game.active))
        text = f"{events[0]} (no move with a {die})"
        committed = self.commit()
        if committed:
            self.say(text)
        return text, committed

    def roll(self) -> int | None:
        """The virtual die, rolled for the active player and journalled; None if the journal
        refused it."""
        die = self.current.roll_die()
        return die if self.commit() else None

    def set_die(self, value: int) -> bool:
        """The die rolled at the table, told; True once journalled."""
        self.current.set_die(value)
        return self.commit()

    def edit(self, edits: Sequence[tuple[str, str | None]], keep_since: int) -> bool:
        """Hand edits of the position (each ship to a place, or out of the game), journalled;
        what the board shows is the game now: only the provisional moves from journal entry
        `keep_since` on stay to be checked."""
        game = self.current
        for sid, place in edits:
            game.set_ship(sid, place)
        if not self.commit():
            return False
        self.provisional = [p for p in self.provisional if p.count >= keep_since]
        return True

    # --- the cloud phase ----------------------------------------------------------------

    def cloud_phase(self, decided: Captures) -> list[Event] | None:
        """The cloud phase with the captures decided (those from places the cloud covers are
        the camera's best guess: provisional); its events, or None if the journal refused."""
        game = self.current
        count, round_ = len(game.journal), game.round
        events = game.cloud_phase(None, capture=decided.captured, provisional=decided.unseen)
        if decided.unseen:
            self.provisional.append(
                Provisional(count, f"the captures of round {round_}", decided.unseen, True)
            )
        return events if self.commit() else None

    # --- taking back ----------------------------------------------------------------------

    def undo(self) -> str:
        """Take back the last move (and what followed it in the journal); what was undone."""
        game = self.current
        count = undo_count(game)
        was_over = game.is_over()
        undone = self.journal.undo(self.game_id, count)
        if was_over:  # the game is open again: it leaves the finished games' history
            self.keep_history(lambda history: history.forget(self.game_id))
        self.game = rewound(game, len(game.journal) - count)
        self.provisional = []
        return next((e["move"] for e in undone if "move" in e), None) or ", ".join(
            sorted(str(k) for e in undone for k in e)
        )

    def confirm_at_rim(self, observation: BoardObservation | None) -> None:
        """Confirm this round's moves out of sight whose landing `observation` shows with
        the mover's token at the cloud's rim (`rim.shows`), as a "yes" from
        the table would (`settle`)."""
        if observation is None:
            return
        evidence = observation_evidence(self.board, observation)
        for item in self._this_round_out_of_sight(evidence):
            move = Move.parse(item.move)
            if rim.shows(self.current, observation, evidence, move):
                self.settle(item)
                self.say(f"seen at the cloud's rim: {item.move}")

    def _this_round_out_of_sight(self, evidence: BoardEvidence | None) -> list[Provisional]:
        """This round's provisional moves whose ship the game has on a landing `evidence`
        does not show well (all of them without evidence)."""
        game = self.current
        since = max((i for i, e in enumerate(game.journal) if "cloud" in e), default=-1)
        out = []
        for item in self.provisional:
            if item.captures or item.count < since:
                continue  # a move of an earlier round was not asked about before its spin
            move = Move.parse(item.move)
            if move.is_pass or move.end not in item.places or _left(game, item) is not None:
                continue
            if evidence is None or place_observability(evidence, move.end) < CONFIRM_OBSERVABILITY:
                out.append(item)
        return out

    def unseen_landing(self, observation: BoardObservation | None) -> Provisional | None:
        """The first provisional move whose ship the game has on a landing the camera has
        never seen, nor sees well on `observation` (the last board): before a spin, whose
        magnets may take the ship, or a ship the move did not put there, before the board
        could show where it stood. Every such move of this round is asked about, whatever
        the spin will do: a question only before the spins that sweep it would tell the
        table where the cloud is going."""
        evidence = None if observation is None else observation_evidence(self.board, observation)
        unseen = self._this_round_out_of_sight(evidence)
        return unseen[0] if unseen else None

    def capture_doubts(self, observation: BoardObservation | None) -> list[CaptureDoubt]:
        """The provisional captures the camera cannot check on `observation` (no evidence:
        none can be): for each cloud phase, colour and place it does not see whole (a
        port's every berth), the swept ships that stood there and were not told of yet."""
        if observation is None:
            return []
        game = self.current
        evidence = observation_evidence(self.board, observation)
        out = []
        for item in self.provisional:
            unseen = frozenset(
                p for p in item.places if not seen_whole(evidence, p, CONFIRM_OBSERVABILITY)
            )
            if unseen:
                out.extend(capture_doubts(game, item, unseen, dict(item.told)))
        return out

    def end_doubts(self, observation: BoardObservation | None) -> list[CaptureDoubt]:
        """At the game's end: the provisional captures the camera cannot check that its
        outcome hangs on (`corrections.outcome_hangs_on`). The rest stay as the game has
        them: the game ends as it has whatever the table would say of them."""
        game = self.current
        return [d for d in self.capture_doubts(observation) if outcome_hangs_on(game, d)]

    def capture_behind_pass(self, observation: BoardObservation | None) -> CaptureDoubt | None:
        """A provisional capture the active player's pass rests on: ships of theirs on
        places the camera cannot check, with which all taken, or all left there, the pass
        would be one where the game has it not, or the reverse (the die rolled, or any
        value, gives a move or none). The first question about them is returned; the table
        is asked before the pass is taken or refused, as the game cannot go on without
        deciding it, and each answer is checked again."""
        game = self.current
        color = game.active
        passes = _passes(game)
        mine: dict[int, list[CaptureDoubt]] = {}
        for doubt in self.capture_doubts(observation):
            if split_ship_id(doubt.ships[0][0])[0] == color:
                mine.setdefault(doubt.item.count, []).append(doubt)
        for doubts in mine.values():
            item = doubts[0].item
            for taken in (True, False):
                told = dict(item.told) | {s: taken for d in doubts for s, _ in d.ships}
                result = captures_told(game, item, told)
                if result is None:
                    continue  # (what the game has)
                fixed = result.game if isinstance(result, CorrectedCaptures) else None
                if fixed is None or fixed.phase is not game.phase or fixed.active != color:
                    if passes:
                        return doubts[0]  # (the game since does not follow from that answer)
                    continue
                if _passes(fixed) != passes:
                    return _differing(doubts, taken)
        return None

    def told_captures(
        self, doubt: CaptureDoubt, taken: frozenset[str], observation: BoardObservation | None
    ) -> tuple[CorrectedCaptures | Unplayable | None, Provisional | None]:
        """The table's word on the ships of `doubt` (`taken`: those the magnets took), with
        what it told before: the game with those answers, the phase's places `observation`
        sees whole as it shows them (the board decides there, over an answer), and the
        rest as the camera guessed (`corrections.captures_told`; None if that is the game
        as it is); and the item that replaces the phase's, holding the answers and the
        places still in doubt (None: nothing is left to check). The caller puts it in
        once the game is as told (`replace_item`)."""
        game = self.current
        item = doubt.item
        seen = None
        whole: set[str] = set()
        if observation is not None:
            evidence = observation_evidence(self.board, observation)
            whole = {p for p in item.places if seen_whole(evidence, p, CONFIRM_OBSERVABILITY)}
            diff = difference(game, observation)
            seen = Difference(
                tuple(m for m in diff.missing if m[1] in whole),
                tuple(e for e in diff.extra if e[1] in whole),
            )
        before = rewound(game, item.count)
        told = {
            s: t
            for s, t in (dict(item.told) | {s: s in taken for s, _ in doubt.ships}).items()
            if before.ship(s).location not in whole
        }
        unseen = frozenset(p for p in item.places if p not in whole)
        still = tuple(sorted({d.ships[0][1] for d in capture_doubts(game, item, unseen, told)}))
        result = captures_told(game, item, told, seen, still)
        if not still:
            return result, None
        return result, Provisional(item.count, item.move, still, True, tuple(sorted(told.items())))

    def replace_item(self, item: Provisional, by: Provisional | None) -> None:
        """A cloud phase's item, once the game is as the table told it: replaced by the one
        holding the places still in doubt, or, with none, confirmed by the table (when the
        game did not change, journalled as standing)."""
        if item in self.provisional:
            self.provisional.remove(item)
        if by is not None:
            self.provisional.append(by)

    def confirmed_captures(self, item: Provisional) -> None:
        """A cloud phase's captures the table told of as the game has them, nothing of the
        phase left to check: journalled as standing (`settle`)."""
        self._settle_entry(item)
        self.say(f"confirmed by the table: {item.move}")

    def confirmed(self, item: Provisional) -> None:
        """A provisional move the table says was made as the game has it: no longer checked
        (`settle`)."""
        if item in self.provisional:
            self.settle(item)
            self.say(f"confirmed by the table: {item.move}")

    def settle(self, item: Provisional) -> None:
        """A provisional item that stands as the game has it (confirmed by the table or the
        board, or its ship gone before the camera could see it): no longer checked, and
        journalled so (`Journal.settle`), so that a restart neither checks it again nor
        asks about it. A journal that refuses is said, and play goes on: the game itself is
        unchanged, and after a restart the item is only checked again, as before it was
        confirmed (a journal that cannot be written stops the table at its next change)."""
        self.provisional.remove(item)
        self._settle_entry(item)

    def _settle_entry(self, item: Provisional) -> None:
        """Journal a provisional item's entry as standing (`settle`)."""
        try:
            self.journal.settle(self.game_id, entry_index(self.current, item))
        except StateError as exc:  # a write that failed (JournalWriteError) too
            self.say(
                f"the journal did not record that {item.move} stands ({exc}); after a "
                "restart it is checked again"
            )

    def rewind(self, item: Provisional, wrong: Sequence[str], why: str = "") -> bool:
        """Take the game back to before a provisional move the board contradicts (`wrong`:
        its places seen without it), or the table says was not made (`why`); False if the
        journal refused."""
        game = self.current
        try:
            # an undo entry naming the rows taken back: nothing is deleted
            self.journal.undo(self.game_id, len(game.journal) - item.count)
        except JournalWriteError as exc:
            self.on_write_error(str(exc))
            return False
        self.game = back = rewound(game, item.count)
        self.forget_provisional(since=item.count)
        why = why or f"{', '.join(wrong)} seen without it"
        self.say(
            f"{item.move} was not made ({why}): the "
            f"game goes back to before it, round {back.round}, {back.active} to move"
        )
        return True

    def correct_captures(self, item: Provisional, corrected: CorrectedCaptures) -> bool:
        """A cloud phase's captures the board contradicts replaced by those it shows, and
        the game played on from them (`corrections.corrected_captures`); False if the
        journal refused."""
        if not self.rewrite(item, corrected.game):
            return False
        self.say(
            f"{item.move} were not as the camera guessed under the cloud: "
            f"{'; '.join(corrected.changes)}. The game is corrected from that cloud phase"
        )
        return True

    def correct_move(self, item: Provisional, corrected: CorrectedMove) -> bool:
        """A provisional move replaced by the move of that turn the board shows, and the
        game played on from it (`corrections.corrected_move`); False if the journal
        refused."""
        if not self.rewrite(item, corrected.game):
            return False
        self.forget_provisional(since=item.count)
        other = corrected.move
        self.say(
            f"{item.move} is not where the ship went: the board shows {other.move} "
            f"(die {other.die}); the game is corrected from that move"
        )
        for event in corrected.events[1:]:
            self.say(f"    {event}")
        self.say(totals_line(corrected.game))
        return True

    def forget_provisional(self, since: int) -> None:
        """Forget the provisional items from journal entry `since` on (taken back)."""
        self.provisional = [p for p in self.provisional if p.count < since]

    def rewrite(self, item: Provisional, fixed: Game) -> bool:
        """Replace the game from a provisional item on by `fixed`: an undo entry naming the
        rows taken back, then the corrected ones, in one transaction (nothing is deleted);
        False if the journal refused."""
        try:
            self.journal.rewrite(self.game_id, item.count, fixed)
        except StateError as exc:  # a write that failed (JournalWriteError) too
            self.on_write_error(str(exc))
            return False
        self.game = fixed
        return True

    def check_provisional(
        self, observation: BoardObservation, final: bool = False
    ) -> WrongCaptures | NotThere | None:
        """Check the provisional moves and captures whose places are now in view (a port's
        every berth: a ship missing from the berths in view may stand in another): those the
        board shows are confirmed (and said), a move whose ship left its landing before it
        came into view is said as never seen; the first the board contradicts is returned,
        for the caller to correct. `final`: what cannot be checked now never will be (the
        game is over), and stays as the game has it."""
        if not self.provisional:
            return None
        game = self.current
        evidence = observation_evidence(self.board, observation)
        expected = contents(game)
        seen = difference(game, observation)
        for item in list(self.provisional):
            if not all(seen_whole(evidence, p, CONFIRM_OBSERVABILITY) for p in item.places):
                if final:
                    self.provisional.remove(item)
                    if item.captures and not item.told:
                        self.say(
                            f"not seen: {item.move} under the cloud; the game keeps them as "
                            "it has them, and ends as it has whichever way they went"
                        )
                continue
            if item.captures:
                corrected = corrected_captures(game, item, seen)
                if corrected is not None:  # (the item goes once the game is corrected)
                    return WrongCaptures(item, corrected)
                self.settle(item)
                if not _seen_at(seen, item.places):
                    self.say(f"confirmed: {item.move}")
                continue
            wrong = [
                p for p in item.places if expected.get(p) and any(m[1] == p for m in seen.missing)
            ]
            if wrong:
                self.provisional.remove(item)
                return NotThere(item, wrong)
            stayed = _stayed(game, item, seen)
            if stayed is not None:
                # the place the move left, seen whole, still holds its ship: one more of
                # its colour there than the game has, which no check of missing ships shows
                self.provisional.remove(item)
                return NotThere(item, [stayed], f"{stayed} seen with the ship still there")
            self.settle(item)
            gone = _left(game, item)
            if gone is not None:
                # its ship left the landing out of sight before it came into view (the
                # cloud took it, or it moved on): nothing there can confirm the move or
                # refute it
                ship, end = gone
                self.say(
                    f"never seen: {item.move}: {ship} left {end} before the camera could "
                    "see it there; the game keeps the move as it was taken"
                )
            else:
                self.say(f"confirmed: {item.move}")
        return None


def unplayable_text(item: Provisional, unplayable: Unplayable) -> str:
    """What the table is told of captures to correct that the game since does not follow
    from."""
    text = (
        f"{item.move} were not as the camera guessed under the cloud: "
        f"{'; '.join(unplayable.changes)}; but the game since does not follow from that "
        f"({unplayable.why})"
    )
    if unplayable.at_phase is None:
        return f"{text}. Take the game back with undo to that cloud phase to mend it"
    return (
        f"{text}: the game goes back to just after that cloud phase. Set the board as the "
        "game has it, then make the moves since again"
    )


def _differing(doubts: list[CaptureDoubt], taken: bool) -> CaptureDoubt:
    """The first question whose ships the game has not all taken (`taken`), or not all
    left: one whose answer may differ from the game's guess that way."""
    for doubt in doubts:
        if (doubt.taken != {s for s, _ in doubt.ships}) if taken else bool(doubt.taken):
            return doubt
    return doubts[0]


def _passes(game: Game) -> bool:
    """Whether the active player may pass: the die rolled gives no move, or (not rolled)
    some die value gives none."""
    if game.die is not None:
        return game.legal_moves(game.die) == [Move.pass_turn(game.active)]
    return pass_die(game) is not None


def _left(game: Game, item: Provisional) -> tuple[str, str] | None:
    """The provisional move's ship and landing, if the landing was out of sight and the
    ship no longer stands there (a move from a start out of sight to a landing in view
    was seen where it landed)."""
    move = Move.parse(item.move)  # a move's item holds the move as journalled
    end = move.end
    if move.is_pass or end is None or end not in item.places or move.ship not in game.ship_ids:
        return None
    return None if game.ship(move.ship).location == end else (move.ship, end)


def _seen_at(seen: Difference, places: tuple[str, ...]) -> bool:
    return any(p[1] in places for p in (*seen.missing, *seen.extra))
