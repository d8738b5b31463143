"""The controller daemon: the loop that watches the board and carries out what is decided.

The same code runs beside the real board and on the simulated table: it sees
only camera frames (through vision), the table's buttons and the cloud mover,
never the simulated world's truth. One frame at a time (`step`): the actions
queued from outside (the page, `bermuda-hw game`) run first, on this thread;
then a frame is read, a new stable observation is acted on, then a press of the
spin button, if made for what the table asks now (`buttons.PressGate`). The state
machine is here, in `Mode`s (`status`):

    STARTING --homed--> SETUP --the board matches the game--> READY | SPIN | OVER
    READY --a stable board (`ship_phase.decide`)--> a move taken: READY | SPIN | OVER;
          a board to fix: FIX; bumped ships asked back: FIX; a tie: ASK
    READY --press--> the virtual die rolled, or a pass (after "not yet": judged again)
    FIX --the board fixed, or a press for ships back where the camera cannot see--> READY | SPIN
    FIX, SETUP --long press after three asks for a fix--> hand edits (`hand_edits`)
    ASK --an answer--> a move taken | FIX (none of these) | READY (not yet)
    SPIN --press, the board clear--> MOVING --> AFTER_SPIN;  a ship never seen where a
          move out of sight put it: ASK --yes, not yet: the board checked--> SPIN | FIX;
          --none of these: the game taken back to before the move--> SETUP
    AFTER_SPIN --the cloud where planned--> captures --> (MOVING, back to the centre)
          --> SETUP | OVER;  the cloud elsewhere: placed again or turned, AFTER_SPIN
    a provisional move or capture the board contradicts --> SETUP (the game corrected)
    OVER --long press, `game new`--> SETUP (a new game);  an undo (the page) --> SETUP
    any --camera, I2C, homing, e-stop, journal--> FAULT --press--> STARTING (recover)

What carries it out lives beside it, each part owning its own state, and
handed the controller through a small protocol of what it needs: the game and
its journal (`session`), the camera and homing (`rig`), the spin and the
closed loop on the cloud's pose (`spin`), what the table is asked and what the
answers mean (`asking`), the page's actions (`page`), a long press's hand
edits (`hand_edits`), the lines said and the snapshots (`announce`), the spin
button (`buttons`). Carrying out a decision: the computer seats and the
virtual die (`computer`), the board checked against the game and a move taken
(`board_checks`), a request or question put and its answer (`answers`), a
ship-phase board (`ship_dispatch`), the cloud's phase (`cloud_dispatch`),
provisional consequences the board contradicts (`provisional_checks`). Those
parts set the mode only through `set_mode`, along the transitions drawn above.
The decisions are pure functions: `ship_phase`, `referee`, `belief`,
`putback`, `questions`, `turn`, `corrections`, `cloud_phase`, `seats`,
`homing` (docs/controller.md, "Where the code is").

Faults stop the motors, keep the game and wait for the spin button; motion only
ever starts over a board the camera sees clear of hands. docs/controller.md and
docs/referee.md describe a game at the table.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from bermuda_hw.backends.camera import CameraSource
from bermuda_hw.clock import Clock
from bermuda_hw.controller.announce import Announcer
from bermuda_hw.controller.answers import Answers
from bermuda_hw.controller.asking import Asking
from bermuda_hw.controller.board_checks import BoardChecks
from bermuda_hw.controller.buttons import SpinButton
from bermuda_hw.controller.cloud_dispatch import check_board, finish_spin, spin
from bermuda_hw.controller.commands import ActionRefused, CommandQueue
from bermuda_hw.controller.computer import Seats
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.notify import Watchdog, sd_notify
from bermuda_hw.controller.page import PageActions
from bermuda_hw.controller.provisional_checks import check_provisional, correct_provisional_move
from bermuda_hw.controller.rig import CameraView, Rig
from bermuda_hw.controller.seams import Controls, Mover
from bermuda_hw.controller.session import GameSession
from bermuda_hw.controller.ship_dispatch import on_ship_board
from bermuda_hw.controller.signals import Pattern, TableSignals
from bermuda_hw.controller.snapshot import Snapshot
from bermuda_hw.controller.spin import Spinner
from bermuda_hw.controller.status import Mode, Status, press_confirms, press_key
from bermuda_hw.controller.turn import Turn, Turns
from bermuda_hw.errors import CameraError, EmergencyStopError, HardwareError
from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.rules.game import Game, GameOptions, Phase
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
            on_write_error=self.fault,
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
        self.aligned = False  # the cloud's letter believed from the camera since it last turned
        self.asking = Asking()  # when the table is asked, and what its answers mean
        # what the table is in the middle of for the game as it is (`turn`): requests,
        # questions, "not yet", a move out of sight waiting, bumped ships not yet back
        self.turns = Turns()
        self._stop = threading.Event()
        self.watchdog = Watchdog()
        self._spin_waits = False  # a spin asked for while the board was covered
        self.commands = CommandQueue()
        self.page = PageActions(self)
        self.camera_view: CameraView | None = None
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
        self.seats = Seats(self)  # the computer seats' turns and the virtual die
        self.checks = BoardChecks(self)  # the board against the game; a move taken
        self.answers = Answers(self)  # bumped ships asked back; the table's questions

    # --- announcements ------------------------------------------------------------------

    def say(self, text: str) -> None:
        """Log a line for the people at the table (and the system journal)."""
        self.announcer.say(text)

    def set_mode(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None:
        """Enter `mode` with its line for the table (said when worth saying) and its LED
        pattern; the one place the mode changes (the parts call it)."""
        changed = mode is not self.status.mode or message != self.status.message
        self.status.unfinished = False
        self.status.back_unseen = False
        if mode is not Mode.SPIN:
            self._spin_waits = False  # a spin waiting for a clear board ends with its mode
        if mode is not Mode.FIX:
            self.status.waiting = None
            self.checks.end_putback()
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
            self.fault(f"at start-up: {exc}")
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
        if self.status.paused:  # (the page refuses it as well)
            self.say("motion is paused: resume it from the page first (a new game moves the cloud)")
            return
        self._new_game()
        self.spinner.pending = None
        self.checks.restoring = False
        self.aligned = True
        self.rig.place_cloud(self._game())
        self.rig.forget()
        self.set_mode(
            Mode.SETUP, "set up the ships: one of each colour in each product port", Pattern.FIX
        )

    def _home(self) -> None:
        """Home the rig and bring the cloud to the game's pose, clear of the ships (`rig`:
        when no way home is clear, nothing moves, `HomeRefused`), then check the board."""
        game = self._game()
        approach = self.rig.before_homing(game)
        self.set_mode(Mode.STARTING, "homing the gantry", Pattern.BUSY)
        started = self.clock.monotonic()
        self.rig.home(approach)
        pose = game.pose
        self.say(
            f"homed in {self.clock.monotonic() - started:.1f} s; the cloud goes to dot "
            f"({pose.col}, {pose.row}) at letter {LETTERS[pose.letter]}"
        )
        self.rig.place_cloud(game)
        self.aligned = False
        self.rig.forget()
        check_board(self, game, "checking the board")

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
        self.button.gate.watch(press_confirms(self.status), self.clock.monotonic())
        self.publish()

    def _step(self) -> None:
        if self.status.mode is Mode.FAULT:
            self._fault_step()
            return
        game = self.game
        assert game is not None and self.rig.stream is not None
        pressed_in = press_key(self.status)  # a press is made for the table as it is now
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
            self.fault(f"camera fault: {exc}")
            return
        self.status.frames += 1
        self.camera_view = self.rig.view(self.status.frames) or self.camera_view
        self.announcer.watch_board(self.rig.reading)
        if self.mover.stopped and not self._stop.is_set():  # the e-stop button, pressed
            self.fault(f"{self.mover.estop_reason or 'emergency stop'}")
            return
        if observation is not None:
            self.status.observations += 1
            self.last_observation = observation
            self.observe(observation)
        elif self._turn.putback is not None:
            self.answers.putback_step()
        elif self._not_yet_lapsed():
            # the board stayed as it was when a player said "not yet": it is asked about
            # again (a "not yet" pressed by mistake must not leave the game waiting)
            self._judge_again()
        if self._spin_waits and self.status.paused:
            self._spin_waits = False  # paused from the page: the waiting spin is called off
            self.say("motion paused: the spin waiting for a clear board is called off")
        if self._spin_waits and self.status.mode is Mode.SPIN and self.rig.board_clear():
            self._spin_waits = False
            spin(self)
        if self.status.mode is Mode.ASK:
            self.answers.answer_step()
            return
        if self.seats.step():
            return
        if self.button.take_press():
            status = self.status
            if self.button.gate.taken(
                pressed_in, press_key(status), press_confirms(status), self.button.pressed_s
            ):
                self._on_press()
            else:
                self.say(f"a press as the table changed is not taken; now: {status.message}")

    def _judge_again(self) -> None:
        """After "not yet": the board as last seen is judged again (the "not yet" spent)."""
        self._turn.not_yet = None
        if self.last_observation is not None:
            self.observe(self.last_observation)
        else:
            self.say("the camera has not seen the board yet: the move is judged once it does")

    def _not_yet_lapsed(self) -> bool:
        return (
            self.status.mode is Mode.READY
            and self.status.unfinished
            and self.last_observation is not None
            and self.asking.not_yet_lapsed(self._turn, self.clock.monotonic())
        )

    # --- observations: the state machine's dispatch ------------------------------------

    def observe(self, observation: BoardObservation) -> None:
        """Act on a new stable observation, by mode: the cloud's phase (`cloud_dispatch`),
        the end's captures, an undo's board, provisional consequences the board contradicts
        (`provisional_checks`), the board checked (`board_checks`), the ship phase's
        decision (`ship_dispatch`)."""
        game = self._game()
        if not self.aligned:
            self._align(observation)
        if self.status.mode is Mode.AFTER_SPIN:
            finish_spin(self, observation)
            return
        if game.is_over():
            if self.status.mode is not Mode.OVER:
                self.answers.end_board(observation)  # captures still to be checked
            return
        if self.checks.restoring:
            # after an undo: the board must be set back as it was; no move is taken from it
            self.checks.check(observation)
            return
        if self.answers.asked_board(observation):  # a landing before the spin, captures
            return
        if check_provisional(self, observation) or correct_provisional_move(self, observation):
            return
        if game.phase is not Phase.SHIPS:
            self.checks.check(observation)
            return
        on_ship_board(self, observation)

    def _align(self, observation: BoardObservation) -> None:
        """Believe the camera about the cloud's letter after homing (no index sensor)."""
        self.aligned = True
        try:
            self.rig.align(observation, self._game().pose.letter)
        except HardwareError as exc:
            self.fault(f"rotation fault: {exc}")

    def accept_board(self) -> bool:
        """Take the board as the camera sees it (a long press after failed fixes:
        `BoardChecks.accept_board`)."""
        return self.checks.accept_board()

    def _commit(self) -> bool:
        """Journal what the game holds and the database does not; a write failure is a fault."""
        return self.saved(self.session.commit())

    def saved(self, committed: bool) -> bool:
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
                spin(self)
            else:
                self._spin_waits = True
                self.say("hands off the board, please: the cloud spins once it is clear")
        elif mode is Mode.READY and self.status.unfinished:
            # after "not yet": the move is done, perhaps set down where the camera cannot
            # see (the board then looks as it did); the board is judged again, never a pass
            self._judge_again()
        elif mode is Mode.READY and game.phase is Phase.SHIPS and self.die_mode == "virtual":
            self.seats.roll()
        elif mode is Mode.READY and game.phase is Phase.SHIPS:
            try:
                self.pass_turn()
            except ActionRefused as exc:
                self.say(str(exc))
                self.signals.show(Pattern.FIX)
                self.signals.show(Pattern.READY, beep=False)
        elif mode is Mode.FIX and self.status.back_unseen:
            self.checks.back_on_word()
        elif mode in (Mode.FIX, Mode.SETUP):
            self.say(f"fix the board first: {self.status.message}")

    # --- what the page's actions do (`page`: when they are refused) ----------------------

    def press(self) -> None:
        """The same as a press of the spin button: the next step acts on it."""
        self.button.press()

    def pass_turn(self) -> str:
        """Pass the active player's turn (`GameSession.pass_turn`; a press, or the page);
        first, the table is asked about captures under the cloud the pass rests on."""
        if self.answers.capture_before_pass():
            return f"asked first: {self.status.message}"
        text, committed = self.session.pass_turn()
        if not self.saved(committed):
            return f"{text}; not yet in the journal (fault)"
        self.checks.settled()
        return text

    def undo(self) -> str:
        """Take back the last move; the board is to be set back as it was."""
        what = self.session.undo()
        self.status.seq = len(self._game().journal)
        self.status.outcome = None
        self.checks.restoring = True
        self.status.provisional = ()
        self.status.question = None
        self.status.suggestion = None
        self.status.hold = ()  # (named again once the board is as it was)
        self.seats.forget_die()
        self.rig.forget()
        text = f"undone: {what}; set the board as it was before it"
        self.set_mode(Mode.SETUP, text, Pattern.FIX)
        return text

    def give_die(self, value: int) -> None:
        """The die rolled at the table for a computer seat, told on the page."""
        self.seats.die_given = value

    def announce_over(self) -> None:
        """The game is over: the outcome and the standings said, the finished game kept."""
        game = self.game
        assert game is not None
        outcome = game.outcome()
        self.status.outcome = str(outcome)
        if self.status.mode is not Mode.OVER:
            # kept before the end is published: a page that sees the end lists the game
            self.session.keep_history(lambda history: history.record(self.game_id, self.board))
            self.set_mode(Mode.OVER, f"game over: {outcome}", Pattern.OVER)
            for line in describe_standings(game):
                self.say(line)
            self.say(
                "a long press of the spin button (or `bermuda-hw game new`) starts the next game"
            )

    # --- faults -------------------------------------------------------------------------

    def fault(self, message: str) -> None:
        """Stop the motors, keep the game, show the fault; a press recovers."""
        self.mover.emergency_stop(message)
        if self._stop.is_set():
            return  # stopping on request (SIGTERM): the move it interrupted is no fault
        self.status.fault = message
        self.seats.forget_die()  # asked again once it has recovered
        self._spin_waits = False
        self.button.forget()
        self.set_mode(
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
            self.fault(str(exc))
            return
        self.status.fault = None
