"""The one place that builds the gantry's motion: the cloud mover wired to the table's e-stop.

Everything that moves the cloud (the daemon, `cloud`, `selftest`, `calibrate`)
builds it here, so none of them can move without the e-stop: its press stops
the step stream and disables the drivers from gpiozero's event thread, and its
level is read before the drivers are enabled and between steps. A rig without
an e-stop input is refused (exit 78, as every configuration error).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Self

from bermuda_hw.devices.controls import TableControls
from bermuda_hw.devices.stepper import MotorSupply
from bermuda_hw.errors import ConfigError, HardwareError
from bermuda_hw.motion.mover import CloudMover, ExecutorFactory

if TYPE_CHECKING:
    from bermuda_hw.backends import Backend
    from bermuda_hw.config import Config
    from bermuda_hw.devices.rotation import RotationActuator
    from bermuda_hw.rules.board import Board

# what lgpio says when another process (the running service) holds a line
GPIO_BUSY = "GPIO busy"


@dataclass
class Motion:
    """The cloud mover and the table's controls, with the e-stop wired between them."""

    mover: CloudMover
    controls: TableControls
    supply: MotorSupply | None = None
    closed: bool = field(default=False, init=False)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop and release the mover, open the supply relay, release the controls."""
        if self.closed:
            return
        self.closed = True
        try:
            self.mover.close()
        finally:
            try:
                if self.supply is not None:
                    self.supply.close()
            finally:
                self.controls.close()


def build_motion(
    config: Config,
    backend: Backend,
    board: Board,
    *,
    rotation: RotationActuator | None = None,
    executor: ExecutorFactory | None = None,
    on_estop: Callable[[], None] | None = None,
) -> Motion:
    """The mover and the controls over `backend`, the e-stop wired to the mover.

    `on_estop` is called (in gpiozero's event thread) after the mover has stopped.
    Raises ConfigError when `[controls] estop_pin` is not set.
    """
    controls_config = config.controls
    if controls_config.estop_pin is None:
        raise ConfigError(
            config.source,
            "controls.estop_pin",
            "no e-stop input: the gantry does not move without one. Wire the e-stop's "
            "normally-closed contact to a GPIO and to ground, and its second contact to drop "
            "the motor supply (hardware/README.md), then set estop_pin",
        )
    try:
        kwargs = {} if executor is None else {"executor": executor}
        mover = CloudMover(config, backend, board, rotation=rotation, **kwargs)
    except Exception as exc:
        raise _busy(exc) from exc
    supply: MotorSupply | None = None
    try:
        controls = TableControls(controls_config, pin_factory=backend.pin_factory)
        if controls_config.supply_relay_pin is not None:
            try:
                supply = MotorSupply(
                    controls_config.supply_relay_pin,
                    active_high=controls_config.supply_relay_active_high,
                    pin_factory=backend.pin_factory,
                )
            except BaseException:
                controls.close()
                raise
    except BaseException as exc:
        mover.close()
        if isinstance(exc, Exception):
            raise _busy(exc) from exc
        raise
    mover.set_supply(supply)

    def pressed() -> None:
        mover.emergency_stop("e-stop button")
        if on_estop is not None:
            on_estop()

    mover.add_interlock(lambda: controls.estop_engaged)
    controls.on_estop(pressed)
    return Motion(mover, controls, supply)


def _busy(exc: Exception) -> Exception:
    """A pin another process holds (the running service) named as such; others unchanged."""
    if GPIO_BUSY.lower() in str(exc).lower():
        return HardwareError(
            f"a GPIO line is in use by another process ({exc}): the service is probably "
            "running; stop it first (sudo systemctl stop bermuda-hw) and run this again"
        )
    return exc
