"""Vision: frames in, board pose, ships, cloud, hands and stable `BoardObservation`s out."""

from __future__ import annotations

from bermuda_hw.vision.colors import ColorCalibration, load_calibration
from bermuda_hw.vision.reader import BoardReader, VisionSettings, read_image, start_layout
from bermuda_hw.vision.stability import ObservationStream, StabilitySettings, Stabilizer
from bermuda_hw.vision.types import BoardObservation, CloudReading, FrameReading, ShipReading

__all__ = [
    "BoardObservation",
    "BoardReader",
    "CloudReading",
    "ColorCalibration",
    "FrameReading",
    "ObservationStream",
    "ShipReading",
    "StabilitySettings",
    "Stabilizer",
    "VisionSettings",
    "load_calibration",
    "read_image",
    "start_layout",
]
