"""Backends: the only code that touches hardware; one per run, chosen once."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bermuda_hw.backends.camera import CameraSource
    from bermuda_hw.camera_config import CameraConfig
    from bermuda_hw.clock import Clock
    from bermuda_hw.config import Config
    from bermuda_hw.rules.board import Board


class I2CBus(Protocol):
    """The methods of `busio.I2C` that the Adafruit drivers use."""

    def try_lock(self) -> bool: ...
    def unlock(self) -> None: ...
    def writeto(
        self, address: int, buffer: Any, *, start: int = 0, end: int | None = None
    ) -> None: ...
    def readfrom_into(
        self, address: int, buffer: Any, *, start: int = 0, end: int | None = None
    ) -> None: ...
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
    ) -> None: ...


@dataclass(frozen=True)
class RigMeasurement:
    """The cloud and the carriage as measured on the table itself, not as the plan has them."""

    x_mm: float  # the cloud's centre, board frame
    y_mm: float
    heading_deg: float  # the cloud's heading, clockwise from north
    peak_speed_mm_s: float  # the carriage's, over the time measured
    peak_accel_mm_s2: float
    lost_steps: int  # steps the motors were sent but did not make


class Backend(ABC):
    """Hands out a gpiozero pin factory, an I2C bus, a camera and a clock.

    Devices receive a backend and take what they need from it; nothing above
    asks which backend it runs on. `RealBackend` and `SimBackend` implement it.
    """

    name = "abstract"
    # SCHED_FIFO priority for the step thread (0: ordinary scheduling)
    step_thread_priority = 0

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        # The Adafruit register library shares one buffer between all drivers:
        # every transfer to a PCA9685 holds this lock.
        self.i2c_lock = threading.RLock()
        self._closed = False

    @property
    @abstractmethod
    def pin_factory(self) -> Any:
        """The gpiozero pin factory that devices pass as `pin_factory=`."""

    @abstractmethod
    def i2c(self) -> I2CBus:
        """The I2C bus (opened on first use)."""

    @abstractmethod
    def open_camera(self, board: Board, camera: CameraConfig | None = None) -> CameraSource:
        """The camera over `board` (not yet opened), as the `[camera]` section describes."""

    @abstractmethod
    def measure(self, since_s: float = 0.0) -> RigMeasurement | None:
        """The cloud's pose and the carriage's peaks since `since_s` (on this backend's
        clock), measured on the table; None where nothing measures them (the real rig
        knows only what it commanded)."""

    def close(self) -> None:
        """Release the pin factory and the bus; closing twice is fine."""
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def create_backend(config: Config, simulate: bool, *, board: Board | None = None) -> Backend:
    """The backend for this run: `sim` if asked or configured, else `real`.

    `board`: the simulated table's board (its world needs it before the camera opens).
    """
    if simulate or config.backend.kind == "sim":
        from bermuda_hw.backends.sim import SimBackend

        return SimBackend(config, board=board)
    from bermuda_hw.backends.real import RealBackend

    return RealBackend(config)
