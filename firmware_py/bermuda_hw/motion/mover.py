"""The cloud mover: homing, moves to dots, turns to letters, spins, park, pose, emergency stop."""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bermuda_hw.devices.endstop import Endstop
from bermuda_hw.devices.rotation import PCA9685Board, RotationActuator, create_rotation
from bermuda_hw.devices.stepper import MotorEnable, MotorSupply, StepperAxis
from bermuda_hw.errors import (
    BusError,
    EmergencyStopError,
    HardwareError,
    HomingError,
    MotionError,
    StepTimingError,
)
from bermuda_hw.motion.stepstream import Pausable, StepExecutor, StepResult, StepStream
from bermuda_hw.motion.wave import wave_or_stream
from bermuda_hw.planning.kinematics import GantryKinematics
from bermuda_hw.planning.limits import SoftLimits
from bermuda_hw.planning.measure import AxisTrace, peak_speed_accel
from bermuda_hw.planning.route import HomingApproach
from bermuda_hw.planning.steps import Limits, StepPlan, plan_axis_move, plan_line
from bermuda_hw.rules.cloud import CloudPose, Spin, SpinPath, plan_spin

if TYPE_CHECKING:
    from bermuda_hw.backends import Backend
    from bermuda_hw.clock import Clock
    from bermuda_hw.config import AxisConfig, Config
    from bermuda_hw.rules.board import Board

HOMING_DWELL_S = 0.1  # pause between homing phases: the motor comes to rest
WATCH_INTERVAL_S = 0.002  # during a move, the e-stop and endstop levels are read this often

log = logging.getLogger("bermuda_hw.motion")

# Builds the step executor over the mover's axes and enable: (axes, enable, clock,
# min_pulse_s, estop event, real-time priority) -> StepExecutor.
ExecutorFactory = Callable[
    [Sequence[StepperAxis], MotorEnable, "Clock", float, threading.Event, int], StepExecutor
]


def gpio_step_stream(
    axes: Sequence[StepperAxis],
    enable: MotorEnable,
    clock: Clock,
    min_pulse_s: float,
    estop: threading.Event,
    priority: int,
) -> StepExecutor:
    """The host executor: a step thread on the gpiozero STEP pins."""
    return StepStream(
        axes, enable, clock, min_pulse_s=min_pulse_s, estop=estop, realtime_priority=priority
    )


def default_executor(backend: Backend) -> ExecutorFactory:
    """The step executor for a backend's pins: lgpio's wave queue, its edges timed in C,
    where the STEP pins are lgpio lines with wave functions (the real backend on a Pi);
    else the Python step thread (the simulated backend's mock pins)."""
    return wave_or_stream


@dataclass(frozen=True)
class MoveReport:
    """One executed move: planned and measured figures."""

    start_steps: tuple[int, int]
    end_steps: tuple[int, int]
    planned_s: float  # the profile's duration: the time-optimal minimum under the limits
    duration_s: float  # plan start to the last step edge, by the backend's clock
    peak_speed_mm_s: float  # measured from the step edges
    peak_accel_mm_s2: float
    steps: int


@dataclass(frozen=True)
class SpinReport:
    """One executed spin: the rules' path, the turn, the move, and the time taken."""

    path: SpinPath
    turn_deg: float
    move: MoveReport | None
    duration_s: float


