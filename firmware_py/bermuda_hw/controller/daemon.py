"""The controller daemon: the loop that watches the board and carries out what is decided.

The same code runs beside the real board and on the simulated table: it sees
only camera frames (through vision), the table's buttons and the cloud mover,
never the simulated world's truth. One frame at a time (`step`): the actions
queued from outside (the page, `bermuda-hw game`) run first, on this thread;
then a frame is read, a new stable observation is acted on, then a press of
the spin button. The state machine is here, in `Mode`s (`status`):

    STARTING --homed--> SETUP --the board matches the game--> READY | SPIN | OVER
    READY --a stable board (`ship_phase.decide`)--> a move taken: READY | SPIN | OVER;
          a board to fix: FIX; bumped ships asked back: FIX; a tie: ASK
    READY --press--> the virtual die rolled, or a pass
    FIX --the board fixed--> READY | SPIN
    FIX, SETUP --long press after three asks for a fix--> hand edits (`hand_edits`)
    ASK --an answer--> a move taken | FIX (none of these) | READY (not yet)
    SPIN --press, the board clear--> MOVING --> AFTER_SPIN
    AFTER_SPIN --the cloud where planned--> captures --> (MOVING, back to the centre)
          --> SETUP | OVER;  the cloud elsewhere: placed again or turned, AFTER_SPIN
    a provisional move or capture the board contradicts --> SETUP (the game corrected)
    OVER --long press, `game new`--> SETUP (a new game);  an undo (the page) --> SETUP
    any --camera, I2C, homing, e-stop, journal--> FAULT --press--> STARTING (recover)

What carries it out lives beside it, each part owning its own state: the game
and its journal (`session`), the camera and homing (`rig`), the spin and the
closed loop on the cloud's pose (`spin`), what the table is asked and what the
answers mean (`asking`), the page's actions (`page`), a long press's hand
edits (`hand_edits`), the lines said and the snapshots (`announce`), the spin
button (`buttons`). The decisions are pure functions: `ship_phase`, `referee`,
`belief`, `putback`, `questions`, `turn`, `corrections`, `cloud_phase`,
`seats`, `homing` (docs/controller.md, "Where the code is").

Faults stop the motors, keep the game and wait for the spin button; motion only
ever starts over a board the camera sees clear of hands. docs/controller.md and
docs/referee.md describe a game at the table.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace

from bermuda_hw.backends.camera import CameraSource
from bermuda_hw.clock import Clock
from bermuda_hw.controller.announce import Announcer
from bermuda_hw.controller.asking import (
    PUTBACK_GIVE_UP_S,
    Asking,
    NoneOfThese,
    NoSuchAnswer,
    NotYet,
    Settled,
)
from bermuda_hw.controller.buttons import SpinButton
from bermuda_hw.controller.cloud_phase import (
    capture_lines,
    plan_spin,
    totals_line,
)
from bermuda_hw.controller.commands import ActionRefused, CommandQueue
from bermuda_hw.controller.consequences import (
    Provisional,
)
from bermuda_hw.controller.corrections import CorrectedCaptures, corrected_move
from bermuda_hw.controller.hand_edits import accepted, edits_for, fix_message, refusal
from bermuda_hw.controller.identify import (
    Difference,
    difference,
)
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.notify import Watchdog, sd_notify
from bermuda_hw.controller.page import PageActions
from bermuda_hw.controller.putback import (
    out_of_sight_choice,
    unseen_arrivals,
)
from bermuda_hw.controller.referee import (
    Group,
    Verdict,
    bumped_beside,
    judge,
    putback_tells,
)
from bermuda_hw.controller.rig import CameraView, Rig
from bermuda_hw.controller.seams import Controls, Mover
from bermuda_hw.controller.seats import hold_spaces, seat_level, standing, suggest, to_move
from bermuda_hw.controller.session import GameSession, NotThere, WrongCaptures
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
from bermuda_hw.controller.signals import Pattern, TableSignals
from bermuda_hw.controller.snapshot import Snapshot
from bermuda_hw.controller.spin import Spinner
from bermuda_hw.controller.status import (
    Mode,
    Status,
    Suggestion,
)
from bermuda_hw.controller.turn import Bumped, Request, RequestKey, Turn, Turns
from bermuda_hw.controller.wording import either, press_hint
from bermuda_hw.errors import (
    CameraError,
    EmergencyStopError,
    HardwareError,
)
from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.rules.candidates import Candidate, contents
from bermuda_hw.rules.events import (
    CloudRemoved,
)
from bermuda_hw.rules.game import Game, GameOptions, Phase, ShipStatus
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.play import describe_standings
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import StabilitySettings
from bermuda_hw.vision.types import BoardObservation

log = logging.getLogger("bermuda_hw.controller")

FAULT_POLL_S = 0.1  # in a fault, how often the loop looks for the press that recovers
SETTLE_BEFORE_HOMING_S = 0.5  # after a stop at speed, the carriage comes to rest first


class Controller:
    """The daemon's state machine over a journal, a camera, the cloud mover and the controls."""

    def __init__(
        self,
        *,
        board: Board,
        journal: Journal,
        open_camera: Callable[[], CameraSource],
        mover: Mover,
        controls: Controls,
        clock: Clock,
        reader: BoardReader | None = None,
        stability: StabilitySettings | None = None,
        players: int = 4,
        seed: int | None = None,
        options: GameOptions | None = None,
    ) -> None:
        self.board = board
        self.journal = journal
        self.session = GameSession(
            board,
            journal,
            players=players,
            seed=seed,
            options=options,
            say=self.say,
            on_write_error=self._fault,
        )
        self.mover = mover
        self.controls = controls
        self.clock = clock
        self.reader = reader if reader is not None else BoardReader(board)
        self.stability = stability or StabilitySettings()
        self.signals = TableSignals(controls.status_led, controls.buzzer)
        self.announcer = Announcer(clock, board)
        self.listeners = self.announcer.listeners
        self.subscribers = self.announcer.subscribers
        self.button = SpinButton(clock)
        self.status = Status()
        self.last_observation: BoardObservation | None = None
        self._aligned = False
        self._die_given: int | None = None  # a computer seat's die, given on the page
        self.asking = Asking()  # when the table is asked, and what its answers mean
        # what the table is in the middle of for the game as it is (`turn`): requests,
        # questions, "not yet", a move out of sight waiting, bumped ships not yet back
        self.turns = Turns()
        # the last board that matched the game, for the game and the placement it matched
        self._reference: tuple[Game, dict[str, tuple[str, ...]], BoardObservation] | None = None
        self._stop = threading.Event()
        self.watchdog = Watchdog()
        self._spin_waits = False  # a spin asked for while the board was covered
        self.commands = CommandQueue()
        self.page = PageActions(self)
        self.camera_view: CameraView | None = None
        self._restoring = False  # after an undo: wait for the board as it was, take no move
        self.rig = Rig(
            board=board,
            open_camera=open_camera,
            mover=mover,
            clock=clock,
            reader=self.reader,
            stability=self.stability,
            kick=lambda: self.watchdog.kick(),  # the watchdog may be replaced later
            say=self.say,
            watch_board=self.announcer.watch_board,
            stopping=self._stop.is_set,
        )
        self.spinner = Spinner(mover, self.rig, self.say)

    # --- announcements ------------------------------------------------------------------

    def say(self, text: str) -> None:
        """Log a line for the people at the table (and the system journal)."""
        self.announcer.say(text)

    def _set(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None:
        changed = mode is not self.status.mode or message != self.status.message
        self.status.unfinished = False
        if mode is not Mode.FIX:
            self.status.waiting = None
            self._end_putback()
        self.status.mode = mode
        self.status.message = message
        if changed and message and self.announcer.worth_saying(self.status.seq, mode, message):
            self.say(message)
        if pattern is not None:
            self.signals.show(pattern)
        game = self.game
        if game is not None:
            self.status.round = game.round
            self.status.phase = game.phase.value
            self.status.active = game.active if not game.is_over() else ""
        if changed:
            sd_notify(f"STATUS={mode.value}: {message}"[:200])
        self.publish()

    def publish(self) -> None:
        """Hand a new snapshot to the subscribers if the status or the game changed."""
        self.announcer.publish(self.game_id, self.status, self.game)

    @property
    def snapshot(self) -> Snapshot | None:
        """The last snapshot handed to the subscribers."""
        return self.announcer.snapshot

    # --- start-up -----------------------------------------------------------------------

    def start(self) -> None:
        """Resume or start the game, wire the buttons, open the camera and home the rig.

        A fault on the way (the e-stop held, no camera, homing) leaves the
        controller in FAULT mode, waiting for the spin button, not raised.
        """
        self.rig.board_may_hold_ships = self._load_game()
        self.session.keep_history(lambda history: history.record_missing(self.board))
        self.button.wire(self.controls.spin_button)
        # the e-stop is wired where the mover was built (motion.build); a stop request
        # (SIGTERM) holds the motors as the e-stop does: homing, which clears the mover's
        # e-stop first, then reads this level, cannot erase one made before it
        self.mover.add_interlock(self._stop.is_set)
        self.mover.set_heartbeat(lambda: self.watchdog.kick())
        try:
            if self._stop.is_set():
                return
            if self.controls.estop_engaged:
                raise EmergencyStopError("the e-stop button is engaged (nothing moved)")
            self.rig.reopen_camera()
            self._home()
        except HardwareError as exc:
            self._fault(f"at start-up: {exc}")
        self.publish()
        sd_notify("READY=1")

    def _load_game(self) -> bool:
        """Resume the journal's game, or start one; True if a game was resumed."""
        if not self.session.load():
            self._new_game()
            return False
        self.status.seq = len(self._game().journal)
        self.status.provisional = self.session.provisional_moves
        return True

    def answer(self, option: int) -> None:
        """Answer the pending question with option `option` (from 1), as the page does."""
        self.asking.give(option)

    @property
    def game(self) -> Game | None:
        """The game being played (the session's)."""
        return self.session.game

    @game.setter
    def game(self, game: Game | None) -> None:
        self.session.game = game

    @property
    def game_id(self) -> int:
        return self.session.game_id

    @property
    def die_mode(self) -> str:
        return self.session.die_mode

    def _game(self) -> Game:
        return self.session.current

    @property
    def _turn(self) -> Turn:
        """What the table is in the middle of for the game as it is now (`controller.turn`)."""
        return self.turns.now(self._game())

    def _new_game(self) -> None:
        game = self.session.new()
        kept = self.status.hints  # who asked for hints keeps them in the next game
        self.status = Status(
            seq=len(game.journal), hints=tuple(c for c in game.players if c in kept)
        )

    def new_game(self) -> None:
        """Archive the current game and start the next one (long press, or `game new`)."""
        self._new_game()
        self.spinner.pending = None
        self._restoring = False
        self._aligned = True
        self.rig.place_cloud(self._game())
        self.rig.forget()
        self._set(
            Mode.SETUP, "set up the ships: one of each colour in each product port", Pattern.FIX
        )

    def _home(self) -> None:
        """Home the rig and bring the cloud to the game's pose, clear of the ships (`rig`:
        when no way home is clear, nothing moves, `HomeRefused`), then check the board."""
        game = self._game()
        approach = self.rig.before_homing(game)
        self._set(Mode.STARTING, "homing the gantry", Pattern.BUSY)
        started = self.clock.monotonic()
        self.rig.home(approach)
        pose = game.pose
        self.say(
            f"homed in {self.clock.monotonic() - started:.1f} s; the cloud goes to dot "
            f"({pose.col}, {pose.row}) at letter {LETTERS[pose.letter]}"
        )
        self.rig.place_cloud(game)
        self._aligned = False
        self.rig.forget()
        if game.is_over() and self.session.captures_unchecked:
            self._set(
                Mode.SETUP, "checking the cloud's captures before the game ends", Pattern.BUSY
            )
        elif game.is_over():
            self._announce_over()
        else:
            self._set(Mode.SETUP, "checking the board", Pattern.FIX)

    # --- the loop -----------------------------------------------------------------------

    def request_stop(self) -> None:
        """Stop the loop (a signal handler may call this): the motors stop at once."""
        self._stop.set()
        self.mover.emergency_stop("shutting down")

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Start, then step until stopped (or until `until()` is true)."""
        self.start()
        while not self._stop.is_set() and not (until is not None and until()):
            self.step()

    def close(self) -> None:
        """Stop the motors, show nothing, close the camera; closing twice is fine."""
        sd_notify("STOPPING=1")
        self.commands.refuse_all("the controller is stopping")
        self.mover.emergency_stop("shutting down")
        self.signals.off()
        self.rig.close_camera()

    def step(self) -> None:
        """One frame: queued actions, then read a frame, act on a new stable observation,
        then on a button press; publish what changed."""
        self.watchdog.kick()
        self.commands.run_pending(self.page.run)
        self._step()
        self.publish()

    def _step(self) -> None:
        if self.status.mode is Mode.FAULT:
            self._fault_step()
            return
        game = self.game
        assert game is not None and self.rig.stream is not None
        if self.button.take_hold():
            if game.is_over():
                self.new_game()
                return
            if self.status.mode in (Mode.FIX, Mode.SETUP):
                self.accept_board()
                return
        try:
            observation = self.rig.stream.step()
        except CameraError as exc:
            self._fault(f"camera fault: {exc}")
            return
        self.status.frames += 1
        self.camera_view = self.rig.view(self.status.frames) or self.camera_view
        self.announcer.watch_board(self.rig.reading)
        if self.mover.stopped and not self._stop.is_set():  # the e-stop button, pressed
            self._fault(f"{self.mover.estop_reason or 'emergency stop'}")
            return
        if observation is not None:
            self.status.observations += 1
            self.last_observation = observation
            self._observe(observation)
        elif self._turn.putback is not None:
            self._putback_step()
        elif self._not_yet_lapsed():
            # the board stayed as it was when a player said "not yet": it is asked about
            # again (a "not yet" pressed by mistake must not leave the game waiting)
            self._turn.not_yet = None
            assert self.last_observation is not None
            self._observe(self.last_observation)
        if self._spin_waits and self.status.mode is Mode.SPIN and self.rig.board_clear():
            self._spin_waits = False
            self._spin()
        if self.status.mode is Mode.ASK:
            self._answer_step()
            return
        if self._computer_step():
            return
        if self.button.take_press():
            self._on_press()

    def _not_yet_lapsed(self) -> bool:
        return (
            self.status.mode is Mode.READY
            and self.status.unfinished
            and self.last_observation is not None
            and self.asking.not_yet_lapsed(self._turn, self.clock.monotonic())
        )

    # --- observations -------------------------------------------------------------------

    def _observe(self, observation: BoardObservation) -> None:
        game = self.game
        assert game is not None
        if not self._aligned:
            self._align(observation)
        if self.status.mode is Mode.AFTER_SPIN:
            self._finish_spin(observation)
            return
        if game.is_over():
            # the game ended on captures still to be checked: check them now that the
            # cloud is back at the centre; what it still covers stays as the game has it
            if self.status.mode is not Mode.OVER and not self._check_provisional(
                observation, final=True
            ):
                self._announce_over()
            return
        if self._restoring:
            # after an undo: the board must be set back as it was; no move is taken from it
            self._check_board(observation)
            return
        if self._check_provisional(observation) or self._correct_provisional_move(observation):
            return
        if game.phase is not Phase.SHIPS:
            self._check_board(observation)
            return
        turn = self._turn
        if turn.bumped is not None:
            # the bumped ships go back first: until then a change is no new move (the next
            # player's ship leaving a port looks like a bumped ship not yet put back)
            self._check_board(observation)
            return
        if (
            turn.putback is not None
            and turn.putback.kind is Request.BUMPS
            and self._settle_putback(observation)
        ):
            return
        if self.status.mode is Mode.SETUP:
            # the board is checked against the game (a game's start, after the cloud's
            # phase, after a rewind) before anyone is told to move: what differs is a fix,
            # never a move (a ship the magnets took on the cloud's way back looks like one
            # moved under another)
            self._check_setup(observation)
            return
        decision = decide(
            game,
            observation,
            self._known_dice(),
            reference=reference_board(self._reference, game),
            held=self._told_to_leave(),
        )
        turn.waiting = None
        if not isinstance(decision, Tied | DoubtfulBump):
            self._end_putback()
        if isinstance(decision, Take):
            if self._apply(decision.group.best, decision.provisional):
                for space in decision.untouched:
                    self.say(f"    the ship on {space} was not touched: no ship landed on it")
                self._check_board(observation)
        elif isinstance(decision, DoubtfulBump):
            # the bumped ship back tells; once that request ran out, the table is asked
            if not self._request_putback(Request.DOUBTFUL_BUMP, decision.group.consequence):
                self._ask((decision.group,))
        elif isinstance(decision, Tied):
            if not self._ask_putback(decision.groups, observation):
                self._ask(decision.groups)
        elif isinstance(decision, Waiting):
            turn.waiting = (decision.move, decision.places)
            self._show_fix(decision.diff, decision.message(game.active))
        elif isinstance(decision, AskWhether):
            # "not yet" lets a player who is still moving finish
            self._ask((decision.group,))
        elif isinstance(decision, Matches):
            self._settled(observation)
        else:
            self._show_fix(decision.diff, decision.message)

    def _check_setup(self, observation: BoardObservation) -> None:
        """In mode SETUP: the board must be as the game has it before play goes on."""
        game = self.game
        assert game is not None
        diff = difference(game, observation)
        if not diff:
            self.say(f"the board matches the game; round {game.round}")
            self.rig.learn_start_layout(game)
            self._settled(observation)
        else:
            self._show_fix(diff, f"set the board as the game has it: {diff.describe()}", Mode.SETUP)

    def _judge(self, observation: BoardObservation) -> Verdict:
        """The referee's verdict on an observation for the game as it is, with the die if
        it is known and the last board that matched the game's placement."""
        game = self._game()
        reference = reference_board(self._reference, game)
        return judge(
            game, observation, self._known_dice(), reference=reference, held=self._told_to_leave()
        )

    def _told_to_leave(self) -> frozenset[str]:
        """The spaces the roll told the player to leave a ship landed on, both ships there,
        until asked to put one back: none once a put-back has been asked for this turn."""
        if self._turn.putback_first is not None:
            return frozenset()
        return frozenset(self.status.hold)

    def _known_dice(self) -> frozenset[int] | None:
        game = self.game
        assert game is not None
        if game.die is not None:
            return frozenset({game.die})
        # with the virtual die, no move is made before the press that rolls it
        return frozenset() if self.die_mode == "virtual" else None

    def _show_fix(self, diff: Difference, message: str, mode: Mode = Mode.FIX) -> None:
        """Ask for a fix; each ask while the game stays as it is counts as a failed attempt."""
        waiting = self._waiting_move() if mode is Mode.FIX else None
        self.status.waiting = None if waiting is None else str(waiting[0].move)
        self._end_putback()
        self.status.question = None
        self._turn.tied = ()
        # every ask since the game last changed is a failed attempt (the players may try
        # something else each time: the same stray token shows as another fix)
        self.status.fix_attempts += 1
        self.status.fix = diff
        self._set(mode, fix_message(message, self.status.fix_attempts), Pattern.FIX)

    def _align(self, observation: BoardObservation) -> None:
        """Believe the camera about the cloud's letter after homing (no index sensor)."""
        self._aligned = True
        try:
            self.rig.align(observation, self._game().pose.letter)
        except HardwareError as exc:
            self._fault(f"rotation fault: {exc}")

    def _check_board(self, observation: BoardObservation) -> None:
        game = self.game
        assert game is not None
        diff = difference(game, observation)
        if diff:
            self._show_fix(diff, f"fix the board: {diff.describe()}")
        elif not self._bumped_beside(observation):
            self._settled(observation)

    def _bumped_beside(self, observation: BoardObservation) -> bool:
        """A ship the last move bumped back into a port the camera cannot see, still beside
        the mover on the landing space (one ship per place shows there, only the place's
        evidence tells): the players are asked to put it back, and the board is read again
        every stable run while they do (its ships read the same). True while that is asked;
        after `PUTBACK_GIVE_UP_S` the board is taken as it reads."""
        game = self.game
        assert game is not None
        bumped = self._turn.bumped
        if bumped is None:
            return False
        diff = bumped_beside(game, observation, bumped.landing, bumped.ships)
        if not diff:
            return False
        now = self.clock.monotonic()
        if bumped.beside_s is None:
            bumped.beside_s = now
        if now - bumped.beside_s >= PUTBACK_GIVE_UP_S:
            self.say(f"the camera still sees {diff.describe()}: check it, the game goes on")
            return False
        self.rig.forget()  # the next stable run is reported though its ships read the same
        if self.status.mode is not Mode.FIX or self.status.fix != diff:
            hidden = sorted({space for _, space in diff.missing if space is not None})
            self._show_fix(
                diff, f"fix the board: {diff.describe()} (the cloud covers {either(tuple(hidden))})"
            )
        return True

    def _settled(self, matched: BoardObservation | None = None) -> None:
        """The board matches the game: wait for the next move, or for the spin button.
        `matched`: the observation just found to show the game, kept as the board the
        referee compares the next move's tokens with (without it, the last observation is
        kept if it shows the game)."""
        game = self.game
        assert game is not None
        self.status.fix = None
        self.status.waiting = None
        self._restoring = False
        self.status.fix_attempts = 0
        turn = self._turn
        turn.bumped = None
        turn.putback_first = None
        seen = self.last_observation
        if matched is not None:
            self._reference = (game, contents(game), matched)
        elif seen is not None and not difference(game, seen):
            self._reference = (game, contents(game), seen)
        self.status.question = None
        self.status.die = game.die
        if game.is_over():
            self._announce_over()
        elif game.phase is Phase.CLOUD:
            self._set(
                Mode.SPIN,
                f"round {game.round}: every player has moved; press spin",
                Pattern.PRESS_SPIN,
            )
        else:
            self.status.hold = hold_spaces(game)
            self._set(Mode.READY, self._to_move(), Pattern.READY)

    def _apply(self, candidate: Candidate, provisional: tuple[str, ...] = ()) -> bool:
        """Make a candidate's move in the game and journal it (provisional if it went where
        the camera cannot see)."""
        self.status.question = None
        self.status.hold = ()
        chosen, self.status.suggestion = self.status.suggestion, None
        made, committed = self.session.apply(candidate, provisional, chosen)
        self._saved(committed)
        self.status.die = None
        if candidate.bumped:  # (the game's new state: the bumped ships go back first)
            self._turn.bumped = Bumped(made.end or "", candidate.bumped)
        return committed

    # --- questions ----------------------------------------------------------------------

    def _ask_putback(self, tied: tuple[Group, ...], observation: BoardObservation) -> bool:
        """Ask for bumped ships to go back before asking which of the tied moves was made
        (`controller.putback`); True while that is what the table is asked."""
        game = self._game()
        choice = out_of_sight_choice(game, tied, observation)
        if choice is not None:
            return self._request_putback(Request.OUT_OF_SIGHT, choice[0].consequence)
        # moves that all bumped ships, none back yet, whose boards the ships put back tell
        # apart (even put in a wrong port)
        if not putback_tells(game, tied):
            self._end_putback()
            return False
        return self._request_putback(Request.BUMPS, tuple(g.consequence for g in tied), tied)

    def _request_putback(
        self, kind: Request, key: RequestKey, tied: tuple[Group, ...] = ()
    ) -> bool:
        """Ask the active player to put back any ship the move bumped (without saying which
        move); True while that is what the table is asked, False if this request ran out
        once already in this state of the game."""
        now, state = self.clock.monotonic(), self.rig.reading_state()
        made = self.asking.request_putback(self._turn, kind, key, tied, state, now)
        if made is None:  # ran out once already: the table is asked, or the move taken
            self._end_putback()
            return False
        if made:
            self.status.putback = True
            self.status.fix = None
            self.status.waiting = None
            self.status.question = None
            self._set(
                Mode.FIX,
                f"{self._game().active}: if your move bumped a ship, put it back in its port",
                Pattern.FIX,
            )
        return True

    def _putback_step(self) -> None:
        """A frame with no new stable board while a put-back is asked for: once the request
        ran out (`asking`), the table is asked which move it was (a bump in doubt: whether
        that move was made), with "none of these" and "not yet" among the answers. No move
        is ever taken for a quiet board."""
        observation = self.last_observation
        if observation is None or self.status.mode is not Mode.FIX:
            self._end_putback()
            return
        now, state = self.clock.monotonic(), self.rig.reading_state()
        asked = self.asking.putback_lapsed(self._turn, state, now)
        if asked is None:
            return
        self._end_putback()
        if asked.kind is Request.BUMPS:
            # the board never showed one move's ships put back: ask which move it was
            self._ask(asked.tied)
            return
        # the board is judged again: a tie, or a bump still in doubt, is asked about
        self._observe(observation)

    def _settle_putback(self, observation: BoardObservation) -> bool:
        """A stable board while the table is asked to put back the ships of one of several
        moves that all bumped ships: True while the request stands or once it became the
        question; False when the board says something else, judged then as usual."""
        turn = self._turn
        asked = turn.putback
        assert asked is not None
        verdict = self._judge(observation)
        now, state = self.clock.monotonic(), self.rig.reading_state()
        settled = self.asking.settle_putback(turn, verdict, contents(self._game()), state, now)
        if settled is Settled.STANDS:
            return True
        self._end_putback()
        if settled is Settled.ASK:
            self._ask(asked.tied)
            return True
        return False

    def _end_putback(self) -> None:
        if self.game is not None:
            self._turn.putback = None
        self.status.putback = False

    def _ask(self, groups: tuple[Group, ...]) -> None:
        """Ask the table which of the tied moves was made (one question, by die if it can;
        whether it was made, for one move in doubt). "None of these" and "not yet" are
        always among the answers; nothing is taken until the table answers."""
        turn, now, state = self._turn, self.clock.monotonic(), self.rig.reading_state()
        if not self.asking.should_ask(turn, groups, self.status.mode is Mode.ASK, state, now):
            return
        question = self.asking.ask(turn, self._game().active, groups, now)
        self.status.question = question
        self.button.forget()
        self._set(Mode.ASK, f"{question.text} ({press_hint(question.options)})", Pattern.ASK)

    def _answer_step(self) -> None:
        """In mode ASK: take an answer from the page, or from presses once the button rests.
        Unanswered, the question is said again every `announce.REPEAT_S` while the game waits."""
        option = self.asking.take(self.button.counted)
        question = self.status.question
        if option is None:
            if question is not None and self.asking.repeat_due(self.clock.monotonic()):
                # asked again: a question of its own (a page or a player sees it anew)
                self.status.question = replace(question)
                self.say(
                    f"still waiting for an answer, the game is paused: {question.text} "
                    f"({press_hint(question.options)})"
                )
            return
        game = self._game()
        now, state = self.clock.monotonic(), self.rig.reading_state()
        answer = self.asking.answer(self._turn, option, state, now)
        if isinstance(answer, NoSuchAnswer):
            self.say(str(answer))
            return
        self.status.question = None
        observation = self.last_observation
        if isinstance(answer, NotYet):  # the move is not finished
            self.say(f"answer {option}: not yet")
            self._set(
                Mode.READY,
                f"{game.active}: finish your move; the table asks again when the board changes",
                Pattern.READY,
            )
            self.status.unfinished = True
            self.publish()
            return
        if isinstance(answer, NoneOfThese):  # nothing is taken
            self.say(f"answer {option}: none of these; nothing is taken")
            diff = difference(game, observation) if observation is not None else Difference()
            self._show_fix(
                diff,
                f"{game.active}: none of these: set the board back as the "
                f"game has it ({diff.describe() if diff else 'it is'}), "
                "then make your move again",
            )
            return
        group = answer.group
        self.say(f"answer {option}: {group.best.describe()}")
        # the places the move arrives at that the camera does not see well are checked
        # once it does (the answer names the move; the board will show it)
        provisional: tuple[str, ...] = ()
        if observation is not None:
            provisional = unseen_arrivals(game, group.best, observation)
        if not self._apply(group.best, provisional):
            return
        if observation is not None:
            self._check_board(observation)
        else:
            self._settled()

    # --- hand edits and provisional moves -----------------------------------------------

    def accept_board(self) -> bool:
        """Take the board as the camera sees it (a long press after failed fixes): each ship
        the game has where the camera sees none moves to where a ship of its colour is
        seen, or leaves the game; journalled as hand edits of the position."""
        game, observation = self._game(), self.last_observation
        refused = refusal(
            self._turn.putback is not None, observation is not None, self.status.fix_attempts
        )
        if refused is not None:
            self.say(refused)
            return False
        assert observation is not None
        waiting = self._waiting_move() if self.status.mode is Mode.FIX else None
        self._turn.waiting = None
        count = len(game.journal)
        bumped: tuple[str, ...] = ()
        if waiting is not None:
            # the move out of sight the fix was shown beside is a move (die, cards), not an
            # edit: it is made first, and only what it leaves unexplained is accepted
            if not self._apply(*waiting):
                return False
            bumped = waiting[0].bumped
        # the ships it bumps go back to their ports as the players are asked next
        going_back = self._turn.bumped
        edits = edits_for(game, observation, bumped)
        # what the board now shows is the game; only the move just made stays to be checked
        committed = self.session.edit(edits, keep_since=count)
        # (the edits are a new state of the game; its bumped ships still go back first)
        self._turn.bumped = going_back
        if not self._saved(committed):
            return False
        self.say(accepted(edits))
        if bumped:
            self._check_board(observation)
        else:
            self._settled()
        return True

    def _waiting_move(self) -> tuple[Candidate, tuple[str, ...]] | None:
        """The move out of sight a fix waits on, while the game is still as it was then."""
        game = self.game
        if game is None or game.phase is not Phase.SHIPS:
            return None
        return self._turn.waiting

    def _check_provisional(self, observation: BoardObservation, final: bool = False) -> bool:
        """Check provisional moves and captures whose places are now in view; True if the
        game went back or was corrected. `final`: what cannot be checked now never will
        be (the game is over), and stays as the game has it."""
        wrong = self.session.check_provisional(observation, final)
        self.status.provisional = self.session.provisional_moves
        if isinstance(wrong, WrongCaptures):
            self._correct_captures(wrong.item, wrong.corrected)
        elif isinstance(wrong, NotThere):
            self._rewind(wrong.item, wrong.wrong)
        return wrong is not None

    def _correct_captures(self, item: Provisional, corrected: CorrectedCaptures) -> None:
        """Correct a cloud phase's captures that the board, now in view, contradicts
        (`corrections.corrected_captures`)."""
        fixed = corrected.game
        if not self.session.correct_captures(item, corrected):
            return
        self.status.seq = len(fixed.journal)
        self.status.fix_attempts = 0
        self._end_putback()  # (the state they were about is gone)
        self.status.question = None
        removed = {s for s in self.status.lost if fixed.ship(s).status is ShipStatus.OUT}
        removed |= {s for s in corrected.captured if fixed.ship(s).status is ShipStatus.OUT}
        self.status.lost = tuple(s for s in fixed.ship_ids if s in removed)
        self.status.outcome = str(fixed.outcome()) if fixed.is_over() else None
        if fixed.is_over() and not self.session.captures_unchecked:
            self._announce_over()
        elif not fixed.is_over():
            self.rig.forget()  # the board did not change: check it on a fresh observation
            self._set(
                Mode.SETUP,
                f"round {fixed.round}: the captures were corrected; checking the board",
                Pattern.FIX,
            )

    def _correct_provisional_move(self, observation: BoardObservation) -> bool:
        """The last move taken into places out of sight, replaced by the move of that turn
        the board now shows (`corrections.corrected_move`); the journal keeps both (an undo
        entry, then the corrected rows). True if the game was corrected."""
        moves = [p for p in self.session.provisional if not p.captures]
        if not moves or self._turn.putback is not None or self.status.mode is Mode.ASK:
            return False
        item = moves[-1]
        corrected = corrected_move(self._game(), item, observation, self.die_mode)
        if corrected is None:
            return False
        if not self.session.correct_move(item, corrected):
            return True
        self._saved(True)
        # the board is judged anew on a fresh observation: a move made since and not yet
        # taken is taken as usual
        self.rig.forget()
        self._settled()
        return True

    def _rewind(self, item: Provisional, wrong: list[str]) -> None:
        """Take the game back to before a provisional move the board contradicts."""
        before = self._game()
        if not self.session.rewind(item, wrong):
            return
        game = self._game()
        self.status.provisional = self.session.provisional_moves
        self.status.seq = len(game.journal)
        if game.pose != before.pose:
            try:
                self.rig.place_cloud(self._game())
            except HardwareError as exc:
                self._fault(f"{exc}")
                return
        self.rig.forget()
        self._set(
            Mode.SETUP,
            f"the game went back: {item.move} was not seen; set the board as the game has it",
            Pattern.FIX,
        )

    def _commit(self) -> bool:
        """Journal what the game holds and the database does not; a write failure is a fault."""
        return self._saved(self.session.commit())

    def _saved(self, committed: bool) -> bool:
        """The status after a change to the game (`committed`: the journal took it)."""
        if committed:
            self.status.seq = len(self._game().journal)
            self.status.fix_attempts = 0
        self.status.provisional = self.session.provisional_moves
        return committed

    # --- buttons ------------------------------------------------------------------------

    def _on_press(self) -> None:
        game = self.game
        assert game is not None
        mode = self.status.mode
        if mode is Mode.SPIN and self.status.paused:
            self.say("motion is paused: resume it from the page first")
        elif mode is Mode.SPIN:
            if self.rig.board_clear():
                self._spin()
            else:
                self._spin_waits = True
                self.say("hands off the board, please: the cloud spins once it is clear")
        elif mode is Mode.READY and game.phase is Phase.SHIPS and self.die_mode == "virtual":
            self._roll()
        elif mode is Mode.READY and game.phase is Phase.SHIPS:
            try:
                self._pass()
            except ActionRefused as exc:
                self.say(str(exc))
                self.signals.show(Pattern.FIX)
                self.signals.show(Pattern.READY, beep=False)
        elif mode in (Mode.FIX, Mode.SETUP):
            self.say(f"fix the board first: {self.status.message}")

    def _pass(self) -> str:
        """Pass the active player's turn (`GameSession.pass_turn`)."""
        text, committed = self.session.pass_turn()
        if not self._saved(committed):
            return f"{text}; not yet in the journal (fault)"
        self._settled()
        return text

    # --- what the page's actions do (`page`: when they are refused) ----------------------

    def press(self) -> None:
        """The same as a press of the spin button: the next step acts on it."""
        self.button.press()

    def pass_turn(self) -> str:
        """Pass the active player's turn (from the page)."""
        return self._pass()

    def undo(self) -> str:
        """Take back the last move; the board is to be set back as it was."""
        what = self.session.undo()
        self.status.seq = len(self._game().journal)
        self.status.outcome = None
        self._restoring = True
        self.status.provisional = ()
        self.status.question = None
        self.status.suggestion, self.status.die_for, self._die_given = None, None, None
        self.rig.forget()
        text = f"undone: {what}; set the board as it was before it"
        self._set(Mode.SETUP, text, Pattern.FIX)
        return text

    def give_die(self, value: int) -> None:
        """The die rolled at the table for a computer seat, told on the page."""
        self._die_given = value

    # --- computer seats -----------------------------------------------------------------

    def _seat(self) -> str | None:
        return seat_level(self.game)

    def _suggested(self) -> Suggestion | None:
        return standing(self.game, self.status.suggestion)

    def _computer_step(self) -> bool:
        """A computer seat's turn, once the board shows the game (mode READY): the table
        rolls the virtual die for it, or asks for the die rolled at the table; then chooses
        its move (`rules.computer`), says and shows it, and waits for a person to make it.
        True when it took the button's presses (as the die's pips)."""
        status, game = self.status, self.game
        level = self._seat()
        if level is None or game is None:
            status.die_for, self._die_given = None, None
            return False
        if status.mode is not Mode.READY:
            return False  # (a die given on the page is kept for when the board is settled)
        if game.die is None and self.die_mode == "virtual":
            self._roll()  # (a roll with no move passes: the next player is to move)
            level = self._seat()
        elif game.die is None:
            return self._die_from_table(game.active)
        if (
            level is not None
            and game.die is not None
            and status.mode is Mode.READY
            and self._suggested() is None
        ):
            self._choose(level)
        return False

    def _die_from_table(self, color: str) -> bool:
        """The table's physical die, rolled for a computer seat: told by presses (one per
        pip, taken once the button rests) or on the page."""
        status = self.status
        if status.die_for != color:
            status.die_for = color
            self._die_given = None
            self.button.forget()
            self._set(Mode.READY, self._to_move(), Pattern.READY)
            return True
        value, self._die_given = self._die_given, None
        if value is None:
            value = self.button.counted()
        if value is None:
            return True
        if not 1 <= value <= 6:
            self.say(f"{value} presses: a die shows 1 to 6; press spin once for each pip")
            return True
        game = self.game
        assert game is not None
        if not self._saved(self.session.set_die(value)):
            return True
        status.die_for = None
        self.status.die = value
        self.signals.count(value)
        if game.legal_moves(value) == [Move.pass_turn(color)]:
            self._pass()
            return True
        level = self._seat()
        assert level is not None
        self._choose(level)
        return True

    def _choose(self, level: str) -> None:
        """Choose the computer seat's move for the rolled die, say it and show it."""
        game = self.game
        assert game is not None
        chosen = suggest(game, level)
        if chosen is None:
            self._pass()
            return
        self.status.suggestion = chosen
        self.status.hold = hold_spaces(game)
        self._set(Mode.READY, self._to_move(), Pattern.READY)

    def _roll(self) -> None:
        """The virtual die: roll for the active player; a roll with no move passes."""
        game = self.game
        assert game is not None
        if game.die is not None:
            self.say(f"{game.active} has rolled {game.die} already: move a ship")
            self.signals.count(game.die)
            return
        die = self.session.roll()
        self._saved(die is not None)
        if die is None:
            return
        self.status.die = die
        self.signals.count(die)
        self.say(f"{game.active} rolls {die}")
        if game.legal_moves(die) == [Move.pass_turn(game.active)]:
            self._pass()
            return
        self.status.hold = hold_spaces(game)
        self._set(Mode.READY, self._to_move())

    def _to_move(self) -> str:
        game = self.game
        assert game is not None
        return to_move(game, self.die_mode, self._suggested(), self.status.hold)

    # --- the cloud ----------------------------------------------------------------------

    def _spin(self) -> None:
        game = self._game()
        pending = plan_spin(game, self.last_observation)
        self.status.last_spin = str(pending.spin)
        self._set(Mode.MOVING, f"spin: {pending.spin}", Pattern.BUSY)
        try:
            self.spinner.spin(game, pending)
        except HardwareError as exc:
            self._fault(str(exc))
            return
        self.rig.forget()
        self._set(Mode.AFTER_SPIN, "looking for captures", Pattern.BUSY)

    def _finish_spin(self, observation: BoardObservation) -> None:
        game = self._game()
        try:
            decided = self.spinner.look(game, observation)
        except HardwareError as exc:
            self._fault(str(exc))
            decided = None
        if decided is None:
            self.rig.forget()  # decide on a fresh observation of the corrected cloud
            return
        pending, self.spinner.pending = self.spinner.pending, None
        assert pending is not None
        # the captures from places the cloud covers are the camera's best guess
        events = self.session.cloud_phase(decided)
        self._saved(events is not None)
        if events is None:
            return
        for line in capture_lines(events, pending, decided):
            self.say(line)
        removed = next((e for e in events if isinstance(e, CloudRemoved)), None)
        self.rig.forget()
        if removed is not None:
            self.status.lost = tuple(removed.ships)
            self._set(Mode.MOVING, "the cloud returns to the centre", Pattern.BUSY)
            try:
                self.rig.place_cloud(self._game())
            except HardwareError as exc:
                self._fault(f"{exc}")
                return
            self._aligned = False  # check the letter it shows after that turn
        self.say(totals_line(game))
        if game.is_over() and self.session.captures_unchecked:
            self._set(
                Mode.SETUP, "checking the cloud's captures before the game ends", Pattern.BUSY
            )
        elif game.is_over():
            self._announce_over()
        else:
            self._set(Mode.SETUP, f"round {game.round}: checking the board", Pattern.FIX)

    def _announce_over(self) -> None:
        game = self.game
        assert game is not None
        outcome = game.outcome()
        self.status.outcome = str(outcome)
        if self.status.mode is not Mode.OVER:
            # kept before the end is published: a page that sees the end lists the game
            self.session.keep_history(lambda history: history.record(self.game_id, self.board))
            self._set(Mode.OVER, f"game over: {outcome}", Pattern.OVER)
            for line in describe_standings(game):
                self.say(line)
            self.say(
                "a long press of the spin button (or `bermuda-hw game new`) starts the next game"
            )

    # --- faults -------------------------------------------------------------------------

    def _fault(self, message: str) -> None:
        """Stop the motors, keep the game, show the fault; a press recovers."""
        self.mover.emergency_stop(message)
        if self._stop.is_set():
            return  # stopping on request (SIGTERM): the move it interrupted is no fault
        self.status.fault = message
        self.status.die_for, self._die_given = None, None  # asked again once it has recovered
        self._spin_waits = False
        self.button.forget()
        self._set(
            Mode.FAULT,
            f"fault, motors stopped: {message}. The game is saved; fix "
            "the cause, release the e-stop, then press spin",
            Pattern.FAULT,
        )

    def _fault_step(self) -> None:
        if self._stop.is_set():
            return
        if not self.button.take_press():
            self.clock.sleep(FAULT_POLL_S)
            return
        self.recover()

    def recover(self) -> None:
        """Reopen the camera, home again and check the board (after a fault)."""
        if self.controls.estop_engaged:
            self.say("the e-stop is still engaged: release it, then press spin")
            return
        if self.game is not None and not self._commit():
            return  # the journal still cannot take what the game holds
        self.session.say_unsaid()  # saved now: told now
        self.say("recovering: opening the camera and homing the gantry")
        self.clock.sleep(SETTLE_BEFORE_HOMING_S)
        try:
            self.rig.reopen_camera()
            self._home()
        except HardwareError as exc:
            self._fault(str(exc))
            return
        self.status.fault = None
