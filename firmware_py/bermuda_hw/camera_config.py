"""The `[camera]` section of the configuration: which camera, its size, and how readings settle."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from bermuda_hw.checked import Flag, Integer, Name, Number, Strict, check
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


# a colour gain of picamera2's ColourGains: (0, 32]
Gain = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0.0, le=32.0)]

# libcamera's AfModeEnum values
AF_MODES = {"manual": 0, "auto": 1, "continuous": 2}


class CameraFile(Strict):
    """The `[camera]` table as written: every key optional, each with its type and bounds."""

    source: Name = CameraConfig.source
    width_px: Integer = Field(default=CameraConfig.width_px, ge=64, le=8192)
    height_px: Integer = Field(default=CameraConfig.height_px, ge=48, le=8192)
    camera_num: Integer = Field(default=CameraConfig.camera_num, ge=0, le=16)
    swap_red_blue: Flag = CameraConfig.swap_red_blue
    timeout_s: Number = Field(default=CameraConfig.timeout_s, ge=0.05, le=60.0)
    replay_fps: Number = Field(default=CameraConfig.replay_fps, ge=0.1, le=240.0)
    replay_loop: Flag = CameraConfig.replay_loop
    calibration: Name | None = CameraConfig.calibration
    stable_frames: Integer = Field(default=CameraConfig.stable_frames, ge=1, le=100)
    stable_min_time_s: Number = Field(default=CameraConfig.stable_min_time_s, ge=0.0, le=30.0)
    exposure_time_us: Integer = Field(default=CameraConfig.exposure_time_us, ge=0, le=10_000_000)
    analogue_gain: Number = Field(default=CameraConfig.analogue_gain, ge=0.0, le=64.0)
    colour_gains: tuple[Gain, ...] = CameraConfig.colour_gains
    af_mode: Literal["", "manual", "auto", "continuous"] = ""
    lens_position: Number = Field(default=CameraConfig.lens_position, ge=0.0, le=32.0)
    flicker_hz: Literal[0, 50, 60] = 0
    lock_after_settling: Flag = CameraConfig.lock_after_settling
    settle_s: Number = Field(default=CameraConfig.settle_s, ge=0.0, le=30.0)
    height_mm: Number = Field(default=CameraConfig.height_mm, ge=0.0, le=5000.0)

    @field_validator("colour_gains")
    @classmethod
    def _red_and_blue(cls, gains: tuple[float, ...]) -> tuple[float, ...]:
        if len(gains) not in (0, 2):
            raise ValueError(f"must be [red, blue] gains (0..32), not {list(gains)!r}")
        return gains

    @field_validator("source")
    @classmethod
    def _known_source(cls, source: str) -> str:
        if (
            source != "picamera2"
            and not source.startswith("usb:")
            and "/" not in source
            and "." not in source
        ):
            raise ValueError(f"must be {SOURCE_HELP}, not {source!r}")
        return source


def parse_camera_config(data: Mapping[str, Any], file: str | Path | None = None) -> CameraConfig:
    """Check the raw `[camera]` table: unknown keys, wrong types and bad values name the key."""
    checked = check(CameraFile, data, file, ConfigError, prefix="camera")
    return CameraConfig(**{name: getattr(checked, name) for name in CameraFile.model_fields})
