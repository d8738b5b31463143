"""The controller daemon: watch the board, check moves with the rules, spin, drive, persist.

The same code runs beside the real board and on the simulated table: it sees
only camera frames (through vision), the table's buttons and the cloud mover,
never the simulated world's truth. One frame at a time (`step`):

- **ship phase**: each new stable observation goes to the referee
  (`controller.referee`): the rules list the boards the active player's turn
  may leave, vision's per-place evidence scores them, and a move is taken
  only when its consequence explains the board clearly better than no change
  and than every other consequence. Its bumps are announced (the players put
  the bumped ships back; the controller waits until the camera sees them
  there); whatever else the board shows that the game does not have is
  reported as its own fix. When two consequences explain the board as well,
  the table is asked one question (mode ASK: k presses of the spin button
  answer option k, or `answer(k)`). A move into a place the camera cannot see
  is provisional: it is checked when the place comes into view and, if the
  board contradicts it, the journal is rewound to before it. After a few
  failed attempts at a fix, a long press accepts the board as seen (a hand
  edit of the position, journalled). With `die = "table"` a press in the
  ship phase is a pass, accepted only if some die value leaves the active
  player without any move; with `die = "virtual"` a press rolls the die for
  the active player (the LED flashes the number) and a roll with no move
  passes.
- **cloud phase**: the LED says "press spin"; a press spins (the game's seeded
  spinner), turns and moves the cloud, and the next stable observation decides
  the captures: swept ships the camera no longer sees are captured, the others
  survived. At an outside dot the captured ships are out of the game: the
  players take them out of the cloud and the rig brings the cloud back to the
  centre dot at letter A (on the real rig the cloud never leaves the gantry).
- **faults** (camera gone or stalled, I2C error, homing fault, e-stop): the
  motors are stopped, the fault is logged in plain words, the LED shows the
  fault pattern and the journal keeps the game. A press of the spin button
  (with the e-stop released) reopens the camera, homes the rig again and
  carries on; a restart does the same.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bermuda_hw.backends.camera import CameraSource
from bermuda_hw.controller.identify import (
    Difference,
    difference,
    expected_places,
    explain,
    pass_die,
)
from bermuda_hw.controller.journal import Journal
from bermuda_hw.controller.notify import sd_notify
from bermuda_hw.controller.referee import (
    Group,
    Outcome,
    Verdict,
    judge,
    observation_evidence,
    place_observability,
)
from bermuda_hw.controller.signals import Pattern, TableSignals
from bermuda_hw.controller.status import Mode, Question, Status
from bermuda_hw.errors import CameraError, EmergencyStopError, HardwareError
from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.rules.candidates import Candidate, contents
from bermuda_hw.rules.cloud import Spin
from bermuda_hw.rules.events import (
    CloudMoved,
    CloudRemoved,
    Event,
    GameOver,
    Spun,
    Swept,
    usd,
)
from bermuda_hw.rules.game import Game, GameOptions, Phase, ShipStatus
from bermuda_hw.rules.moves import Move, split_ship_id
from bermuda_hw.rules.play import describe_standings
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import ObservationStream, StabilitySettings
from bermuda_hw.vision.types import BoardObservation

log = logging.getLogger("bermuda_hw.controller")

FAULT_POLL_S = 0.1
SETTLE_BEFORE_HOMING_S = 0.5  # after a stop at speed, the carriage comes to rest first
ANSWER_QUIET_S = 2.0  # an answer by presses is taken once the button has rested this long
ACCEPT_AFTER_ATTEMPTS = 3  # after this many asks for a fix, a long press accepts the board
CONFIRM_OBSERVABILITY = 0.9  # a provisional move is checked once its places are seen this well
MAX_LEFTOVER = 3  # a move leaving more ships unexplained than this is no explanation
MAX_OPTIONS = 3  # more moves than this explaining the board as well is asked as a fix


@dataclass
class _Provisional:
    """A move taken into places the camera could not see, to check when they come into view."""

    count: int  # the journal's length before the move's entries
    move: str
    places: tuple[str, ...]


@dataclass
class _PendingSpin:
    spin: Spin
    swept: frozenset[str]
    end: tuple[int, int]
    leaves_board: bool
    events: list[Event] = field(default_factory=list)


class Controller:
    """The daemon's state machine over a journal, a camera, the cloud mover and the controls."""

    def __init__(
        self,
        *,
        board: Board,
        journal: Journal,
        open_camera: Callable[[], CameraSource],
        mover: Any,
        controls: Any,
        clock: Any,
        reader: Any = None,
        stability: StabilitySettings | None = None,
        players: int = 4,
        seed: int | None = None,
        options: GameOptions | None = None,
    ) -> None:
        self.board = board
        self.journal = journal
        self.open_camera = open_camera
        self.mover = mover
        self.controls = controls
        self.clock = clock
        self.reader = reader if reader is not None else BoardReader(board)
        self.stability = stability or StabilitySettings()
        self.players = players
        self.seed = seed
        self.options = options
        self.signals = TableSignals(controls.status_led, getattr(controls, "buzzer", None))
        self.status = Status()
        self.game: Game | None = None
        self.game_id = 0
        self.camera: CameraSource | None = None
        self.stream: ObservationStream | None = None
        self.last_observation: BoardObservation | None = None
        self._pending: _PendingSpin | None = None
        self._aligned = False
        self._pressed = threading.Event()
        self._held = threading.Event()
        self._press_lock = threading.Lock()
        self._presses = 0  # presses counted towards an answer
        self._last_press_s = 0.0
        self._answer: int | None = None  # an answer given through `answer()`
        self._tied: tuple[Group, ...] = ()  # the groups the pending question chooses between
        self._provisional: list[_Provisional] = []
        self._bump_pending = False  # a move's bumped ships are still to be put back
        self._stop = threading.Event()
        self.listeners: list[Callable[[str], None]] = []

    # --- announcements ------------------------------------------------------------------

    def say(self, text: str) -> None:
        """Log a line for the people at the table (and the system journal)."""
        log.info(text)
        for listener in list(self.listeners):
            listener(text)

    def _set(self, mode: Mode, message: str = "", pattern: Pattern | None = None) -> None:
        changed = mode is not self.status.mode or message != self.status.message
        self.status.mode = mode
        self.status.message = message
        if changed and message:
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

    # --- start-up -----------------------------------------------------------------------

    def start(self) -> None:
        """Resume or start the game, wire the buttons, open the camera and home the rig."""
        self._load_game()
        self.controls.spin_button.when_pressed = self._on_pressed
        self.controls.spin_button.hold_time = 2.0
        self.controls.spin_button.when_held = self._held.set
        self.controls.on_estop(self._on_estop)
        self.mover.set_interlock(lambda: self.controls.estop_engaged)
        if self.controls.estop_engaged:
            raise EmergencyStopError(
                "the e-stop button is engaged: release it, then start again (nothing moved)"
            )
        self._open_camera()
        self._home()
        sd_notify("READY=1")

    def _load_game(self) -> None:
        loaded = self.journal.load(self.board)
        if loaded is None:
            self._new_game()
            return
        self.game_id, self.game = loaded
        game = self.game
        self.status.seq = len(game.journal)
        self._provisional = provisional_moves(game)
        self.status.provisional = tuple(p.move for p in self._provisional)
        if game.is_over():
            self.say(f"game {self.game_id} is over: {game.outcome()}")
        else:
            self.say(f"resuming game {self.game_id}: round {game.round}, "
                     f"{game.phase.value} phase, {game.active} to play")

    def _on_pressed(self) -> None:
        # gpiozero's event thread: count the press; the main loop acts on it
        with self._press_lock:
            self._presses += 1
            self._last_press_s = self.clock.monotonic()
        self._pressed.set()

    def answer(self, option: int) -> None:
        """Answer the pending question with option `option` (from 1), as the page does."""
        self._answer = option

    @property
    def die_mode(self) -> str:
        game = self.game
        return game.options.die if game is not None else "table"

    def _new_game(self) -> None:
        seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "big")
        game = Game.new(self.players, seed=seed, board=self.board, options=self.options)
        self.game = game
        self.game_id = self.journal.start(game)
        self.status = Status(seq=len(game.journal))
        self._provisional = []
        self._bump_pending = False
        self._tied = ()
        self.say(f"new game {self.game_id}: {len(game.players)} players "
                 f"({', '.join(game.order)} in turn order), seed {seed}; "
                 "set up the ships in the ports")

    def new_game(self) -> None:
        """Archive the current game and start the next one (long press, or `game new`)."""
        self._new_game()
        self._aligned = True
        self._place_cloud()
        self._reset_stream()
        self._set(Mode.SETUP, "set up the ships: one of each colour in each product port",
                  Pattern.FIX)

    def _open_camera(self) -> None:
        if self.camera is not None:
            self.camera.close()
        camera = self.open_camera()
        camera.open()
        self.camera = camera
        self.stream = ObservationStream(camera, self.reader, self.stability)

    def _reset_stream(self) -> None:
        """Forget the last stable state: the next one is reported even if it looks the same."""
        if self.stream is not None:
            self.stream.stabilizer.reset()
            self.stream.stabilizer.current = None

    def _home(self) -> None:
        self._set(Mode.STARTING, "homing the gantry", Pattern.BUSY)
        self.mover.home()
        self._place_cloud()
        self._aligned = False
        self._reset_stream()
        game = self.game
        assert game is not None
        if game.is_over():
            self._announce_over()
        else:
            self._set(Mode.SETUP, "checking the board", Pattern.FIX)

    def _place_cloud(self) -> None:
        """Bring the cloud to the game's pose (after homing, or after it left the board)."""
        game = self.game
        assert game is not None
        pose = game.pose
        self.mover.goto_dot(pose.col, pose.row)
        self.mover.turn_to(pose.letter)

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
        self.mover.emergency_stop("shutting down")
        self.signals.off()
        if self.camera is not None:
            self.camera.close()
            self.camera = None

    def step(self) -> None:
        """One frame: read it, act on a new stable observation, then on a button press."""
        if self.status.mode is Mode.FAULT:
            self._fault_step()
            return
        game = self.game
        assert game is not None and self.stream is not None
        if self._held.is_set():
            self._held.clear()
            self._pressed.clear()
            with self._press_lock:
                self._presses = 0
            if game.is_over():
                self.new_game()
                return
            if self.status.mode in (Mode.FIX, Mode.SETUP):
                self.accept_board()
                return
        try:
            observation = self.stream.step()
        except CameraError as exc:
            self._fault(f"camera fault: {exc}")
            return
        self.status.frames += 1
        if self.mover.stopped and not self._stop.is_set():  # the e-stop button, pressed
            self._fault(f"{self.mover.estop_reason or 'emergency stop'}")
            return
        if observation is not None:
            self.status.observations += 1
            self.last_observation = observation
            self._observe(observation)
        if self.status.mode is Mode.ASK:
            self._answer_step()
            return
        if self._pressed.is_set():
            self._pressed.clear()
            with self._press_lock:
                self._presses = 0
            self._on_press()

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
            return
        if self._check_provisional(observation):
            return
        if game.phase is not Phase.SHIPS:
            self._check_board(observation)
            return
        if self._bump_pending:
            # the bumped ships go back first: until then a change is no new move (the next
            # player's ship leaving a port looks like a bumped ship not yet put back)
            self._check_board(observation)
            return
        verdict = judge(game, observation, self._known_dice())
        best = verdict.accepted or (verdict.tied[0] if verdict.tied else None)
        if best is not None:
            rest = len(_left_over(game, best.best, observation))
            # a move is the board's explanation only if little else differs; one into
            # places the camera cannot see, only if nothing else does
            if rest > MAX_LEFTOVER or (verdict.provisional and rest):
                verdict = Verdict(Outcome.UNCLEAR)
            elif len(verdict.tied) > MAX_OPTIONS:
                # a ship gone out of sight that could be anywhere: no question, ask to show it
                verdict = Verdict(Outcome.UNCLEAR)
        if verdict.outcome is Outcome.MOVE:
            assert verdict.accepted is not None
            self._apply(verdict.accepted.best, verdict.provisional)
            self._check_board(observation)
        elif verdict.outcome is Outcome.TIE:
            self._ask(verdict)
        else:
            diff = difference(game, observation)
            if not diff:
                if self.status.mode is Mode.SETUP:
                    self.say(f"the board matches the game; round {game.round}")
                self._settled()
            elif self.status.mode is Mode.SETUP:
                self._show_fix(diff, f"set the board as the game has it: {diff.describe()}",
                               Mode.SETUP)
            else:
                self._show_fix(diff, explain(game, diff))

    def _known_dice(self) -> frozenset[int] | None:
        game = self.game
        assert game is not None
        if game.die is not None:
            return frozenset({game.die})
        # with the virtual die, no move is made before the press that rolls it
        return frozenset() if self.die_mode == "virtual" else None

    def _show_fix(self, diff: Difference, message: str, mode: Mode = Mode.FIX) -> None:
        """Ask for a fix; each ask while the game stays as it is counts as a failed attempt."""
        self.status.question = None
        self._tied = ()
        # every ask since the game last changed is a failed attempt (the players may try
        # something else each time: the same stray token shows as another fix)
        self.status.fix_attempts += 1
        self.status.fix = diff
        if self.status.fix_attempts >= ACCEPT_AFTER_ATTEMPTS:
            message += "; or hold the spin button to accept the board as it is"
        self._set(mode, message, Pattern.FIX)

    def _align(self, observation: BoardObservation) -> None:
        """Believe the camera about the cloud's letter after homing (no index sensor)."""
        game = self.game
        assert game is not None
        self._aligned = True
        cloud = observation.cloud
        if cloud is None:
            return
        if cloud.letter != self.mover.rotation.letter:
            self.say(f"the cloud shows letter {LETTERS[cloud.letter]}: turning it to "
                     f"{LETTERS[game.pose.letter]}")
            self.mover.rotation.assume_letter(cloud.letter)
            try:
                self.mover.turn_to(game.pose.letter)
            except HardwareError as exc:
                self._fault(f"rotation fault: {exc}")

    def _check_board(self, observation: BoardObservation) -> None:
        game = self.game
        assert game is not None
        diff = difference(game, observation)
        if diff:
            self._show_fix(diff, f"fix the board: {diff.describe()}")
        else:
            self._settled()

    def _settled(self) -> None:
        """The board matches the game: wait for the next move, or for the spin button."""
        game = self.game
        assert game is not None
        self.status.fix = None
        self.status.fix_attempts = 0
        self._bump_pending = False
        self.status.question = None
        self.status.die = game.die
        if game.is_over():
            self._announce_over()
        elif game.phase is Phase.CLOUD:
            self._set(Mode.SPIN, f"round {game.round}: every player has moved; press spin",
                      Pattern.PRESS_SPIN)
        elif game.die is not None:
            self._set(Mode.READY, f"{game.active} to move (die {game.die})", Pattern.READY)
        else:
            self._set(Mode.READY, f"{game.active} to move", Pattern.READY)

    def _apply(self, candidate: Candidate, provisional: tuple[str, ...] = ()) -> None:
        """Make a candidate's move in the game and journal it (provisional if it went where
        the camera cannot see)."""
        game = self.game
        assert game is not None and candidate.move is not None and candidate.die is not None
        color = game.active
        count = len(game.journal)
        self.status.question = None
        self._tied = ()
        if game.die is None:
            game.set_die(candidate.die)
        events = game.push(candidate.move)
        if provisional:
            game.journal[-1] = {**game.journal[-1], "provisional": list(provisional)}
            self._provisional.append(_Provisional(count, str(candidate.move), provisional))
            self.status.provisional = tuple(p.move for p in self._provisional)
        self._commit()
        self.status.die = None
        first, *rest = events
        self.say(f"{color} (die {candidate.die}): {first}")
        for event in rest:
            self.say(f"    {event}")
        for ship in candidate.bumped:
            self.say(f"    put {ship} back in {game.ship(ship).previous_port}")
        self._bump_pending = bool(candidate.bumped)
        if provisional:
            self.say(f"    provisional: the camera cannot see {', '.join(provisional)}; the "
                     "move is checked when it can")

    # --- questions ----------------------------------------------------------------------

    def _ask(self, verdict: Verdict) -> None:
        """Ask the table which of the tied moves was made (one question, by die if it can)."""
        game = self.game
        assert game is not None
        groups = verdict.tied
        if self.status.mode is Mode.ASK and {g.consequence for g in groups} == {
                g.consequence for g in self._tied}:
            return  # the same question is pending
        self._tied = groups
        color = game.active
        dice = [g.dice for g in groups]
        by_die = all(not (a & b) for i, a in enumerate(dice) for b in dice[i + 1:])
        if by_die:
            groups = tuple(sorted(groups, key=lambda g: min(g.dice)))
            self._tied = groups
            dice = [g.dice for g in groups]
            options = tuple(_dice_text(ds) for ds in dice)
            text = f"{color}: did you roll {_either(options)}?"
        else:
            options = tuple(str(g.best.move) for g in groups)
            text = f"{color}: which move did you make: {_either(options)}?"
        moves = tuple(tuple(sorted({str(c.move) for c in g.members})) for g in groups)
        question = Question(text, options, tuple(dice) if by_die else tuple(
            frozenset() for _ in groups), moves, color)
        self.status.question = question
        with self._press_lock:
            self._presses = 0
        self._pressed.clear()
        self._answer = None
        hint = "; ".join(f"{k} press{'es' if k > 1 else ''}: {o}"
                         for k, o in enumerate(options, 1))
        self._set(Mode.ASK, f"{text} ({hint})", Pattern.ASK)

    def _answer_step(self) -> None:
        """In mode ASK: take an answer from the page, or from presses once the button rests."""
        option = self._answer
        if option is None:
            with self._press_lock:
                count = self._presses
                rested = self.clock.monotonic() - self._last_press_s >= ANSWER_QUIET_S
                if count and rested:
                    self._presses = 0
                    option = count
            self._pressed.clear()
        if option is None:
            return
        self._answer = None
        groups = self._tied
        if not 1 <= option <= len(groups):
            self.say(f"there is no answer {option}: press 1 to {len(groups)} times")
            return
        group = groups[option - 1]
        self._tied = ()
        self.status.question = None
        self.say(f"answer {option}: {group.best.describe()}")
        self._apply(group.best)
        if self.last_observation is not None:
            self._check_board(self.last_observation)
        else:
            self._settled()

    # --- hand edits and provisional moves -----------------------------------------------

    def accept_board(self) -> bool:
        """Take the board as the camera sees it (a long press after failed fixes): each ship
        the game has where the camera sees none moves to where a ship of its colour is
        seen, or leaves the game; journalled as hand edits of the position."""
        game = self.game
        observation = self.last_observation
        assert game is not None
        if observation is None or self.status.fix_attempts < ACCEPT_AFTER_ATTEMPTS:
            self.say("a long press accepts the board as seen only after a fix has been "
                     f"asked for {ACCEPT_AFTER_ATTEMPTS} times")
            return False
        diff = difference(game, observation)
        edits = hand_edits(game, diff)
        for sid, place in edits:
            game.set_ship(sid, place)
        self._commit()
        self.say("the board is accepted as seen: " + ("; ".join(
            f"{sid} {'to ' + place if place else 'out of the game'}" for sid, place in edits)
            or "nothing to change"))
        self._provisional = []
        self.status.provisional = ()
        self._settled()
        return True

    def _check_provisional(self, observation: BoardObservation) -> bool:
        """Check provisional moves whose places are now in view; True if the game rewound."""
        game = self.game
        assert game is not None
        if not self._provisional:
            return False
        evidence = observation_evidence(self.board, observation)
        expected = contents(game)
        seen = difference(game, observation)
        for item in list(self._provisional):
            if any(place_observability(evidence, p) < CONFIRM_OBSERVABILITY
                   for p in item.places):
                continue
            self._provisional.remove(item)
            wrong = [p for p in item.places if expected.get(p) and any(
                m[1] == p for m in seen.missing)]
            if not wrong:
                self.say(f"confirmed: {item.move}")
                continue
            self._rewind(item, wrong)
            return True
        self.status.provisional = tuple(p.move for p in self._provisional)
        return False

    def _rewind(self, item: _Provisional, wrong: list[str]) -> None:
        """Take the game back to before a provisional move the board contradicts."""
        game = self.game
        assert game is not None
        record = game.record()
        record["journal"] = record["journal"][:item.count]
        self.game = Game.replay(record, self.board)
        self.journal.rewind(self.game_id, item.count)
        self._provisional = [p for p in self._provisional if p.count < item.count]
        self.status.provisional = tuple(p.move for p in self._provisional)
        self.status.seq = len(self.game.journal)
        self._bump_pending = False
        self.say(f"{item.move} is not on the board ({', '.join(wrong)} seen without it): the "
                 f"game goes back to before it, round {self.game.round}, "
                 f"{self.game.active} to move")
        if self.game.pose != game.pose:
            try:
                self._place_cloud()
            except HardwareError as exc:
                self._fault(f"{exc}")
                return
        self._reset_stream()
        self._set(Mode.SETUP, f"the game went back: {item.move} was not seen; set the board "
                              "as the game has it", Pattern.FIX)

    def _commit(self) -> None:
        game = self.game
        assert game is not None
        self.journal.sync(self.game_id, game)
        self.status.seq = len(game.journal)
        self.status.fix_attempts = 0

    # --- buttons ------------------------------------------------------------------------

    def _on_press(self) -> None:
        game = self.game
        assert game is not None
        mode = self.status.mode
        if mode is Mode.SPIN:
            self._spin()
        elif mode is Mode.READY and game.phase is Phase.SHIPS and self.die_mode == "virtual":
            self._roll()
        elif mode is Mode.READY and game.phase is Phase.SHIPS:
            die = pass_die(game)
            if die is None:
                self.say(f"{game.active} cannot pass: every die value gives a move")
                self.signals.show(Pattern.FIX)
                self.signals.show(Pattern.READY, beep=False)
                return
            game.set_die(die)
            self._pass(die)
        elif mode in (Mode.FIX, Mode.SETUP):
            self.say(f"fix the board first: {self.status.message}")

    def _roll(self) -> None:
        """The virtual die: roll for the active player; a roll with no move passes."""
        game = self.game
        assert game is not None
        if game.die is not None:
            self.say(f"{game.active} has rolled {game.die} already: move a ship")
            self.signals.count(game.die)
            return
        die = game.roll_die()
        self._commit()
        self.status.die = die
        self.signals.count(die)
        self.say(f"{game.active} rolls {die}")
        if game.legal_moves(die) == [Move.pass_turn(game.active)]:
            self._pass(die)
        else:
            self._set(Mode.READY, f"{game.active} to move (die {die})")

    def _pass(self, die: int) -> None:
        game = self.game
        assert game is not None
        events = game.push(Move.pass_turn(game.active))
        self._commit()
        self.say(f"{events[0]} (no move with a {die})")
        self._settled()

    def _on_estop(self) -> None:
        # gpiozero's event thread: stop the motors now; the main loop reports the fault
        self.mover.emergency_stop("e-stop button")

    # --- the cloud ----------------------------------------------------------------------

    def _spin(self) -> None:
        game = self.game
        assert game is not None
        preview = game.copy()
        events = preview.cloud_phase(None, capture=())
        spin = next(e.spin for e in events if isinstance(e, Spun))
        moved = next(e for e in events if isinstance(e, CloudMoved))
        swept = next((frozenset(e.ships) for e in events if isinstance(e, Swept)), frozenset())
        leaves = any(isinstance(e, CloudRemoved) for e in events)
        self._pending = _PendingSpin(spin, swept, (moved.end.col, moved.end.row), leaves)
        self.status.last_spin = str(spin)
        self._set(Mode.MOVING, f"spin: {spin}", Pattern.BUSY)
        try:
            self.mover.execute_spin(spin)
        except HardwareError as exc:
            self._pending = None
            self._fault(f"{exc}")
            return
        self._reset_stream()
        self._set(Mode.AFTER_SPIN, "looking for captures", Pattern.BUSY)

    def _finish_spin(self, observation: BoardObservation) -> None:
        game = self.game
        pending = self._pending
        assert game is not None and pending is not None
        cloud = observation.cloud
        if cloud is None or (cloud.col, cloud.row) != pending.end:
            seen = "not seen" if cloud is None else f"seen at dot ({cloud.col}, {cloud.row})"
            self.say(f"warning: the cloud should be at dot {pending.end}, {seen}")
        captured = captured_ships(game, pending.swept, observation)
        events = game.cloud_phase(None, capture=captured)
        self._pending = None
        self._commit()
        for event in events:
            if isinstance(event, GameOver):
                continue
            self.say(f"cloud: {event}")
        survived = sorted(pending.swept - captured)
        if survived:
            self.say(f"    swept but still on the board: {', '.join(survived)}")
        removed = next((e for e in events if isinstance(e, CloudRemoved)), None)
        self._reset_stream()
        if removed is not None:
            self.status.lost = tuple(removed.ships)
            lost = ", ".join(removed.ships) or "no ships"
            self.say(f"the cloud reached an outside dot: {lost} out of the game; take them "
                     "out of the cloud. The cloud returns to the centre at letter A")
            self._set(Mode.MOVING, "the cloud returns to the centre", Pattern.BUSY)
            try:
                self._place_cloud()
            except HardwareError as exc:
                self._fault(f"{exc}")
                return
        totals = game.totals()
        self.say("totals: " + ", ".join(f"{c} {usd(totals[c])}" for c in game.players))
        if game.is_over():
            self._announce_over()
        else:
            self._set(Mode.SETUP, f"round {game.round}: checking the board", Pattern.FIX)

    def _announce_over(self) -> None:
        game = self.game
        assert game is not None
        outcome = game.outcome()
        self.status.outcome = str(outcome)
        if self.status.mode is not Mode.OVER:
            self._set(Mode.OVER, f"game over: {outcome}", Pattern.OVER)
            for line in describe_standings(game):
                self.say(line)
            self.say("a long press of the spin button (or `bermuda-hw game new`) starts "
                     "the next game")

    # --- faults -------------------------------------------------------------------------

    def _fault(self, message: str) -> None:
        """Stop the motors, keep the game, show the fault; a press recovers."""
        self.mover.emergency_stop(message)
        self.status.fault = message
        self._pressed.clear()
        self._set(Mode.FAULT, f"fault, motors stopped: {message}. The game is saved; fix "
                              "the cause, release the e-stop, then press spin", Pattern.FAULT)

    def _fault_step(self) -> None:
        if self._stop.is_set():
            return
        if not self._pressed.is_set():
            self.clock.sleep(FAULT_POLL_S)
            return
        self._pressed.clear()
        self.recover()

    def recover(self) -> None:
        """Reopen the camera, home again and check the board (after a fault)."""
        if self.controls.estop_engaged:
            self.say("the e-stop is still engaged: release it, then press spin")
            return
        self.say("recovering: opening the camera and homing the gantry")
        self.clock.sleep(SETTLE_BEFORE_HOMING_S)
        try:
            self._open_camera()
            self._home()
        except HardwareError as exc:
            self._fault(str(exc))
            return
        self.status.fault = None


