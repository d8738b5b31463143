"""Ships by colour: sample every space and berth, then search the sea for ships off them.

Each pixel of the normalised board image is given to the nearest of the ship
colours, the sea, the land and the neutral greys (white paint, ink, shadow);
it counts for a ship colour only if it is within that colour's tolerance and
clearly nearer to it than to anything else. A place holds a ship when enough
of the disk around its centre is one colour. What is left (ship-coloured
blobs of a ship's size away from every found ship) is a ship off its space.
The token's exact shape does not matter, only its colour and rough size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.geometry import axis_of_spread
from bermuda_hw.vision.background import BackgroundComparison, Clipping, veto_board_colours
from bermuda_hw.vision.colors import LIGHTNESS_WEIGHT, ColorCalibration
from bermuda_hw.vision.layout import BoardLayout
from bermuda_hw.vision.lighting import Lab, Normalised, to_lab
from bermuda_hw.vision.types import ShipReading

Floats = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]
Labels = npt.NDArray[np.int8]
Mask = npt.NDArray[np.bool_]

NONE = -1
#: A token's axis is read where its pixels on its place spread this many times farther
#: along one line than across it: a token 9 mm wide clipped by an 18 mm disk spreads about
#: 1.6 times; a round blob (a stray, a glare) has no axis
MIN_ELONGATION = 1.3


@dataclass(frozen=True)
class ShipSettings:
    """How ships are found; the defaults suit tokens 8-12 mm wide and 18-30 mm long."""

    sample_radius_mm: float = 9.0
    min_fill: float = 0.16  # share of the sample disk that must be the ship's colour
    margin: float = 6.0  # how much nearer a pixel must be to the colour than to the next
    min_area_mm2: float = 60.0  # a blob off the spaces must be at least this big
    max_area_mm2: float = 900.0
    snap_mm: float = 15.0  # a blob this close to a free place is on that place
    clear_mm: float = 15.0  # around a found ship, no second ship is searched
    #: a place's wider disk, within a token's reach of its centre: how much of each colour
    #: stands there (one token, or a second set down beside it)
    reach_radius_mm: float = 15.0


def _weighted(lab: Floats) -> Floats:
    out = lab.copy()
    out[..., 0] *= np.float32(LIGHTNESS_WEIGHT)
    return out


LUT_STEP = 3.0
LUT_BITS = 5
LUT_SHIFT = 8 - LUT_BITS
GLARE_CHROMA = 10.0


def glare_lightness(sea: Lab) -> float:
    """Nearly grey pixels lighter than this are glare (or paper), not a hand."""
    return min(88.0, sea[0] + 12.0)


FAR_SEA = 0x20
FAR_LAND = 0x40
LABEL_MASK = 0x1F


def _lut_lab() -> Floats:
    """L*a*b* of the centre of every cell of the BGR lookup grid."""
    levels = (np.arange(1 << LUT_BITS) << LUT_SHIFT) + (1 << (LUT_SHIFT - 1))
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    bgr = np.stack([b, g, r], axis=-1).astype(np.uint8)
    return to_lab(bgr.reshape(-1, 3))


def lut_index(bgr: Image) -> npt.NDArray[np.uint16]:
    """Index into the lookup table for 8-bit BGR pixels (any shape ending in 3)."""
    # (16-bit arithmetic: a quarter of the memory of the index in machine integers)
    q = bgr >> LUT_SHIFT
    out: npt.NDArray[np.uint16] = q[..., 0].astype(np.uint16) << np.uint16(2 * LUT_BITS)
    out |= q[..., 1].astype(np.uint16) << np.uint16(LUT_BITS)
    out |= q[..., 2]
    return out


def _distance(channels: Floats, colour: Floats) -> Floats:
    """Euclidean distance of every grid cell from a colour (`channels`: 3 x cells, each
    channel's row contiguous)."""
    d0 = channels[0] - colour[0]
    d1 = channels[1] - colour[1]
    d2 = channels[2] - colour[2]
    total = d0 * d0
    total += d1 * d1
    total += d2 * d2
    out: Floats = np.sqrt(total, out=total)
    return out


class ColorClassifier:
    """Labels normalised BGR pixels with a ship colour, through a per-frame lookup table.

    Each table entry holds the ship colour index plus one (0: no ship colour)
    and two flags: far from the sea's colour, far from the land's colour.
    """

    def __init__(self, calibration: ColorCalibration, margin: float, far: float) -> None:
        self.margin = margin
        self.far = far
        self.centres = _weighted(np.array([p.lab for p in calibration.profiles], np.float32))
        self.tolerance = np.array([p.tolerance for p in calibration.profiles], np.float32)
        self.grid = _lut_lab()
        self.grid_w = _weighted(self.grid)
        d = np.sqrt(((self.grid_w[:, None, :] - self.centres[None, :, :]) ** 2).sum(axis=2))
        self.best = np.argmin(d, axis=1)
        self.d_best = d[np.arange(len(d)), self.best]
        self.d_second = np.partition(d, 1, axis=1)[:, 1]  # a board has two colours or more
        self.neutral = np.sqrt((self.grid[:, 1:] ** 2).sum(axis=1))
        # What a table is made of, computed once: the grid's channels each in one array
        # (a distance to a background colour is then three passes over contiguous memory,
        # each cell's sum in the same order as a sum over its row), and the decisions
        # that do not depend on the background colours.
        self._grid_channels: Floats = np.ascontiguousarray(self.grid.T)
        self._grid_w_channels: Floats = np.ascontiguousarray(self.grid_w.T)
        self._in_tolerance = self.d_best < self.tolerance[self.best]
        self._colour_codes = (self.best + 1).astype(np.uint8)
        self._grey = self.neutral < GLARE_CHROMA
        self._luts: list[tuple[tuple[float, ...], npt.NDArray[np.uint8]]] = []

    def lut(self, sea: Lab, land: Lab | None, paint: Lab | None = None) -> npt.NDArray[np.uint8]:
        """The table for a frame's sea and land colours; `paint` is one more background
        (the paint of an empty port's berths)."""
        # A table is reused while the background colours stay within LUT_STEP of those
        # it was made for: rebuilt when the light really changes, not for frame noise.
        far = 1e6
        key = (*sea, *(land or (far, far, far)), *(paint or (far, far, far)))
        for made_for, table in self._luts:
            if all(abs(a - b) < LUT_STEP for a, b in zip(made_for, key, strict=True)):
                return table
        if len(self._luts) >= 8:
            self._luts.pop(0)
        grid, grid_w = self._grid_channels, self._grid_w_channels
        d_sea = _distance(grid_w, _weighted(np.array([sea], np.float32))[0])
        # The sea is measured in this very frame and made even by the normalisation,
        # so its lightness is reliable: against the sea, lightness counts in full (a
        # blue ship is mostly darker than a blue sea).
        d_sea_full = _distance(grid, np.array(sea, np.float32))
        # Ships sail on the sea and stand on printed spaces: the land is no background
        # for them (a yellow ship may well match a yellow coast), only for hands.
        bg = np.minimum(self.neutral, d_sea_full)
        if paint is not None:
            np.minimum(bg, _distance(grid, np.array(paint, np.float32)), out=bg)
        second = np.minimum(self.d_second, bg)
        ok = self._in_tolerance & (second - self.d_best > self.margin)
        out = np.where(ok, self._colour_codes, np.uint8(0))
        # Glare (light and nearly grey) hides the board but is no hand.
        not_glare = ~((grid[0] > glare_lightness(sea)) & self._grey)
        out[(d_sea > self.far) & not_glare] |= np.uint8(FAR_SEA)
        if land is not None:
            d_land = _distance(grid_w, _weighted(np.array([land], np.float32))[0])
            out[(d_land > self.far) & not_glare] |= np.uint8(FAR_LAND)
        self._luts.append((key, out))
        return out

    def codes(
        self, bgr: Image, sea: Lab, land: Lab | None, paint: Lab | None = None
    ) -> npt.NDArray[np.uint8]:
        """The lookup-table code of every pixel."""
        out: npt.NDArray[np.uint8] = self.lut(sea, land, paint)[lut_index(bgr)]
        return out

    def labels(self, bgr: Image, sea: Lab, paint: Lab | None = None) -> Labels:
        """Ship colour index of every pixel, or NONE (the land's colour plays no part)."""
        return colour_labels(self.codes(bgr, sea, None, paint))


def colour_labels(codes: npt.NDArray[np.uint8]) -> Labels:
    """The ship colour index of lookup-table codes, or NONE."""
    labels: Labels = (codes & LABEL_MASK).astype(np.int8) - np.int8(1)
    return labels


@dataclass(frozen=True)
class PlaceHit:
    """A ship found on a place (index into the layout's places)."""

    place: int
    color: int
    x_mm: float
    y_mm: float
    confidence: float
    axis_deg: float | None = None


def axis_of(cols: npt.NDArray[np.intp], rows: npt.NDArray[np.intp]) -> float | None:
    """The line along which a token's pixels on its place lie longest, 0 to 180 degrees
    clockwise from north (image rows grow south, as the board's y), from their second
    moments; None where they are no longer one way than the other by MIN_ELONGATION."""
    if len(cols) < 3:
        return None
    x = cols.astype(np.float64) - float(cols.mean())
    y = rows.astype(np.float64) - float(rows.mean())
    sxx, syy, sxy = float((x * x).mean()), float((y * y).mean()), float((x * y).mean())
    spread = math.hypot(sxx - syy, 2.0 * sxy)
    long, short = (sxx + syy + spread) / 2.0, (sxx + syy - spread) / 2.0
    if short <= 0.0 or long < MIN_ELONGATION**2 * short:
        return None
    return axis_of_spread(sxx, syy, sxy)


class ShipFinder:
    """Finds ships in normalised board images of one layout."""

    def __init__(
        self,
        layout: BoardLayout,
        calibration: ColorCalibration,
        settings: ShipSettings,
        far_distance: float = 22.0,
    ) -> None:
        self.layout = layout
        self.settings = settings
        self.classifier = ColorClassifier(calibration, settings.margin, far_distance)
        self.names = calibration.names
        self.dy, self.dx = layout.disk_offsets(settings.sample_radius_mm)
        s = layout.px_per_mm
        cy = np.round(layout.place_xy[:, 1] * s).astype(np.intp)
        cx = np.round(layout.place_xy[:, 0] * s).astype(np.intp)
        rows = np.clip(cy[:, None] + self.dy[None, :], 0, layout.height_px - 1)
        cols = np.clip(cx[:, None] + self.dx[None, :], 0, layout.width_px - 1)
        self.rows, self.cols = rows, cols
        # Disk pixels inland never count: a coast may have a ship's colour.
        self.valid = ~layout.land_inland[rows, cols]
        self.valid_count = np.maximum(self.valid.sum(axis=1), 1)
        # Disk pixels on a port's paint are judged against that paint too.
        self.in_port = layout.port_box[rows, cols]

        self.port_half = cv2.resize(
            layout.port_box.astype(np.uint8),
            (layout.width_px // 2, layout.height_px // 2),
            interpolation=cv2.INTER_NEAREST,
        ).astype(bool)
        self.port_half_flat = np.flatnonzero(self.port_half)  # (taken flat: faster)
        half = (layout.width_px // 2, layout.height_px // 2)
        self.marker_half = cv2.resize(
            layout.marker_zone.astype(np.uint8), half, interpolation=cv2.INTER_NEAREST
        ).astype(bool)
        inland_half = cv2.resize(
            layout.land_inland.astype(np.uint8), half, interpolation=cv2.INTER_NEAREST
        ).astype(bool)
        self.search_allowed = ~(self.marker_half | inland_half)
        # Every path space's wider disk in the half-resolution labels (inland never counts).
        h = s / 2
        n = math.ceil(settings.reach_radius_mm * h)
        ry, rx = np.mgrid[-n : n + 1, -n : n + 1]
        disk = rx * rx + ry * ry <= (settings.reach_radius_mm * h) ** 2
        ry, rx = ry[disk], rx[disk]
        self.reach_places = np.array(
            [i for i, p in enumerate(layout.places) if p.berth is None], np.intp
        )
        xy = layout.place_xy[self.reach_places]
        self.reach_rows = np.clip(
            np.round(xy[:, 1] * h).astype(np.intp)[:, None] + ry[None, :], 0, half[1] - 1
        )
        self.reach_cols = np.clip(
            np.round(xy[:, 0] * h).astype(np.intp)[:, None] + rx[None, :], 0, half[0] - 1
        )
        self.reach_valid = ~inland_half[self.reach_rows, self.reach_cols]
        self.reach_count = np.maximum(self.reach_valid.sum(axis=1), 1)
        self._pixels: tuple[Image, Normalised, Image, Labels, Labels] | None = None
        ring, radius = layout.centre_ring
        # The grid's dots are printed dark: blurred into the sea they are dark blue.
        dots = [(*layout.board.grid.dot_mm(c, r), 4.0) for c, r in layout.board.grid.dots()]
        self.ignore = [(ring[0], ring[1], radius), *dots] + [
            (z.x_mm, z.y_mm, z.radius_mm) for z in calibration.ignore
        ]
        # where ships off their places are searched for on every frame: the printed spots
        # (the grid's dots, the centre ring, the calibration's ignored circles) left out
        hs = s / 2
        keep = np.ones(half[::-1], np.uint8)
        for x, y, r in self.ignore:
            cv2.circle(keep, (round(x * hs), round(y * hs)), round(r * hs), 0, cv2.FILLED)
        self.search_spots = keep.view(bool)

    def sample_places(
        self,
        rect: Image,
        norm: Normalised,
        skip: npt.NDArray[np.bool_],
        board: BackgroundComparison | None = None,
    ) -> list[PlaceHit]:
        """Read the disk around every place that is not skipped (hidden by the cloud);
        with the learned board, a pixel counts for a ship only if it is clearly nearer to
        the ship's colour than to the board's own colour there (which replaces the one
        paint colour assumed for every port)."""
        use = np.nonzero(~skip)[0]
        if len(use) == 0:
            return []
        pix = self.place_pixels(rect, norm, use)  # P x D x 3
        labels = self.place_labels(rect, norm, use, against_port=board is None)  # P x D
        if board is not None:
            rows, cols = self.rows[use], self.cols[use]
            expected, known, expected_bgr = board.at(rows, cols, pixels=pix)
            clipping = Clipping(pix, norm.clipped_at(rect, rows, cols), expected_bgr)
            veto_board_colours(
                labels, to_lab(pix), expected, known, self.classifier.centres, 0.0, clipping
            )
        labels[~self.valid[use]] = NONE
        k = len(self.names)
        counts = np.stack([(labels == c).sum(axis=1) for c in range(k)], axis=1)
        hits: list[PlaceHit] = []
        s = self.layout.px_per_mm
        for row, place in enumerate(use):
            color = int(np.argmax(counts[row]))
            n = int(counts[row, color])
            disk = int(self.valid_count[place])
            if n < self.settings.min_fill * disk:
                continue
            sel = labels[row] == color
            x_mm = float(self.cols[place][sel].mean() / s)
            y_mm = float(self.rows[place][sel].mean() / s)
            purity = n / int(counts[row].sum())  # n > 0: at least min_fill of the disk
            fill = min(1.0, n / (0.45 * disk))
            axis = axis_of(self.cols[place][sel], self.rows[place][sel])
            hits.append(PlaceHit(int(place), color, x_mm, y_mm, round(purity * fill, 3), axis))
        return hits

    def _disks(self, rect: Image, norm: Normalised) -> tuple[Image, Labels, Labels]:
        """The sampling disks of every place in a frame: their normalised BGR (places x D
        x 3), their labels against the sea and the greys, and the same with a port's paint
        one more background on the disks' pixels in a port (the labels of one pixel do not
        depend on the others). Kept for the frame: the ships and the evidence both read
        them."""
        last = self._pixels
        if last is not None and last[0] is rect and last[1] is norm:
            return last[2], last[3], last[4]
        pix = norm.pixels(rect, self.rows, self.cols)
        labels = self.classifier.labels(pix, norm.sea_lab)
        with_port = labels
        if norm.port_lab is not None and self.in_port.any():
            with_port = labels.copy()
            with_port[self.in_port] = self.classifier.labels(
                pix[self.in_port], norm.sea_lab, norm.port_lab
            )
        self._pixels = (rect, norm, pix, labels, with_port)
        return pix, labels, with_port

    def place_pixels(self, rect: Image, norm: Normalised, use: npt.NDArray[np.intp]) -> Image:
        """Normalised BGR of the sampling disks of places `use` (P x D x 3)."""
        return self._disks(rect, norm)[0][use]

    def learned(
        self, board: BackgroundComparison, use: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.float64]:
        """The share of the disks of places `use` (their pixels not inland) whose look
        `board` has learned: only there is a pixel compared with the board before it
        counts for a ship."""
        known = board.known_at(self.rows[use], self.cols[use]) & self.valid[use]
        out: npt.NDArray[np.float64] = known.sum(axis=1) / self.valid_count[use]
        return out

    def place_labels(
        self, rect: Image, norm: Normalised, use: npt.NDArray[np.intp], against_port: bool = True
    ) -> Labels:
        """The ship colour (or NONE) of every pixel of the sampling disks of places `use`
        (P x D, a copy to change): judged against the sea and the neutral greys, and with
        `against_port` in a port against its paint too (as measured in this frame)."""
        _, labels, with_port = self._disks(rect, norm)
        out: Labels = (with_port if against_port else labels)[use]
        return out

    def reach(self, labels: Labels) -> npt.NDArray[np.float64]:
        """Share of each path space's wider disk with each ship colour, from the whole
        board's half-resolution labels (berths: 0)."""
        out = np.zeros((len(self.layout.places), len(self.names)), np.float64)
        wide = labels[self.reach_rows, self.reach_cols]
        wide[~self.reach_valid] = NONE
        for c in range(len(self.names)):
            out[self.reach_places, c] = (wide == c).sum(axis=1) / self.reach_count
        return out

    def half_labels(
        self,
        norm: Normalised,
        codes: npt.NDArray[np.uint8],
        board: BackgroundComparison | None = None,
    ) -> Labels:
        """Half-resolution labels of the whole board; in the ports, against their paint,
        or, with the learned board, against the board's own colour at every pixel."""
        labels = colour_labels(codes)
        if norm.port_lab is not None and board is None:
            in_port = norm.half.reshape(-1, 3).take(self.port_half_flat, axis=0)
            np.put(
                labels,
                self.port_half_flat,
                self.classifier.labels(in_port, norm.sea_lab, norm.port_lab),
            )
        if board is not None:
            veto_board_colours(
                labels,
                board.lab,
                board.expected,
                board.background.known,
                self.classifier.centres,
                0.0,
                None
                if norm.clipped_channels is None
                else Clipping(norm.half, norm.clipped_channels, board.expected_bgr),
            )
        return labels

    def search(
        self,
        labels: Labels,
        taken: list[tuple[float, float]],
        blocked: list[tuple[float, float, float]],
        allowed: Mask | None = None,
    ) -> list[tuple[int, float, float, float]]:
        """Ship-coloured blobs away from found ships: (colour, x_mm, y_mm, confidence).

        `labels` are the half-resolution labels of the whole board; `allowed`
        replaces where to search (by default the sea of the board file).
        """
        s = self.layout.px_per_mm / 2
        allowed = (self.search_allowed if allowed is None else allowed) & self.search_spots
        # around found ships and blocked places: not searched (drawn as 0)
        keep = np.ones(allowed.shape, np.uint8)
        for x, y in taken:
            cv2.circle(
                keep, (round(x * s), round(y * s)), round(self.settings.clear_mm * s), 0, cv2.FILLED
            )
        for x, y, r in blocked:
            cv2.circle(keep, (round(x * s), round(y * s)), round(r * s), 0, cv2.FILLED)
        allowed &= keep.view(bool)
        out: list[tuple[int, float, float, float]] = []
        px_area = 1.0 / (s * s)
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))  # strokes thinner than ~6 mm
        for color in range(len(self.names)):
            mask = ((labels == color) & allowed).astype(np.uint8)
            if cv2.countNonZero(mask) * px_area < self.settings.min_area_mm2:
                continue
            # Fill a token's lighter deck or glint, then drop strokes thinner than a ship.
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
            # 8-connected components: left, top, width, height, area and centre of each,
            # the background first
            _, _, stats, centroids = cv2.connectedComponentsWithStats(mask)
            for _, _, w_px, h_px, n_px, cx, cy in np.column_stack((stats, centroids))[1:]:
                area = n_px * px_area
                if not (self.settings.min_area_mm2 <= area <= self.settings.max_area_mm2):
                    continue
                w = w_px / s
                h = h_px / s
                if max(w, h) > 45.0 or min(w, h) < 4.0:
                    continue
                conf = min(1.0, area / 150.0)
                out.append((color, float(cx / s), float(cy / s), round(conf, 3)))
        return out

    def readings(
        self,
        hits: list[PlaceHit],
        blobs: list[tuple[int, float, float, float]],
    ) -> list[ShipReading]:
        """Ship readings from place hits and off-space blobs (snapped to free places)."""
        out: list[ShipReading] = []
        used = {h.place for h in hits}
        for h in hits:
            place = self.layout.places[h.place]
            out.append(
                ShipReading(
                    self.names[h.color],
                    place.space,
                    h.x_mm,
                    h.y_mm,
                    h.confidence,
                    berth=place.berth,
                    axis_deg=h.axis_deg,
                )
            )
        xy = self.layout.place_xy
        for color, x, y, conf in blobs:
            d = np.hypot(xy[:, 0] - x, xy[:, 1] - y)
            i = int(np.argmin(d))
            if d[i] <= self.settings.snap_mm and i not in used:
                used.add(i)
                place = self.layout.places[i]
                out.append(
                    ShipReading(self.names[color], place.space, x, y, conf, berth=place.berth)
                )
            else:
                out.append(ShipReading(self.names[color], None, x, y, conf))
        return out
