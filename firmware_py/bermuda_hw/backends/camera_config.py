"""The `[camera]` section of the configuration: which camera, its size, and how readings settle."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bermuda_hw.errors import ConfigError

SOURCE_HELP = "picamera2, usb:N, a folder of images or a video file"


@dataclass(frozen=True)
class CameraConfig:
    """The camera over the board and the vision settings the daemon uses with it.

    `source` is `picamera2`, `usb:N` (or a stream URL after `usb:`), a folder
    of images or a video file (replays). The simulated table ignores `source`
    and renders frames of `width_px` x `height_px`.
    """

    source: str = "picamera2"
    width_px: int = 1280
    height_px: int = 960
    camera_num: int = 0
    swap_red_blue: bool = False
    timeout_s: float = 2.0
    replay_fps: float = 10.0
    replay_loop: bool = False
    calibration: str | None = None  # a colour calibration file (see calibration/README.md)
    stable_frames: int = 3
    stable_min_time_s: float = 0.3
    # picamera2 controls (0, "" or an empty list: the camera's automatic default)
    exposure_time_us: int = 0  # a fixed exposure, locks auto exposure
    analogue_gain: float = 0.0  # a fixed gain, with a fixed exposure
    colour_gains: tuple[float, ...] = ()  # [red, blue]: locks auto white balance
    af_mode: str = ""  # "manual", "auto" or "continuous" (cameras with autofocus)
    lens_position: float = -1.0  # dioptres (1 / metres) with af_mode = "manual"
    flicker_hz: int = 0  # mains frequency of the room's lights (50 or 60): no banding
    lock_after_settling: bool = False  # let AE and AWB settle, then hold their values
    settle_s: float = 2.0
    height_mm: float = 0.0  # the lens above the board, measured (0: unknown); for calibration

    def picamera2_controls(self) -> dict[str, Any]:
        """The libcamera controls (picamera2's names) these keys ask for."""
        controls: dict[str, Any] = {}
        if self.exposure_time_us > 0:
            controls["AeEnable"] = False
            controls["ExposureTime"] = self.exposure_time_us
            if self.analogue_gain > 0:
                controls["AnalogueGain"] = self.analogue_gain
        if self.colour_gains:
            controls["AwbEnable"] = False
            controls["ColourGains"] = (self.colour_gains[0], self.colour_gains[1])
        if self.af_mode:
            controls["AfMode"] = AF_MODES[self.af_mode]
            if self.af_mode == "manual" and self.lens_position >= 0:
                controls["LensPosition"] = self.lens_position
        if self.flicker_hz:
            # lights flicker at twice the mains frequency
            controls["AeFlickerMode"] = 1  # libcamera AeFlickerModeEnum.Manual
            controls["AeFlickerPeriod"] = round(1e6 / (2 * self.flicker_hz))
        return controls


# libcamera's AfModeEnum values
AF_MODES = {"manual": 0, "auto": 1, "continuous": 2}


_KEYS = {
    "source": str,
    "width_px": int,
    "height_px": int,
    "camera_num": int,
    "swap_red_blue": bool,
    "timeout_s": float,
    "replay_fps": float,
    "replay_loop": bool,
    "calibration": str,
    "stable_frames": int,
    "stable_min_time_s": float,
    "exposure_time_us": int,
    "analogue_gain": float,
    "colour_gains": list,
    "af_mode": str,
    "lens_position": float,
    "flicker_hz": int,
    "lock_after_settling": bool,
    "settle_s": float,
    "height_mm": float,
}
_BOUNDS: dict[str, tuple[float, float]] = {
    "width_px": (64, 8192),
    "height_px": (48, 8192),
    "camera_num": (0, 16),
    "timeout_s": (0.05, 60.0),
    "replay_fps": (0.1, 240.0),
    "stable_frames": (1, 100),
    "stable_min_time_s": (0.0, 30.0),
    "exposure_time_us": (0, 10_000_000),
    "analogue_gain": (0.0, 64.0),
    "lens_position": (0.0, 32.0),
    "settle_s": (0.0, 30.0),
    "height_mm": (0.0, 5000.0),
}


def parse_camera_config(data: Mapping[str, Any], file: str | Path | None = None) -> CameraConfig:
    """Check the raw `[camera]` table: unknown keys, wrong types and bad values name the key."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"camera.{key}"
        kind = _KEYS.get(key)
        if kind is None:
            raise ConfigError(file, dotted, f"unknown key (known: {', '.join(sorted(_KEYS))})")
        if kind is bool:
            if not isinstance(value, bool):
                raise ConfigError(file, dotted, f"must be true or false, not {value!r}")
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(file, dotted, f"must be an integer, not {value!r}")
        elif kind is list:
            if (not isinstance(value, list) or len(value) != 2 or not all(
                    isinstance(v, int | float) and not isinstance(v, bool) and 0 < v <= 32
                    for v in value)):
                raise ConfigError(file, dotted, f"must be [red, blue] gains (0..32), not {value!r}")
            value = (float(value[0]), float(value[1]))
        elif kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(file, dotted, f"must be a number, not {value!r}")
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                raise ConfigError(file, dotted, "must be finite")
        elif not isinstance(value, str) or not value.strip():
            raise ConfigError(file, dotted, f"must be a non-empty string, not {value!r}")
        if key in _BOUNDS:
            low, high = _BOUNDS[key]
            if not low <= value <= high:
                raise ConfigError(file, dotted, f"must be from {low:g} to {high:g}, not {value:g}")
        values[key] = value
    if values.get("af_mode", "") not in ("", *AF_MODES):
        raise ConfigError(file, "camera.af_mode",
                          f"must be one of {', '.join(AF_MODES)}, not {values['af_mode']!r}")
    if values.get("flicker_hz", 0) not in (0, 50, 60):
        raise ConfigError(file, "camera.flicker_hz", f"must be 0, 50 or 60, not "
                          f"{values['flicker_hz']!r}")
    source = values.get("source", CameraConfig.source)
    if source != "picamera2" and not source.startswith("usb:") and "/" not in source \
            and "." not in source:
        raise ConfigError(file, "camera.source", f"must be {SOURCE_HELP}, not {source!r}")
    return CameraConfig(**values)
