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
}
_BOUNDS: dict[str, tuple[float, float]] = {
    "width_px": (64, 8192),
    "height_px": (48, 8192),
    "camera_num": (0, 16),
    "timeout_s": (0.05, 60.0),
    "replay_fps": (0.1, 240.0),
    "stable_frames": (1, 100),
    "stable_min_time_s": (0.0, 30.0),
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
    source = values.get("source", CameraConfig.source)
    if source != "picamera2" and not source.startswith("usb:") and "/" not in source \
            and "." not in source:
        raise ConfigError(file, "camera.source", f"must be {SOURCE_HELP}, not {source!r}")
    return CameraConfig(**values)
