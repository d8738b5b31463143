"""A register-level PCA9685 emulator on a fake busio I2C bus, with injectable faults.

The emulator follows the NXP PCA9685 datasheet (rev. 4): MODE1 with SLEEP,
RESTART and auto-increment, PRE_SCALE writable only while asleep, the 16 LEDn
register quadruples with their full-on and full-off bits, the ALL_LED
registers, MODE2's INVRT, and the software reset on the general call address.
The bus implements the methods of `busio.I2C` that Adafruit's drivers call, and
answers a wrong address with the Remote I/O `OSError` that Linux gives.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from bermuda_hw.clock import Clock

MODE1 = 0x00
MODE2 = 0x01
SUBADR1 = 0x02
ALLCALLADR = 0x05
LED0_ON_L = 0x06
LED15_OFF_H = 0x45
ALL_LED_ON_L = 0xFA
ALL_LED_OFF_H = 0xFD
PRE_SCALE = 0xFE
TESTMODE = 0xFF

MODE1_RESTART = 0x80
MODE1_EXTCLK = 0x40
MODE1_AI = 0x20
MODE1_SLEEP = 0x10
MODE1_ALLCALL = 0x01
MODE2_INVRT = 0x10

FULL_BIT = 0x10  # bit 4 of LEDn_ON_H (full on) and LEDn_OFF_H (full off)

OSCILLATOR_HZ = 25_000_000
OSCILLATOR_SETTLE_S = 0.0005
GENERAL_CALL = 0x00
SWRST_BYTE = 0x06

# Power-on register values (datasheet table 4).
_RESET_VALUES = {
    MODE1: 0x11,
    MODE2: 0x04,
    0x02: 0xE2,
    0x03: 0xE4,
    0x04: 0xE8,
    ALLCALLADR: 0xE0,
    PRE_SCALE: 0x1E,
}

Listener = Callable[["PCA9685Emulator", float], None]


@dataclass(frozen=True)
class ChannelOutput:
    """What one output pin does: the fraction of each PWM period it is high."""

    duty: float  # 0.0 .. 1.0, after MODE2 INVRT
    on_count: int
    off_count: int


class PCA9685Emulator:
    """The PCA9685's registers and outputs, driven by I2C transfers."""

    def __init__(self, address: int = 0x40, clock: Clock | None = None) -> None:
        self.address = address
        self.clock = clock
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self.regs = bytearray(256)
        self.pointer = 0
        self._halted = False
        self._awake_since_s: float | None = None
        self.restart_violations = 0
        self.writes = 0
        self._power_on()

    # --- state --------------------------------------------------------------------------

    def _power_on(self) -> None:
        self.regs[:] = bytes(256)
        for reg, value in _RESET_VALUES.items():
            self.regs[reg] = value
        for channel in range(16):
            self.regs[LED0_ON_L + 4 * channel + 3] = FULL_BIT  # LEDn_OFF_H: full off
        self.pointer = 0
        self._halted = False
        self._awake_since_s = None

    def software_reset(self) -> None:
        """SWRST: back to the power-on state (general call 0x00, data 0x06)."""
        with self._lock:
            self._power_on()
        self._notify()

    @property
    def asleep(self) -> bool:
        return bool(self.regs[MODE1] & MODE1_SLEEP)

    @property
    def running(self) -> bool:
        """True while the PWM outputs run (awake, and not waiting for a restart)."""
        return not self.asleep and not self._halted

    @property
    def prescale(self) -> int:
        return self.regs[PRE_SCALE]

    @property
    def frequency_hz(self) -> float:
        return OSCILLATOR_HZ / (4096 * (self.prescale + 1))

    def counts(self, channel: int) -> tuple[int, int]:
        """The raw 16-bit LEDn_ON and LEDn_OFF registers (bit 12 is the full bit)."""
        base = LED0_ON_L + 4 * channel
        on = self.regs[base] | self.regs[base + 1] << 8
        off = self.regs[base + 2] | self.regs[base + 3] << 8
        return on, off

    def output(self, channel: int) -> ChannelOutput:
        """The output of one channel as the pin shows it."""
        with self._lock:
            on, off = self.counts(channel)
            return ChannelOutput(self._duty(channel), on & 0x1FFF, off & 0x1FFF)

    def duties(self, channels: tuple[int, ...]) -> tuple[float, ...]:
        """The duty of each of some channels (`output(c).duty`), read at one instant."""
        with self._lock:
            return tuple(self._duty(channel) for channel in channels)

    def _duty(self, channel: int) -> float:
        on, off = self.counts(channel)
        if not self.running or off & 0x1000:
            duty = 0.0
        elif on & 0x1000:
            duty = 1.0
        else:
            duty = (((off & 0x0FFF) - (on & 0x0FFF)) % 4096) / 4096.0
        if self.regs[MODE2] & MODE2_INVRT:
            duty = 1.0 - duty
        return duty

    def pulse_width_us(self, channel: int) -> float:
        """High time of one PWM period on a channel, in microseconds."""
        return self.output(channel).duty * 1e6 / self.frequency_hz

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(emulator, time_s)` after every transfer that wrote a register."""
        self._listeners.append(listener)

    def _now(self) -> float:
        return self.clock.monotonic() if self.clock is not None else time.monotonic()

    def _notify(self) -> None:
        now = self._now()
        for listener in list(self._listeners):
            listener(self, now)

    # --- bus side ---------------------------------------------------------------------

    def _advance(self) -> None:
        if self.regs[MODE1] & MODE1_AI:
            self.pointer = (self.pointer + 1) & 0xFF

    def i2c_write(self, data: bytes) -> None:
        """One write transfer addressed to this chip (after the address byte)."""
        if not data:
            return  # an address-only probe: acknowledged, nothing changes
        with self._lock:
            self.pointer = data[0]
            count = len(data) - 1
            end = self.pointer + count
            if self.regs[MODE1] & MODE1_AI and self.pointer >= LED0_ON_L and end - 1 <= LED15_OFF_H:
                # LEDn registers only, auto-incrementing (what a driver's channel write
                # is): plain registers, written in turn
                self.regs[self.pointer : end] = data[1:]
                self.pointer = end & 0xFF
            else:
                for byte in data[1:]:
                    self._write_register(self.pointer, byte)
                    self._advance()
            self.writes += 1
        if len(data) > 1:
            self._notify()

    def i2c_read(self, count: int) -> bytes:
        """One read transfer of `count` bytes from the register pointer."""
        out = bytearray()
        with self._lock:
            for _ in range(count):
                out.append(self._read_register(self.pointer))
                self._advance()
        return bytes(out)

    def _read_register(self, reg: int) -> int:
        if ALL_LED_ON_L <= reg <= ALL_LED_OFF_H:
            return 0  # the ALL_LED registers read back as zero
        if LED15_OFF_H < reg < ALL_LED_ON_L:
            return 0  # reserved
        if reg == MODE1:
            value = self.regs[MODE1] & ~MODE1_RESTART
            return value | (MODE1_RESTART if self._halted else 0)
        return self.regs[reg]

    def _write_register(self, reg: int, value: int) -> None:
        if reg == MODE1:
            self._write_mode1(value)
        elif reg == PRE_SCALE:
            if self.asleep:  # writes are blocked while the oscillator runs
                self.regs[PRE_SCALE] = max(value, 3)
        elif ALL_LED_ON_L <= reg <= ALL_LED_OFF_H:
            offset = reg - ALL_LED_ON_L
            for channel in range(16):
                self.regs[LED0_ON_L + 4 * channel + offset] = value
        elif LED15_OFF_H < reg < ALL_LED_ON_L or reg == TESTMODE:
            pass  # reserved and test mode: never written
        else:
            self.regs[reg] = value

    def _any_channel_active(self) -> bool:
        for channel in range(16):
            on, off = self.counts(channel)
            if not off & 0x1000 and (on & 0x1000 or (on & 0xFFF) != (off & 0xFFF)):
                return True
        return False

    def _write_mode1(self, value: int) -> None:
        was_asleep = self.asleep
        going_to_sleep = bool(value & MODE1_SLEEP)
        if going_to_sleep and not was_asleep and self._any_channel_active():
            self._halted = True  # RESTART reads 1 until the outputs are restarted
        if not going_to_sleep and was_asleep:
            self._awake_since_s = time.monotonic()
        if value & MODE1_RESTART and not going_to_sleep and self._halted:
            # The datasheet asks for 500 us of oscillator settling after waking up.
            # Drivers wait with time.sleep, so this is checked against real time.
            awake = self._awake_since_s
            if awake is not None and time.monotonic() - awake >= OSCILLATOR_SETTLE_S:
                self._halted = False
            else:
                self.restart_violations += 1
        self.regs[MODE1] = value & ~MODE1_RESTART & 0xFF


class FakeI2C:
    """The parts of `busio.I2C` that Adafruit drivers call, over emulated devices.

    Faults: `fail_next(n)` makes the next n transfers raise an I/O error;
    `remove(address)` makes a device vanish (Remote I/O error), `restore` brings
    it back.
    """

    def __init__(self) -> None:
        self._devices: dict[int, PCA9685Emulator] = {}
        self._removed: dict[int, PCA9685Emulator] = {}
        self._lock = threading.Lock()
        self._owner: int | None = None
        self._fail_next = 0
        self._fail_errno = errno.EIO
        self.transfers = 0
        self.deinited = False

    # --- test-side controls -------------------------------------------------------------

    def attach(self, device: PCA9685Emulator) -> None:
        self._devices[device.address] = device

    def remove(self, address: int) -> None:
        """The device at `address` stops answering (unplugged, lost power)."""
        if address in self._devices:
            self._removed[address] = self._devices.pop(address)

    def restore(self, address: int) -> None:
        if address in self._removed:
            self._devices[address] = self._removed.pop(address)

    def fail_next(self, count: int = 1, code: int = errno.EIO) -> None:
        """The next `count` transfers fail with OSError(`code`)."""
        self._fail_next = count
        self._fail_errno = code

    # --- busio.I2C ----------------------------------------------------------------------

    def try_lock(self) -> bool:
        acquired = self._lock.acquire(blocking=False)
        if acquired:
            self._owner = threading.get_ident()
        return acquired

    def unlock(self) -> None:
        if self._owner != threading.get_ident():
            raise RuntimeError("I2C bus unlocked by a thread that does not hold it")
        self._owner = None
        self._lock.release()

    def _check(self, address: int) -> PCA9685Emulator | None:
        if self.deinited:
            raise ValueError("Object has been deinitialized and can no longer be used.")
        if self._owner != threading.get_ident():
            raise RuntimeError("Function requires lock")
        self.transfers += 1
        if self._fail_next > 0:
            self._fail_next -= 1
            raise OSError(self._fail_errno, "Input/output error (injected)")
        if address == GENERAL_CALL:
            return None
        device = self._devices.get(address)
        if device is None:
            for dev in self._devices.values():
                allcall = dev.regs[ALLCALLADR] >> 1
                if dev.regs[MODE1] & MODE1_ALLCALL and address == allcall:
                    return dev
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        return device

    def writeto(
        self,
        address: int,
        buffer: bytes | bytearray | memoryview,
        *,
        start: int = 0,
        end: int | None = None,
    ) -> None:
        data = bytes(buffer[start : len(buffer) if end is None else end])
        device = self._check(address)
        if device is None:  # general call
            if data == bytes([SWRST_BYTE]):
                for dev in list(self._devices.values()):
                    dev.software_reset()
            return
        device.i2c_write(data)

    def readfrom_into(
        self,
        address: int,
        buffer: bytearray | memoryview,
        *,
        start: int = 0,
        end: int | None = None,
    ) -> None:
        stop = len(buffer) if end is None else end
        device = self._check(address)
        if device is None:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        buffer[start:stop] = device.i2c_read(stop - start)

    def writeto_then_readfrom(
        self,
        address: int,
        buffer_out: bytes | bytearray | memoryview,
        buffer_in: bytearray | memoryview,
        *,
        out_start: int = 0,
        out_end: int | None = None,
        in_start: int = 0,
        in_end: int | None = None,
    ) -> None:
        out = bytes(buffer_out[out_start : len(buffer_out) if out_end is None else out_end])
        stop = len(buffer_in) if in_end is None else in_end
        device = self._check(address)
        if device is None:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        device.i2c_write(out)  # repeated start: the pointer write, no stop
        buffer_in[in_start:stop] = device.i2c_read(stop - in_start)

    def scan(self) -> list[int]:
        if self._owner != threading.get_ident():
            raise RuntimeError("Function requires lock")
        return sorted(self._devices)

    def deinit(self) -> None:
        self.deinited = True

    def __enter__(self) -> FakeI2C:
        return self

    def __exit__(self, *exc: object) -> None:
        self.deinit()
