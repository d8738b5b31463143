"""Stand-ins for the Pi-only modules lgpio and smbus2, faithful to the calls gpiozero and
our I2C bus make (lgpio 0.2's Python API, smbus2's i2c_rdwr and i2c_msg)."""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

from bermuda_hw.sim.pca9685 import FakeI2C

# lgpio's line flags (lgpio.py 0.2)
SET_ACTIVE_LOW, SET_OPEN_DRAIN, SET_OPEN_SOURCE = 4, 8, 16
SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128
GPIO_IS_OUT = 1 << 1


@dataclass
class Line:
    mode: str = "free"  # "free", "input", "output", "alert"
    level: int = 0
    flags: int = 0


@dataclass
class FakeChip:
    """/dev/gpiochipN as lgpio sees it: lines, their modes and every level written."""

    number: int
    lines: dict[int, Line] = field(default_factory=dict)
    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def line(self, gpio: int) -> Line:
        return self.lines.setdefault(gpio, Line())

    def levels(self, gpio: int) -> list[int]:
        """Every level the line was driven to as an output, in order."""
        return [c[2] for c in self.calls if c[0] in ("claim_output", "write") and c[1] == gpio]


def make_lgpio(chips: dict[int, FakeChip], *, fail_open: str | None = None) -> types.ModuleType:
    """A module named lgpio over some fake gpiochips; `fail_open` makes gpiochip_open fail."""
    module = types.ModuleType("lgpio")

    class error(Exception):
        pass

    handles: dict[int, FakeChip] = {}

    def gpiochip_open(number: int) -> int:
        if fail_open is not None or number not in chips:
            raise error(fail_open or "can not open gpiochip")
        handle = len(handles) + 1
        handles[handle] = chips[number]
        return handle

    def gpiochip_close(handle: int) -> int:
        handles.pop(handle)
        return 0

    def gpio_claim_input(handle: int, gpio: int, lFlags: int = 0) -> int:
        chip = handles[handle]
        line = chip.line(gpio)
        line.mode, line.flags = "input", lFlags
        chip.calls.append(("claim_input", gpio, lFlags))
        return 0

    def gpio_claim_output(handle: int, gpio: int, level: int = 0, lFlags: int = 0) -> int:
        chip = handles[handle]
        line = chip.line(gpio)
        line.mode, line.level, line.flags = "output", int(level), lFlags
        chip.calls.append(("claim_output", gpio, int(level)))
        return 0

    def gpio_claim_alert(
        handle: int, gpio: int, eFlags: int, lFlags: int = 0, notify_handle: Any = None
    ) -> int:
        handles[handle].line(gpio).mode = "alert"
        return 0

    def gpio_free(handle: int, gpio: int) -> int:
        handles[handle].line(gpio).mode = "free"
        return 0

    def gpio_get_mode(handle: int, gpio: int) -> int:
        line = handles[handle].line(gpio)
        return (GPIO_IS_OUT if line.mode == "output" else 0) | line.flags

    def gpio_read(handle: int, gpio: int) -> int:
        line = handles[handle].line(gpio)
        if line.mode != "output" and line.flags & SET_PULL_UP:
            return 1
        return line.level

    def gpio_write(handle: int, gpio: int, level: int) -> int:
        chip = handles[handle]
        chip.line(gpio).level = int(level)
        chip.calls.append(("write", gpio, int(level)))
        return 0

    def gpio_set_debounce_micros(handle: int, gpio: int, micros: int) -> int:
        return 0

    class _Callback:
        def cancel(self) -> None:
            pass

    def callback(handle: int, gpio: int, edge: int = 2, func: Any = None) -> _Callback:
        return _Callback()

    for name, value in {
        "error": error,
        "gpiochip_open": gpiochip_open,
        "gpiochip_close": gpiochip_close,
        "gpio_claim_input": gpio_claim_input,
        "gpio_claim_output": gpio_claim_output,
        "gpio_claim_alert": gpio_claim_alert,
        "gpio_free": gpio_free,
        "gpio_get_mode": gpio_get_mode,
        "gpio_read": gpio_read,
        "gpio_write": gpio_write,
        "gpio_set_debounce_micros": gpio_set_debounce_micros,
        "callback": callback,
        "SET_ACTIVE_LOW": SET_ACTIVE_LOW,
        "SET_OPEN_DRAIN": SET_OPEN_DRAIN,
        "SET_OPEN_SOURCE": SET_OPEN_SOURCE,
        "SET_PULL_UP": SET_PULL_UP,
        "SET_PULL_DOWN": SET_PULL_DOWN,
        "SET_PULL_NONE": SET_PULL_NONE,
        "RISING_EDGE": 1,
        "FALLING_EDGE": 2,
        "BOTH_EDGES": 3,
    }.items():
        setattr(module, name, value)
    return module


class _Msg:
    """smbus2.i2c_msg: one message of an I2C_RDWR transfer."""

    def __init__(self, address: int, data: bytes, read: bool) -> None:
        self.addr = address
        self.buf = bytearray(data)
        self.read = read
        self.len = len(data)

    def __bytes__(self) -> bytes:
        return bytes(self.buf)

    def __iter__(self) -> Any:
        return iter(self.buf)


def make_smbus2(buses: dict[int, FakeI2C]) -> types.ModuleType:
    """A module named smbus2 whose SMBus(n) talks to `buses[n]` (the PCA9685 emulator's bus);
    a missing n is a missing /dev/i2c-n."""
    module = types.ModuleType("smbus2")

    class i2c_msg:
        @staticmethod
        def write(address: int, data: bytes | list[int]) -> _Msg:
            return _Msg(address, bytes(data), read=False)

        @staticmethod
        def read(address: int, length: int) -> _Msg:
            return _Msg(address, bytes(length), read=True)

    class SMBus:
        def __init__(self, bus: int) -> None:
            if bus not in buses:
                raise FileNotFoundError(2, "No such file or directory", f"/dev/i2c-{bus}")
            self.fake = buses[bus]
            self.closed = False
            self.transfers: list[int] = []

        def i2c_rdwr(self, *messages: _Msg) -> None:
            self.transfers.append(len(messages))
            while not self.fake.try_lock():
                pass
            try:
                for message in messages:
                    if message.read:
                        data = bytearray(message.len)
                        self.fake.readfrom_into(message.addr, data)
                        message.buf[:] = data
                    else:
                        self.fake.writeto(message.addr, bytes(message.buf))
            finally:
                self.fake.unlock()

        def close(self) -> None:
            self.closed = True

    module.SMBus = SMBus  # type: ignore[attr-defined]
    module.i2c_msg = i2c_msg  # type: ignore[attr-defined]
    return module
