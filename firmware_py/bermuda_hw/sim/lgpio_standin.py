"""A stand-in for the `lgpio` module, counting the calls that reach the kernel, for gpiozero.

gpiozero's `LGPIOFactory` (gpiozero/pins/lgpio.py) imports `lgpio` and calls
`gpiochip_open`, `gpio_claim_input`/`gpio_claim_output` when a pin changes
function, `gpio_get_mode` to read the function back, `gpio_read`/`gpio_write`
for the level, and `gpio_free` before re-claiming an input with a pull. In the
real module each of these is one ioctl on /dev/gpiochipN. This stand-in keeps
the lines' levels and modes and counts every call, so a benchmark or a test
can run the unmodified gpiozero factory off a Pi and see how many kernel calls
a step costs. It also offers lgpio's group calls (`group_claim_output`,
`group_write`), which set several lines of one chip in a single ioctl.
"""

from __future__ import annotations

import sys
import types
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# lgpio's constants, as the real module defines them
SET_ACTIVE_LOW = 4
SET_OPEN_DRAIN = 8
SET_OPEN_SOURCE = 16
SET_PULL_UP = 32
SET_PULL_DOWN = 64
SET_PULL_NONE = 128
SET_BIAS_PULL_UP = SET_PULL_UP
SET_BIAS_PULL_DOWN = SET_PULL_DOWN
SET_BIAS_DISABLE = SET_PULL_NONE
RISING_EDGE = 1
FALLING_EDGE = 2
BOTH_EDGES = 3
GROUP_ALL = 0xFFFFFFFFFFFFFFFF

_IS_OUT = 1 << 1
_IS_LG_OUTPUT = 1 << 9
_IS_LG_GROUP = 1 << 11


class error(Exception):
    """lgpio.error."""


class StandInLgpio(types.ModuleType):
    """The `lgpio` module's GPIO calls over an in-memory chip; `calls` counts each one."""

    def __init__(self) -> None:
        super().__init__("lgpio")
        self.calls: Counter[str] = Counter()
        self.levels: dict[int, int] = {}
        self.modes: dict[int, int] = {}
        self.groups: dict[int, list[int]] = {}
        self.writes: list[tuple[int, int]] = []  # (gpio, level) in order, for checking edges
        for name, value in globals().items():
            if name.isupper():
                setattr(self, name, value)
        self.error = error

    @property
    def kernel_calls(self) -> int:
        """Calls that are an ioctl on the chip in the real module (everything but open/close)."""
        return sum(n for name, n in self.calls.items() if name not in ("gpiochip_open",
                                                                        "gpiochip_close"))

    def reset_counts(self) -> None:
        self.calls.clear()
        self.writes.clear()

    def gpiochip_open(self, chip: int) -> int:
        self.calls["gpiochip_open"] += 1
        return 1

    def gpiochip_close(self, handle: int) -> int:
        self.calls["gpiochip_close"] += 1
        return 0

    def gpio_claim_input(self, handle: int, gpio: int, lFlags: int = 0) -> int:
        self.calls["gpio_claim_input"] += 1
        self.modes[gpio] = lFlags
        self.levels.setdefault(gpio, 1 if lFlags & SET_PULL_UP else 0)
        return 0

    def gpio_claim_output(
        self, handle: int, gpio: int, level: int = 0, lFlags: int = 0
    ) -> int:
        self.calls["gpio_claim_output"] += 1
        self.modes[gpio] = lFlags | _IS_OUT | _IS_LG_OUTPUT
        self.levels[gpio] = int(bool(level))
        return 0

    def gpio_free(self, handle: int, gpio: int) -> int:
        self.calls["gpio_free"] += 1
        self.modes.pop(gpio, None)
        return 0

    def gpio_get_mode(self, handle: int, gpio: int) -> int:
        self.calls["gpio_get_mode"] += 1
        return self.modes.get(gpio, 0)

    def gpio_read(self, handle: int, gpio: int) -> int:
        self.calls["gpio_read"] += 1
        return self.levels.get(gpio, 0)

    def gpio_write(self, handle: int, gpio: int, level: int) -> int:
        self.calls["gpio_write"] += 1
        if not self.modes.get(gpio, 0) & _IS_OUT:
            raise error("GPIO not allocated for output")
        self.levels[gpio] = int(bool(level))
        self.writes.append((gpio, int(bool(level))))
        return 0

    def group_claim_output(
        self, handle: int, gpio: list[int], levels: list[int] | None = None,
        lFlags: int = 0,
    ) -> int:
        self.calls["group_claim_output"] += 1
        levels = levels or [0] * len(gpio)
        for line, level in zip(gpio, levels, strict=False):
            self.modes[line] = lFlags | _IS_OUT | _IS_LG_OUTPUT | _IS_LG_GROUP
            self.levels[line] = int(bool(level))
        self.groups[gpio[0]] = list(gpio)
        return 0

    def group_write(
        self, handle: int, gpio: int, group_bits: int, group_mask: int = GROUP_ALL
    ) -> int:
        self.calls["group_write"] += 1
        for bit, line in enumerate(self.groups[gpio]):
            if group_mask >> bit & 1:
                level = group_bits >> bit & 1
                self.levels[line] = level
                self.writes.append((line, level))
        return 0

    def group_free(self, handle: int, gpio: int) -> int:
        self.calls["group_free"] += 1
        for line in self.groups.pop(gpio, []):
            self.modes.pop(line, None)
        return 0

    def tx_pwm(self, handle: int, gpio: int, frequency: float, duty: float,
               offset: int = 0, cycles: int = 0) -> int:
        self.calls["tx_pwm"] += 1
        return 0

    def gpio_set_debounce_micros(self, handle: int, gpio: int, micros: int) -> int:
        self.calls["gpio_set_debounce_micros"] += 1
        return 0

    def gpio_claim_alert(self, handle: int, gpio: int, eFlags: int,
                         lFlags: int = 0, notify_handle: Any = None) -> int:
        self.calls["gpio_claim_alert"] += 1
        self.modes[gpio] = lFlags
        return 0

    def callback(self, handle: int, gpio: int, edge: int = RISING_EDGE, func: Any = None) -> Any:
        self.calls["callback"] += 1
        return types.SimpleNamespace(cancel=lambda: None)


PI4B_REVISION = 0xC03111  # a Raspberry Pi 4 Model B, 4 GB


@contextmanager
def standin_lgpio_factory() -> Iterator[tuple[Any, StandInLgpio]]:
    """gpiozero's own `LGPIOFactory` over the stand-in module, as on a Pi 4; closed afterwards."""
    module = StandInLgpio()
    previous = sys.modules.get("lgpio")
    sys.modules["lgpio"] = module
    try:
        import gpiozero.pins.lgpio as gz_lgpio

        gz_lgpio.lgpio = module

        class PiFourFactory(gz_lgpio.LGPIOFactory):  # type: ignore[misc]
            def _get_revision(self) -> int:
                return PI4B_REVISION

        factory = PiFourFactory(chip=0)
        try:
            yield factory, module
        finally:
            factory.close()
    finally:
        if previous is None:
            sys.modules.pop("lgpio", None)
        else:
            sys.modules["lgpio"] = previous
