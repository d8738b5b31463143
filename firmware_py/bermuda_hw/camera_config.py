"""The `[camera]` section of the configuration: which camera, its size, and how readings settle."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from bermuda_hw.checked import Flag, Integer, Name, Number, Strict, check
from bermuda_hw.errors import ConfigError

SOURCE_HELP = "picamera2, usb:N, a folder of images or a video file"


# a colour gain of picamera2's ColourGains: (0, 32]
Gain = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0.0, le=32.0)]

# libcamera's AfModeEnum values
AF_MODES = {"manual": 0, "auto": 1, "continuous": 2}


class CameraConfig(Strict):
    """The camera over the board and the vision settings the daemon uses with it: the
    `[camera]` table, every key optional, each with its type and bounds.

    `source` is `picamera2`, `usb:N` (or a stream URL after `usb:`), a folder
    of images or a video file (replays). The simulated table ignores `source`
    and renders frames of `width_px` x `height_px`.
    """

    source: Name = "picamera2"
    width_px: Integer = Field(default=1280, ge=64, le=8192)
    height_px: Integer = Field(default=960, ge=48, le=8192)
    camera_num: Integer = Field(default=0, ge=0, le=16)
    swap_red_blue: Flag = False
    timeout_s: Number = Field(default=2.0, ge=0.05, le=60.0)
    replay_fps: Number = Field(default=10.0, ge=0.1, le=240.0)
    replay_loop: Flag = False
    calibration: Name | None = None  # a colour calibration file (see calibration/README.md)
    stable_frames: Integer = Field(default=3, ge=1, le=100)
    stable_min_time_s: Number = Field(default=0.3, ge=0.0, le=30.0)
    # picamera2 controls (0, "" or an empty list: the camera's automatic default)
    exposure_time_us: Integer = Field(default=0, ge=0, le=10_000_000)  # locks auto exposure
    analogue_gain: Number = Field(default=0.0, ge=0.0, le=64.0)  # with a fixed exposure
    colour_gains: tuple[Gain, ...] = ()  # [red, blue]: locks auto white balance
    af_mode: Literal["", "manual", "auto", "continuous"] = ""  # cameras with autofocus
    lens_position: Number = Field(default=-1.0, ge=0.0, le=32.0)  # dioptres, af_mode manual
    flicker_hz: Literal[0, 50, 60] = 0  # mains frequency of the room's lights: no banding
    lock_after_settling: Flag = False  # let AE and AWB settle, then hold their values
    settle_s: Number = Field(default=2.0, ge=0.0, le=30.0)
    # the lens above the board, measured (0: unknown); for calibration
    height_mm: Number = Field(default=0.0, ge=0.0, le=5000.0)

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

    def unless_written(self, values: Mapping[str, Any]) -> CameraConfig:
        """These values for the keys the file did not write (the simulated table's small,
        quick frames, say), the file's own values kept."""
        return self.model_copy(
            update={k: v for k, v in values.items() if k not in self.model_fields_set}
        )


def parse_camera_config(data: Mapping[str, Any], file: str | Path | None = None) -> CameraConfig:
    """Check the raw `[camera]` table: unknown keys, wrong types and bad values name the key."""
    return check(CameraConfig, data, file, ConfigError, prefix="camera")
