"""The board checked against the game, carried out: settled, a fix asked, a move taken.

Every stable board the ship phase does not take as a new move is compared
with the game (`identify.difference`): when it matches, the game is settled
(the next move is awaited, or the spin); otherwise the table is asked to fix
it, each ask counted as a failed attempt (`hand_edits`). A move is taken here
too (journalled through the session, the bumped ships it leaves to go back
first), and so is a long press's acceptance of the board as seen.
`BoardChecks` holds the last board that matched the game (the reference the
referee compares the next move's tokens with) and whether an undo waits for
the board as it was.
"""

from __future__ import annotations

from typing import Protocol

from bermuda_hw.clock import Clock
from bermuda_hw.controller.computer import Seats
from bermuda_hw.controller.hand_edits import (
    Edits,
    accepted,
    due,
    edits_after,
    edits_for,
    fix_message,
    refusal,
)
from bermuda_hw.controller.identify import Difference, difference
from bermuda_hw.controller.referee import Verdict, bumped_beside, judge
from bermuda_hw.controller.rig import Rig
from bermuda_hw.controller.seats import hold_spaces
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.signals import Pattern
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.controller.turn import Bumped, Turn, Turns
from bermuda_hw.controller.wording import either
from bermuda_hw.rules.candidates import Candidate, contents
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.vision.types import BoardObservation

#: how a fix that asks for a bumped ship in a port the camera cannot see ends when the ship
#: is already there: the landing's evidence may still read it beside the mover
BACK_ALREADY = "if it is back there already, press spin"


