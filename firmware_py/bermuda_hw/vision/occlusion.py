"""Hands and arms over the board: large patches that are neither sea nor land nor the cloud.

A ship is small; a hand or an arm covers thousands of square millimetres. The
sea's colour is estimated block by block (strong light can shift it across
the board, where the camera clips), from blocks not too far from the whole
sea's colour, and filled in under anything that covers it. Any connected
patch of sea farther than `distance` from its local sea colour (or of land
far from the land's colour) and larger than `min_area_mm2` is a hand.

Once the empty board's look has been learned (`vision.background`), a pixel
is foreign when it is far from what the board shows at that very spot, so
printing that the board file does not describe is never a hand. Where the
board has not been seen (under the cloud while it was learned) nothing is
flagged: a hand reaching there crosses the learned board with its arm.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.vision.background import BackgroundComparison
from bermuda_hw.vision.colors import LIGHTNESS_WEIGHT
from bermuda_hw.vision.layout import BoardLayout
from bermuda_hw.vision.lighting import Lab, to_lab
from bermuda_hw.vision.ships import FAR_LAND, FAR_SEA, GLARE_CHROMA, glare_lightness

Floats = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]

BLOCK_MM = 16.0
STATIC_RATE = 0.01  # per frame
STATIC_LEVEL = 0.7


@dataclass(frozen=True)
class OcclusionSettings:
    """A foreign patch bigger than `min_area_mm2` is a hand; distances in weighted L*a*b*."""

    min_area_mm2: float = 1500.0
    distance: float = 22.0
    sea_spread: float = 35.0  # how far a block of sea may drift from the whole sea's colour


class OcclusionDetector:
    """Finds hands and arms in half-resolution normalised board images."""

    def __init__(self, layout: BoardLayout, settings: OcclusionSettings) -> None:
        self.learn = False  # set by a reader that sees a steady camera
        self.layout = layout
        self.settings = settings
        self.size = (layout.width_px // 2, layout.height_px // 2)
        self.sea = cv2.resize(
            layout.sea.astype(np.uint8), self.size, interpolation=cv2.INTER_NEAREST
        ).astype(bool)
        self.land = cv2.resize(
            layout.land.astype(np.uint8), self.size, interpolation=cv2.INTER_NEAREST
        ).astype(bool)
        self.px_area_mm2 = 4.0 / (layout.px_per_mm**2)
        self.blocks = (
            max(4, round(layout.width_px / BLOCK_MM)),
            max(4, round(layout.height_px / BLOCK_MM)),
        )
        self.sea_f = self.sea.astype(np.float32)
        # How often each pixel has looked foreign lately: print on the board that is
        # not sea (a title, a compass rose) looks foreign in every frame; a hand moves.
        self.static: Floats | None = None
        self.sea_small = cv2.resize(self.sea_f, self.blocks, interpolation=cv2.INTER_AREA)
        # Which flag of a pixel's lookup-table code makes it foreign: far from the sea on
        # the sea, far from the land on the land (both where the two touch).
        sea_flag = np.where(self.sea, FAR_SEA, 0)
        self.far_flag = (sea_flag | np.where(self.land, FAR_LAND, 0)).astype(np.uint8)

    def sea_field(self, lab: Floats, sea: Lab) -> Floats:
        """The local colour of the sea everywhere (half resolution, L*a*b*).

        A smooth (quadratic) surface per channel, fitted to the blocks of sea
        and refitted without the blocks that stray from it: light drifts
        smoothly across the board, a hand does not.
        """
        sums = cv2.resize(lab * self.sea_f[..., None], self.blocks, interpolation=cv2.INTER_AREA)
        weight = self.sea_small
        mean = sums / np.maximum(weight, 1e-3)[..., None]
        ref = np.array(sea, np.float32)
        diff = mean - ref
        diff[..., 0] *= LIGHTNESS_WEIGHT
        keep = (weight > 0.3) & (np.sqrt((diff**2).sum(axis=2)) < self.settings.sea_spread)
        bw, bh = self.blocks
        gy, gx = np.mgrid[0:bh, 0:bw].astype(np.float32)
        gx = gx / bw - 0.5
        gy = gy / bh - 0.5
        basis = np.stack([np.ones_like(gx), gx, gy, gx * gx, gx * gy, gy * gy], axis=-1)
        coef: npt.NDArray[np.float64] | None = None
        for _ in range(4):
            if keep.sum() < 12:
                break
            a = basis[keep].astype(np.float64)
            coef = np.linalg.lstsq(a, mean[keep].astype(np.float64), rcond=None)[0]
            fit = basis @ coef
            res = mean - fit
            res[..., 0] *= LIGHTNESS_WEIGHT
            dist = np.sqrt((res**2).sum(axis=2))
            limit = max(8.0, 2.5 * float(np.median(dist[keep])))
            keep = keep & (dist < limit)
        if coef is None:
            field = np.broadcast_to(ref, (*self.blocks[::-1], 3)).astype(np.float32)
        else:
            field = (basis @ coef).astype(np.float32)
        out = cv2.resize(field, self.size, interpolation=cv2.INTER_LINEAR)
        return np.asarray(out, np.float32)

    def largest_patch_mm2(
        self,
        half: Image,
        codes: npt.NDArray[np.uint8],
        sea: Lab,
        blocked: list[tuple[float, float, float]],
    ) -> float:
        """Area of the largest foreign patch, from the normalised half-resolution image.

        First against the whole sea's colour (a lookup, cheap); only if that finds a
        large patch, again against the local sea colour, which strong light can shift.
        """
        rough_mask = cv2.bitwise_and(codes, self.far_flag) > 0
        rough = self._largest(rough_mask, blocked)
        if self.learn:
            seen = rough_mask.astype(np.float32)
            if self.static is None:
                self.static = np.zeros_like(seen)
            self.static += STATIC_RATE * (seen - self.static)
        if rough < self.settings.min_area_mm2:
            return rough
        lab = to_lab(half)
        diff = lab - self.sea_field(lab, sea)
        diff[..., 0] *= LIGHTNESS_WEIGHT
        far_sea = (diff**2).sum(axis=2) > self.settings.distance**2
        glare = (lab[..., 0] > glare_lightness(sea)) & (
            np.abs(lab[..., 1]) + np.abs(lab[..., 2]) < GLARE_CHROMA
        )
        far_land = self.land & ((codes & FAR_LAND) > 0)
        return self._largest((self.sea & far_sea & ~glare) | far_land, blocked)

    def _largest(
        self, foreign: npt.NDArray[np.bool_], blocked: list[tuple[float, float, float]]
    ) -> float:
        mask = foreign.astype(np.uint8)
        if self.static is not None:
            mask[self.static > STATIC_LEVEL] = 0
        s = self.layout.px_per_mm / 2
        for x, y, r in blocked:
            cv2.circle(mask, (round(x * s), round(y * s)), round(r * s), 0, -1)
        if not cv2.countNonZero(mask):
            return 0.0
        # Bridge the printed spaces and ports that the masks leave out under an arm.
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
        if n <= 1:
            return 0.0
        return float(stats[1:, cv2.CC_STAT_AREA].max()) * self.px_area_mm2

    def forget(self) -> None:
        """Forget what looked static (the camera moved)."""
        self.static = None

    def largest_patch_against(
        self,
        board: BackgroundComparison,
        blocked: list[tuple[float, float, float]],
        glare_above: float,
    ) -> float:
        """Area of the largest patch that differs from the learned board's look."""
        lab = board.lab
        glare = (lab[..., 0] > glare_above) & (
            np.abs(lab[..., 1]) + np.abs(lab[..., 2]) < GLARE_CHROMA
        )
        return self._largest(board.foreign(self.settings.distance) & ~glare, blocked)

    def occluded(
        self,
        half: Image,
        codes: npt.NDArray[np.uint8],
        sea: Lab,
        blocked: list[tuple[float, float, float]],
        board: BackgroundComparison | None = None,
    ) -> bool:
        """True if a hand or an arm is over the board (against the learned board's look
        when there is one)."""
        if board is not None and board.background.known.mean() > 0.5:
            area = self.largest_patch_against(board, blocked, glare_lightness(sea))
        else:
            area = self.largest_patch_mm2(half, codes, sea, blocked)
        return area >= self.settings.min_area_mm2
