"""How many tokens of each colour stand on a place: 0, 1, or 2 and more, with likelihoods.

A bump sets a second token on a space that holds one; the referee then has to
tell one token from two. Tokens are all of one mould, so a colour's area on a
place, in units of one token's area, says how many there are:

- every half-resolution pixel of the board (never inland) belongs to the
  nearest place within `COUNT_RADIUS_MM` of it (the places' Voronoi cells,
  cut to a disk): two tokens side by side, overlapping or one on top of the
  other stay within their place's cell;
- a place's area of a colour is the number of its pixels with that ship
  colour (the labels after the learned board's veto) within a pixel of a
  solid part of that colour (a 2x2 block), in mm²: a token's blurred rim
  mixed with the sea (a yellow token's looks green) is a line one pixel wide
  and is no token;
- one token's area is measured by the calibration on the start layout (one
  token in every berth: the median of their areas, kept in the calibration
  file); without a calibration, it is the median of the areas over the
  places of the frame that hold a colour at all (most places hold one token),
  carried over from earlier frames when a frame has too few, and
  `DEFAULT_TOKEN_AREA_MM2` before any;
- with x the area over one token's area, the likelihood of each count is a
  soft box in x: no token below `ONE_FROM` (a few stray pixels), one token
  from `ONE_FROM` to `TWO_FROM` (a token partly hidden under another shows
  a part of its area, a whole token up to its area and some blur), two or
  more above `TWO_FROM` (two tokens that overlap show at least this much).

The boxes' edges and widths were measured on both renderers (the project's
and the tests' independent one) under lights unlike the calibration's; see
docs/vision.md. Two tokens of one colour stacked exactly one on the other show
one token's area: they are counted as one.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.vision.layout import BoardLayout

Floats = npt.NDArray[np.float64]

COUNT_RADIUS_MM = 18.0  # a place's tokens stand within this of its centre
DEFAULT_TOKEN_AREA_MM2 = 190.0  # one token's visible area before any frame was measured
MIN_TOKEN_MM2 = 60.0  # a place's colour area below this takes no part in one token's area
ONE_FROM = 0.2  # x (area / one token's): one token from here
TWO_FROM = 1.3  # x: two tokens or more from here
EDGE_ONE = 0.05  # softness of the edges, in x
EDGE_TWO = 0.07
STEADY = 0.8  # weight of the earlier frames' token area
COUNTS = (0, 1, 2)  # 2: two or more
_BLOCK = np.ones((2, 2), np.uint8)  # a solid part of a colour: a 2x2 block of its pixels
_NEAR = np.ones((3, 3), np.uint8)  # pixels of a colour within a pixel of its solid parts count


def _log_sigmoid(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = -np.logaddexp(0.0, -z)
    return out


def count_loglik(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Log-likelihoods (..., 3) of 0, 1 and 2+ tokens for areas `x` in tokens' areas.

    Each count's likelihood is the soft (logistic) indicator of its range of
    x: no token on [0, ONE_FROM), one on [ONE_FROM, TWO_FROM), two or more
    from TWO_FROM. All three peak at 1, so the likeliest count changes
    exactly at ONE_FROM and TWO_FROM, and within EDGE_ONE or EDGE_TWO of them
    the two counts are nearly as likely.
    """
    x = np.asarray(x, np.float64)
    a = (x - ONE_FROM) / EDGE_ONE
    b = (x - TWO_FROM) / EDGE_TWO
    zero = _log_sigmoid(-a)
    one = _log_sigmoid(a) + _log_sigmoid(-b)
    two = _log_sigmoid(b)
    return np.stack([zero, one, two], axis=-1)


class TokenCounter:
    """Counts tokens per place and colour in a layout's half-resolution labels."""

    def __init__(
        self, layout: BoardLayout, colors: int, token_area_mm2: float | None = None
    ) -> None:
        """`token_area_mm2`: one token's area measured at calibration; without it, each
        frame's median is used."""
        self.layout = layout
        self.colors = colors
        h, w = layout.height_px // 2, layout.width_px // 2
        s = layout.px_per_mm / 2
        self.px_area_mm2 = 1.0 / (s * s)
        ys, xs = np.mgrid[0:h, 0:w]
        best = np.full((h, w), np.inf)
        cell = np.full((h, w), -1, np.int64)  # -1: no place within COUNT_RADIUS_MM
        for i, (x, y) in enumerate(layout.place_xy):
            d = np.hypot(xs / s - x, ys / s - y)  # pixel (r, c) is at (c / s, r / s) mm
            cell[(d < best) & (d <= COUNT_RADIUS_MM)] = i
            best = np.minimum(best, d)
        inland = cv2.resize(
            layout.land_inland.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST
        ).astype(bool)
        cell[inland] = -1
        self.cell = cell
        self.token_area_mm2 = token_area_mm2
        self.fixed = token_area_mm2 is not None

    def areas(self, labels: npt.NDArray[np.int8]) -> Floats:
        """Each place's area (mm²) of each ship colour: places x colours.

        Only a colour's pixels within a pixel of a solid part of that colour (a
        2x2 block) count: the blurred rim of a token takes the colour of its mix
        with the sea (a yellow token's rim on blue sea looks green), a line one
        pixel wide that is no token."""
        n = len(self.layout.places)
        inside = self.cell >= 0
        solid = np.zeros(labels.shape, bool)
        for c in range(self.colors):
            mask = (labels == c).view(np.uint8)
            core = cv2.dilate(cv2.erode(mask, _BLOCK), _NEAR)
            solid |= (core & mask).view(bool)
        use = solid & inside
        idx = self.cell[use] * self.colors + labels[use].astype(np.int64)
        counts = np.bincount(idx, minlength=n * self.colors).astype(np.float64)
        out: Floats = counts.reshape(n, self.colors) * self.px_area_mm2
        return out

    def token_area(self, areas: Floats, learn: bool = True) -> float:
        """One token's area: as calibrated, or from a frame's areas (with the earlier
        frames')."""
        seen = areas[areas >= MIN_TOKEN_MM2]
        area = self.token_area_mm2
        if len(seen) >= 5 and not self.fixed:
            now = float(np.median(seen))
            area = now if area is None else STEADY * area + (1.0 - STEADY) * now
            if learn:
                self.token_area_mm2 = area
        return DEFAULT_TOKEN_AREA_MM2 if area is None else area

    def loglik(self, labels: npt.NDArray[np.int8]) -> tuple[Floats, Floats, float]:
        """(areas, log-likelihoods places x colours x 3, one token's area)."""
        areas = self.areas(labels)
        one = self.token_area(areas)
        return areas, count_loglik(areas / one), one
