"""The empty board's own appearance, learned from frames: what every pixel should look like.

A board's printing holds far more than its board file describes (coasts,
titles, compass roses, ports in their own paint), often in colours near the
ships'. Vision therefore learns the board's look in board coordinates (the
normalised, half-resolution top-down image) from frames in which it knows
where the ships are: at calibration and at every game start (ships in their
ports). The known ships and the cloud are masked out; the small holes they
leave (a ship in a berth) are filled from the paint around them; larger
holes (under the cloud) stay unknown, and there vision falls back on the
board file.

A reading then compares each frame with it: a pixel is foreign (a hand, an
arm) when it is far from what the empty board shows there, and a pixel only
counts for a ship when it is nearer to the ship's colour than to the board's
own colour at that spot. Light that changes between learning and reading
(a warm lamp switched on at one side) changes every channel by a smooth gain;
that gain is fitted and applied to the learned look, so only what lies on
the board stays.

Where the camera clipped a channel while the board was learned (an orange
paint's red under a bright light), the learned value is only a floor of the
paint's: under a dimmer light the paint shows its true, stronger colour. Such a
channel is expected at least as bright as learned, and as bright as the frame
shows it above that.

The learned look is saved as a PNG (normalised BGR, alpha 255 where known)
beside the colour calibration file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.errors import CalibrationError
from bermuda_hw.vision.lighting import (
    STRAY_FACTOR,
    channel_max,
    channel_min,
    quadratic_basis,
    to_lab,
)

Image = npt.NDArray[np.uint8]
Floats = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]

RIM = np.ones((5, 5), np.uint8)  # a paint region's margin from its port's printed border
FILL_MM = 20.0  # holes this close to learned pixels are filled from around them
SHIP_MASK_MM = 15.0  # around a known ship's place, nothing is learned
DRIFT_BLOCK_MM = 24.0
WEIGHT_L = 0.35  # lightness weight of the distances (as in vision.colors)
LIGHT_STEP = 0.004  # log gain: a light change smaller than this reuses the last expectation
#: log gain (about 4 %): a light changed more than this since learning is divided out of the
#: frame before its colours are read (ship colours were measured under the learned light);
#: below it, the frame is read as it is (the camera's own noise and drift)
RELIGHT_STEP = 0.04
SAME_AS_BOARD = 8.0  # a pixel this near to the board's look there is the board
CLIPPED = 245  # a channel this bright may be clipped
#: the saved PNG's alpha of a learned pixel the camera clipped, plus its clipped channels
#: as bits (1 blue, 2 green, 4 red; none: a file from before they were kept)
SATURATED_ALPHA = 192
REVEAL_FRAMES = 2  # a never-seen pixel is learned after this many calm frames in a row
REVEAL_SPREAD = 12.0  # ... that differ by less than this (per BGR channel)
#: log(value + 4) of every 8-bit value: the light's gain is fitted on these logs' differences
LOG_VALUE: Floats = np.log(np.arange(256, dtype=np.float32) + np.float32(4.0))


@dataclass
class BoardBackground:
    """The learned look of the empty board: normalised half-resolution BGR and where known.

    `px_per_mm` is the half-resolution scale (half the reader's layout scale).
    """

    bgr: Image
    known: Mask
    px_per_mm: float
    #: Known pixels the camera clipped while they were learned (a white under a bright
    #: light): their true look is brighter than learned, so they are not compared.
    saturated: Mask | None = None
    #: Their channels the camera clipped (height x width x 3): the learned value is
    #: only a floor of the true one (None: each saturated pixel's brightest channel).
    floor: Mask | None = None

    def __post_init__(self) -> None:
        if self.saturated is None:
            self.saturated = np.zeros(self.shape, bool)
        if self.floor is None:
            top = self.bgr.max(axis=2, keepdims=True).astype(np.int16)
            self.floor = self.saturated[..., None] & (self.bgr.astype(np.int16) >= top - 2)
        #: pixels with a floor channel
        self.floored: Mask = np.asarray(self.floor.any(axis=2) & self.known)
        self._fits: Mask | None = None
        self._log: Floats | None = None
        self.lab: Floats = to_lab(self.bgr)
        # The expected look under the last light change seen (a steady light costs nothing).
        # (one per way of reading: the frame as lit, or relit to the learned light)
        self.last_light: dict[str, tuple[Floats, Floats, Floats]] = {}
        # Pixels never seen: for how many calm frames in a row, and how they looked first.
        self._seen = np.zeros(self.shape, np.int32)
        self._first = np.zeros((*self.shape, 3), np.float32)

    @property
    def log_bgr(self) -> Floats:
        """log(value + 4) of every channel of the learned look (`LOG_VALUE`)."""
        if self._log is None:
            self._log = LOG_VALUE[self.bgr]
        return self._log

    @property
    def fits_gain(self) -> Mask:
        """Known pixels that tell the light's gain: not clipped in the learned look."""
        if self._fits is None:
            self._fits = self.known & (channel_max(self.bgr) < CLIPPED) & ~self.floored
        return self._fits

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.bgr.shape[0]), int(self.bgr.shape[1]))

    def reveal(self, half: Image, visible: Mask) -> int:
        """Learn what was never seen, from calm frames: pixels not yet known that are
        `visible` in this frame (no hand over the board, away from the cloud) and look
        the same in `REVEAL_FRAMES` frames in a row become known. Returns how many
        pixels were learned.

        The area under the cloud while the board was learned is uncovered when
        the cloud first moves away; nothing can have entered it while the cloud
        stood there, so what it shows then is the empty board.
        """
        new = visible & ~self.known
        pix = half.astype(np.float32)
        steady = (np.abs(pix - self._first).max(axis=2) < REVEAL_SPREAD) & (self._seen > 0)
        self._seen[~new] = 0
        restart = new & ~steady
        self._first[restart] = pix[restart]
        self._seen[restart] = 1
        grow = new & steady
        self._seen[grow] += 1
        done = grow & (self._seen >= REVEAL_FRAMES)
        count = int(done.sum())
        if count:
            self.bgr[done] = np.round((self._first[done] + pix[done]) / 2).astype(np.uint8)
            self.known[done] = True
            self._fits = None
            self._log = None
            self.lab[done] = to_lab(self.bgr[done])
            self._seen[done] = 0
            self.last_light = {}
        return count

    def save(self, path: str | Path) -> None:
        """Write the PNG (BGR, alpha 255 where learned, SATURATED_ALPHA where learned but
        clipped by the camera, 0 where never seen)."""
        alpha = np.where(self.known, 255, 0).astype(np.uint8)
        if self.saturated is not None and self.floor is not None:
            bits = (self.floor * np.array([1, 2, 4], np.uint8)).sum(axis=2).astype(np.uint8)
            at = self.known & self.saturated
            alpha[at] = SATURATED_ALPHA + bits[at]
        out = np.dstack([self.bgr, alpha])
        try:
            ok = cv2.imwrite(str(path), out)
        except cv2.error:
            ok = False
        if not ok:
            raise CalibrationError(str(path), None, "cannot be written")

    @classmethod
    def load(cls, path: str | Path, shape: tuple[int, int], px_per_mm: float) -> BoardBackground:
        """Read a saved background; it must match the reader's half-resolution size."""
        file = str(path)
        if not Path(file).is_file():
            raise CalibrationError(file, None, "the learned board background is missing")
        img = cv2.imread(file, cv2.IMREAD_UNCHANGED)
        if img is None or img.ndim != 3 or img.shape[2] != 4 or img.dtype != np.uint8:
            raise CalibrationError(file, None, "is not an 8-bit BGRA PNG of the learned board")
        if tuple(img.shape[:2]) != shape:
            raise CalibrationError(
                file,
                None,
                f"is {img.shape[1]}x{img.shape[0]} px, the board needs "
                f"{shape[1]}x{shape[0]}: calibrate again (bermuda-hw detect --calibrate)",
            )
        alpha = img[..., 3]
        known = alpha > 127
        saturated = known & (np.abs(alpha.astype(np.int16) - SATURATED_ALPHA) < 16)
        bits = np.where(saturated, alpha.astype(np.int16) - SATURATED_ALPHA, 0)
        floor: Mask | None = None
        if ((bits >= 1) & (bits <= 7)).any():
            floor = (bits[..., None] & np.array([1, 2, 4], np.int16)) > 0
        return cls(np.ascontiguousarray(img[..., :3]), known, px_per_mm, saturated, floor)


