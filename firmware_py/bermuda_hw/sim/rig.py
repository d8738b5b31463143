"""The simulated gantry and cloud: physics driven by the mock pins and the emulated PCA9685.

The rig sees only what the real motors would: edges on the STEP, DIR and
ENABLE pins (with the virtual clock's time) and the PCA9685's outputs. It moves
the carriage one microstep per accepted STEP edge and turns the cloud by
decoding the geared stepper's coil sequence (or a servo's pulse width), and it
closes the endstops when the carriage reaches them.

A stepper misses steps, as a real one does, when the step train asks more of
it than its torque allows: a speed above its pull-out rate, or a change of
speed faster than its acceleration limit (steps slower than the pull-in rate
start and stop at once). A stalled motor stays stalled until the step train
pauses. Missed steps are counted; the carriage does not move for them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpiozero.pins.mock import MockFactory, MockPin

from bermuda_hw.geometry import deg_to_steps, steps_to_deg
from bermuda_hw.planning.measure import AxisTrace, peak_speed_accel
from bermuda_hw.sim.world import World

if TYPE_CHECKING:
    from bermuda_hw.clock import Clock
    from bermuda_hw.config import AxisConfig, Config
    from bermuda_hw.sim.pca9685 import PCA9685Emulator

PinListener = Callable[["ObservedPin", float, bool], None]

REST_GAP_S = 0.05  # a pause this long lets a stalled motor recover
BLOCK_S = 0.010  # the motor and carriage respond to the step rate averaged over this long
HARD_STOP_MM = 3.0  # the carriage hits the frame this far beyond each end of travel
#: the far-end limit switch, wired in series with the axis's endstop (both normally closed:
#: either opens the loop, and the endstop's pin reads pressed), trips this far beyond the
#: end of travel, before the frame (hardware/README.md, "Far-end limit switches")
FAR_LIMIT_MM = 1.5
COALESCE_S = 0.0002  # coil changes this close together belong to one step
HISTORY_LIMIT = 100_000  # MockPin state changes kept per pin
TRACE_LIMIT = 1_000_000  # carriage steps kept per axis for measuring
PULL_IN_SPEED_MM_S = 10.0  # step rates a motor can start, stop or reverse at instantly


class ObservedPin(MockPin):  # type: ignore[misc]
    """A MockPin that reports each change of level, with the rig clock's time.

    An input pin may be held at a level by the rig (an endstop switch): the
    level then survives gpiozero setting the pin's pull resistor.
    """

    def __init__(self, factory: Any, info: Any) -> None:
        self.held_level: bool | None = None
        self._bcm = int(info.name[4:])
        super().__init__(factory, info)

    @property
    def bcm(self) -> int:
        return self._bcm

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if len(self.states) > HISTORY_LIMIT:  # long simulations: keep the recent history
            del self.states[: HISTORY_LIMIT // 2]
        if changed:
            listener: PinListener | None = getattr(self.factory, "observer", None)
            clock: Clock | None = getattr(self.factory, "clock", None)
            if listener is not None and clock is not None:
                listener(self, clock.monotonic(), bool(value))
        return changed

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self.held_level is not None:
            self.hold(self.held_level)

    def hold(self, level: bool) -> None:
        """Drive this input to a level, as a switch wired to it does."""
        self.held_level = level
        if self._function != "input":
            return
        if level:
            self.drive_high()
        else:
            self.drive_low()


def make_mock_factory(observer: PinListener, clock: Clock) -> MockFactory:
    """A MockFactory whose pins report their changes to `observer`."""
    factory = MockFactory(pin_class=ObservedPin)
    factory.observer = observer
    factory.clock = clock
    return factory


@dataclass
class AxisModel:
    """One axis's motor, belt and carriage, in microsteps from the endstop's trigger point."""

    config: AxisConfig
    pull_out_steps_s: float
    accel_steps_s2: float
    pull_in_steps_s: float
    position_steps: int = 0
    dir_level: bool = False
    step_level: bool = False
    rise_s: float = 0.0
    last_dir: int = 0
    last_step_s: float | None = None
    last_speed: float = 0.0  # signed steps/s over the last block
    last_mid_s: float | None = None
    block_start_s: float = 0.0
    block_start_steps: int = 0
    commanded_steps: int = 0  # where the step train asks the rotor to be
    stalled: bool = False
    lost_steps: int = 0
    blocked_steps: int = 0
    short_pulses: int = 0
    accepted_steps: int = 0
    trace: list[tuple[float, int]] = field(default_factory=list)
    # from the (frozen) config, once: where the far-end switch and the hard stops are
    steps_per_mm: float = field(init=False)
    far_switch_steps: int = field(init=False)
    hard_stop_steps: tuple[int, int] = field(init=False)

    def __post_init__(self) -> None:
        spm = self.config.steps_per_mm
        self.steps_per_mm = spm
        self.far_switch_steps = round((self.config.travel_mm + FAR_LIMIT_MM) * spm)
        self.hard_stop_steps = (
            -round(HARD_STOP_MM * spm),
            round((self.config.travel_mm + HARD_STOP_MM) * spm),
        )

    @property
    def position_mm(self) -> float:
        return self.position_steps / self.steps_per_mm

    @property
    def endstop_pressed(self) -> bool:
        """The endstop's loop is open: the carriage on the home switch, or on the far-end
        limit switch in series with it."""
        return self.position_steps <= 0 or self.position_steps >= self.far_switch_steps

    def _feasible(self, t: float, direction: int) -> bool:
        """Whether the rotor keeps up with a step at time t, given the steps before it.

        The rotor and the carriage cannot follow changes faster than about
        BLOCK_S, so the step rate is judged over blocks of steps at least that
        long: each block's mean speed (exactly the speed at its middle for a
        constant acceleration) must stay under the pull-out speed, and must
        differ from the previous block's by no more than the motor's
        acceleration allows; block speeds under the pull-in speed need no
        ramp. A motor that fails either stalls until the steps pause.
        """
        previous = self.last_step_s
        self.last_step_s = t
        if previous is None or t - previous > REST_GAP_S:
            self.stalled = False
            self.block_start_s = t
            self.block_start_steps = self.commanded_steps
            self.last_speed = 0.0
            self.last_mid_s = None
            return True
        if self.stalled:
            return False
        span = t - self.block_start_s
        if span < BLOCK_S:
            return True
        speed = (self.commanded_steps + direction - self.block_start_steps) / span
        mid = (t + self.block_start_s) / 2.0
        ok = abs(speed) <= self.pull_out_steps_s
        if self.last_mid_s is None:
            ok = ok and abs(speed) <= self.pull_in_steps_s * 1.0001
        elif max(abs(speed), abs(self.last_speed)) > self.pull_in_steps_s:
            change = abs(speed - self.last_speed)
            ok = ok and change <= self.accel_steps_s2 * (mid - self.last_mid_s) * 1.0001
        self.last_speed, self.last_mid_s = speed, mid
        self.block_start_s = t
        self.block_start_steps = self.commanded_steps + direction
        if not ok:
            self.stalled = True
        return ok

    def step(self, t: float, enabled: bool) -> bool:
        """A rising STEP edge at time t; returns True if the carriage moved."""
        direction = 1 if self.dir_level != self.config.invert_dir else -1
        self.last_dir = 0
        if not enabled:
            self.lost_steps += 1
            return False
        feasible = self._feasible(t, direction)
        self.commanded_steps += direction
        if not feasible:
            self.lost_steps += 1
            return False
        limit_low, limit_high = self.hard_stop_steps
        target = self.position_steps + direction
        if not limit_low <= target <= limit_high:
            self.blocked_steps += 1
            self.lost_steps += 1
            return False
        self.position_steps = target
        self.last_dir = direction
        self.accepted_steps += 1
        self.trace.append((t, target))
        if len(self.trace) > TRACE_LIMIT:
            del self.trace[: TRACE_LIMIT // 2]
        return True


@dataclass
class RotorModel:
    """The geared 28BYJ-48 behind a ULN2003 on the PCA9685: field from the phases, rotor
    following it."""

    pull_out_hz: float
    field_steps: int = 0  # unwrapped electrical position of the field, in half steps
    rotor_steps: int = 0  # where the rotor is, in half steps
    field_phase: int | None = None  # 0..7, None while the coils are released
    last_change_s: float | None = None
    stalled: bool = False
    ambiguous_steps: int = 0
    slipped_steps: int = 0  # lag left behind when the coils were released
    changes: int = 0
    last_delta: int = 0  # the field's last change, in half steps

    @property
    def lost_steps(self) -> int:
        """Half steps the rotor missed: its present lag behind the field, and earlier ones."""
        return abs(self.field_steps - self.rotor_steps) + self.slipped_steps + self.ambiguous_steps

    def coils(self, t: float, phases: tuple[float, float, float, float]) -> None:
        """New currents in the four phases of a 28BYJ-48 behind a ULN2003 (IN1..IN4, 0 .. 1).

        The motor's phases pull the rotor toward four directions 90 electrical
        degrees apart, in the order IN1, IN2, IN3, IN4; IN1 with IN3 (and IN2 with
        IN4) are the two halves of one winding and cancel each other.
        """
        x = phases[0] - phases[2]
        y = phases[1] - phases[3]
        if abs(x) < 0.25 and abs(y) < 0.25:
            self.field_phase = None  # no field: the rotor stays on its detent
            return
        # phase 0 is IN3 alone: the coil the driver energises first, whose detent
        # the rotor rests on when the simulation starts
        phase = round(math.degrees(math.atan2(-y, -x)) / 45.0) % 8
        if self.field_phase is None:
            # energising snaps the rotor to the nearest equilibrium of the new field;
            # a lag from before the release stays counted as lost
            self.slipped_steps += abs(self.field_steps - self.rotor_steps)
            offset = (phase - self.rotor_steps) % 8
            offset = offset - 8 if offset > 4 else offset
            if offset == 4:
                # a field opposite the rotor: it cannot tell which way to fall, and
                # goes on the way it last moved
                self.ambiguous_steps += 4
                offset = -4 if self.last_delta < 0 else 4
            self.field_steps = self.rotor_steps + offset
            self.rotor_steps = self.field_steps
            self.field_phase = phase
            self.stalled = False  # rotor and field are in step again
            self.last_change_s = t
            return
        delta = (phase - self.field_phase) % 8
        if delta == 0:
            return
        delta = delta - 8 if delta > 4 else delta
        if abs(delta) == 4:
            self.ambiguous_steps += 4  # opposite field: the rotor cannot tell which way
        self.field_phase = phase
        self.field_steps += delta
        self.last_delta = delta
        self.changes += 1
        previous = self.last_change_s
        # The driver writes the four channels one after another: changes closer
        # together than COALESCE_S are one step of the coil sequence.
        if previous is None or t - previous >= COALESCE_S:
            self.last_change_s = t
            if previous is not None and t - previous > REST_GAP_S:
                self.stalled = False  # after a pause the rotor can start again
            if previous is not None and t - previous < 1.0 / self.pull_out_hz:
                self.stalled = True  # driven past its pull-out rate: it stops following
        if self.stalled:
            return
        lag = self.field_steps - self.rotor_steps
        pull = lag % 8
        pull = pull - 8 if pull > 4 else pull
        self.rotor_steps += pull


class SimRig:
    """The simulated gantry, cloud actuator and endstops, watching pins and the PCA9685.

    `config` is how the rig is wired and what the controller believes;
    `truth` (by default the same) is how the simulated rig is really built:
    its steps per millimetre, board offsets, skew, the rotation's steps per
    turn and where letter A really is. Calibration measures the difference.
    """

    def __init__(
        self,
        config: Config,
        clock: Clock,
        world: World | None = None,
        truth: Config | None = None,
    ) -> None:
        self.config = config
        self.truth = truth if truth is not None else config
        self.clock = clock
        self.world = world if world is not None else World()
        self._lock = threading.RLock()
        sim = config.sim
        self.axes: dict[str, AxisModel] = {}
        for wired, axis in zip(config.gantry.axes, self.truth.gantry.axes, strict=True):
            axis = axis.model_copy(
                update={
                    "step_pin": wired.step_pin,
                    "dir_pin": wired.dir_pin,
                    "endstop_pin": wired.endstop_pin,
                    "invert_dir": wired.invert_dir,
                }
            )
            spm = axis.steps_per_mm
            model = AxisModel(
                config=axis,
                pull_out_steps_s=sim.pull_out_speed_mm_s * spm,
                accel_steps_s2=sim.motor_accel_mm_s2 * spm,
                pull_in_steps_s=PULL_IN_SPEED_MM_S * spm,
            )
            start_mm = sim.start_x_mm if axis.name == "x" else sim.start_y_mm
            model.position_steps = round(start_mm * spm)
            self.axes[axis.name] = model
        self.rotor = RotorModel(pull_out_hz=sim.rotor_pull_out_hz)
        self.enable_level = False
        self._roles: dict[int, tuple[str, str]] = {}
        g = config.gantry
        self._roles[g.enable_pin] = ("enable", "")
        for axis in g.axes:
            self._roles[axis.step_pin] = ("step", axis.name)
            self._roles[axis.dir_pin] = ("dir", axis.name)
            self._roles[axis.endstop_pin] = ("endstop", axis.name)
        # the ULN2003's IN1..IN4 are wired to the stepper's four channels in ascending order
        self._coil_channels = tuple(sorted(config.rotation.stepper.channels))
        self.factory: MockFactory | None = None
        self._pin_infos: dict[int, Any] = {}  # the factory's key (its PinInfo) of a GPIO
        self.pca: PCA9685Emulator | None = None
        self.servo_pulse_us: float | None = None
        # injectable switch faults: "open" never closes, "stuck" never opens
        self.endstop_faults: dict[str, str] = {}
        self.estop_pressed = False
        self.hand_on_endstop: set[str] = set()  # switches someone holds closed by hand
        if sim.dead_endstop:
            self.endstop_faults[sim.dead_endstop] = "open"
        self._sync_world()

    # --- wiring -----------------------------------------------------------------------

    def attach(self, factory: MockFactory, pca: PCA9685Emulator) -> None:
        """Connect the rig to the pins and the PCA9685 it watches."""
        self.factory = factory
        self.pca = pca
        pca.add_listener(self.on_pca_change)
        for axis in self.config.gantry.axes:
            self._update_endstop(axis.name)
        self.press_estop(self.estop_pressed)

    def press_estop(self, pressed: bool = True) -> None:
        """Press (or release) the e-stop button, as wired (a latching button stays put)."""
        self.estop_pressed = pressed
        controls = self.config.controls
        if self.factory is None or controls.estop_pin is None:
            return
        pin: ObservedPin = self.factory.pin(controls.estop_pin)
        pin.hold(controls.estop.level(pressed))

    def break_endstop(self, axis: str, fault: str = "open") -> None:
        """Inject a fault on an axis's endstop; "" repairs it.

        "open": the switch never actuates; "stuck": it is always actuated; "cut":
        its wire is broken, so the line sits where its pull holds it (pressed,
        for a normally-closed switch).
        """
        if fault:
            self.endstop_faults[axis] = fault
        else:
            self.endstop_faults.pop(axis, None)
        self._update_endstop(axis)

    def press_endstop(self, axis: str, pressed: bool) -> None:
        """Someone closes (or lets go of) an endstop's switch by hand."""
        if pressed:
            self.hand_on_endstop.add(axis)
        else:
            self.hand_on_endstop.discard(axis)
        self._update_endstop(axis)

    @property
    def enabled(self) -> bool:
        """True while the drivers' ENABLE input asks for motor current."""
        return self.enable_level == self.config.gantry.enable_active_high

    def _update_endstop(self, axis: str) -> None:
        if self.factory is None:
            return
        cfg = self.config.gantry.x if axis == "x" else self.config.gantry.y
        pressed = self.axes[axis].endstop_pressed or axis in self.hand_on_endstop
        fault = self.endstop_faults.get(axis)
        if fault == "open":
            pressed = False
        elif fault == "stuck":
            pressed = True
        level = cfg.endstop.level(pressed)
        if fault == "cut":
            level = cfg.endstop.open_level
        pin = self._pin(cfg.endstop_pin)
        if pin.held_level != level:
            pin.hold(level)

    def _pin(self, bcm: int) -> ObservedPin:
        """The factory's pin of a GPIO number (`factory.pin(bcm)`, without searching the
        board's header for a pin it already has)."""
        assert self.factory is not None
        info = self._pin_infos.get(bcm)
        pin: ObservedPin | None = None if info is None else self.factory.pins.get(info)
        if pin is None:
            pin = self.factory.pin(bcm)
            self._pin_infos[bcm] = pin.info
        return pin

    # --- pins -------------------------------------------------------------------------

    def on_pin_change(self, pin: ObservedPin, t: float, level: bool) -> None:
        role = self._roles.get(pin.bcm)
        if role is None:
            return
        kind, axis_name = role
        with self._lock:
            if kind == "enable":
                self.enable_level = level
            elif kind == "dir":
                self.axes[axis_name].dir_level = level
            elif kind == "step":
                self._step_edge(axis_name, t, level)

    def _step_edge(self, axis_name: str, t: float, level: bool) -> None:
        model = self.axes[axis_name]
        if level:
            model.rise_s = t
            if model.step(t, self.enabled):
                self._update_endstop(axis_name)
                self._sync_world()
        else:
            min_pulse_s = self.config.gantry.min_pulse_us * 1e-6
            if t - model.rise_s < min_pulse_s * 0.999 and model.last_dir != 0:
                # the driver never saw a pulse this short: undo the step
                if model.trace:
                    model.trace.pop()
                model.position_steps -= model.last_dir
                model.last_dir = 0
                model.accepted_steps -= 1
                model.short_pulses += 1
                model.lost_steps += 1

    # --- the PCA9685 -----------------------------------------------------------------

    def on_pca_change(self, pca: PCA9685Emulator, t: float) -> None:
        rotation = self.config.rotation
        with self._lock:
            if rotation.kind == "stepper":
                # the ULN2003's IN1..IN4 are wired to the four channels in ascending order
                in1, in2, in3, in4 = pca.duties(self._coil_channels)
                self.rotor.coils(t, (in1, in2, in3, in4))
            else:
                pulse = pca.pulse_width_us(rotation.servo.channel)
                self.servo_pulse_us = pulse if pulse > 0 else None
            self._sync_heading()

    def _sync_heading(self) -> None:
        rotation = self.truth.rotation
        if rotation.kind == "stepper":
            s = rotation.stepper
            # the forward coil sequence turns the rotor's field clockwise unless inverted
            sign = 1.0 if s.invert else -1.0
            steps = sign * self.rotor.rotor_steps - s.zero_offset_steps
            self.world.set_heading(steps_to_deg(steps, s.half_steps_per_cloud_rev))
        elif self.servo_pulse_us is not None:
            v = rotation.servo
            fraction = (self.servo_pulse_us - v.min_pulse_us) / (v.max_pulse_us - v.min_pulse_us)
            fraction = min(max(fraction, 0.0), 1.0)
            angle = fraction * v.actuation_range_deg
            self.world.set_heading(angle * v.cloud_deg_per_servo_deg)

    def _sync_world(self) -> None:
        g = self.truth.gantry
        y_axis_mm = self.axes["y"].position_mm
        lean = math.tan(math.radians(g.skew_deg))
        x = self.axes["x"].position_mm + g.x.board_offset_mm + lean * y_axis_mm
        y = y_axis_mm + g.y.board_offset_mm
        self.world.set_carriage(x, y)

    def slip(self, axis: str, mm: float) -> None:
        """The carriage is pushed along an axis without a step (a belt jumps a tooth, a knock)."""
        with self._lock:
            model = self.axes[axis]
            model.position_steps += round(mm * model.config.steps_per_mm)
            self._update_endstop(axis)
            self._sync_world()

    def slip_rotation(self, degrees: float) -> None:
        """The cloud is turned on its coupling without a step (clockwise positive)."""
        with self._lock:
            s = self.truth.rotation.stepper
            sign = 1 if s.invert else -1  # as in _sync_heading
            half_steps = sign * round(deg_to_steps(degrees, s.half_steps_per_cloud_rev))
            self.rotor.rotor_steps += half_steps
            self.rotor.field_steps += half_steps
            self._sync_heading()

    # --- measurements -----------------------------------------------------------------

    @property
    def lost_steps(self) -> int:
        """Steps the gantry's motors missed, plus half steps the rotation motor missed."""
        return sum(a.lost_steps for a in self.axes.values()) + self.rotor.lost_steps

    def peaks(self, since_s: float = 0.0) -> tuple[float, float]:
        """Peak speed (mm/s) and acceleration (mm/s^2) of the carriage since a time."""
        traces = []
        for model in self.axes.values():
            points = [(t, p) for t, p in model.trace if t >= since_s]
            traces.append(
                AxisTrace([t for t, _ in points], [p for _, p in points], model.config.steps_per_mm)
            )
        return peak_speed_accel(traces, REST_GAP_S)
