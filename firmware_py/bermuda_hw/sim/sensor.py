"""The simulated camera's sensor: picamera2's controls and metadata, acting on rendered frames.

A rendered frame is what the board looks like well exposed under white light.
The simulated room (`Room`) may be dimmer or brighter than that and its light
coloured; the sensor then scales each frame by its exposure time and analogue
gain, and each of red and blue by the light's colour and the colour gains, as
a real sensor and ISP do. Its controls are picamera2's (libcamera's) by name
and meaning: `set_controls({...})` with `AeEnable`, `ExposureTime` (us),
`AnalogueGain`, `AwbEnable`, `ColourGains` ((red, blue)), `AfMode`,
`LensPosition` (dioptres), `AeFlickerMode`, `AeFlickerPeriod` (us);
`capture_metadata()` returns the values the last frame was taken with. An
unknown control is refused as picamera2 refuses one libcamera does not
advertise. With `AeEnable` (and `AwbEnable`) the sensor's loops move exposure
and gain (colour gains) a fraction of the way to the right values every
frame, so they converge over some frames and hold once disabled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

REFERENCE_EXPOSURE_US = 20_000  # with REFERENCE_GAIN: the rendered look in the default room
REFERENCE_GAIN = 2.0
MAX_EXPOSURE_US = 33_000  # one frame at 30 fps: beyond it AE raises the gain instead
MIN_EXPOSURE_US = 100
MAX_GAIN = 16.0
# the raw red and blue pixels' sensitivity relative to green: white light needs these
# colour gains to come out white (a typical Pi sensor needs about 1.8 and 1.6)
NEUTRAL_GAINS = (1.8, 1.6)
LOOP_FRACTION = 0.35  # of the (logarithmic) error corrected per frame by AE and AWB
CONTROLS = frozenset(
    {
        "AeEnable",
        "ExposureTime",
        "AnalogueGain",
        "AwbEnable",
        "ColourGains",
        "AfMode",
        "LensPosition",
        "AeFlickerMode",
        "AeFlickerPeriod",
    }
)


@dataclass(frozen=True)
class Room:
    """The light over the simulated table: brightness relative to the rendered look, and the
    light's red and blue relative to its green (1, 1: white)."""

    light: float = 1.0
    cast: tuple[float, float] = (1.0, 1.0)


class SimulatedSensor:
    """Exposure, gain and white balance with picamera2's controls (see the module)."""

    def __init__(self, room: Room | None = None) -> None:
        self.room = room or Room()
        self.ae_enable = True
        self.awb_enable = True
        self.exposure_us = float(REFERENCE_EXPOSURE_US)
        self.gain = REFERENCE_GAIN
        self.colour_gains = NEUTRAL_GAINS
        self.af_mode = 0
        self.lens_position = 1.0
        self.flicker: dict[str, Any] = {}
        self.frames = 0

    # --- picamera2's interface ---------------------------------------------------------

    def set_controls(self, controls: Mapping[str, Any]) -> None:
        """Set controls by libcamera's names; an unknown name raises RuntimeError (as
        picamera2 does for a control the camera does not advertise)."""
        for name in controls:
            if name not in CONTROLS:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
        if "AeEnable" in controls:
            self.ae_enable = bool(controls["AeEnable"])
        if "AwbEnable" in controls:
            self.awb_enable = bool(controls["AwbEnable"])
        if "ExposureTime" in controls:
            self.exposure_us = float(
                min(max(int(controls["ExposureTime"]), MIN_EXPOSURE_US), MAX_EXPOSURE_US)
            )
        if "AnalogueGain" in controls:
            self.gain = float(min(max(float(controls["AnalogueGain"]), 1.0), MAX_GAIN))
        if "ColourGains" in controls:
            red, blue = (float(g) for g in controls["ColourGains"])
            self.colour_gains = (min(max(red, 0.0), 32.0), min(max(blue, 0.0), 32.0))
        if "AfMode" in controls:
            self.af_mode = int(controls["AfMode"])
        if "LensPosition" in controls:
            self.lens_position = float(controls["LensPosition"])
        for name in ("AeFlickerMode", "AeFlickerPeriod"):
            if name in controls:
                self.flicker[name] = controls[name]

    def capture_metadata(self) -> dict[str, Any]:
        """The values the last frame was taken with, by libcamera's names."""
        return {
            "ExposureTime": round(self.exposure_us),
            "AnalogueGain": self.gain,
            "DigitalGain": 1.0,
            "ColourGains": self.colour_gains,
            "AeLocked": not self.ae_enable or self._ae_error() < 0.01,
            "LensPosition": self.lens_position,
            "FrameDuration": MAX_EXPOSURE_US,
            "Lux": 400.0 * self.room.light,
        }

    # --- frames -------------------------------------------------------------------------

    def expose(self, image: Any) -> Any:
        """A rendered frame as this sensor takes it now; then AE and AWB take a step."""
        level = (
            self.room.light
            * (self.exposure_us * self.gain)
            / (REFERENCE_EXPOSURE_US * REFERENCE_GAIN)
        )
        red = level * self.room.cast[0] * self.colour_gains[0] / NEUTRAL_GAINS[0]
        blue = level * self.room.cast[1] * self.colour_gains[1] / NEUTRAL_GAINS[1]
        out = image
        if not (
            math.isclose(level, 1.0, abs_tol=1e-9)
            and math.isclose(red, 1.0, abs_tol=1e-9)
            and math.isclose(blue, 1.0, abs_tol=1e-9)
        ):
            scale = np.array([blue, level, red], np.float32)  # frames are B, G, R
            out = np.clip(image.astype(np.float32) * scale, 0, 255).astype(np.uint8)
        self.frames += 1
        self._loops()
        return out

    def _ae_error(self) -> float:
        level = (
            self.room.light
            * (self.exposure_us * self.gain)
            / (REFERENCE_EXPOSURE_US * REFERENCE_GAIN)
        )
        return abs(math.log(level))

    def _loops(self) -> None:
        if self.ae_enable:
            # the metered brightness against the target: the rendered look
            total = self.exposure_us * self.gain
            want = REFERENCE_EXPOSURE_US * REFERENCE_GAIN / self.room.light
            total *= (want / total) ** LOOP_FRACTION
            # exposure first (up to a frame), then gain
            self.exposure_us = min(max(total / REFERENCE_GAIN, MIN_EXPOSURE_US), MAX_EXPOSURE_US)
            self.gain = min(max(total / self.exposure_us, 1.0), MAX_GAIN)
        if self.awb_enable:
            gains = []
            for current, neutral, cast in zip(
                self.colour_gains, NEUTRAL_GAINS, self.room.cast, strict=True
            ):
                want = neutral / cast
                gains.append(current * (want / current) ** LOOP_FRACTION)
            self.colour_gains = (gains[0], gains[1])
