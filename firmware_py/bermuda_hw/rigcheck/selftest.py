"""`selftest`: the checklist an owner runs first on a new rig, each line pass or fail, what to do.

The same checks run on the Pi and on the simulated rig; only the owner
differs (a person at a terminal, or a script pressing the simulated switches).
A line that cannot be tried because an earlier one failed is skipped, naming
that line, so every fault shows on its own line.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bermuda_hw.devices.controls import TableControls
from bermuda_hw.devices.rotation import PCA9685Board, RotationActuator, create_rotation
from bermuda_hw.errors import BermudaError, BusError, CameraError, ConfigError, HardwareError
from bermuda_hw.geometry import LETTERS, signed_deg
from bermuda_hw.motion.build import build_motion
from bermuda_hw.motion.mover import CloudMover
from bermuda_hw.rules.board import Board
from bermuda_hw.vision.reader import BoardReader

if TYPE_CHECKING:
    from bermuda_hw.backends import Backend
    from bermuda_hw.backends.camera import CameraSource
    from bermuda_hw.config import Config
    from bermuda_hw.rigcheck.owner import Owner
    from bermuda_hw.vision.types import FrameReading

POLL_S = 0.02
TURN_TOLERANCE_DEG = 4.0  # the marker's heading after a full turn, against before it
MARKER_FRAMES = 5  # frames read to find every marker


@dataclass(frozen=True)
class CheckLine:
    """One line of the checklist: passed (True), failed (False) or skipped (None)."""

    name: str
    ok: bool | None
    detail: str
    todo: str = ""

    @property
    def status(self) -> str:
        return {True: "PASS", False: "FAIL", None: "SKIP"}[self.ok]

    def __str__(self) -> str:
        text = f"{self.status}  {self.name:<18} {self.detail}"
        if self.todo and self.ok is not True:
            text += f"\n      what to do: {self.todo}"
        return text


class _NoRotation:
    """Stands in for a rotation actuator whose PCA9685 did not answer: every turn fails."""

    kind = "absent"
    letter = 0

    def assume_letter(self, letter: int) -> None:
        pass

    def turn_to(
        self,
        letter: int,
        stop: threading.Event | None = None,
        held: Callable[[], bool] | None = None,
    ) -> float:
        raise BusError("no PCA9685: the cloud cannot be turned")

    def release(self) -> None:
        pass

    def close(self) -> None:
        pass


class SelfTest:
    """Runs the checklist over a backend; `report(line)` is called as each line is decided."""

    def __init__(
        self,
        config: Config,
        board: Board,
        backend: Backend,
        owner: Owner,
        *,
        press_timeout_s: float = 15.0,
        report: Callable[[CheckLine], None] | None = None,
    ) -> None:
        self.config = config
        self.board = board
        self.backend = backend
        self.owner = owner
        self.press_timeout_s = press_timeout_s
        self.report = report or (lambda line: None)
        self.clock = backend.clock
        self.lines: list[CheckLine] = []

    def _add(self, name: str, ok: bool | None, detail: str, todo: str = "") -> CheckLine:
        line = CheckLine(name, ok, detail, todo)
        self.lines.append(line)
        self.report(line)
        return line

    def _failed(self, name: str) -> bool:
        return any(line.name == name and line.ok is not True for line in self.lines)

    # --- the checklist --------------------------------------------------------------------

    def run(self) -> list[CheckLine]:
        """Every check in order; returns the lines (also reported one by one)."""
        config = self.config
        self._add("config", True, f"{config.source or 'built-in defaults'} read and checked")
        factory = self.backend.pin_factory
        chip = getattr(factory, "chip", None)
        self._add(
            "pin factory",
            True,
            f"{type(factory).__name__}" + (f" on /dev/gpiochip{chip}" if chip is not None else ""),
        )
        pca, rotation = self._probe_i2c()
        stack = contextlib.ExitStack()
        with stack:
            try:
                motion = stack.enter_context(
                    build_motion(config, self.backend, self.board, rotation=rotation)
                )
            except ConfigError as exc:  # no e-stop input: nothing may move
                self._add(
                    "e-stop",
                    False,
                    str(exc),
                    "wire the e-stop and set [controls] estop_pin; nothing was moved",
                )
                return self.lines
            except BermudaError as exc:
                self._add(
                    "GPIO pins", False, str(exc), "check the pin numbers in [gantry] and [controls]"
                )
                return self.lines
            except Exception as exc:  # gpiozero's own errors: a pin in use, no such pin
                self._add(
                    "GPIO pins",
                    False,
                    f"{type(exc).__name__}: {exc}",
                    "check the pin numbers in [gantry] and [controls]",
                )
                return self.lines
            if pca is not None:
                stack.callback(pca.close)
            mover, controls = motion.mover, motion.controls
            self._step_timing(mover)
            self._switches(mover, controls)
            self._signals(controls)
            camera = self._camera(stack)
            self._homing(mover)
            if mover.homed:  # the cloud at the centre: clear of the corner markers
                with contextlib.suppress(HardwareError):
                    mover.goto_dot(*self.board.grid.centre)
            reading = self._markers(camera) if camera is not None else None
            self._full_turn(mover, camera, reading)
        return self.lines

    def _probe_i2c(self) -> tuple[PCA9685Board | None, RotationActuator]:
        rotation = self.config.rotation
        address = f"0x{rotation.i2c_address:02x}"
        headings = self.board.cloud.letter_headings_deg
        try:
            pca, actuator = create_rotation(self.backend, self.config, headings)
        except (BusError, OSError, ValueError) as exc:
            self._add(
                "I2C PCA9685",
                False,
                f"nothing answers at {address}: {exc}",
                "check the PCA9685's VCC, GND, SDA and SCL wires and its address jumpers; "
                "`i2cdetect -y 1` lists what answers on the bus",
            )
            return None, _NoRotation()
        self._add("I2C PCA9685", True, f"answers at {address}; {rotation.kind} rotation ready")
        return pca, actuator

    def _step_timing(self, mover: CloudMover) -> None:
        """Which step executor times the edges; a real-time priority the backend asked for
        and did not get fails the line (steps timed by Python then abort moves as late)."""
        note = mover.stream_note
        wanted = self.backend.step_thread_priority
        if mover.stream.realtime or wanted <= 0:
            self._add("step timing", True, note)
            return
        self._add(
            "step timing",
            False,
            note,
            "give the service CAP_SYS_NICE or a real-time limit (LimitRTPRIO=50 in "
            "systemd/bermuda-hw.service), or install python3-lgpio so that lgpio's "
            "wave queue times the steps; "
            "`bermuda-hw selftest --timing` measures the edges",
        )

    def _wait(self, reading: Callable[[], bool], want: bool) -> bool:
        deadline = self.clock.monotonic() + self.press_timeout_s
        while True:
            if bool(reading()) == want:
                return True
            if self.clock.monotonic() >= deadline:
                return False
            self.clock.sleep(POLL_S)

    def _switch(
        self, name: str, key: str, what: str, reading: Callable[[], bool], wiring: str
    ) -> None:
        if reading():
            self._add(
                name,
                False,
                "reads pressed while nothing should press it",
                f"{what}: if the carriage sits on it, move it off by hand; otherwise the "
                f"contact setting is inverted, or (normally closed) its wire is broken. "
                f"{wiring}",
            )
            return
        timeout = f"{self.press_timeout_s:g} s"
        self.owner.press(key, f"press and hold {what} (within {timeout})", reading)
        if not self._wait(reading, True):
            self._add(
                name,
                False,
                f"never read pressed within {timeout}",
                f"check {what}'s wires to its GPIO and ground, and its contact setting. {wiring}",
            )
            return
        self.owner.release(key, f"release {what}", reading)
        if not self._wait(reading, False):
            self._add(
                name,
                False,
                f"still reads pressed {timeout} after release",
                f"check {what} for a short to ground or a stuck lever. {wiring}",
            )
            return
        self._add(name, True, "pressed and released")

    def _switches(self, mover: CloudMover, controls: TableControls) -> None:
        for axis, endstop in zip(self.config.gantry.axes, mover.endstops, strict=True):
            self._switch(
                f"endstop {axis.name}",
                f"endstop {axis.name}",
                f"the {axis.name} endstop",
                _pressed(endstop),
                f"[gantry.{axis.name}] endstop_pin = {axis.endstop_pin}",
            )
        c = self.config.controls
        estop = controls.estop_button
        assert estop is not None  # motion.build refuses a rig without one
        self._switch(
            "e-stop",
            "estop",
            "the e-stop button",
            lambda: bool(estop.is_pressed),
            f"[controls] estop_pin = {c.estop_pin}",
        )
        button = controls.spin_button
        self._switch(
            "spin button",
            "button",
            "the spin button",
            lambda: bool(button.is_pressed),
            f"[controls] spin_button_pin = {c.spin_button_pin}",
        )

    def _signals(self, controls: TableControls) -> None:
        c = self.config.controls
        controls.status_led.on()
        try:
            seen = self.owner.confirm("led", "is the status LED lit?")
        finally:
            controls.status_led.off()
        self._signal_line("status LED", seen, f"[controls] status_led_pin = {c.status_led_pin}")
        if controls.buzzer is None:
            self._add("buzzer", None, "no buzzer configured (optional)")
            return
        controls.buzzer.on()
        try:
            heard = self.owner.confirm("buzzer", "does the buzzer sound?")
        finally:
            controls.buzzer.off()
        self._signal_line("buzzer", heard, f"[controls] buzzer_pin = {c.buzzer_pin}")

    def _signal_line(self, name: str, answer: bool | None, wiring: str) -> None:
        if answer is None:
            self._add(name, False, "not confirmed (no answer)", "run selftest at a terminal")
        elif answer:
            self._add(name, True, "confirmed by the owner")
        else:
            self._add(
                name,
                False,
                "not seen by the owner",
                f"check its polarity, series resistor and wire; {wiring}",
            )

    def _camera(self, stack: contextlib.ExitStack) -> CameraSource | None:
        try:
            camera = self.backend.open_camera(self.board)
            camera.open()
            stack.callback(camera.close)
            frames = [camera.read() for _ in range(3)]
        except (CameraError, NotImplementedError) as exc:
            self._add(
                "camera",
                False,
                str(exc),
                "check the camera's ribbon cable and [camera] source; on a Pi, "
                "`rpicam-hello --list-cameras` lists what the system sees",
            )
            return None
        h, w = frames[-1].image.shape[:2]
        self._add("camera", True, f"{len(frames)} frames of {w} x {h} px")
        return camera

    def _read(self, camera: CameraSource, reader: BoardReader) -> FrameReading | None:
        try:
            frame = camera.read()
        except CameraError:
            return None
        return reader.read(frame.image, frame.timestamp_s)

    def _markers(self, camera: CameraSource) -> FrameReading | None:
        reader = BoardReader(self.board)
        seen: set[int] = set()
        best: FrameReading | None = None
        for _ in range(MARKER_FRAMES):
            reading = self._read(camera, reader)
            if reading is None:
                continue
            seen |= set(reading.markers_seen)
            if reading.cloud is not None:
                best = reading
        corners = self.board.markers.corners
        missing = [m for m in corners if m.id not in seen]
        under = []
        if best is not None and best.cloud is not None:  # a corner the cloud itself hides
            reach = self.board.cloud.footprint_radius_mm
            under = [
                m
                for m in missing
                if math.dist((m.x_mm, m.y_mm), (best.cloud.x_mm, best.cloud.y_mm))
                <= reach + m.size_mm
            ]
        if under and len(under) == len(missing):
            ids = ", ".join(str(m.id) for m in under)
            self._add(
                "corner markers",
                None,
                f"marker {ids} lies under the cloud; the others are seen",
                "home the rig (the cloud then waits at the centre) and run again",
            )
        elif missing:
            names = ", ".join(f"{m.id} at ({m.x_mm:g}, {m.y_mm:g}) mm" for m in missing)
            self._add(
                "corner markers",
                False,
                f"not seen: {names}",
                "uncover those corners; check the camera's framing, focus and the light",
            )
        else:
            self._add("corner markers", True, f"all {len(corners)} seen")
        cloud_id = self.board.markers.cloud_id
        if best is None or best.cloud is None:
            self._add(
                "cloud marker",
                False,
                f"marker {cloud_id} on the cloud not seen",
                "uncover the marker on the cloud; it must face up, flat, fully in view",
            )
            return None
        cloud = best.cloud
        self._add(
            "cloud marker",
            True,
            f"marker {cloud_id} at dot ({cloud.col}, {cloud.row}), "
            f"letter {cloud.letter_name}, heading {cloud.heading_deg:.1f} degrees",
        )
        return best

    def _homing(self, mover: CloudMover) -> None:
        names = [axis.name for axis in self.config.gantry.axes]
        blocked = [f"endstop {n}" for n in names if self._failed(f"endstop {n}")]
        if self._failed("e-stop"):
            blocked.append("e-stop")
        if blocked:
            for name in ("y", "x"):  # the order homing takes
                self._add(
                    f"homing {name}",
                    None,
                    f"not tried: the {' and '.join(blocked)} line failed above",
                )
            return
        try:
            mover.home()
        except HardwareError as exc:
            text = str(exc)
            failed = next((n for n in names if f"axis {n}" in text), None)
            for name in ("y", "x"):  # the order homing takes
                if failed is None or name == failed:
                    self._add(
                        f"homing {name}",
                        False,
                        text,
                        "watch the carriage: it must move toward the endstop; if it "
                        "moves away, set invert_dir; if it stalls, lower home_speed_mm_s",
                    )
                    if failed is not None:
                        break
                else:
                    self._add(f"homing {name}", True, "found its endstop")
            return
        for name in ("y", "x"):
            self._add(f"homing {name}", True, "found its endstop, backed off and found it again")

    def _full_turn(
        self, mover: CloudMover, camera: CameraSource | None, reading: FrameReading | None
    ) -> None:
        needs = []
        if isinstance(mover.rotation, _NoRotation):
            needs.append("I2C PCA9685")
        if not mover.homed:
            needs.append("homing")
        if camera is None or reading is None:
            needs.append("camera" if camera is None else "cloud marker")
        if needs:
            self._add("cloud full turn", None, f"not tried: needs {' and '.join(needs)}")
            return
        assert camera is not None
        reader = BoardReader(self.board)
        try:
            mover.goto_dot(*self.board.grid.centre)
            start = self._read(camera, reader)
            if start is None or start.cloud is None:
                self._add(
                    "cloud full turn",
                    False,
                    "the cloud marker was lost at the centre dot",
                    "check the light and the camera's view of the centre",
                )
                return
            mover.rotation.assume_letter(start.cloud.letter)
            first = start.cloud.letter
            count = len(LETTERS)
            for k in range(1, count + 1):
                letter = (first + k) % count
                mover.turn_to(letter)
                seen = self._read(camera, reader)
                if seen is None or seen.cloud is None or seen.cloud.letter != letter:
                    shown = (
                        "nothing"
                        if seen is None or seen.cloud is None
                        else f"letter {seen.cloud.letter_name}"
                    )
                    self._add(
                        "cloud full turn",
                        False,
                        f"turned to letter {LETTERS[letter]}, the marker shows {shown}",
                        "check the rotation motor's channels (ULN2003 IN1..IN4), "
                        "half_steps_per_rev, step_rate_hz and the coupling to the cloud",
                    )
                    return
            assert seen is not None and seen.cloud is not None
            drift = signed_deg(seen.cloud.heading_deg - start.cloud.heading_deg)
        except HardwareError as exc:
            self._add(
                "cloud full turn",
                False,
                str(exc),
                "check the PCA9685's power and the motor's wiring",
            )
            return
        if abs(drift) > TURN_TOLERANCE_DEG:
            self._add(
                "cloud full turn",
                False,
                f"after a full turn the marker is {drift:+.1f} degrees off where it began",
                "run `bermuda-hw calibrate rotation` (half_steps_per_rev)",
            )
            return
        self._add(
            "cloud full turn",
            True,
            f"all {count} letters seen at the notch; back within {abs(drift):.1f} degrees",
        )


def _pressed(device: Any) -> Callable[[], bool]:
    return lambda: bool(device.is_pressed)


def run_selftest(
    config: Config, board: Board, backend: Backend, owner: Owner, **options: Any
) -> list[CheckLine]:
    """Run the checklist; see `SelfTest`."""
    return SelfTest(config, board, backend, owner, **options).run()
