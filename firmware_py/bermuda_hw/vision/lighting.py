"""Per-frame lighting normalisation against the board's own sea and the markers' white.

Gradients, vignetting and soft shadows change the brightness of the printed
sea but not its chromaticity; hands and ships change its chromaticity. So
the brightness field is estimated from blocks of sea whose chromaticity
matches the sea's, filled in where the sea is covered, and divided out. The
white paper around the corner markers then fixes the colour balance, so a
colour means the same under warm or cold light.

The sea's chromaticity across the board is a property of the light: under a
steady camera it is fitted once and kept for the next frames while their sea
shows it (`same_sea`); a tint of the light, a camera moved, or a sea the
camera clips fit it again. The sea's brightness (shadows move with the cloud
and hands) and the white balance are measured in every frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.vision.layout import BoardLayout

Image = npt.NDArray[np.uint8]
Floats = npt.NDArray[np.float32]
Lab = tuple[float, float, float]

BLOCK_MM = 8.0
#: a block of sea whose chromaticity (each channel's share of the three) differs from the
#: sea's there by more than this holds something else (a ship, a hand, a coloured shadow)
SEA_CHROMA_CLOSE = 0.035
#: blocks of clear sea needed to fit how the sea's chromaticity changes across the board
MIN_SEA_FIT_BLOCKS = 12
#: a block strays from a smooth fit (a hand, ships) when it is farther from it than this
#: many times the median block's distance
STRAY_FACTOR = 2.5
WHITE_TARGET = 240.0
CLIPPED = 250  # a camera value this high may have been clipped
#: The sea's chromaticity fitted on a frame is kept for the next frames
#: (`LightingNormaliser.normalise`) while at least this share of the blocks of sea it was
#: fitted on still show the sea's colour by it,
STEADY_SEA_SHARE = 0.8
#: and their median chromaticity difference from it is at most this more than when fitted
#: (a tint: a lamp switched on, the daylight changing)
STEADY_CHROMA = 0.003


def to_lab(bgr: Image) -> Floats:
    """8-bit BGR (any shape ending in 3) to float L*a*b* (L* 0-100, a*, b* signed)."""
    shape = bgr.shape
    img = np.ascontiguousarray(bgr.reshape(-1, 1, 3))
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float32).reshape(shape)
    lab[..., 0] *= np.float32(100.0 / 255.0)
    lab[..., 1:] -= np.float32(128.0)
    return lab


def channel_max(img: Image) -> Image:
    """The largest channel of every pixel (faster than `max(axis=2)` on three channels)."""
    out: Image = np.maximum(np.maximum(img[..., 0], img[..., 1]), img[..., 2])
    return out


def channel_min(img: Image) -> Image:
    """The smallest channel of every pixel."""
    out: Image = np.minimum(np.minimum(img[..., 0], img[..., 1]), img[..., 2])
    return out


def median_bgr(pixels: Image) -> Floats:
    """The median of each channel of 8-bit pixels (N x 3; N > 0), as `np.median` gives it
    (the mean of the two middle values of an even count), from their histograms."""
    n = len(pixels)
    counts = np.bincount(
        (pixels.astype(np.intp) + np.array([0, 256, 512])).ravel(), minlength=768
    ).reshape(3, 256)
    below = np.cumsum(counts, axis=1)
    low = (below <= (n - 1) // 2).sum(axis=1)  # the value at sorted index (n - 1) // 2
    high = (below <= n // 2).sum(axis=1)  # ... and at n // 2
    out: Floats = ((low + high) / 2.0).astype(np.float32)
    return out


def median_rows(values: Floats) -> Floats:
    """The median of each column of float values (N x 3; N > 0, no NaN), equal to
    `np.median(values, axis=0)`: one partition of the rows, without its checks and
    its mean of the middle pair."""
    n = len(values)
    low, high = (n - 1) // 2, n // 2
    if low == high:
        odd: Floats = np.partition(values, low, axis=0)[low]
        return odd
    part = np.partition(values, (low, high), axis=0)
    out: Floats = (part[low] + part[high]) / values.dtype.type(2)
    return out


def bgr_to_lab(bgr: npt.NDArray[np.float32]) -> Lab:
    one = np.clip(np.round(bgr), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    lab = to_lab(one).reshape(3)
    return (float(lab[0]), float(lab[1]), float(lab[2]))


@dataclass
class Normalised:
    """How to normalise one rectified frame, and the half-resolution result."""

    gain: Floats  # full resolution brightness gain
    wb: Floats  # per-channel white balance (BGR)
    half: Image  # normalised BGR at half resolution
    sea_lab: Lab
    land_lab: Lab | None
    white_ok: bool
    port_lab: Lab | None = None
    #: Half-resolution pixels whose camera value was at the sensor's top in some channel:
    #: their colour is not the light times the paint, so it is not compared.
    clipped: npt.NDArray[np.bool_] | None = None
    gain_half: Floats | None = None  # the brightness gain at half resolution
    #: the white paper around the corner markers as the camera gives it (BGR, before any
    #: normalisation; None: not seen)
    white_raw: tuple[float, float, float] | None = None
    #: a per-channel gain (BGR) at every half-resolution pixel that brings the frame back
    #: to the light the board was learned under (None: 1 everywhere)
    relight: Floats | None = None
    #: `clipped` per channel (height x width x 3), and also where the normalisation
    #: itself reached 255: the channels whose value is only a floor of the true one
    clipped_channels: npt.NDArray[np.bool_] | None = None

    def ceiling(self) -> Floats | None:
        """The normalised value (BGR) a clipped camera value takes at every half-resolution
        pixel: nothing on the board can look brighter there (None: no gain known)."""
        if self.gain_half is None:
            return None
        out: Floats = (self.gain_half[..., None] * (255.0 * self.wb)).astype(np.float32)
        if self.relight is not None:
            out *= self.relight
        return out

    def _raw(
        self, rect: Image, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp]
    ) -> tuple[Image, Floats]:
        """Some full-resolution pixels (rows and columns within the image) as the camera
        gave them, and their normalisation's gain per channel."""
        flat = rows * rect.shape[1] + cols  # (taken flat: faster than indexing two ways)
        raw: Image = rect.reshape(-1, 3).take(flat, axis=0)
        gain: Floats = self.gain.reshape(-1).take(flat)[..., None] * self.wb
        return raw, gain

    def clipped_at(
        self, rect: Image, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.bool_]:
        """Which channels of some full-resolution pixels (`pixels`) are only a floor of
        their true value: at the camera's top, or brought to 255 by the normalisation."""
        raw, gain = self._raw(rect, rows, cols)
        top = raw.astype(np.float32) * gain >= 255.0
        out: npt.NDArray[np.bool_] = (raw >= CLIPPED) | top
        return out

    def pixels(self, rect: Image, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp]) -> Image:
        """Normalised BGR of some full-resolution pixels (rows and columns within the
        image)."""
        raw, gain = self._raw(rect, rows, cols)
        work: Floats = raw.astype(np.float32) * gain
        if self.relight is not None:
            h, w = self.relight.shape[:2]
            work *= self.relight[np.clip(rows // 2, 0, h - 1), np.clip(cols // 2, 0, w - 1)]
        return np.clip(work, 0, 255).astype(np.uint8)


def quadratic_basis(rows: int, cols: int) -> Floats:
    """The terms of a quadratic surface over a grid of blocks (rows x cols x 6), with the
    grid spanning -0.5..0.5 both ways."""
    gy, gx = np.mgrid[0:rows, 0:cols].astype(np.float32)
    gx = (gx + 0.5) / cols - 0.5
    gy = (gy + 0.5) / rows - 0.5
    out: Floats = np.stack([np.ones_like(gx), gx, gy, gx * gx, gx * gy, gy * gy], axis=-1)
    return out


def sea_chroma(
    chroma: Floats,
    use: npt.NDArray[np.bool_],
    basis: Floats | npt.NDArray[np.float64] | None = None,
) -> Floats:
    """The sea's chromaticity at every block (blocks x 3): a quadratic surface per channel
    fitted to the blocks `use`, refitted without the blocks that stray from it (ships, a
    hand); with too few blocks, their median everywhere. `basis`: the blocks' quadratic
    terms (`quadratic_basis`, as float32 or float64), when already made."""
    if basis is None:
        basis = quadratic_basis(*chroma.shape[:2])
    terms = np.asarray(basis.reshape(-1, basis.shape[-1]), np.float64)
    use_flat = use.ravel()
    # The fit and the strays are judged on the blocks `use` alone; the surface is
    # evaluated everywhere once, from the last fit.
    terms_used = terms[use_flat]
    values = chroma.reshape(-1, 3)[use_flat].astype(np.float64)
    keep = np.ones(len(values), bool)
    coef: npt.NDArray[np.float64] | None = None
    for _ in range(4):
        if np.count_nonzero(keep) < MIN_SEA_FIT_BLOCKS:
            break
        # The least-squares fit through its normal equations: six terms on a grid of
        # -0.5..0.5 are well conditioned, and a 6 x 6 solve costs nothing per frame.
        a = terms_used[keep]
        coef = np.asarray(np.linalg.solve(a.T @ a, a.T @ values[keep]), np.float64)
        gap = np.abs(values - terms_used @ coef)
        dist = np.maximum(np.maximum(gap[:, 0], gap[:, 1]), gap[:, 2])
        limit = max(SEA_CHROMA_CLOSE, STRAY_FACTOR * float(np.median(dist[keep])))
        again = dist < limit
        if np.array_equal(again, keep):
            break  # the same blocks would give the same fit
        keep = again
    if coef is not None:
        out: Floats = (terms @ coef).astype(np.float32).reshape(chroma.shape)
        return out
    flat = median_rows(chroma[use]) if use.any() else np.full(3, 1.0 / 3.0)
    return np.broadcast_to(flat, chroma.shape).astype(np.float32)


def _chroma_gap(chroma: Floats, ref: Floats) -> Floats:
    """The largest difference of any channel's share between two chromaticities."""
    gap = np.abs(chroma - ref)
    out: Floats = np.maximum(np.maximum(gap[..., 0], gap[..., 1]), gap[..., 2])
    return out


def same_sea(kept: SeaColour, chroma: Floats, use: npt.NDArray[np.bool_]) -> bool:
    """Whether blocks of a frame (`use` of `chroma`) show the sea's colour fitted on an
    earlier frame: as many blocks of sea of that colour, and their colour no farther from
    it (a tint of the light moves it)."""
    gap = _chroma_gap(chroma, kept.chroma)
    like = use & (gap < SEA_CHROMA_CLOSE)
    n = int(np.count_nonzero(like))
    return (
        n > 0
        and n >= STEADY_SEA_SHARE * kept.blocks
        and (float(np.median(gap[like])) <= kept.gap + STEADY_CHROMA)
    )


@dataclass(frozen=True)
class SeaBlocks:
    """A half-resolution frame's sea block by block."""

    intensity: Floats  # the sum of the sea's mean channels in every block
    chroma: Floats  # each channel's share of it (blocks x 3)
    valid: npt.NDArray[np.bool_]  # blocks that are mostly sea


@dataclass(frozen=True)
class SeaColour:
    """The sea's chromaticity across the board under one light, fitted on one frame
    (`sea_chroma`): kept for the next frames while the camera and the light's colour
    stay (`LightingNormaliser.normalise`)."""

    chroma: Floats  # in every block (blocks x 3)
    blocks: int  # the blocks of sea of that colour when fitted
    gap: float  # their median chromaticity difference from it


class LightingNormaliser:
    """Normalises rectified frames of one board layout."""

    def __init__(self, layout: BoardLayout) -> None:
        self.layout = layout
        s = layout.px_per_mm
        self.half_size = (layout.width_px // 2, layout.height_px // 2)
        self.blocks = (
            max(4, round(layout.width_px / (BLOCK_MM * s))),
            max(4, round(layout.height_px / (BLOCK_MM * s))),
        )
        # (in float64, as the fit of the sea's chromaticity uses it: converted once)
        self.basis = quadratic_basis(self.blocks[1], self.blocks[0]).astype(np.float64)
        sea_half = cv2.resize(
            layout.sea.astype(np.uint8), self.half_size, interpolation=cv2.INTER_NEAREST
        ).astype(np.float32)
        self.sea_half = sea_half
        self.sea_mask = sea_half > 0
        self.sea_u8 = self.sea_mask.astype(np.uint8)
        self.sea_small = cv2.resize(sea_half, self.blocks, interpolation=cv2.INTER_AREA)
        idx = np.nonzero(sea_half > 0)
        step = max(1, len(idx[0]) // 4000)
        self.sea_sample = (idx[0][::step], idx[1][::step])
        land_half = cv2.resize(
            layout.land.astype(np.uint8), self.half_size, interpolation=cv2.INTER_NEAREST
        )
        idx = np.nonzero(land_half)
        step = max(1, len(idx[0]) // 2000)
        # the samples as indices into the flattened frame (taken flat: faster)
        width = self.half_size[0]
        self._sea_flat = self.sea_sample[0] * width + self.sea_sample[1]
        self._land_flat = idx[0][::step] * width + idx[1][::step]
        self.sea_colour: SeaColour | None = None

    def clipped_on_sea(self, top: npt.NDArray[np.bool_]) -> bool:
        """Whether some pixel of the sea has a channel in `top` (height x width x 3): as
        `top[sea_mask].any()`, without gathering the sea's pixels (a frame's costliest
        step in the light when a lamp clips the board)."""
        some = np.logical_or(np.logical_or(top[..., 0], top[..., 1]), top[..., 2])
        return bool(np.logical_and(some, self.sea_mask).any())

    def sea_blocks(self, half: Image) -> SeaBlocks:
        """The sea of a half-resolution frame block by block (blocks of `BLOCK_MM`)."""
        # (the sea's pixels kept, the rest zeroed, in 8 bits: the frame times the sea's 0-1
        # mask, as floats, without a float product)
        on_sea = cv2.bitwise_and(half, half, mask=self.sea_u8).astype(np.float32)
        sums = cv2.resize(on_sea, self.blocks, interpolation=cv2.INTER_AREA)
        weight = self.sea_small
        mean = np.asarray(sums / np.maximum(weight, 1e-3)[..., None], np.float32)
        intensity = np.asarray(mean[..., 0] + mean[..., 1] + mean[..., 2], np.float32)
        chroma = np.asarray(mean / np.maximum(intensity, 1.0)[..., None], np.float32)
        return SeaBlocks(intensity, chroma, weight > 0.4)

    def brightness_gain(self, half: Image) -> Floats:
        """The per-block gain that makes the sea equally bright everywhere (`fit_light`)."""
        top = half >= CLIPPED
        return self.fit_light(half, self.sea_blocks(half), top if top.any() else None)[0]

    def fit_light(
        self,
        half: Image,
        blocks: SeaBlocks,
        top: npt.NDArray[np.bool_] | None,
        kept: SeaColour | None = None,
    ) -> tuple[Floats, SeaColour | None]:
        """The per-block gain that makes the sea equally bright everywhere, and the sea's
        chromaticity it was told by, to keep for the next frames (None: the board shows
        too little sea, or the camera clipped some). `top`: the channels the camera
        clipped (None: none); `kept`: the sea's chromaticity fitted on an earlier frame
        under a steady camera, used while this frame's sea shows it (`same_sea`).

        Blocks of sea are those whose chromaticity is the sea's there: a light
        whose colour changes across the board (a lamp on one side) changes the
        sea's chromaticity smoothly, so it is compared with a smooth surface
        fitted to the blocks (`sea_chroma`), not with one colour for the board:
        a colour for the board leaves out the sea far from the board's middle
        colour, and its brightness is then taken from blocks far away.
        A channel the camera clipped tells nothing of the brightness: where a
        bright lamp clips the sea's blue, the block's brightness is measured on
        the sea's other channels (scaled to the sea's colour there), not taken
        from darker blocks farther away.
        """
        weight = self.sea_small
        valid = blocks.valid
        if valid.sum() < 8:
            return np.ones((self.blocks[1], self.blocks[0]), np.float32), None
        intensity = blocks.intensity
        chroma = blocks.chroma
        lit: Floats | None = None
        lit_on: npt.NDArray[np.bool_] | None = None
        counted: Floats | None = None
        seen: npt.NDArray[np.bool_] | None = None
        use = valid
        if top is not None and self.clipped_on_sea(top):
            # (the sea's mask is 0 or 1: the product is a 0-1 float without multiplying)
            lit_on = ~top & self.sea_mask[..., None]
            lit = lit_on.astype(np.float32)
            counted = np.asarray(
                cv2.resize(lit, self.blocks, interpolation=cv2.INTER_AREA), np.float32
            )
            # a channel tells a block's colour when most of the block's sea shows it
            # unclipped
            seen = counted > 0.5 * weight[..., None]
            use = valid & seen.all(axis=2)
        # Without a clipped channel on the sea every block's colour is seen, and the fit
        # is as good in one frame as in the next: it is kept while the light stays. Where
        # the camera clips the sea its colour is fitted on fewer blocks and reaches the
        # clipped ones from afar: it is fitted again in every frame.
        sea = None
        if kept is not None and seen is None and same_sea(kept, chroma, use):
            sea = kept
        if sea is None:
            ref_chroma = sea_chroma(chroma, use, self.basis)
            gap = _chroma_gap(chroma, ref_chroma)
            like = use & (gap < SEA_CHROMA_CLOSE)
            sea = SeaColour(
                ref_chroma,
                int(like.sum()),
                float(np.median(gap[like])) if like.any() else SEA_CHROMA_CLOSE,
            )
        ref_chroma = sea.chroma
        if lit_on is not None and counted is not None and seen is not None:
            # Blocks with a clipped channel (two left at least, or their colour could not
            # be checked): the brightness that best gives the sea's colour in the channels
            # left.
            part = valid & ~seen.all(axis=2) & (seen.sum(axis=2) >= 2)
            if part.any():
                intensity = intensity.copy()
                chroma = chroma.copy()
                # (the frame's unclipped sea, zeroed elsewhere in 8 bits: as `blocks.f * lit`)
                unclipped = cv2.resize(
                    np.multiply(half, lit_on, dtype=np.uint8).astype(np.float32),
                    self.blocks,
                    interpolation=cv2.INTER_AREA,
                )
                kept_px = unclipped[part] / np.maximum(counted[part], 1e-3)
                ref = ref_chroma[part] * seen[part]
                scale = (kept_px * ref).sum(axis=1) / np.maximum((ref * ref).sum(axis=1), 1e-6)
                intensity[part] = scale
                chroma[part] = np.where(
                    seen[part], kept_px / np.maximum(scale, 1.0)[:, None], ref_chroma[part]
                )
        good = valid & (_chroma_gap(chroma, ref_chroma) < SEA_CHROMA_CLOSE) & (intensity > 30)
        if good.sum() < 8:
            good = valid
        ref = float(np.median(intensity[good]))
        w = good.astype(np.float32)
        field = np.zeros_like(intensity)
        filled = np.zeros(intensity.shape, bool)
        for sigma in (1.2, 3.0, 8.0):
            num = cv2.GaussianBlur(intensity * w, (0, 0), sigma)
            den = cv2.GaussianBlur(w, (0, 0), sigma)
            take = (~filled) & (den > 0.15)
            field[take] = num[take] / den[take]
            filled |= take
        field[~filled] = ref
        return np.asarray(
            ref / np.maximum(field, 1.0), np.float32
        ), None if seen is not None else sea

    def forget(self) -> None:
        """Fit the sea's colour again on the next frame (the camera moved, the board was
        calibrated again)."""
        self.sea_colour = None

    def normalise(self, rect: Image, steady: bool = False) -> Normalised:
        """How to normalise a rectified frame, and the half-resolution result.

        With `steady` (the camera has not moved since the last frame), the sea's
        chromaticity fitted on an earlier frame is kept while this frame's sea shows
        it (`same_sea`); the sea's brightness (shadows move) and the white balance are
        measured in every frame.
        """
        half = np.asarray(cv2.resize(rect, self.half_size, interpolation=cv2.INTER_AREA), np.uint8)
        clipped: npt.NDArray[np.bool_] = channel_max(half) >= CLIPPED
        camera_top = (half >= CLIPPED) if clipped.any() else None
        blocks = self.sea_blocks(half)
        small, self.sea_colour = self.fit_light(
            half, blocks, camera_top, self.sea_colour if steady else None
        )
        gain = np.asarray(
            cv2.resize(small, (rect.shape[1], rect.shape[0]), interpolation=cv2.INTER_LINEAR),
            np.float32,
        )
        gain_half = np.asarray(
            cv2.resize(small, self.half_size, interpolation=cv2.INTER_LINEAR), np.float32
        )
        ys, xs = self.layout.white_idx
        white_ok = False
        wb = np.ones(3, np.float32)
        white_raw: tuple[float, float, float] | None = None
        if len(ys):
            raw = rect[ys, xs].astype(np.float32)
            samples = raw * gain[ys, xs, None]
            bright = samples.sum(axis=1)
            upper = bright >= np.percentile(bright, 40)
            white = median_rows(samples[upper])
            paper = median_rows(raw[upper])
            white_raw = (float(paper[0]), float(paper[1]), float(paper[2]))
            spread = float(white.max() / max(float(white.min()), 1.0))
            if float(white.min()) > 40 and spread < 1.8:
                wb = np.clip(WHITE_TARGET / white, 0.4, 3.0).astype(np.float32)
                white_ok = True
        sy, sx = self.sea_sample
        if not white_ok:
            # No usable white: keep the colour and bring the sea to a middle brightness.
            level = float(
                np.median(half[sy, sx].astype(np.float32).sum(axis=1) * gain_half[sy, sx])
            )
            wb = np.full(3, 3 * 150.0 / max(level, 1.0), np.float32)
        scale = np.asarray(
            cv2.merge(
                [gain_half * float(wb[0]), gain_half * float(wb[1]), gain_half * float(wb[2])]
            ),
            np.float32,
        )
        norm_half = np.asarray(cv2.multiply(half, scale, dtype=cv2.CV_8U), np.uint8)
        sea, land = self._sea_and_land(norm_half)
        port: Lab | None = None
        py, px = self.layout.port_ring_idx
        if len(py):
            paint = rect[py, px].astype(np.float32) * (gain[py, px][:, None] * wb)
            port = bgr_to_lab(median_rows(np.clip(paint, 0, 255)))
        at_top = norm_half == 255
        return Normalised(
            gain,
            wb,
            norm_half,
            sea,
            land,
            white_ok,
            port,
            clipped,
            gain_half,
            white_raw,
            clipped_channels=at_top if camera_top is None else camera_top | at_top,
        )

    def _sea_and_land(self, half: Image) -> tuple[Lab, Lab | None]:
        """The sea's and the land's colours in a normalised half-resolution board (the
        medians of their samples; None: a board without land)."""
        pixels = half.reshape(-1, 3)
        sea = bgr_to_lab(median_bgr(pixels.take(self._sea_flat, axis=0)))
        if not len(self._land_flat):
            return sea, None
        return sea, bgr_to_lab(median_bgr(pixels.take(self._land_flat, axis=0)))

    def relit(self, norm: Normalised, field: Floats) -> Normalised:
        """A frame under the light the board was learned under: `field` is the light's
        change since learning (a gain per channel at every half-resolution pixel, as the
        learned board's comparison fits it), divided out of every colour."""
        inverse = (1.0 / np.maximum(field, 1e-3)).astype(np.float32)
        half = np.clip(norm.half.astype(np.float32) * inverse, 0, 255).astype(np.uint8)
        sea, land = self._sea_and_land(half)
        port = norm.port_lab
        py, px = self.layout.port_ring_idx
        if len(py):
            h, w = half.shape[:2]
            ring = half[np.clip(py // 2, 0, h - 1), np.clip(px // 2, 0, w - 1)]
            port = bgr_to_lab(median_rows(ring.astype(np.float32)))
        return replace(norm, half=half, sea_lab=sea, land_lab=land, port_lab=port, relight=inverse)


#: Light checks of a calibration frame (`light_problems`).
MAX_CLIPPED = 0.005  # share of the board the camera may clip
MAX_CAST = 1.3  # the white paper's strongest channel over its weakest


def light_problems(norm: Normalised) -> list[str]:
    """What makes a frame's light unlike a good light at play, each with what to change.

    Vision evens out the light, but not what the camera lost: clipped whites and
    paint (their true colour is unknown: only a floor of it is learned), and
    a strong colour cast (each channel is evened out by the white paper, but
    a weak channel is noisy and a dull ship colour drifts towards the paint).
    """
    out: list[str] = []
    clipped = 0.0 if norm.clipped is None else float(norm.clipped.mean())
    if clipped > MAX_CLIPPED:
        # Paint with one or two channels at the top: its colour is lost, not only its
        # brightness (an orange port's red), and a dimmer light shows it otherwise.
        paint = 0.0
        if norm.clipped is not None and norm.clipped_channels is not None:
            some = norm.clipped_channels.sum(axis=2)
            paint = float((norm.clipped & (some > 0) & (some < 3)).mean())
        what = "clipped whites"
        if paint > MAX_CLIPPED:
            what += f"; {100 * paint:.1f} % is clipped paint, its colour lost"
        out.append(
            f"{100 * clipped:.1f} % of the board is at the camera's top ({what}): dim the "
            "light or shorten the exposure ([camera] exposure_time_us) until the white "
            "paper around the markers is no longer pure white"
        )
    if norm.white_raw is not None:
        b, g, r = norm.white_raw
        top, low = max(b, g, r), max(min(b, g, r), 1.0)
        if top / low > MAX_CAST:
            tint = "warm (reddish)" if r > b else "cool (bluish)"
            out.append(
                f"the white paper around the markers is {tint}, blue:green:red = "
                f"{b:.0f}:{g:.0f}:{r:.0f}: a strong colour cast; light the board with "
                "neutral white light (not a warm bulb or coloured daylight), or fix "
                "the camera's colour gains ([camera] colour_gains)"
            )
    return out
