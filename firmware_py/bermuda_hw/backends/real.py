"""The real backend: the Pi's default gpiozero pin factory, Blinka's I2C bus, the wall clock."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from bermuda_hw.backends import Backend, I2CBus
from bermuda_hw.clock import WallClock
from bermuda_hw.errors import HardwareError

if TYPE_CHECKING:
    from bermuda_hw.backends.camera import CameraSource
    from bermuda_hw.backends.camera_config import CameraConfig
    from bermuda_hw.config import Config
    from bermuda_hw.rules.board import Board


REALTIME_SPIN_S = 0.0001


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
        self._i2c: Any = None

    @property
    def pin_factory(self) -> Any:
        if self._factory is None:
            from gpiozero import Device

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    # gpiozero picks lgpio, then RPi.GPIO, as installed on the Pi.
                    self._factory = Device._default_pin_factory()
                except Exception as exc:  # gpiozero raises its own BadPinFactory
                    reasons = "; ".join(str(w.message) for w in caught)
                    raise HardwareError(
                        f"no GPIO pin factory on this machine (not a Raspberry Pi? "
                        f"try --simulate): {exc} ({reasons})"
                    ) from exc
        return self._factory

    def i2c(self) -> I2CBus:
        if self._i2c is None:
            try:
                import board  # Blinka: only importable on a supported board
            except (ImportError, NotImplementedError, RuntimeError) as exc:
                raise HardwareError(f"no I2C bus on this machine: {exc}") from exc
            try:
                self._i2c = board.I2C()
            except (OSError, ValueError, RuntimeError) as exc:
                raise HardwareError(f"cannot open the I2C bus: {exc}") from exc
        bus: I2CBus = self._i2c
        return bus

    def open_camera(self, board: Board, camera: CameraConfig | None = None) -> CameraSource:
        """The configured camera: picamera2, a USB camera, or a replayed folder or video."""
        from pathlib import Path

        from bermuda_hw.backends import camera as sources
        from bermuda_hw.backends.camera_config import parse_camera_config

        if camera is None:
            camera = parse_camera_config(self.config.camera, self.config.source)
        spec = camera.source
        if spec == "picamera2":
            return sources.Picamera2Source(
                width_px=camera.width_px, height_px=camera.height_px,
                camera_num=camera.camera_num, swap_red_blue=camera.swap_red_blue,
                timeout_s=camera.timeout_s,
            )
        if spec.startswith("usb:"):
            device = spec[4:]
            return sources.VideoCaptureSource(
                int(device) if device.isdigit() else device,
                width_px=camera.width_px, height_px=camera.height_px, timeout_s=camera.timeout_s,
            )
        if Path(spec).is_dir():
            return sources.ImageFolderSource(spec, fps=camera.replay_fps, loop=camera.replay_loop,
                                             timeout_s=camera.timeout_s)
        return sources.VideoFileSource(spec, timeout_s=camera.timeout_s)

    def close(self) -> None:
        if self._i2c is not None:
            deinit = getattr(self._i2c, "deinit", None)
            if deinit is not None:
                deinit()
            self._i2c = None
        if self._factory is not None:
            self._factory.close()
            self._factory = None
        super().close()