class Table(Protocol):
    """What the board's checks need of the controller."""

    session: GameSession
    turns: Turns
    rig: Rig
    clock: Clock
    seats: Seats
    last_observation: BoardObservation | None

    @property
    def status(self) -> Status: ...

    def say(self, text: str) -> None: ...

    def set_mode(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None: ...

    def saved(self, committed: bool) -> bool: ...

    def announce_over(self) -> None: ...

    def publish(self) -> None: ...


class BoardChecks:
    """The board against the game: settled, a fix, a move taken, the board accepted."""

    def __init__(self, table: Table) -> None:
        self.table = table
        # the last board that matched the game, for the game and the placement it matched
        self.reference: tuple[Game, dict[str, tuple[str, ...]], BoardObservation] | None = None
        self.restoring = False  # after an undo: wait for the board as it was, take no move

    @property
    def turn(self) -> Turn:
        """What the table is in the middle of for the game as it is now (`controller.turn`)."""
        return self.table.turns.now(self.table.session.current)

    def check_setup(self, observation: BoardObservation) -> None:
        """In mode SETUP: the board must be as the game has it before play goes on."""
        game = self.table.session.current
        diff = difference(game, observation)
        if diff and self._learned_printing(game, diff):
            return
        if not diff:
            self.table.say(f"the board matches the game; round {game.round}")
            self.table.rig.learn_start_layout(game)
            self.settled(observation)
        else:
            self.show_fix(diff, f"set the board as the game has it: {diff.describe()}", Mode.SETUP)

    def _learned_printing(self, game: Game, diff: Difference) -> bool:
        """A new game's board with every ship the game has in its place and more ships read
        off every place, by a reader that has not learned the empty board's look (no colour
        calibration): a printed board's own coasts and lettering read as ships, and the
        game could never start. Vision learns the board's look from this start layout (as
        at every game start), once, and the board is read again. The game's places and
        every place a ship is read on are left out of what is learned, so a token standing
        on a place stays a ship to take off, and a ship set there later is seen; only what
        stands off every place is taken as printing: said, with the way to calibrate."""
        rig = self.table.rig
        off = [color for color, place in diff.extra if place is None]
        if not off or diff.missing or rig.knows_board_look() or game.has_moves():
            return False
        on_places = {place for _, place in diff.extra if place is not None}
        rig.learn_start_layout(game, also=on_places)
        if not rig.knows_board_look():
            return False
        colors = " and ".join(sorted(set(off)))
        self.table.say(
            f"the camera is not calibrated, so it took what it read as {colors} ships off "
            "the spaces for part of the board. If a real ship or token lies off the spaces, "
            "take it off the board now: the camera will not see anything there until the "
            "next game starts. To fix this for good, calibrate the camera "
            "(calibration/README.md)"
        )
        rig.forget()  # the next stable run is read against the learned look
        return True

    def check(self, observation: BoardObservation) -> None:
        """The board as the game has it is settled; anything else is a fix."""
        game = self.table.session.current
        diff = difference(game, observation)
        if diff:
            self.show_fix(diff, f"fix the board: {diff.describe()}")
        elif not self._bumped_beside(observation):
            self.settled(observation)

    def judge(self, observation: BoardObservation) -> Verdict:
        """The referee's verdict on an observation for the game as it is, with the die if
        it is known."""
        return judge(self.table.session.current, observation, self.known_dice())

    def told_to_leave(self) -> frozenset[str]:
        """The spaces the roll told the player to leave a ship landed on, both ships there,
        until asked to put one back: none once a put-back has been asked for this turn."""
        if self.turn.putback_first is not None:
            return frozenset()
        return frozenset(self.table.status.hold)

    def known_dice(self) -> frozenset[int] | None:
        """The die values the move may have been made with (None: any)."""
        game = self.table.session.current
        if game.die is not None:
            return frozenset({game.die})
        # with the virtual die, no move is made before the press that rolls it
        return frozenset() if self.table.session.die_mode == "virtual" else None

    def show_fix(self, diff: Difference, message: str, mode: Mode = Mode.FIX) -> None:
        """Ask for a fix; each ask while the game stays as it is counts as a failed attempt."""
        status = self.table.status
        waiting = self.waiting_move() if mode is Mode.FIX else None
        status.waiting = None if waiting is None else str(waiting[0].move)
        self.end_putback()
        status.question = None
        self.turn.tied = ()
        self.turn.landing = None
        self.turn.capture = None
        # every ask since the game last changed is a failed attempt (the players may try
        # something else each time: the same stray token shows as another fix)
        status.fix_attempts += 1
        status.fix = diff
        observation = self.table.last_observation
        edits: Edits | None = None
        first: str | None = None
        if due(status.fix_attempts) and observation is not None:
            # what a long press would do, said with the way out: the move out of sight the
            # fix waits on made first, then the edits
            move = None if waiting is None else waiting[0]
            edits = edits_after(self.table.session.current, observation, move)
            first = None if move is None else str(move.move)
        self.table.set_mode(
            mode, fix_message(message, status.fix_attempts, edits, first), Pattern.FIX
        )

    def end_putback(self) -> None:
        """No bumped ships are asked back any more."""
        if self.table.session.game is not None:
            self.turn.putback = None
        self.table.status.putback = False

    def _bumped_beside(self, observation: BoardObservation) -> bool:
        """A ship the last move bumped back into a port the camera cannot see, still beside
        the mover on the landing space (one ship per place shows there, only the place's
        evidence tells): the players are asked to put it back, and the board is read again
        every stable run while they do (its ships read the same). True while that is asked.
        Waiting tells nothing: a ship already back, the landing still read so, is the
        table's word, a press of spin (`back_on_word`)."""
        table = self.table
        game = table.session.current
        bumped = self.turn.bumped
        if bumped is None or bumped.on_word:
            return False
        diff = bumped_beside(game, observation, bumped.landing, bumped.ships)
        if not diff:
            return False
        table.rig.forget()  # the next stable run is reported though its ships read the same
        if (
            table.status.mode is not Mode.FIX
            or table.status.fix != diff
            or not table.status.back_unseen
        ):
            hidden = sorted({space for _, space in diff.missing if space is not None})
            self.show_fix(
                diff,
                f"fix the board: {diff.describe()} (the cloud covers {either(tuple(hidden))}); "
                f"{BACK_ALREADY}",
            )
            table.status.back_unseen = True
            table.publish()  # the page offers the press with the ask (set after the mode)
        return True

    def back_on_word(self) -> None:
        """A press while the bumped ships are asked back into ports the camera cannot see:
        the table's word that they are there. The game's record is not touched (the move
        was taken on its own evidence); the board is taken as it reads, and the landing's
        evidence is not asked about again for this move."""
        table = self.table
        bumped = self.turn.bumped
        fix = table.status.fix
        observation = table.last_observation
        if bumped is None or fix is None or observation is None:
            table.say(f"fix the board first: {table.status.message}")
            return
        bumped.on_word = True
        table.status.back_unseen = False
        ships = " and ".join(f"the {color} ship in {port}" for color, port in fix.missing)
        table.say(
            f"on the table's word, back where the camera cannot see: {ships} (the camera "
            f"still reads a ship beside the one on {bumped.landing})"
        )
        self.check(observation)

    def settled(self, matched: BoardObservation | None = None) -> None:
        """The board matches the game: wait for the next move, or for the spin button.
        `matched`: the observation just found to show the game, kept as the board the
        referee compares the next move's tokens with (without it, the last observation is
        kept if it shows the game)."""
        table = self.table
        status, game = table.status, table.session.current
        status.fix = None
        status.waiting = None
        self.restoring = False
        status.fix_attempts = 0
        turn = self.turn
        turn.bumped = None
        turn.landing = None
        turn.capture = None
        turn.putback_first = None
        seen = table.last_observation
        if matched is not None:
            self.reference = (game, contents(game), matched)
        elif seen is not None and not difference(game, seen):
            self.reference = (game, contents(game), seen)
        status.question = None
        status.die = game.die
        status.hold = ()  # (named again for the next player's move, below)
        if game.is_over():
            table.announce_over()
        elif game.phase is Phase.CLOUD:
            table.set_mode(
                Mode.SPIN,
                f"round {game.round}: every player has moved; press spin",
                Pattern.PRESS_SPIN,
            )
        else:
            status.hold = hold_spaces(game)
            table.set_mode(Mode.READY, table.seats.to_move(), Pattern.READY)

    def apply(self, candidate: Candidate, provisional: tuple[str, ...] = ()) -> bool:
        """Make a candidate's move in the game and journal it (provisional if it went where
        the camera cannot see)."""
        table = self.table
        status = table.status
        status.question = None
        status.hold = ()
        chosen, status.suggestion = status.suggestion, None
        made, committed = table.session.apply(candidate, provisional, chosen)
        table.saved(committed)
        status.die = None
        if candidate.bumped:  # (the game's new state: the bumped ships go back first)
            self.turn.bumped = Bumped(made.end or "", candidate.bumped)
        return committed

    def waiting_move(self) -> tuple[Candidate, tuple[str, ...]] | None:
        """The move out of sight a fix waits on, while the game is still as it was then."""
        game = self.table.session.game
        if game is None or game.phase is not Phase.SHIPS:
            return None
        return self.turn.waiting

    def accept_board(self) -> bool:
        """Take the board as the camera sees it (a long press after failed fixes): each ship
        the game has where the camera sees none moves to where a ship of its colour is
        seen, or leaves the game; journalled as hand edits of the position."""
        table = self.table
        game, observation = table.session.current, table.last_observation
        refused = refusal(
            self.turn.putback is not None, observation is not None, table.status.fix_attempts
        )
        if refused is not None:
            table.say(refused)
            return False
        assert observation is not None
        waiting = self.waiting_move() if table.status.mode is Mode.FIX else None
        self.turn.waiting = None
        count = len(game.journal)
        bumped: tuple[str, ...] = ()
        if waiting is not None:
            # the move out of sight the fix was shown beside is a move (die, cards), not an
            # edit: it is made first, and only what it leaves unexplained is accepted
            if not self.apply(*waiting):
                return False
            bumped = waiting[0].bumped
        # the ships it bumps go back to their ports as the players are asked next
        going_back = self.turn.bumped
        edits = edits_for(game, observation, bumped)
        # what the board now shows is the game; only the move just made stays to be checked
        committed = table.session.edit(edits, keep_since=count)
        # (the edits are a new state of the game; its bumped ships still go back first)
        self.turn.bumped = going_back
        if not table.saved(committed):
            return False
        table.say(accepted(edits))
        if bumped:
            self.check(observation)
        else:
            self.settled()
        return True
