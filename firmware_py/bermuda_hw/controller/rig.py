"""The rig as the loop drives it: the camera's stream of readings, homing and the cloud's pose.

`Rig` opens (and reopens, after a fault) the camera and reads it through
vision's `ObservationStream`; it keeps the last frame for the page's camera
view. Motion only ever starts over a board the camera sees clear of hands
(`wait_for_clear_board`). Homing steers the cloud clear of the ships
(`homing`): when no clear way exists, nothing moves (`HomeRefused`), and the
press that answers the table's "clear the way" homes straight.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bermuda_hw.backends.camera import CameraSource, Frame
from bermuda_hw.clock import Clock
from bermuda_hw.controller.homing import HomeRefused, homing_route, place_cloud, ships_to_avoid
from bermuda_hw.controller.seams import Mover
from bermuda_hw.errors import CalibrationError, HardwareError
from bermuda_hw.planning.route import HomingApproach
from bermuda_hw.rules.board import LETTERS, Board
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.game import Game
from bermuda_hw.vision.reader import BoardReader
from bermuda_hw.vision.stability import ObservationStream, StabilitySettings
from bermuda_hw.vision.types import BoardObservation, FrameReading

log = logging.getLogger("bermuda_hw.controller")

CLEAR_BOARD_TIMEOUT_S = 30.0  # how long a homing waits for hands to leave the board


@dataclass(frozen=True)
class CameraView:
    """The latest camera frame with what vision read in it (for the page's camera view)."""

    image: Any
    reading: FrameReading | None
    pose: Any
    frame: int


class _FrameTap:
    """A camera source that remembers the last frame it handed out."""

    def __init__(self, source: CameraSource) -> None:
        self.source = source
        self.last: Frame | None = None

    def read(self, timeout_s: float | None = None) -> Frame:
        frame = self.source.read(timeout_s)
        self.last = frame
        return frame


class Rig:
    """The camera and the cloud mover: readings, homing clear of the ships, the cloud's pose."""

    def __init__(
        self,
        *,
        board: Board,
        open_camera: Callable[[], CameraSource],
        mover: Mover,
        clock: Clock,
        reader: BoardReader,
        stability: StabilitySettings,
        kick: Callable[[], None],
        say: Callable[[str], None],
        watch_board: Callable[[FrameReading | None], None],
        stopping: Callable[[], bool],
    ) -> None:
        self.board = board
        self.open_camera = open_camera
        self.mover = mover
        self.clock = clock
        self.reader = reader
        self.stability = stability
        self.kick = kick  # the watchdog's kick (whichever watchdog the loop holds then)
        self.say = say
        self.watch_board = watch_board  # told what each frame read while waiting for the board
        self.stopping = stopping
        self.clear_board_timeout_s = CLEAR_BOARD_TIMEOUT_S
        self.camera: CameraSource | None = None
        self.stream: ObservationStream | None = None
        self._tap: _FrameTap | None = None
        self.board_may_hold_ships = True  # False only at a first start with a new game
        self.clear_confirmed = False  # the table was asked to clear the way for homing

    # --- the camera ---------------------------------------------------------------------

    def reopen_camera(self) -> None:
        """Open the camera (again, after a fault) and read it from a fresh stream."""
        if self.camera is not None:
            self.camera.close()
            self.mover.forget_pausable(self.camera)
            self.camera = None
        camera = self.open_camera()
        camera.heartbeat = self.kick  # a camera settling at start may take 30 s
        camera.open()
        self.mover.pause_during_moves(camera)  # no frame grabbing while the motors step
        self.camera = camera
        self._tap = _FrameTap(camera)
        self.stream = ObservationStream(self._tap, self.reader, self.stability)

    def close_camera(self) -> None:
        if self.camera is not None:
            self.camera.close()
            self.camera = None

    @property
    def reading(self) -> FrameReading | None:
        """What vision read in the last frame."""
        return self.stream.last_reading if self.stream is not None else None

    def forget(self) -> None:
        """Forget the last stable state: the next one is reported even if it looks the same."""
        if self.stream is not None:
            self.stream.forget()

    def board_clear(self) -> bool:
        """The last frame shows the board, with no hand over it."""
        reading = self.reading
        return reading is not None and reading.board_found and not reading.occluded

    def reading_state(self) -> object | None:
        """What the last frame reads (ships by place, cloud pose); None if a hand is over
        the board or the board is not seen."""
        reading = self.reading
        if reading is None or not reading.board_found or reading.occluded:
            return None
        return reading.state_key()

    def view(self, frames: int) -> CameraView | None:
        """The last frame with what vision read in it (None before the first)."""
        tap = self._tap
        if tap is None or tap.last is None:
            return None
        tracker = getattr(self.reader, "tracker", None)
        return CameraView(tap.last.image, self.reading, getattr(tracker, "pose", None), frames)

    def knows_board_look(self) -> bool:
        """Whether vision has learned the empty board's look (from the colour calibration,
        or a game's start layout since the program started)."""
        return getattr(self.reader, "background", None) is not None

    def learn_start_layout(self, game: Game, also: Iterable[str] = ()) -> None:
        """At a game's start the board holds only the start layout: vision learns the empty
        board's look from it (printing the board file does not describe, the light). The
        game's places, and `also` (places where a token may stand), are left out of what
        is learned: a token there is never taken for the board."""
        learn = getattr(self.reader, "learn_background", None)
        if learn is None or game.has_moves():
            return
        places = {(s.location, None) for s in game.ships() if s.location is not None}
        places |= {(place, None) for place in also}
        try:
            learn(None, sorted(places))
        except CalibrationError as exc:
            log.warning("the board's look was not learned: %s", exc)
            return
        log.info("learned the board's look from the start layout")

    def wait_for_clear_board(self, why: str) -> None:
        """Read fresh frames until the board is clear; HardwareError if it stays covered."""
        assert self.stream is not None
        deadline = self.clock.monotonic() + self.clear_board_timeout_s
        told = False
        while True:
            self.kick()
            self.stream.step()
            if self.board_clear():
                return
            self.watch_board(self.reading)  # a camera that never finds the board says so
            if not told:
                self.say(f"hands off the board, please: {why} once it is clear")
                told = True
            if self.clock.monotonic() >= deadline or self.stopping():
                raise HardwareError(
                    f"the camera has not seen the board clear for "
                    f"{self.clear_board_timeout_s:g} s (a hand over it, or the board not "
                    f"found), so {why} did not start"
                )

    # --- homing and the cloud -----------------------------------------------------------

    def homing_approach(
        self, game: Game | None, leave: frozenset[str] = frozenset()
    ) -> HomingApproach | None:
        """The route to the endstops clear of the ships (but `leave`), from where the camera
        sees the cloud; None with no ships. HomeRefused if there is no clear one: the press
        that answers it homes straight."""
        reading = self.reading
        ships = ships_to_avoid(game, reading, self.board_may_hold_ships, leave)
        try:
            return homing_route(self.board, self.mover, ships, reading)
        except HomeRefused:
            self.clear_confirmed = True  # the press that answers this homes straight
            raise

    def before_homing(self, game: Game) -> HomingApproach | None:
        """Wait for the board clear, then the way home: clear of the ships, or straight once
        the table was asked to clear it."""
        self.wait_for_clear_board("the gantry homes")
        confirmed, self.clear_confirmed = self.clear_confirmed, False
        return None if confirmed else self.homing_approach(game)

    def home(self, approach: HomingApproach | None) -> None:
        """Home along `approach` (straight without one), then back to its last dot."""
        self.mover.home(approach)
        self.board_may_hold_ships = True
        if approach is not None:  # straight back to the route's last dot (checked clear)
            self.mover.goto_mm(*approach.last_mm)

    def place_cloud(
        self, game: Game, goal: CloudPose | None = None, leave: frozenset[str] = frozenset()
    ) -> None:
        """Bring the cloud to the game's pose (or `goal`) along a route clear of the ships
        (but `leave`), naming those no route avoids."""
        place_cloud(self.board, self.mover, game, goal, leave, self.say)

    def place_again(self, game: Game, goal: CloudPose, leave: frozenset[str]) -> None:
        """Home from where a fresh frame sees the cloud and place it at `goal`, clear of the
        ships but `leave` (those a spin swept: on its magnets, or captured)."""
        self.wait_for_clear_board("the gantry homes")
        self.home(self.homing_approach(game, leave))
        self.place_cloud(game, goal, leave)

    def align(self, observation: BoardObservation, letter: int) -> None:
        """Believe the camera about the cloud's letter (there is no index sensor) and turn
        the cloud to `letter` if it shows another; HardwareError if the turn fails."""
        cloud = observation.cloud
        if cloud is None or cloud.letter == self.mover.letter:
            return
        self.say(f"the cloud shows letter {LETTERS[cloud.letter]}: turning it to {LETTERS[letter]}")
        self.mover.assume_letter(cloud.letter)
        self.mover.turn_to(letter)
