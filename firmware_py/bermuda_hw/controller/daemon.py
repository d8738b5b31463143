"""The controller daemon: watch the board, check moves with the rules, spin, drive, persist.

The same code runs beside the real board and on the simulated table: it sees
only camera frames (through vision), the table's buttons and the cloud mover,
never the simulated world's truth. One frame at a time (`step`):

- **ship phase**: each new stable observation is compared with the engine's
  placement. A change that a legal move of the active player explains, for
  some die value 1-6, is that move: it is applied, journalled, and its bumps
  are announced (the players put the bumped ships back; the controller waits
  until the camera sees them there). Anything else is reported in words, the
  LED blinks fast, and the controller waits until the board is right again. A
  hand over the board simply delays the next stable reading. A press of the
  spin button in the ship phase is a pass, accepted only if some die value
  leaves the active player without any move.
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
    MoveMatch,
    Unexplained,
    difference,
    expected_places,
    identify_move,
    pass_die,
)
from bermuda_hw.controller.journal import Journal, JournalWriteError
from bermuda_hw.controller.notify import sd_notify
from bermuda_hw.controller.signals import Pattern, TableSignals
from bermuda_hw.controller.status import Mode, Status
from bermuda_hw.errors import CameraError, EmergencyStopError, HardwareError
from bermuda_hw.rules.board import LETTERS, Board
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
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.rules.moves import Move
from bermuda_hw.rules.play import describe_standings
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import ObservationStream, StabilitySettings
from bermuda_hw.vision.types import BoardObservation

log = logging.getLogger("bermuda_hw.controller")

FAULT_POLL_S = 0.1
NO_BOARD_S = 5.0  # a camera that has not seen the board this long is told to the table
REPEAT_S = 60.0  # a board-fix message said again unchanged only after this long
SETTLE_BEFORE_HOMING_S = 0.5  # after a stop at speed, the carriage comes to rest first


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
        self._stop = threading.Event()
        self.listeners: list[Callable[[str], None]] = []
        self._no_board_since: float | None = None
        self._no_board_said = False
        self._fix_said: dict[tuple[int, str], float] = {}

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
        if changed and message and self._worth_saying(mode, message):
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

    def _worth_saying(self, mode: Mode, message: str) -> bool:
        """A board to fix (and the turn it waits for) is said once for each state of the game,
        then again only when it changes or after a minute: a board that flickers between
        right and wrong does not fill the log."""
        if mode not in (Mode.FIX, Mode.SETUP, Mode.READY):
            return True
        now = self.clock.monotonic()
        key = (self.status.seq, message)
        last = self._fix_said.get(key)
        if last is not None and now - last < REPEAT_S:
            return False
        if len(self._fix_said) > 100:
            self._fix_said.clear()
        self._fix_said[key] = now
        return True

    def _watch_board(self) -> None:
        """Say, once, which corner markers the camera sees when it has not seen the board."""
        reading = self.stream.last_reading if self.stream is not None else None
        if reading is None or reading.board_found:
            self._no_board_since = None
            self._no_board_said = False
            return
        now = self.clock.monotonic()
        if self._no_board_since is None:
            self._no_board_since = now
        elif not self._no_board_said and now - self._no_board_since >= NO_BOARD_S:
            self._no_board_said = True
            corners = [m.id for m in self.board.markers.corners]
            seen = sorted(set(reading.markers_seen) & set(corners))
            seen_text = ", ".join(map(str, seen)) if seen else "none"
            self.say(f"the camera has not seen the board for {NO_BOARD_S:g} s: of the corner "
                     f"markers {', '.join(map(str, corners))} it sees {seen_text}. Aim it so "
                     "that all four corners are in view, close enough for each marker to be "
                     "clearly visible, and light the board evenly")

    # --- start-up -----------------------------------------------------------------------

    def start(self) -> None:
        """Resume or start the game, wire the buttons, open the camera and home the rig."""
        self._load_game()
        self.controls.spin_button.when_pressed = self._pressed.set
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
        if game.is_over():
            self.say(f"game {self.game_id} is over: {game.outcome()}")
        else:
            self.say(f"resuming game {self.game_id}: round {game.round}, "
                     f"{game.phase.value} phase, {game.active} to play")

    def _new_game(self) -> None:
        seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "big")
        game = Game.new(self.players, seed=seed, board=self.board, options=self.options)
        self.game = game
        self.game_id = self.journal.start(game)
        self.status = Status(seq=len(game.journal))
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
        started = self.clock.monotonic()
        self.mover.home()
        game = self.game
        assert game is not None
        pose = game.pose
        self.say(f"homed in {self.clock.monotonic() - started:.1f} s; the cloud goes to dot "
                 f"({pose.col}, {pose.row}) at letter {LETTERS[pose.letter]}")
        self._place_cloud()
        self._aligned = False
        self._reset_stream()
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
            if game.is_over():
                self.new_game()
                return
        try:
            observation = self.stream.step()
        except CameraError as exc:
            self._fault(f"camera fault: {exc}")
            return
        self.status.frames += 1
        self._watch_board()
        if self.mover.stopped and not self._stop.is_set():  # the e-stop button, pressed
            self._fault(f"{self.mover.estop_reason or 'emergency stop'}")
            return
        if observation is not None:
            self.status.observations += 1
            self.last_observation = observation
            self._observe(observation)
        if self._pressed.is_set():
            self._pressed.clear()
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
        if self.status.mode is Mode.SETUP:
            diff = difference(game, observation)
            if diff and game.phase is Phase.SHIPS:
                # a player who moved before the check settled: take the move if it is one
                result = identify_move(game, observation)
                if isinstance(result, MoveMatch):
                    if self._apply_move(result):
                        self._check_board(observation)
                    return
            if diff:
                self.status.fix = diff
                self._set(Mode.SETUP, f"set the board as the game has it: {diff.describe()}",
                          Pattern.FIX)
                return
            self.say(f"the board matches the game; round {game.round}")
            self._settled()
            return
        if game.phase is Phase.SHIPS:
            result = identify_move(game, observation)
            if isinstance(result, MoveMatch):
                if self._apply_move(result):
                    self._check_board(observation)
            elif isinstance(result, Unexplained):
                self.status.fix = result.difference
                self._set(Mode.FIX, f"{result.message}", Pattern.FIX)
            else:
                self._settled()
        else:
            self._check_board(observation)

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
            self.status.fix = diff
            self._set(Mode.FIX, f"fix the board: {diff.describe()}", Pattern.FIX)
        else:
            self._settled()

    def _settled(self) -> None:
        """The board matches the game: wait for the next move, or for the spin button."""
        game = self.game
        assert game is not None
        self.status.fix = None
        if game.is_over():
            self._announce_over()
        elif game.phase is Phase.CLOUD:
            self._set(Mode.SPIN, f"round {game.round}: every player has moved; press spin",
                      Pattern.PRESS_SPIN)
        else:
            self._set(Mode.READY, f"{game.active} to move", Pattern.READY)

    def _apply_move(self, match: MoveMatch) -> bool:
        game = self.game
        assert game is not None
        color = game.active
        game.set_die(match.die)
        events = game.push(match.move)
        committed = self._commit()
        first, *rest = events
        self.say(f"{color} (die {match.die}): {first}")
        for event in rest:
            self.say(f"    {event}")
        for ship in match.bumped:
            self.say(f"    put {ship} back in {game.ship(ship).previous_port}")
        return committed

    def _commit(self) -> bool:
        """Journal what the game holds and the database does not; a write failure is a fault."""
        game = self.game
        assert game is not None
        try:
            self.journal.sync(self.game_id, game)
        except JournalWriteError as exc:
            self._fault(str(exc))
            return False
        self.status.seq = len(game.journal)
        return True

    # --- buttons ------------------------------------------------------------------------

    def _on_press(self) -> None:
        game = self.game
        assert game is not None
        mode = self.status.mode
        if mode is Mode.SPIN:
            self._spin()
        elif mode is Mode.READY and game.phase is Phase.SHIPS:
            die = pass_die(game)
            if die is None:
                self.say(f"{game.active} cannot pass: every die value gives a move")
                self.signals.show(Pattern.FIX)
                self.signals.show(Pattern.READY, beep=False)
                return
            game.set_die(die)
            events = game.push(Move.pass_turn(game.active))
            if not self._commit():
                return
            self.say(f"{events[0]} (no move with a {die})")
            self._settled()
        elif mode in (Mode.FIX, Mode.SETUP):
            self.say(f"fix the board first: {self.status.message}")

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
        if not self._commit():
            return
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
        if self._stop.is_set():
            return  # stopping on request (SIGTERM): the move it interrupted is no fault
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
        if self.game is not None and not self._commit():
            return  # the journal still cannot take what the game holds
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
