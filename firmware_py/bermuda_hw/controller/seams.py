"""What the controller is handed: the cloud mover, the table's controls and their signals.

On the rig and on the simulated table the controller gets the same classes
(`motion.mover.CloudMover`, `devices.controls.TableControls`, gpiozero's LED
and Buzzer); these protocols say what it relies on of them, so that
`mypy --strict` checks both and a stand-in needs nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bermuda_hw.motion.mover import MoveReport, SpinReport
    from bermuda_hw.motion.stepstream import Pausable
    from bermuda_hw.planning.kinematics import GantryKinematics
    from bermuda_hw.planning.route import HomingApproach
    from bermuda_hw.rules.cloud import CloudPose, Spin


class Light(Protocol):
    """A status LED (gpiozero's `LED`)."""

    def on(self) -> None: ...
    def off(self) -> None: ...
    def blink(
        self, on_time: float = 1, off_time: float = 1, n: int | None = None, background: bool = True
    ) -> None: ...


class Beeper(Protocol):
    """A buzzer (gpiozero's `Buzzer`)."""

    def off(self) -> None: ...
    def beep(
        self, on_time: float = 1, off_time: float = 1, n: int | None = None, background: bool = True
    ) -> None: ...


class Button(Protocol):
    """A push button whose presses and holds call back (gpiozero's `Button` events)."""

    when_pressed: Callable[[], None] | None
    when_held: Callable[[], None] | None
    hold_time: float


class Controls(Protocol):
    """The table's buttons and signals (`devices.controls.TableControls`)."""

    status_led: Light
    buzzer: Beeper | None
    spin_button: Button

    @property
    def estop_engaged(self) -> bool:
        """True while the e-stop button is held (False when there is none)."""
        ...

    def on_estop(self, callback: Callable[[], None]) -> None: ...


class Mover(Protocol):
    """Drives the cloud: homing, moves along the grid, turns (`motion.mover.CloudMover`)."""

    estop_reason: str | None
    kinematics: GantryKinematics

    @property
    def stopped(self) -> bool:
        """An emergency stop holds the motors (until the next homing)."""
        ...

    @property
    def letter(self) -> int:
        """The letter the rotation believes the cloud shows at the notch."""
        ...

    @property
    def clockwise_only(self) -> bool:
        """The rotation turns the cloud clockwise only (a stepper; a servo turns back)."""
        ...

    def assume_letter(self, letter: int) -> None:
        """Declare which letter the cloud shows (as the camera saw it)."""
        ...

    def home(self, approach: HomingApproach | None = None) -> None: ...
    def goto_mm(self, x_mm: float, y_mm: float) -> MoveReport: ...
    def goto_dot(self, col: int, row: int) -> MoveReport: ...
    def turn_to(self, letter: int) -> float: ...
    def execute_spin(self, spin: Spin) -> SpinReport: ...
    def pose(self) -> CloudPose: ...
    def emergency_stop(self, reason: str = ...) -> None: ...
    def add_interlock(self, blocked: Callable[[], bool]) -> None: ...
    def set_heartbeat(self, beat: Callable[[], None] | None) -> None: ...
    def pause_during_moves(self, thing: Pausable) -> None: ...
    def forget_pausable(self, thing: Pausable) -> None: ...
