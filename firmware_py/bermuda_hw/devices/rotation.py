"""The cloud's rotation actuator on a PCA9685: a geared stepper, or a positional servo.

The geared stepper (a 28BYJ-48 through a ULN2003 on four channels) turns the
cloud clockwise only, as the rules ask, however many spins follow. A positional
servo is simpler to fit but has a limited travel: to show letter A again after
H it must turn back counterclockwise, so the cloud visibly unwinds between
spins (and its magnets sweep back over the ring they covered). Rigs that accept
that may use it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from bermuda_hw.clock import Clock
from bermuda_hw.config import ServoRotationConfig, StepperRotationConfig
from bermuda_hw.devices.adafruit import PCA9685, Servo, motor_stepper
from bermuda_hw.errors import BusError, EmergencyStopError
from bermuda_hw.geometry import steps_to_deg
from bermuda_hw.planning.kinematics import ServoRotationKinematics, StepperRotationKinematics

if TYPE_CHECKING:
    from bermuda_hw.backends import Backend, I2CBus
    from bermuda_hw.config import Config

T = TypeVar("T")

# `held()` is True while an e-stop is held down: a level, read between steps (the
# `stop` Event is its edge, and an edge can be missed or come before the turn starts).
Held = Callable[[], bool]
SETTLE_POLL_S = 0.01  # during a servo's settle wait, the e-stop level is read this often


class PCA9685Board:
    """One PCA9685 behind one lock (the Adafruit driver shares a buffer between calls)."""

    def __init__(
        self, i2c: I2CBus, *, address: int, frequency_hz: float, lock: threading.RLock
    ) -> None:
        self.address = address
        self.lock: threading.RLock = lock
        self._closed = False
        self.pca: Any = self.call(lambda: PCA9685(i2c, address=address))
        self.call(lambda: setattr(self.pca, "frequency", frequency_hz))

    def call(self, action: Callable[[], T]) -> T:
        """Run one driver call under the lock; bus faults become BusError."""
        with self.lock:
            try:
                return action()
            except OSError as exc:
                raise BusError(
                    f"PCA9685 at 0x{self.address:02x}: I2C transfer failed: {exc}"
                ) from exc
            except ValueError as exc:
                if "No I2C device" in str(exc):
                    raise BusError(f"PCA9685 at 0x{self.address:02x} does not answer") from exc
                raise

    def channel(self, index: int) -> Any:
        return self.pca.channels[index]

    def all_off(self) -> None:
        """Every output fully off."""

        def off() -> None:
            for index in range(16):
                self.pca.channels[index].duty_cycle = 0

        self.call(off)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.all_off()
        finally:
            self.call(self.pca.deinit)


class RotationActuator(Protocol):
    """Turns the cloud to a letter; `letter` is where it believes the cloud is."""

    kind: str

    @property
    def letter(self) -> int: ...

    def assume_letter(self, letter: int) -> None: ...

    def turn_to(
        self, letter: int, stop: threading.Event | None = None, held: Held | None = None
    ) -> float:
        """Turn to a letter (clockwise where the actuator can); returns degrees turned.

        Raises EmergencyStopError, with the coils released, once `stop` is set or
        `held()` reads True: before the first step as well as between steps.
        """
        ...

    def release(self) -> None: ...

    def close(self) -> None: ...


class StepperRotation:
    """A geared four-coil stepper driven through `adafruit_motor.stepper`, clockwise only."""

    kind = "stepper"

    def __init__(
        self,
        board: PCA9685Board,
        config: StepperRotationConfig,
        clock: Clock,
        letter_headings_deg: tuple[float, ...] | None = None,
    ) -> None:
        self.board = board
        self.config = config
        self.clock = clock
        self.kinematics = StepperRotationKinematics.from_config(config, letter_headings_deg)
        a1, a2, b1, b2 = config.channels
        # microsteps=2 with INTERLEAVE steps gives the half-step coil sequence, each
        # coil fully on or off (the ULN2003 switches, it cannot modulate).
        self.motor: Any = board.call(
            lambda: motor_stepper.StepperMotor(
                board.channel(a1),
                board.channel(a2),
                board.channel(b1),
                board.channel(b2),
                microsteps=2,
            )
        )
        self._forward = motor_stepper.BACKWARD if config.invert else motor_stepper.FORWARD
        # The rotor rests at 0 when the rig starts; the cloud shows letter A exactly
        # `zero_offset_steps` half steps further (what `calibrate rotation` measures).
        self.position_steps = 0
        self.release()

    @property
    def letter(self) -> int:
        return self.kinematics.letter_at(self.position_steps)

    def assume_letter(self, letter: int) -> None:
        """Declare where the cloud is (no index sensor: the start pose is letter A)."""
        self.position_steps = self.kinematics.clockwise_target(self.position_steps, letter)

    def steps_to(self, letter: int) -> int:
        return self.kinematics.clockwise_target(self.position_steps, letter) - self.position_steps

    def turn_to(
        self, letter: int, stop: threading.Event | None = None, held: Held | None = None
    ) -> float:
        return self.turn_steps(self.steps_to(letter), stop, held)

    def turn_steps(
        self, count: int, stop: threading.Event | None = None, held: Held | None = None
    ) -> float:
        """Turn clockwise by a number of half steps; returns degrees turned.

        The e-stop is read before every step, as an edge (`stop`) and as a level
        (`held()`): one held before the turn starts stops it before the first step.
        """
        period_s = 1.0 / self.config.step_rate_hz
        start_s = self.clock.monotonic()
        style = motor_stepper.INTERLEAVE
        try:
            for index in range(count):
                if not self.clock.wait_until(start_s + index * period_s, stop) or _stopped(
                    stop, held
                ):
                    raise EmergencyStopError("emergency stop while turning the cloud")
                self.board.call(lambda: self.motor.onestep(direction=self._forward, style=style))
                self.position_steps += 1
            # hold the last step for one period so the rotor settles on it
            if not self.clock.wait_until(start_s + count * period_s, stop) or _stopped(stop, held):
                raise EmergencyStopError("emergency stop while turning the cloud")
        finally:
            with contextlib.suppress(BusError):
                self.release()
        return steps_to_deg(count, self.kinematics.half_steps_per_cloud_rev)

    def release(self) -> None:
        """Coils off: no current while idle (the gearbox holds the cloud)."""
        self.board.call(self.motor.release)

    def close(self) -> None:
        self.release()


class ServoRotation:
    """A positional servo through `adafruit_motor.servo`, turning back when it must."""

    kind = "servo"

    def __init__(
        self,
        board: PCA9685Board,
        config: ServoRotationConfig,
        clock: Clock,
        letter_headings_deg: tuple[float, ...] | None = None,
    ) -> None:
        self.board = board
        self.config = config
        self.clock = clock
        self.kinematics = ServoRotationKinematics.from_config(config, letter_headings_deg)
        self.servo: Any = board.call(
            lambda: Servo(
                board.channel(config.channel),
                actuation_range=config.actuation_range_deg,
                min_pulse=config.min_pulse_us,
                max_pulse=config.max_pulse_us,
            )
        )
        self._letter = 0

    @property
    def letter(self) -> int:
        return self._letter

    def assume_letter(self, letter: int) -> None:
        self._letter = letter

    def turn_to(
        self, letter: int, stop: threading.Event | None = None, held: Held | None = None
    ) -> float:
        angle = self.kinematics.servo_angle_deg(letter)
        turned = (angle - self.kinematics.servo_angle_deg(self._letter)) * (
            self.kinematics.cloud_deg_per_servo_deg
        )
        if _stopped(stop, held):  # held before the turn: no pulse at all
            raise EmergencyStopError("emergency stop while turning the cloud")
        try:
            self.board.call(lambda: setattr(self.servo, "angle", angle))
            self._letter = letter
            # the settle wait reads the e-stop level too, not only its edge
            deadline_s = self.clock.monotonic() + self.config.settle_s
            while True:
                now_s = self.clock.monotonic()
                if _stopped(stop, held):
                    raise EmergencyStopError("emergency stop while turning the cloud")
                if now_s >= deadline_s:
                    break
                if not self.clock.wait_until(min(deadline_s, now_s + SETTLE_POLL_S), stop):
                    raise EmergencyStopError("emergency stop while turning the cloud")
        finally:
            with contextlib.suppress(BusError):
                self.release()
        return turned

    def release(self) -> None:
        """No pulses: the servo stops driving (the cloud stays by friction)."""
        self.board.call(lambda: setattr(self.servo, "angle", None))

    def close(self) -> None:
        self.release()


def _stopped(stop: threading.Event | None, held: Held | None) -> bool:
    return (stop is not None and stop.is_set()) or (held is not None and bool(held()))


def create_rotation(
    backend: Backend, config: Config, letter_headings_deg: tuple[float, ...] | None = None
) -> tuple[PCA9685Board, RotationActuator]:
    """The PCA9685 and the configured actuator on it.

    `letter_headings_deg[k]`: how far the cloud turns clockwise from letter A to
    show letter k (the board's `[cloud]` data; the classic order by default).
    """
    rotation = config.rotation
    frequency = (
        rotation.stepper.pwm_frequency_hz
        if rotation.kind == "stepper"
        else rotation.servo.pwm_frequency_hz
    )
    board = PCA9685Board(
        backend.i2c(), address=rotation.i2c_address, frequency_hz=frequency, lock=backend.i2c_lock
    )
    try:
        actuator: RotationActuator
        if rotation.kind == "stepper":
            actuator = StepperRotation(board, rotation.stepper, backend.clock, letter_headings_deg)
        else:
            actuator = ServoRotation(board, rotation.servo, backend.clock, letter_headings_deg)
    except Exception:
        board.close()
        raise
    return board, actuator