class BackgroundLearner:
    """Collects normalised frames with their unknown parts masked, and makes a background."""

    def __init__(self, shape: tuple[int, int], px_per_mm: float) -> None:
        self.shape = shape
        self.px_per_mm = px_per_mm
        self.sum = np.zeros((*shape, 3), np.float64)
        self.count = np.zeros(shape, np.float64)
        self.clipped = np.zeros((*shape, 3), bool)

    def mask_for(
        self, ships_mm: Iterable[tuple[float, float]], blocked: Iterable[tuple[float, float, float]]
    ) -> Mask:
        """Pixels that show the empty board: away from the known ships and the cloud."""
        mask = np.ones(self.shape, np.uint8)
        s = self.px_per_mm
        for x, y in ships_mm:
            cv2.circle(mask, (round(x * s), round(y * s)), round(SHIP_MASK_MM * s), 0, -1)
        for x, y, r in blocked:
            cv2.circle(mask, (round(x * s), round(y * s)), round(r * s), 0, -1)
        return mask > 0

    def add(self, half: Image, usable: Mask, clipped: Mask | None = None) -> None:
        """One normalised frame; `clipped`: its pixels the camera clipped, per channel
        (height x width x 3) or in every channel (height x width)."""
        self.sum[usable] += half[usable].astype(np.float64)
        self.count[usable] += 1.0
        if clipped is not None:
            channels = clipped if clipped.ndim == 3 else clipped[..., None]
            self.clipped |= usable[..., None] & channels

    def result(
        self, previous: BoardBackground | None = None, regions: npt.NDArray[np.int32] | None = None
    ) -> BoardBackground:
        """The background: the mean of what was seen, small holes filled from around them,
        and, where nothing was seen now, what an earlier background knew.

        `regions` (0: none) are areas painted in one colour (a port's paint): a hole
        inside one is filled with the median of what was seen of that region.
        """
        seen = self.count > 0
        mean = np.zeros((*self.shape, 3), np.uint8)
        mean[seen] = np.clip(np.round(self.sum[seen] / self.count[seen][:, None]), 0, 255)
        known = seen.copy()
        # a filled pixel's channels are floors as the pixels it is filled from are
        floor = self.clipped.copy()
        if previous is not None and previous.shape == self.shape:
            keep = ~seen & previous.known
            mean[keep] = previous.bgr[keep]
            known |= keep
            if previous.floor is not None:
                floor[keep] = previous.floor[keep]
        if regions is not None:
            for region in np.unique(regions[regions > 0]):
                inside = regions == region
                paint = inside & known
                if paint.sum() >= 8:
                    # the region keeps away from the port's printed border: its unseen
                    # rim, as wide as that margin, is the paint too (not the sea beyond)
                    rim = cv2.dilate(inside.view(np.uint8), RIM) > 0
                    fill = rim & ~known
                    mean[fill] = np.median(mean[paint], axis=0).astype(np.uint8)
                    floor[fill] = floor[paint].mean(axis=0) > 0.5
                    known |= fill
        hole = (~known).astype(np.uint8)
        if hole.any() and known.any():
            # Only whole holes no deeper than FILL_MM (a ship) are filled: never the rim
            # of a large one (the cloud's), which would smear its surroundings inwards.
            dist = cv2.distanceTransform(hole, cv2.DIST_L2, 3)
            n, labelled = cv2.connectedComponents(hole, connectivity=8)
            parts = np.asarray(labelled, np.intp)
            depth = np.zeros(n, np.float32)
            np.maximum.at(depth, parts.ravel(), dist.ravel())
            small = (hole > 0) & (depth[parts] <= FILL_MM * self.px_per_mm)
            if small.any():
                radius = max(3.0, FILL_MM * self.px_per_mm / 2)
                filled = cv2.inpaint(mean, hole, radius, cv2.INPAINT_TELEA)
                mean[small] = filled[small]
                if floor.any():
                    spread = cv2.inpaint(
                        floor.astype(np.uint8) * 255, hole, radius, cv2.INPAINT_TELEA
                    )
                    floor[small] = spread[small] > 127
                known |= small
        floor &= known[..., None]
        return BoardBackground(mean, known, self.px_per_mm, np.asarray(floor.any(axis=2)), floor)