def captured_ships(game: Game, swept: frozenset[str], observation: BoardObservation
                   ) -> frozenset[str]:
    """The swept ships the camera no longer sees, place by place.

    For every place that held swept ships, as many ships as are missing there
    are captured, swept ships first in seat order. A swept ship on a place now
    under the cloud cannot be seen: it is taken as captured (it lies where the
    magnets pass).
    """
    expected = expected_places(game)
    seen = Counter((s.color, s.space) for s in observation.ships if not s.hidden)
    groups: dict[tuple[str, str | None], list[str]] = {}
    for sid in game.ship_ids:
        if sid in swept:
            ship = game.ship(sid)
            groups.setdefault((ship.color, ship.location), []).append(sid)
    captured: set[str] = set()
    for place, ships in groups.items():
        if place[1] is not None and place[1] in observation.hidden_spaces:
            captured.update(ships)
            continue
        missing = max(0, expected[place] - seen[place])
        captured.update(ships[:missing])
    return frozenset(captured)


def _dice_text(dice: frozenset[int]) -> str:
    """Die values in words: `1`, `2-6`, `1, 3 or 5`."""
    values = sorted(dice)
    if len(values) > 2 and values[-1] - values[0] == len(values) - 1:
        return f"{values[0]}-{values[-1]}"
    return _either(tuple(str(v) for v in values))


