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

It also keeps lgpio's wave queue (lgPthTx.c): `tx_wave` queues a list of
`pulse(group_bits, group_mask, pulse_delay)` on a group leader, at most ten
waves per group (`tx_room`), played back to back by lgpio's tx thread, which
starts a new wave at its next wake (at least every 20 ms) and ends it once
the last pulse's delay has passed (`tx_busy` turns 0); `group_free` stops a
wave at once. The stand-in plays the queue against its clock whenever it is
called: every played write is kept in `played` with the time the tx thread
would make it, and each `tx_wave` call's pulses in `waves`.
"""

from __future__ import annotations

import contextlib
import sys
import time
import types
from collections import Counter
from collections.abc import Callable, Iterator
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
TX_PWM = 0
TX_WAVE = 1
TX_BUF = 10  # LG_TX_BUF (lgPthTx.h): waves queued per group
TX_IDLE_WAKE_S = 0.020  # lgPthTx.c: the tx thread runs at least fifty times a second

_IS_OUT = 1 << 1
_IS_LG_OUTPUT = 1 << 9
_IS_LG_GROUP = 1 << 11


class error(Exception):
    """lgpio.error."""


class pulse:  # lgpio's own name
    """lgpio.pulse: the levels to set (bits, where mask has a 1), then a delay in us."""

    def __init__(self, group_bits: int, group_mask: int, pulse_delay: int) -> None:
        self.group_bits = group_bits
        self.group_mask = group_mask
        self.pulse_delay = pulse_delay


class _WaveRecord:
    """lgTxRec_t of type LG_TX_WAVE: the queued waves of one group and where playback is."""

    def __init__(self, leader: int, pulses: list[tuple[int, int, int]], start_s: float) -> None:
        self.leader = leader
        self.entries = [pulses]
        self.pos = 0
        self.next_s = start_s
        self.active = True


class StandInLgpio(types.ModuleType):
    """The `lgpio` module's GPIO calls over an in-memory chip; `calls` counts each one."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("lgpio")
        self.clock = clock
        self.calls: Counter[str] = Counter()
        self.waves: list[tuple[int, list[tuple[int, int, int]]]] = []  # tx_wave calls
        self.played: list[tuple[float, int, int]] = []  # (time_s, gpio, level) by the tx thread
        # (gpio, level, time_s) for every level an output is given, by a write or the tx thread
        self.on_level: Callable[[int, int, float], None] | None = None
        self.tx_start_s: list[float] = []  # when each wave record started
        self._tx: dict[int, _WaveRecord] = {}
        self._tx_wake_s = clock()
        self._jumpers: dict[int, int] = {}  # output line -> the input line wired to it
        self._alerts: dict[int, list[tuple[int, Any]]] = {}  # line -> (edges, func)
        self.levels: dict[int, int] = {}
        self.modes: dict[int, int] = {}
        self.groups: dict[int, list[int]] = {}
        self.writes: list[tuple[int, int]] = []  # (gpio, level) in order, for checking edges
        for name, value in globals().items():
            if name.isupper():
                setattr(self, name, value)
        self.error = error
        self.pulse = pulse

    @property
    def kernel_calls(self) -> int:
        """Calls that are an ioctl on the chip in the real module (everything but open/close)."""
        return sum(
            n for name, n in self.calls.items() if name not in ("gpiochip_open", "gpiochip_close")
        )

    def reset_counts(self) -> None:
        self.calls.clear()
        self.writes.clear()
        self.waves.clear()
        self.played.clear()

    # --- lgpio's tx thread, played against the clock ----------------------------------

    def _play(self) -> None:
        """Make every wave write the tx thread would have made by now (lgPthTx.c's loop)."""
        now = self.clock()
        for record in list(self._tx.values()):
            while record.active and record.next_s <= now:
                if record.pos >= len(record.entries[0]) and len(record.entries) > 1:
                    record.entries.pop(0)
                    record.pos = 0
                if record.pos < len(record.entries[0]):
                    bits, mask, delay_us = record.entries[0][record.pos]
                    self._group_levels(record.leader, bits, mask, record.next_s)
                    record.next_s += delay_us * 1e-6
                    record.pos += 1
                else:
                    record.active = False
            self._tx_wake_s = max(self._tx_wake_s, min(record.next_s, now))
            if not record.active:
                del self._tx[record.leader]

    def _group_levels(self, leader: int, bits: int, mask: int, at_s: float) -> None:
        for bit, line in enumerate(self.groups.get(leader, [leader])):
            if mask >> bit & 1:
                level = bits >> bit & 1
                changed = self.levels.get(line) != level
                self.levels[line] = level
                self.played.append((at_s, line, level))
                if self.on_level is not None:
                    self.on_level(line, level, at_s)
                if changed:
                    self._echo(line, level, at_s)

    def jumper(self, output: int, input_line: int) -> None:
        """Wire an output line to an input line: the input's alerts see the output's edges,
        stamped with the time they are made (as the kernel stamps an edge)."""
        self._jumpers[output] = input_line

    def _echo(self, line: int, level: int, at_s: float) -> None:
        target = self._jumpers.get(line)
        if target is None:
            return
        self.levels[target] = level
        for edges, func in list(self._alerts.get(target, [])):
            if edges & (RISING_EDGE if level else FALLING_EDGE):
                func(0, target, level, int(at_s * 1e9))

    def _next_wake_s(self) -> float:
        """The tx thread's next wake with nothing to send: on its 20 ms round."""
        now = self.clock()
        wake = self._tx_wake_s
        while wake < now:
            wake += TX_IDLE_WAKE_S
        return wake

    def tx_wave(self, handle: int, gpio: int, pulses: list[pulse]) -> int:
        if not pulses:
            return 0  # lgpio.py returns 0 without calling the C library
        self.calls["tx_wave"] += 1
        self._play()
        mode = self.modes.get(gpio, 0)
        if not mode & _IS_OUT and not mode & _IS_LG_GROUP:
            # xWave: a line that is not an output and not in a group becomes one, low
            self.modes[gpio] = _IS_OUT | _IS_LG_OUTPUT
            self.levels[gpio] = 0
        if not self.modes[gpio] & _IS_OUT:
            raise error("GPIO not set as an output")
        queued = [(p.group_bits, p.group_mask, p.pulse_delay) for p in pulses]
        record = self._tx.get(gpio)
        if record is not None and record.active:
            if len(record.entries) >= TX_BUF:
                raise error("TX queue full")
            record.entries.append(queued)
            self.waves.append((gpio, queued))
            return TX_BUF - len(record.entries)
        start = self._next_wake_s()
        self._tx[gpio] = _WaveRecord(gpio, queued, start)
        self.tx_start_s.append(start)
        self.waves.append((gpio, queued))
        return TX_BUF - 1

    def tx_busy(self, handle: int, gpio: int, kind: int) -> int:
        self.calls["tx_busy"] += 1
        if kind not in (TX_PWM, TX_WAVE):
            raise error("bad tx type for GPIO and group")
        self._play()
        record = self._tx.get(gpio)
        return int(kind == TX_WAVE and record is not None and record.active)

    def tx_room(self, handle: int, gpio: int, kind: int) -> int:
        self.calls["tx_room"] += 1
        if kind not in (TX_PWM, TX_WAVE):
            raise error("bad tx type for GPIO and group")
        self._play()
        record = self._tx.get(gpio)
        if kind == TX_WAVE and record is not None and record.active:
            return TX_BUF - len(record.entries)
        return TX_BUF

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

    def gpio_claim_output(self, handle: int, gpio: int, level: int = 0, lFlags: int = 0) -> int:
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
        self._play()
        return self.levels.get(gpio, 0)

    def gpio_write(self, handle: int, gpio: int, level: int) -> int:
        self.calls["gpio_write"] += 1
        self._play()
        if not self.modes.get(gpio, 0) & _IS_OUT:
            raise error("GPIO not allocated for output")
        changed = self.levels.get(gpio) != int(bool(level))
        self.levels[gpio] = int(bool(level))
        self.writes.append((gpio, int(bool(level))))
        if self.on_level is not None:
            self.on_level(gpio, int(bool(level)), self.clock())
        if changed:
            self._echo(gpio, int(bool(level)), self.clock())
        return 0

    def group_claim_output(
        self,
        handle: int,
        gpio: list[int],
        levels: list[int] | None = None,
        lFlags: int = 0,
    ) -> int:
        self.calls["group_claim_output"] += 1
        if any(line in self.modes for line in gpio):
            raise error("GPIO busy")  # the kernel refuses a line another request holds
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
        """Free a group; a wave on it stops at once, queued waves and all (xSetAsFree)."""
        self.calls["group_free"] += 1
        self._play()
        record = self._tx.pop(gpio, None)
        if record is not None:
            record.active = False
        for line in self.groups.pop(gpio, []):
            self.modes.pop(line, None)
        return 0

    def tx_pwm(
        self,
        handle: int,
        gpio: int,
        frequency: float,
        duty: float,
        offset: int = 0,
        cycles: int = 0,
    ) -> int:
        self.calls["tx_pwm"] += 1
        return 0

    def gpio_set_debounce_micros(self, handle: int, gpio: int, micros: int) -> int:
        self.calls["gpio_set_debounce_micros"] += 1
        return 0

    def gpio_claim_alert(
        self, handle: int, gpio: int, eFlags: int, lFlags: int = 0, notify_handle: Any = None
    ) -> int:
        self.calls["gpio_claim_alert"] += 1
        self.modes[gpio] = lFlags
        return 0

    def callback(self, handle: int, gpio: int, edge: int = RISING_EDGE, func: Any = None) -> Any:
        """lgpio.callback: `func(chip, gpio, level, tick_ns)` on each alert of the line."""
        self.calls["callback"] += 1
        if func is None:
            return types.SimpleNamespace(cancel=lambda: None)
        entry = (edge, func)
        self._alerts.setdefault(gpio, []).append(entry)

        def cancel() -> None:
            with contextlib.suppress(ValueError):
                self._alerts.get(gpio, []).remove(entry)

        return types.SimpleNamespace(cancel=cancel)


PI4B_REVISION = 0xC03111  # a Raspberry Pi 4 Model B, 4 GB


@contextmanager
def standin_lgpio_factory(
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[tuple[Any, StandInLgpio]]:
    """gpiozero's own `LGPIOFactory` over the stand-in module, as on a Pi 4; closed afterwards."""
    module = StandInLgpio(clock)
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