class CloudMover:
    """Drives the cloud with the gantry and the rotation actuator, over a backend.

    Every move is planned and checked against the soft limits before any pin
    changes. `emergency_stop()` may be called from any thread: the step stream
    stops before its next step, the drivers are disabled, the position becomes
    unknown, and every later move raises HomingError until `home()`.
    """

    def __init__(
        self,
        config: Config,
        backend: Backend,
        board: Board,
        *,
        rotation: RotationActuator | None = None,
        executor: ExecutorFactory | None = None,
    ) -> None:
        self.config = config
        self.backend = backend
        self.board = board
        self.clock = backend.clock
        gantry = config.gantry
        self.kinematics = GantryKinematics.from_config(gantry)
        self.soft_limits = SoftLimits.for_grid(self.kinematics, board.grid)
        self.soft_limits.check_rig(config.source, gantry.park_dot, board.grid)
        self.limits = Limits(gantry.max_speed_mm_s, gantry.accel_mm_s2, gantry.jerk_mm_s3)
        self._estop = threading.Event()
        self._lock = threading.RLock()  # one motion at a time
        self._devices: list[Any] = []
        self._homed = False
        self._steps = (0, 0)
        self._pca: PCA9685Board | None = None
        self.estop_reason: str | None = None
        self._interlocks: list[Callable[[], bool]] = []
        # enabling the drivers and an e-stop exclude each other: a press between the
        # check and the enable cannot leave the drivers energised
        self._energy = threading.RLock()
        self._supply: MotorSupply | None = None
        self._heartbeat: Callable[[], None] | None = None
        self._watch_fault: HardwareError | None = None
        self._quiet: list[Pausable] = []
        factory = backend.pin_factory
        try:
            self.enable = self._keep(
                MotorEnable(
                    gantry.enable_pin, active_high=gantry.enable_active_high, pin_factory=factory
                )
            )
            self.axes = [self._keep(StepperAxis(axis, pin_factory=factory)) for axis in gantry.axes]
            self.endstops = [
                self._keep(Endstop(axis.endstop_pin, wiring=axis.endstop, pin_factory=factory))
                for axis in gantry.axes
            ]
            if rotation is None:
                self._pca, rotation = create_rotation(
                    backend, config, board.cloud.letter_headings_deg
                )
            self.rotation: RotationActuator = rotation
            if executor is None:
                executor = default_executor(backend)
            self.stream: StepExecutor = executor(
                self.axes,
                self.enable,
                self.clock,
                gantry.min_pulse_us * 1e-6,
                self._estop,
                backend.step_thread_priority,
            )
        except Exception:
            self._close_devices()
            raise

    def _keep(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    # --- state ------------------------------------------------------------------------

    @property
    def homed(self) -> bool:
        return self._homed

    @property
    def position_steps(self) -> tuple[int, int]:
        self._require_homed()
        return self._steps

    def position_mm(self) -> tuple[float, float]:
        """Where the cloud's locater is, in board millimetres."""
        return self.kinematics.steps_to_board(self.position_steps)

    def pose(self) -> CloudPose:
        """The grid dot nearest the locater, and the letter at the notch."""
        x_mm, y_mm = self.position_mm()
        col, row = self.board.grid.nearest_dot(x_mm, y_mm)
        return CloudPose(col, row, self.rotation.letter)

    def _require_homed(self) -> None:
        if self._estop.is_set():
            raise HomingError(
                f"emergency stop ({self.estop_reason or 'requested'}): home the gantry again"
            )
        if not self._homed:
            raise HomingError("the gantry's position is unknown: home it first")

    # --- emergency stop ---------------------------------------------------------------

    def emergency_stop(self, reason: str = "emergency stop") -> None:
        """Stop everything now, from any thread; a new home() is required.

        The drivers are disabled and, where the rig has one, the motor supply's relay
        opens; it closes again only when the gantry is homed anew.
        """
        with self._energy:
            self.estop_reason = reason
            self._estop.set()
            self._homed = False
            self.enable.disable()
            if self._supply is not None:
                self._supply.open()

    def _energise(self) -> None:
        """Enable the drivers, unless an e-stop came first or an interlock holds."""
        with self._energy:
            if self._estop.is_set():
                raise EmergencyStopError(
                    f"{self.estop_reason or 'emergency stop'}: the drivers stay disabled"
                )
            if self._blocked():
                self._estop.set()
                self._homed = False
                self.estop_reason = "the e-stop is held"
                self.enable.disable()
                if self._supply is not None:
                    self._supply.open()
                raise EmergencyStopError("the e-stop is held: the drivers stay disabled")
            self.enable.enable()

    def _blocked(self) -> bool:
        return any(blocked() for blocked in self._interlocks)

    @property
    def stopped(self) -> bool:
        return self._estop.is_set()

    # --- executing plans ----------------------------------------------------------------

    def pause_during_moves(self, thing: Pausable) -> None:
        """Pause something that competes for the CPU (a camera's frame grabbing) during moves."""
        if thing not in self._quiet:
            self._quiet.append(thing)

    def forget_pausable(self, thing: Pausable) -> None:
        if thing in self._quiet:
            self._quiet.remove(thing)

    @contextlib.contextmanager
    def _quietly(self) -> Iterator[None]:
        paused: list[Pausable] = []
        try:
            for thing in list(self._quiet):
                thing.pause()
                paused.append(thing)
            yield
        finally:
            for thing in paused:
                with contextlib.suppress(Exception):
                    thing.resume()

    def _execute(self, plan: StepPlan, stop_when: Any = None) -> StepResult:
        try:
            with self._quietly():
                result = self.stream.execute(plan, stop_when)
        except KeyboardInterrupt:
            self.emergency_stop("interrupted")
            raise
        except HardwareError:
            self.emergency_stop("step thread fault")
            raise
        if result.reason == "late":
            message = (
                f"step timing: step {result.late_step} came {result.late_s * 1e3:.2f} ms late "
                f"({self.stream_note}); the move was aborted: home again"
            )
            log.warning(message)
            self.emergency_stop(message)
            raise StepTimingError(message)
        return result

    @property
    def stream_note(self) -> str:
        """How the step executor is scheduled (for messages)."""
        return str(getattr(self.stream, "realtime_note", "")) or (
            "real-time" if self.stream.realtime else "ordinary scheduling"
        )

    def _report(self, plan: StepPlan, result: StepResult) -> MoveReport:
        traces = []
        if not len(result.edge_times_s) == len(result.edge_axes) == len(result.edge_dirs):
            raise ValueError("a step result's edges differ in length")
        edge_axes = np.asarray(result.edge_axes, dtype=np.int64)
        edge_times = np.asarray(result.edge_times_s, dtype=np.float64)
        edge_dirs = np.asarray(result.edge_dirs, dtype=np.int64)
        for axis_index, axis in enumerate(self.kinematics.axes):
            mine = edge_axes == axis_index
            times = edge_times[mine]
            positions = plan.start_steps[axis_index] + np.cumsum(edge_dirs[mine])
            traces.append(AxisTrace(times, positions, axis.steps_per_mm))
        speed, accel = peak_speed_accel(traces)
        return MoveReport(
            start_steps=plan.start_steps,
            end_steps=plan.end_steps,
            planned_s=plan.duration_s,
            duration_s=result.end_s - result.start_s,
            peak_speed_mm_s=speed,
            peak_accel_mm_s2=accel,
            steps=result.steps_done,
        )

    def _move_to_steps(self, target: tuple[int, int]) -> MoveReport:
        with self._lock:
            self._require_homed()
            plan = plan_line(self.kinematics, self._steps, target, self.limits)
            self._check(plan)  # before any pin changes
            self._energise()
            try:
                result = self._execute(plan, self._watch(plan))
                self._steps = (self._steps[0] + result.moved[0], self._steps[1] + result.moved[1])
                if result.reason == "condition":  # the watch stopped the move
                    fault = self._watch_fault or EmergencyStopError(
                        f"{self.estop_reason or 'emergency stop'} during a move"
                    )
                    raise fault
                if result.reason == "estop":
                    raise EmergencyStopError(
                        f"{self.estop_reason or 'emergency stop'} during a move: "
                        "position unknown, home again"
                    )
                return self._report(plan, result)
            finally:
                self._idle()

    def _check(self, plan: StepPlan) -> None:
        """Refuse a plan past the soft limits or faster than the drivers may be stepped."""
        self.soft_limits.check_plan(plan)
        limit_hz = self.config.gantry.max_step_rate_hz
        for index, axis in enumerate(self.kinematics.axes):
            rate_hz = plan.peak_step_rate_hz(index)
            if rate_hz > limit_hz * (1 + 1e-9):
                raise MotionError(
                    f"axis {axis.name} would need {rate_hz:.0f} steps/s, above "
                    f"max_step_rate_hz = {limit_hz:g}"
                )

    def add_interlock(self, blocked: Callable[[], bool]) -> None:
        """`blocked()` is True while motion is forbidden (an e-stop button held down).

        Every interlock is read before the drivers are enabled and, as a level,
        between steps of every move. `motion.build` adds the e-stop's.
        """
        self._interlocks.append(blocked)

    def set_supply(self, supply: MotorSupply | None) -> None:
        """The motor supply's relay: closed when homing starts, opened on every stop."""
        self._supply = supply

    def set_heartbeat(self, beat: Callable[[], None] | None) -> None:
        """`beat()` is called every few milliseconds while a move runs (a watchdog's kick)."""
        self._heartbeat = beat

    def _watch(self, plan: StepPlan | None = None) -> Callable[[], bool]:
        """A stop condition read between steps: the e-stop held, or (for an ordinary move
        `plan`) an axis's endstop loop opened during a move that does not end near home:
        the far-end limit switch in series with the endstop, a broken wire, or the carriage
        driven into the home switch. A move that ends near home may press the home switch,
        and one that starts on it leaves it: neither is watched on that axis."""
        far: list[tuple[Endstop, str, float]] = []
        if plan is not None:
            for index, axis in enumerate(self.config.gantry.axes):
                clear = round(2 * axis.home_backoff_mm * axis.steps_per_mm)
                endstop = self.endstops[index]
                near_start = plan.start_steps[index] <= clear
                if plan.end_steps[index] > clear and not (near_start and endstop.is_pressed):
                    far.append((endstop, axis.name, 2 * axis.home_backoff_mm))
        interlock = self._blocked if self._interlocks else None
        heartbeat = self._heartbeat
        self._watch_fault = None
        clock = self.clock
        due = [clock.monotonic()]

        def stop() -> bool:
            now = clock.monotonic()
            if now < due[0]:
                return False
            due[0] = now + WATCH_INTERVAL_S
            if heartbeat is not None:
                heartbeat()
            if interlock is not None and interlock():
                self.emergency_stop("the e-stop is held")
                self._watch_fault = EmergencyStopError(
                    "the e-stop is held: the move stopped, position unknown, home again"
                )
                return True
            for endstop, name, clear_mm in far:
                if endstop.is_pressed:
                    reason = (
                        f"axis {name}: endstop or far-end limit switch pressed during a "
                        f"move ending more than {clear_mm:g} mm from home (the "
                        "carriage at the end of its travel, a broken wire, or the "
                        "carriage blocked)"
                    )
                    self.emergency_stop(reason)
                    self._watch_fault = HomingError(f"{reason}: home again")
                    return True
            return False

        return stop

    def _idle(self) -> None:
        if self.config.gantry.idle_disable:
            self.enable.disable()

    # --- moves ------------------------------------------------------------------------

    def goto_mm(self, x_mm: float, y_mm: float) -> MoveReport:
        """Move the cloud's locater to a board position in one straight, time-optimal move."""
        return self._move_to_steps(self.kinematics.board_to_steps(x_mm, y_mm))

    def goto_dot(self, col: int, row: int) -> MoveReport:
        """Move the cloud to a grid dot."""
        if not self.board.grid.contains(col, row):
            raise MotionError(f"dot ({col}, {row}) is not on the grid")
        return self._move_to_steps(self.kinematics.dot_to_steps(self.board.grid, col, row))

    def turn_to(self, letter: int) -> float:
        """Turn the cloud to a letter (clockwise with the stepper); returns degrees turned."""
        return self._turn(lambda held: self.rotation.turn_to(letter, self._estop, held))

    @property
    def letter(self) -> int:
        """The letter the rotation believes the cloud shows at the notch."""
        return self.rotation.letter

    @property
    def clockwise_only(self) -> bool:
        """The rotation turns the cloud clockwise only (a stepper; a servo turns back)."""
        return self.rotation.kind != "servo"

    def assume_letter(self, letter: int) -> None:
        """Declare which letter the cloud shows (the start pose, or as the camera saw it)."""
        self.rotation.assume_letter(letter)

    def turn_half_steps(self, count: int) -> float:
        """Turn a stepper rotation clockwise by some half steps (calibration); degrees turned."""
        turn_steps = getattr(self.rotation, "turn_steps", None)
        if turn_steps is None:
            raise MotionError(f"a {self.rotation.kind} rotation does not turn by steps")
        return self._turn(lambda held: float(turn_steps(count, self._estop, held)))

    def _turn(self, action: Callable[[Callable[[], bool]], float]) -> float:
        """Run a turn; the e-stop is read as a level before it and between its steps."""
        with self._lock:
            self._require_homed()
            held = self._held()
            try:
                if held():
                    raise EmergencyStopError(
                        "the e-stop is held: the cloud was not turned; home again"
                    )
                with self._quietly():
                    return action(held)
            except EmergencyStopError:
                self._homed = False
                raise
            except BusError as exc:
                self.emergency_stop(f"I2C fault: {exc}")
                raise

    def _held(self) -> Callable[[], bool]:
        """The e-stop level for the rotation's step loop: True (and everything stopped)
        while the e-stop is held; kicks the watchdog as the gantry's watch does."""
        interlock = self._blocked if self._interlocks else None
        heartbeat = self._heartbeat

        def held() -> bool:
            if heartbeat is not None:
                heartbeat()
            if interlock is not None and interlock():
                self.emergency_stop("the e-stop is held")
                return True
            return False

        return held

    def execute_spin(self, spin: Spin) -> SpinReport:
        """Turn clockwise to the spun letter, then move along the grid as the rules say."""
        with self._lock:
            start_s = self.clock.monotonic()
            pose = self.pose()
            path = plan_spin(self.board.grid, pose, spin, self.board.cloud)
            end_steps = self.kinematics.dot_to_steps(self.board.grid, path.end.col, path.end.row)
            # refuse a move past the limits before the turn starts
            self._check(plan_line(self.kinematics, self._steps, end_steps, self.limits))
            turned = self.turn_to(spin.letter)
            move = self._move_to_steps(end_steps) if end_steps != self._steps else None
            return SpinReport(path, turned, move, self.clock.monotonic() - start_s)

    def park(self) -> MoveReport:
        """Move the cloud to the park dot (configured; the centre by default) and idle."""
        col, row = self.config.gantry.park_dot
        report = self.goto_dot(col, row)
        self.enable.disable()
        return report

    # --- homing -----------------------------------------------------------------------

    def home(self, approach: HomingApproach | None = None) -> None:
        """Find both endstops: fast toward each, back off, then slowly again.

        With an `approach` (planned from where the camera sees the cloud, clear
        of the ships: `planning.route.homing_approach`), the cloud first goes
        along its route, the camera's place standing in for a homed position,
        and each endstop search is then short: the distance the camera's place
        gives plus the axis's margin. Without one, each search runs the axis's
        whole travel from wherever the carriage is.

        Clears an emergency stop. Raises HomingError if an endstop is not
        reached within the search, or does not release when backing off.
        """
        with self._lock:
            # clear first, then check: a press from now on is not lost
            self._estop.clear()
            self.estop_reason = None
            self._homed = False
            if self._blocked():
                self.emergency_stop("the e-stop is engaged")
                raise EmergencyStopError("the e-stop is engaged: release it before homing")
            if self._supply is not None:
                self._supply.close_relay()
            self._energise()
            try:
                expected: tuple[int, int] | None = None
                if approach is not None:
                    expected = self._approach(approach)
                for index in (1, 0):  # y first: the carriage leaves the board's edge row
                    self._home_axis(index, None if expected is None else expected[index])
            except EmergencyStopError:
                self.enable.disable()
                raise
            except HardwareError:
                self.emergency_stop("homing fault")
                raise
            finally:
                self._homed = False
                self._idle()
            self._steps = (0, 0)
            self._homed = True

    def _approach(self, approach: HomingApproach) -> tuple[int, int]:
        """Drive the approach's route from the camera's place; the steps left to each endstop."""
        self._steps = self.kinematics.board_to_steps(*approach.start_mm)
        self._homed = True  # the camera's place stands in for homing until the search
        poses = approach.route.poses
        self.goto_dot(poses[0].col, poses[0].row)
        for here, there in itertools.pairwise(poses):
            if there.letter != here.letter:
                self.turn_to(there.letter)
            else:
                self.goto_dot(there.col, there.row)
        self._energise()  # the moves idle the drivers; the search needs them held
        self._homed = False
        return self._steps

    def _axis_plan(self, index: int, distance_steps: int, speed_mm_s: float) -> StepPlan:
        gantry = self.config.gantry
        return plan_axis_move(
            self.kinematics,
            index,
            distance_steps,
            speed_mm_s,
            gantry.accel_mm_s2,
            jerk_mm_s3=gantry.jerk_mm_s3,
        )

    def _run_homing(self, plan: StepPlan, stop_when: Any) -> StepResult:
        watch = self._watch()

        def stop() -> bool:
            return watch() or (stop_when is not None and bool(stop_when()))

        result = self._execute(plan, stop)
        if result.reason == "estop" or self._estop.is_set():
            raise EmergencyStopError(f"{self.estop_reason or 'emergency stop'} while homing")
        self.clock.wait_until(self.clock.monotonic() + HOMING_DWELL_S, self._estop)
        if self._held()() or self._estop.is_set():  # the level too, not only the edge
            raise EmergencyStopError(f"{self.estop_reason or 'emergency stop'} while homing")
        return result

    def _home_axis(self, index: int, expected_steps: int | None = None) -> None:
        """Home one axis; `expected_steps`: how far the endstop should be (from the camera)."""
        axis: AxisConfig = self.config.gantry.axes[index]
        endstop = self.endstops[index]
        spm = axis.steps_per_mm
        backoff = round(axis.home_backoff_mm * spm)
        name = axis.name

        def pressed() -> bool:
            return bool(endstop.is_pressed)

        def released() -> bool:
            return not endstop.is_pressed

        if endstop.is_pressed:  # already on the switch: leave it first
            self._run_homing(self._axis_plan(index, backoff, axis.home_slow_speed_mm_s), released)
            if endstop.is_pressed:
                raise HomingError(
                    f"axis {name}: endstop still pressed after backing off "
                    f"{axis.home_backoff_mm:g} mm"
                )
        search_mm = axis.travel_mm + axis.home_margin_mm
        where = ""
        if expected_steps is not None:  # a short search: where the camera saw the cloud
            search_mm = min(search_mm, max(expected_steps, 0) / spm + axis.home_margin_mm)
            where = " of where the camera saw the cloud"
        search = round(search_mm * spm)
        result = self._run_homing(self._axis_plan(index, -search, axis.home_speed_mm_s), pressed)
        if result.reason != "condition":
            raise HomingError(f"axis {name}: endstop not reached within {search_mm:g} mm{where}")
        result = self._run_homing(self._axis_plan(index, backoff, axis.home_speed_mm_s), None)
        if endstop.is_pressed:
            raise HomingError(
                f"axis {name}: endstop still pressed after backing off {axis.home_backoff_mm:g} mm"
            )
        result = self._run_homing(
            self._axis_plan(index, -2 * backoff, axis.home_slow_speed_mm_s), pressed
        )
        if result.reason != "condition":
            raise HomingError(
                f"axis {name}: endstop not found again within {2 * axis.home_backoff_mm:g} mm"
            )

    # --- closing ----------------------------------------------------------------------

    def _close_devices(self) -> None:
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()

    def close(self) -> None:
        """Stop the step thread, disable the drivers, release the actuator and the pins."""
        stream = getattr(self, "stream", None)
        if stream is not None:
            stream.close()
        try:
            rotation = getattr(self, "rotation", None)
            if rotation is not None:
                with contextlib.suppress(BusError):
                    rotation.close()
            if self._pca is not None:
                with contextlib.suppress(BusError):
                    self._pca.close()
                self._pca = None
        finally:
            self._close_devices()

    def __enter__(self) -> CloudMover:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