def _either(options: tuple[str, ...]) -> str:
    return ", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0]


def hand_edits(game: Game, diff: Difference) -> list[tuple[str, str | None]]:
    """The ship edits that make the game's placement what the camera sees.

    A ship expected where none is seen goes where a ship of its colour is seen
    that the game does not have (or out of the game if there is none); a ship
    seen that the game does not have, with no such ship to move, comes back from
    the cloud or from out of the game if one of its colour is there.
    """
    extra = [e for e in diff.extra if e[1] is not None]
    edits: list[tuple[str, str | None]] = []
    used: set[str] = set()
    for color, place in diff.missing:
        sid = next((s for s in game.ships_at(place or "") if split_ship_id(s)[0] == color
                    and s not in used), None)
        if sid is None:
            continue
        used.add(sid)
        twin = next((e for e in extra if e[0] == color), None)
        if twin is not None:
            extra.remove(twin)
        edits.append((sid, twin[1] if twin is not None else None))
    for color, place in extra:
        spare = next((s.id for s in game.ships(color) if s.id not in used
                      and s.status in (ShipStatus.IN_CLOUD, ShipStatus.OUT)), None)
        if spare is not None:
            used.add(spare)
            edits.append((spare, place))
    return edits


def provisional_moves(game: Game) -> list[_Provisional]:
    """The journal's provisional moves since the last cloud phase (after a restart)."""
    out: list[_Provisional] = []
    for i, entry in enumerate(game.journal):
        if "cloud" in entry:
            out = []
        elif "move" in entry and entry.get("provisional"):
            count = i - 1 if i > 0 and "roll" in game.journal[i - 1] else i
            out.append(_Provisional(count, str(entry["move"]), tuple(entry["provisional"])))
    return out


def _left_over(game: Game, candidate: Candidate, observation: BoardObservation) -> list[object]:
    """The ships a candidate leaves unexplained on the board (missing and extra)."""
    if candidate.move is None or candidate.die is None:
        diff = difference(game, observation)
    else:
        after = game.copy()
        after.set_die(candidate.die)
        after.push(candidate.move)
        diff = difference(after, observation)
    return [*diff.missing, *diff.extra]
