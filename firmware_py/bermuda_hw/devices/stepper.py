"""A step/dir stepper axis and the drivers' shared enable pin, as gpiozero output devices."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from gpiozero import DigitalOutputDevice

from bermuda_hw.config import AxisConfig


class MotorEnable:
    """The drivers' shared ENABLE input: motor current on or off."""

    def __init__(self, pin: int, *, active_high: bool, pin_factory: Any) -> None:
        # initial_value=False: the drivers start disabled
        self._device = DigitalOutputDevice(
            pin, active_high=active_high, initial_value=False, pin_factory=pin_factory
        )

    @property
    def is_enabled(self) -> bool:
        return bool(self._device.value)

    def enable(self) -> None:
        self._device.on()

    def disable(self) -> None:
        if not self._device.closed:
            self._device.off()

    def close(self) -> None:
        """Disable the drivers and release the pin; closing twice is fine."""
        self.disable()
        self._device.close()

    def __enter__(self) -> MotorEnable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class MotorSupply:
    """The relay (or contactor) that switches the motor supply, where the rig has one.

    Open is the safe state: the relay is built open, opened on every emergency
    stop and fault, and left open when the program exits (the relay's own spring
    holds it so once the pin is released). It closes only when homing starts.
    """

    def __init__(self, pin: int, *, active_high: bool, pin_factory: Any) -> None:
        self._device = DigitalOutputDevice(
            pin, active_high=active_high, initial_value=False, pin_factory=pin_factory
        )

    @property
    def is_closed(self) -> bool:
        return bool(self._device.value)

    def close_relay(self) -> None:
        self._device.on()

    def open(self) -> None:
        if not self._device.closed:
            self._device.off()

    def close(self) -> None:
        """Open the relay and release the pin; twice is fine."""
        self.open()
        self._device.close()


class StepperAxis:
    """One gantry axis's driver: STEP and DIR outputs, the mechanics and the direction sense.

    The step thread pulses the STEP output through `write_step(level)`: one
    rising edge is one (micro)step. On gpiozero's lgpio factory a pin's state
    setter first asks the chip for the line's mode (an ioctl) and then writes
    it (another); the line is ours and an output, so `write_step` writes it
    with lgpio directly, one ioctl per edge. Other factories use the pin.
    """

    def __init__(self, config: AxisConfig, *, pin_factory: Any) -> None:
        self.config = config
        self._step = DigitalOutputDevice(
            config.step_pin, initial_value=False, pin_factory=pin_factory
        )
        try:
            self._dir = DigitalOutputDevice(
                config.dir_pin, initial_value=False, pin_factory=pin_factory
            )
        except Exception:
            self._step.close()
            raise
        self.step_pin: Any = self._step.pin
        self.write_step: Callable[[bool], None] = _line_writer(self.step_pin)
        self._direction = 0

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def steps_per_mm(self) -> float:
        return self.config.steps_per_mm

    @property
    def direction(self) -> int:
        """+1 (away from the endstop), -1 (toward it), or 0 before the first move."""
        return self._direction

    def set_direction(self, direction: int) -> None:
        """Set DIR so that the next steps move away from (+1) or toward (-1) the endstop."""
        if direction == self._direction:
            return
        level = (direction > 0) != self.config.invert_dir
        self._dir.value = level
        self._direction = 1 if direction > 0 else -1

    def step_low(self) -> None:
        """Make sure STEP is low (after a stop in the middle of a pulse)."""
        if not self._step.closed:
            self._step.off()

    @property
    def closed(self) -> bool:
        return bool(self._step.closed)

    def close(self) -> None:
        """Release the pins; closing twice is fine."""
        self.step_low()
        self._step.close()
        self._dir.close()

    def __enter__(self) -> StepperAxis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _line_writer(pin: Any) -> Callable[[bool], None]:
    """The cheapest way to set an output pin's level that its factory allows."""
    lgpio = sys.modules.get("lgpio")
    handle = getattr(pin.factory, "_handle", None)  # gpiozero's LGPIOFactory chip handle
    if lgpio is not None and handle is not None and type(pin).__name__ == "LGPIOPin":
        number = int(pin.info.name[4:])  # "GPIO20": the line on the chip, as LGPIOPin has it
        write = lgpio.gpio_write

        def write_line(level: bool) -> None:
            write(handle, number, level)

        return write_line

    def set_state(level: bool) -> None:
        pin.state = level

    return set_state
