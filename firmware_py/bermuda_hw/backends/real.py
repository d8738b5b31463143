"""The real backend: gpiozero's pin factory built explicitly, I2C on /dev/i2c-N, the wall clock."""

from __future__ import annotations

import logging
import os
import tempfile
from typing import TYPE_CHECKING, Any

from bermuda_hw.backends import Backend, I2CBus, RigMeasurement
from bermuda_hw.backends.i2c import SMBusI2C
from bermuda_hw.clock import WallClock
from bermuda_hw.errors import BermudaError, HardwareError

if TYPE_CHECKING:
    from bermuda_hw.backends.camera import CameraSource
    from bermuda_hw.camera_config import CameraConfig
    from bermuda_hw.config import BackendConfig, Config
    from bermuda_hw.rules.board import Board

log = logging.getLogger("bermuda_hw.controller")

REALTIME_SPIN_S = 0.0001
FACTORY_HINTS = {
    "lgpio": "on Raspberry Pi OS: sudo apt install python3-lgpio, make the venv with "
    "--system-site-packages, and put the service's user in group gpio",
    "rpigpio": 'pip install RPi.GPIO (rpi-lgpio on a Pi 5), or use pin_factory = "lgpio"',
}


def lgpio_work_dir() -> str:
    """Where lgpio may make its notification FIFO: $LG_WD, systemd's RuntimeDirectory=,
    else a writable working directory, else the temporary directory."""
    for candidate in (os.environ.get("LG_WD"), os.environ.get("RUNTIME_DIRECTORY")):
        if candidate:
            return candidate.split(":")[0]
    cwd = os.getcwd()
    return cwd if os.access(cwd, os.W_OK) else tempfile.gettempdir()


def _lgpio_factory(chip: int | None) -> Any:
    # `import lgpio` makes a FIFO in $LG_WD (else the working directory, which is
    # "/" and read-only under the service)
    os.environ["LG_WD"] = lgpio_work_dir()
    import lgpio
    from gpiozero.pins.lgpio import LGPIOFactory, LGPIOPin

    class Pin(LGPIOPin):  # type: ignore[misc]
        """An lgpio pin that is claimed as an output already at its first level.

        gpiozero's lgpio pin claims an output low, then writes the level: an
        active-low ENABLE would switch the drivers on for that moment.
        """

        def output_with_state(self, state: Any) -> None:
            lgpio.gpio_claim_output(self.factory._handle, self._number, int(bool(state)))

    class Factory(LGPIOFactory):  # type: ignore[misc]
        def __init__(self, chip: int | None = None) -> None:
            super().__init__(chip=chip)
            self.pin_class = Pin

    return Factory(chip)


def build_pin_factory(settings: BackendConfig) -> Any:
    """gpiozero's pin factory named by `backend.pin_factory`: no fallback to another one."""
    name = settings.pin_factory
    try:
        if name == "lgpio":
            factory = _lgpio_factory(settings.gpio_chip)
            where = f"/dev/gpiochip{factory.chip}"
        else:
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            factory = RPiGPIOFactory()
            where = "/dev/gpiomem"
    except BermudaError:
        raise
    except Exception as exc:  # ImportError, lgpio.error, gpiozero's PinError...
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise HardwareError(
            f"GPIO pin factory {name!r} (backend.pin_factory) cannot start: {reason}; "
            f"{FACTORY_HINTS[name]}"
        ) from exc
    log.info("GPIO: gpiozero %s pin factory on %s", name, where)
    return factory


class RealBackend(Backend):
    """Hardware on a Raspberry Pi; Pi-only modules are imported on first use."""

    name = "real"
    step_thread_priority = 50  # Linux real-time priority, if the service may use it

    def __init__(self, config: Config) -> None:
        # with SCHED_FIFO the thread wakes promptly: a short spin keeps it well under
        # the kernel's real-time throttle (95 % of a CPU) at the highest step rates
        super().__init__(WallClock(spin_s=REALTIME_SPIN_S))
        self.config = config
        self._factory: Any = None
        self._i2c: SMBusI2C | None = None

    @property
    def pin_factory(self) -> Any:
        if self._factory is None:
            self._factory = build_pin_factory(self.config.backend)
        return self._factory

    def i2c(self) -> I2CBus:
        """/dev/i2c-N (backend.i2c_bus), probed at the PCA9685's address when first opened."""
        if self._i2c is None:
            bus = SMBusI2C(self.config.backend.i2c_bus)
            try:
                bus.probe(self.config.rotation.i2c_address)
            except BermudaError:
                bus.deinit()
                raise
            self._i2c = bus
        i2c: I2CBus = self._i2c
        return i2c

    def open_camera(self, board: Board, camera: CameraConfig | None = None) -> CameraSource:
        """The configured camera: picamera2, a USB camera, or a replayed folder or video."""
        from pathlib import Path

        from bermuda_hw.backends import camera as sources

        if camera is None:
            camera = self.config.camera
        spec = camera.source
        if spec == "picamera2":
            return sources.Picamera2Source(
                width_px=camera.width_px,
                height_px=camera.height_px,
                camera_num=camera.camera_num,
                swap_red_blue=camera.swap_red_blue,
                timeout_s=camera.timeout_s,
                controls=camera.picamera2_controls(),
                lock_after_s=camera.settle_s if camera.lock_after_settling else None,
            )
        if spec.startswith("usb:"):
            device = spec[4:]
            return sources.VideoCaptureSource(
                int(device) if device.isdigit() else device,
                width_px=camera.width_px,
                height_px=camera.height_px,
                timeout_s=camera.timeout_s,
            )
        if Path(spec).is_dir():
            return sources.ImageFolderSource(
                spec, fps=camera.replay_fps, loop=camera.replay_loop, timeout_s=camera.timeout_s
            )
        return sources.VideoFileSource(spec, timeout_s=camera.timeout_s)

    def measure(self, since_s: float = 0.0) -> RigMeasurement | None:
        """None: the rig has no sensor for the cloud's pose beyond the camera."""
        return None

    def close(self) -> None:
        if self._i2c is not None:
            self._i2c.deinit()
            self._i2c = None
        if self._factory is not None:
            self._factory.close()
            self._factory = None
        super().close()
