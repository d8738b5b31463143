"""The I2C bus on /dev/i2c-N through smbus2: the `busio.I2C` methods the Adafruit drivers use."""

from __future__ import annotations

import threading
from typing import Any

from bermuda_hw.errors import BusError, HardwareError


class SMBusI2C:
    """A `busio.I2C` stand-in on Linux's I2C_RDWR ioctl (smbus2), without Blinka's `board`.

    Each transfer is one `i2c_rdwr` call; `writeto_then_readfrom` sends both
    messages in one call, with a repeated start, as the PCA9685 expects.
    """

    def __init__(self, bus: int, *, smbus2: Any = None) -> None:
        if smbus2 is None:
            try:
                import smbus2 as module  # the `pi` extra
            except ImportError as exc:
                raise HardwareError(
                    "smbus2 is not installed: install the Pi set (scripts/install-pi, or "
                    "pip install '.[pi]')"
                ) from exc
            smbus2 = module
        self.bus_number = bus
        self._msg = smbus2.i2c_msg
        try:
            self._bus = smbus2.SMBus(bus)
        except FileNotFoundError as exc:
            raise HardwareError(
                f"no /dev/i2c-{bus}: enable I2C (sudo raspi-config nonint do_i2c 0, then "
                f"reboot) or set backend.i2c_bus"
            ) from exc
        except PermissionError as exc:
            raise HardwareError(
                f"/dev/i2c-{bus}: permission denied: the service's user must be in group i2c"
            ) from exc
        self._lock = threading.Lock()

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def writeto(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        data = bytes(buffer[start:end])
        self._bus.i2c_rdwr(self._msg.write(address, data))

    def readfrom_into(
        self, address: int, buffer: Any, *, start: int = 0, end: int | None = None
    ) -> None:
        stop = len(buffer) if end is None else end
        message = self._msg.read(address, stop - start)
        self._bus.i2c_rdwr(message)
        buffer[start:stop] = bytes(message)

    def writeto_then_readfrom(
        self,
        address: int,
        buffer_out: Any,
        buffer_in: Any,
        *,
        out_start: int = 0,
        out_end: int | None = None,
        in_start: int = 0,
        in_end: int | None = None,
    ) -> None:
        stop = len(buffer_in) if in_end is None else in_end
        write = self._msg.write(address, bytes(buffer_out[out_start:out_end]))
        read = self._msg.read(address, stop - in_start)
        self._bus.i2c_rdwr(write, read)
        buffer_in[in_start:stop] = bytes(read)

    def probe(self, address: int) -> None:
        """Raise BusError naming the bus and address unless a device acknowledges there."""
        try:
            self.readfrom_into(address, bytearray(1))
        except OSError as exc:
            raise BusError(
                f"nothing answers at address 0x{address:02x} on /dev/i2c-{self.bus_number} "
                f"({exc.strerror or exc}): check the PCA9685's power, SDA/SCL wiring and "
                f"address jumpers (i2cdetect -y {self.bus_number} lists what answers)"
            ) from exc

    def deinit(self) -> None:
        self._bus.close()