def weighted_distance(lab: Floats, ref: Floats) -> Floats:
    """Per-pixel weighted L*a*b* distance (lightness counts WEIGHT_L)."""
    d = lab - ref
    light = d[..., 0] * np.float32(WEIGHT_L)
    a = d[..., 1]
    b = d[..., 2]
    out: Floats = np.sqrt(light * light + a * a + b * b)
    return out


class BackgroundComparison:
    """One frame against the learned background: the expected look, and what is foreign."""

    def __init__(
        self,
        background: BoardBackground,
        half: Image,
        usable: Mask,
        clipped: Mask | None = None,
        ceiling: Callable[[], Floats | None] | None = None,
        relit_from: Floats | None = None,
    ) -> None:
        """`half`: the frame's normalised half-resolution BGR; `usable`: where it shows
        the board (not the cloud); `clipped`: its pixels the camera clipped; `ceiling`:
        gives the normalised value of a clipped pixel everywhere (for this frame:
        the expected look under a light is kept for the next frames, its cap is
        not); `relit_from`: for a frame relit to the learned
        light, the light change divided out of it (its expected look, capped where the
        camera clips, follows that change too; it is kept apart from the frame's as lit)."""
        self.background = background
        self.clipped = clipped
        self.lab = to_lab(half)
        coef = self._light_change(half, usable)
        #: the light's change since learning: log gain per channel (BGR) of every block
        self.light_change = coef
        kind, key = (
            ("lit", coef)
            if relit_from is None
            else ("relit", np.concatenate([coef, relit_from], axis=-1))
        )
        last = background.last_light.get(kind)
        if (
            last is not None
            and last[0].shape == key.shape
            and float(np.abs(last[0] - key).max()) < LIGHT_STEP
        ):
            lab, bgr = last[1], last[2]
        else:
            bgr = np.clip(background.bgr.astype(np.float32) * self._gain_field(coef), 0, 255)
            lab = to_lab(np.round(bgr).astype(np.uint8))
            background.last_light[kind] = (key, lab, bgr)
        self._lit_bgr = bgr  # the learned look under this light, before its floors
        floored = background.floored
        if floored.any():
            # A channel clipped while learning is at least as bright as learned (under this
            # light), and may be as bright as the frame shows it.
            raised = self._raise(bgr[floored], floored, half[floored])
            bgr = bgr.copy()
            bgr[floored] = raised
            lab = lab.copy()
            lab[floored] = to_lab(np.round(raised).astype(np.uint8))
        #: the expected look in BGR, not capped where the camera clips
        self.expected_bgr: Floats = bgr
        self.expected: Floats = lab
        top = ceiling() if ceiling is not None else None
        if top is not None:
            # Where the camera clips (a lamp's side), the board looks no brighter than the
            # clipped value: a pale paint turns the lamp's colour. The cap is this frame's
            # own (its normalisation sets the clipped value): it is never kept for another.
            over = (bgr > top).any(axis=2)
            if over.any():
                self.expected = lab.copy()
                capped = np.minimum(bgr[over], top[over])
                self.expected[over] = to_lab(np.round(capped).astype(np.uint8))
        self.distance = weighted_distance(self.lab, self.expected)

    def _raise(
        self, bgr: Floats, at: Mask | tuple[npt.NDArray[np.intp], ...], seen: Image
    ) -> Floats:
        """The expected BGR of some pixels (`at` in the half-resolution board) with each
        channel clipped while learning raised to what the frame shows (`seen`), if more."""
        assert self.background.floor is not None
        floor = self.background.floor[at]
        out: Floats = np.where(floor, np.maximum(bgr, seen.astype(np.float32)), bgr)
        return out

    def _light_change(self, half: Image, usable: Mask) -> Floats:
        """How the light changed since learning: the log gain per channel (BGR) of every
        block of the board (DRIFT_BLOCK_MM), on a smooth surface.

        Coloured light multiplies each channel, so its change shifts a red paint
        differently from the blue sea: the change is fitted as a gain, not as
        a colour offset. Block means of the log ratio of the frame to the
        background are fitted with a quadratic surface per channel, refitted
        without the blocks that stray from it (a hand, ships). Pixels the camera
        clipped, now or while learning, are left out: their ratio is not the light's.
        """
        bg = self.background
        # Clipped or black pixels tell nothing of a gain.
        lit = (channel_max(half) < CLIPPED) & (channel_min(half) > 8)
        if self.clipped is not None:
            lit &= ~self.clipped  # (a relit frame's clipped pixels fall below CLIPPED)
        known = (bg.fits_gain & usable & lit).astype(np.float32)
        h, w = bg.shape
        blocks = (
            max(4, round(w / (DRIFT_BLOCK_MM * bg.px_per_mm))),
            max(4, round(h / (DRIFT_BLOCK_MM * bg.px_per_mm))),
        )
        ratio = LOG_VALUE[half] - bg.log_bgr
        sums = cv2.resize(ratio * known[..., None], blocks, interpolation=cv2.INTER_AREA)
        weight = cv2.resize(known, blocks, interpolation=cv2.INTER_AREA)
        mean = sums / np.maximum(weight, 1e-3)[..., None]
        bw, bh = blocks
        basis = quadratic_basis(bh, bw)
        keep = weight > 0.5
        coef: npt.NDArray[np.float64] | None = None
        for _ in range(4):
            if keep.sum() < 12:
                break
            coef = np.linalg.lstsq(
                basis[keep].astype(np.float64), mean[keep].astype(np.float64), rcond=None
            )[0]
            dist = np.abs(mean - basis @ coef).max(axis=2)
            limit = max(0.03, STRAY_FACTOR * float(np.median(dist[keep])))
            keep = keep & (dist < limit)
        if coef is None:
            return np.zeros((bh, bw, 3), np.float32)
        out: Floats = (basis @ coef).astype(np.float32)
        return out

    def light_field(self) -> Floats:
        """The light's change since learning as a gain per channel at every pixel of the
        half-resolution board (1: as learned)."""
        return self._gain_field(self.light_change)

    @property
    def light_changed(self) -> bool:
        """Whether the light differs from the learned light by more than `RELIGHT_STEP` at
        some block, in some channel."""
        return float(np.abs(self.light_change).max()) > RELIGHT_STEP

    def _gain_field(self, blocks: Floats) -> Floats:
        """The gain at every pixel from the blocks' log gains (interpolated between the
        blocks' centres: the surface is smooth)."""
        h, w = self.background.shape
        field = cv2.resize(blocks, (w, h), interpolation=cv2.INTER_LINEAR)
        out: Floats = np.exp(field).astype(np.float32)
        return out

    def foreign(self, threshold: float) -> Mask:
        """Known pixels farther than a threshold from the board's look there (a pixel the
        camera clips now or clipped while learning is not compared: its colour is not
        the paint's)."""
        out: Mask = self.background.known & (self.distance > threshold)
        if self.clipped is not None:
            out &= ~self.clipped
        if self.background.saturated is not None:
            out &= ~self.background.saturated
        return out

    def known_at(
        self, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp], scale: int = 2
    ) -> Mask:
        """Whether the board's look is known at pixels of a `scale` times finer image."""
        known: Mask = self.background.known[self._cells(rows, cols, scale)]
        return known

    def _cells(
        self, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp], scale: int
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The learned board's cells under pixels of a `scale` times finer image."""
        h, w = self.background.shape
        return np.clip(rows // scale, 0, h - 1), np.clip(cols // scale, 0, w - 1)

    def at(
        self,
        rows: npt.NDArray[np.intp],
        cols: npt.NDArray[np.intp],
        scale: int = 2,
        pixels: Image | None = None,
    ) -> tuple[Floats, Mask, Floats]:
        """The expected L*a*b*, whether it is known, and the expected BGR not capped where
        the camera clips, at pixels of a `scale` times finer image (the full-resolution
        rectified frame); with the frame's `pixels` there (normalised BGR), a channel
        clipped while learning is raised to each pixel's own value, if more."""
        r, c = self._cells(rows, cols, scale)
        lab, known, bgr = self.expected[r, c], self.background.known[r, c], self.expected_bgr[r, c]
        if pixels is not None:
            floored = self.background.floored[r, c]
            if floored.any():
                at = (r[floored], c[floored])
                raised = self._raise(self._lit_bgr[at], at, pixels[floored])
                bgr = bgr.copy()
                bgr[floored] = raised
                lab = lab.copy()
                lab[floored] = to_lab(np.round(raised).astype(np.uint8))
        return lab, known, bgr


@dataclass(frozen=True)
class Clipping:
    """What a veto needs of pixels the camera (or the normalisation) clipped: their BGR,
    which of their channels are only a floor of the true value, and the board's expected
    BGR there (not capped)."""

    bgr: Image
    channels: Mask
    expected_bgr: Floats


def clipped_board_distance(clipping: Clipping) -> Floats:
    """For pixels with a clipped channel, the weighted L*a*b* distance to the board's look
    there under the light the pixel itself shows (infinite for pixels with none).

    Where the camera clips, the light is not known: the light's fit leaves those
    channels out, and a bright corner's fit may be off by a fifth. The board's
    look there is scaled to the pixel's channels that are not clipped (a gain
    common to all channels: the light's brightness), and a clipped channel
    takes the lesser of that and the clipped value (the camera cannot show
    more). A pale paint whose red the lamp clips then matches itself, whereas
    a ship's colour does not: a yellow token's blue channel is far below any
    paint's, and a red token's clipped red is more than a paint as dim as its
    blue and green could give. A pixel clipped in every channel has no colour.
    """
    p = clipping.bgr.astype(np.float32)
    e = clipping.expected_bgr.astype(np.float32)
    free: Mask = np.asarray(~clipping.channels)
    some_free: Mask = np.asarray(free.any(axis=-1))
    num = (p * e * free).sum(axis=-1)
    den = (e * e * free).sum(axis=-1)
    look = (num / np.maximum(den, 1e-6))[..., None] * e
    look = np.where(clipping.channels, np.minimum(look, p), look)
    look = np.where(some_free[..., None], look, p)
    lab_look = to_lab(np.clip(np.round(look), 0, 255).astype(np.uint8))
    out = weighted_distance(to_lab(clipping.bgr), lab_look)
    out[~np.asarray(clipping.channels.any(axis=-1))] = np.inf
    return out


def veto_board_colours(
    labels: npt.NDArray[np.int8],
    lab: Floats,
    expected: Floats,
    known: Mask,
    centres: Floats,
    margin: float,
    clipping: Clipping | None = None,
) -> None:
    """Drop ship labels (in place) of pixels that look like the board's own colour at their
    spot, or not nearer to the ship's colour than to it by `margin`.

    `centres` are the ship colours' L*a*b* centres with the lightness already
    weighted (as `ColorClassifier.centres`); with `clipping`, a clipped pixel is
    compared with the board under its own light (`clipped_board_distance`) too.
    """
    has = (labels >= 0) & known
    if not has.any():
        return
    px = lab[has].copy()
    px[:, 0] *= np.float32(WEIGHT_L)
    exp = expected[has].copy()
    exp[:, 0] *= np.float32(WEIGHT_L)
    d_ship = np.sqrt(((px - centres[labels[has]]) ** 2).sum(axis=1))
    d_board = np.sqrt(((px - exp) ** 2).sum(axis=1))
    if clipping is not None:
        clipped = clipping.channels[has].any(axis=1)
        if clipped.any():
            at = tuple(i[clipped] for i in np.nonzero(has))
            d_board[clipped] = np.minimum(
                d_board[clipped],
                clipped_board_distance(
                    Clipping(clipping.bgr[at], clipping.channels[at], clipping.expected_bgr[at])
                ),
            )
    drop = (d_board - d_ship < margin) | (d_board < SAME_AS_BOARD)
    idx = np.nonzero(has)
    labels[tuple(i[drop] for i in idx)] = -1
