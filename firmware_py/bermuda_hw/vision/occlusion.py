"""Hands and arms over the board: large patches that are neither sea nor land nor the cloud.

A ship is small; a hand or an arm covers thousands of square millimetres. Any
connected patch of the sea or the land whose colour is far from the sea's (or
the land's) and larger than `min_area_mm2` marks the frame as occluded.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.vision.layout import BoardLayout
from bermuda_hw.vision.ships import FAR_LAND, FAR_SEA


@dataclass(frozen=True)
class OcclusionSettings:
    """A foreign patch bigger than `min_area_mm2` is a hand; `distance` is in weighted L*a*b*."""

    min_area_mm2: float = 1500.0
    distance: float = 22.0


class OcclusionDetector:
    """Finds hands and arms in half-resolution normalised board images."""

    def __init__(self, layout: BoardLayout, settings: OcclusionSettings) -> None:
        self.layout = layout
        self.settings = settings
        size = (layout.width_px // 2, layout.height_px // 2)
        self.sea = cv2.resize(layout.sea.astype(np.uint8), size,
                              interpolation=cv2.INTER_NEAREST).astype(bool)
        self.land = cv2.resize(layout.land.astype(np.uint8), size,
                               interpolation=cv2.INTER_NEAREST).astype(bool)
        self.px_area_mm2 = 4.0 / (layout.px_per_mm ** 2)

    def largest_patch_mm2(
        self, codes: npt.NDArray[np.uint8], blocked: list[tuple[float, float, float]]
    ) -> float:
        """Area of the largest foreign patch, from half-resolution lookup codes."""
        foreign = (self.sea & ((codes & FAR_SEA) > 0)) | (self.land & ((codes & FAR_LAND) > 0))
        mask = foreign.astype(np.uint8)
        s = self.layout.px_per_mm / 2
        for x, y, r in blocked:
            cv2.circle(mask, (round(x * s), round(y * s)), round(r * s), 0, -1)
        # Bridge the printed spaces and ports that the masks leave out under an arm.
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
        if n <= 1:
            return 0.0
        return float(stats[1:, cv2.CC_STAT_AREA].max()) * self.px_area_mm2

    def occluded(
        self, codes: npt.NDArray[np.uint8], blocked: list[tuple[float, float, float]]
    ) -> bool:
        return self.largest_patch_mm2(codes, blocked) >= self.settings.min_area_mm2
