"""The colour lookup table: one table per frame's background colours, reused while the light
holds steady and made again when it really changes."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from bermuda_hw.vision.colors import LIGHTNESS_WEIGHT, ColorCalibration, default_calibration
from bermuda_hw.vision.ships import (
    FAR_LAND,
    FAR_SEA,
    GLARE_CHROMA,
    LABEL_MASK,
    LUT_STEP,
    NONE,
    ColorClassifier,
    ShipSettings,
    glare_lightness,
)

SEA = (45.0, -5.0, -30.0)
LAND = (70.0, 5.0, 30.0)
PAINT = (80.0, 2.0, 10.0)


def _classifier(calibration: ColorCalibration | None = None) -> ColorClassifier:
    calibration = calibration or default_calibration(("red", "yellow", "green", "blue"))
    return ColorClassifier(calibration, ShipSettings().margin, 22.0)


def _shifted(
    colour: tuple[float, float, float], axis: int, by: float
) -> tuple[float, float, float]:
    out = list(colour)
    out[axis] += by
    return (out[0], out[1], out[2])


def test_a_table_is_reused_while_every_background_colour_stays_within_a_step() -> None:
    classifier = _classifier()
    table = classifier.lut(SEA, LAND, PAINT)
    near = 0.9 * LUT_STEP
    for axis in range(3):
        for by in (near, -near):
            assert classifier.lut(_shifted(SEA, axis, by), LAND, PAINT) is table
            assert classifier.lut(SEA, _shifted(LAND, axis, by), PAINT) is table
            assert classifier.lut(SEA, LAND, _shifted(PAINT, axis, by)) is table


def test_a_table_is_made_again_when_any_background_colour_moves_a_step() -> None:
    classifier = _classifier()
    table = classifier.lut(SEA, LAND, PAINT)
    far = 1.1 * LUT_STEP
    for axis in range(3):
        for by in (far, -far):
            assert classifier.lut(_shifted(SEA, axis, by), LAND, PAINT) is not table
            assert classifier.lut(SEA, _shifted(LAND, axis, by), PAINT) is not table
            assert classifier.lut(SEA, LAND, _shifted(PAINT, axis, by)) is not table
    # No land or no paint is another background, not the nearest one.
    assert classifier.lut(SEA, None, PAINT) is not table
    assert classifier.lut(SEA, LAND, None) is not table


def test_the_last_eight_tables_are_kept() -> None:
    classifier = _classifier()
    seas = [_shifted(SEA, 0, 2 * LUT_STEP * i) for i in range(9)]
    tables = [classifier.lut(sea, LAND) for sea in seas[:8]]
    assert all(classifier.lut(sea, LAND) is t for sea, t in zip(seas[:8], tables, strict=True))
    classifier.lut(seas[8], LAND)  # a ninth light: the first table is dropped
    assert all(classifier.lut(sea, LAND) is t for sea, t in zip(seas[1:8], tables[1:], strict=True))
    first = classifier.lut(seas[0], LAND)
    assert first is not tables[0]
    assert np.array_equal(first, tables[0])


def test_a_table_made_again_is_the_same_table() -> None:
    """Reuse is only a saving: the codes depend on the colours, never on what came before."""
    fresh = _classifier().lut(SEA, LAND, PAINT)
    used = _classifier()
    for i in range(12):
        used.lut(_shifted(SEA, 1, 2 * LUT_STEP * (i - 6)), LAND)
    assert np.array_equal(used.lut(SEA, LAND, PAINT), fresh)


def test_labels_are_the_tables_colour_index_or_none() -> None:
    """A pixel's label is its code's colour part less one: NONE (-1) where no ship colour
    holds, and always int8 (the labels of a whole board are kept in one byte each)."""
    classifier = _classifier()
    pixels = np.random.default_rng(3).integers(0, 256, (64, 64, 3), dtype=np.uint8)
    for land, paint in ((LAND, None), (None, PAINT), (LAND, PAINT)):
        labels = classifier.labels(pixels, SEA, paint)
        codes = classifier.codes(pixels, SEA, land, paint)
        assert labels.dtype == np.int8 and codes.dtype == np.uint8
        assert np.array_equal(labels, (codes & LABEL_MASK).astype(np.int16) - 1)
        assert set(np.unique(labels)) <= {NONE, *range(len(classifier.centres))}
        assert (labels == NONE).any() and (labels != NONE).any()


def _weighted_distance(
    grid: npt.NDArray[np.float32], colour: tuple[float, float, float]
) -> npt.NDArray[np.float64]:
    """Distance in L*a*b* with the lightness weighted as the profiles are compared."""
    d = grid.astype(np.float64) - np.array(colour)
    d[:, 0] *= LIGHTNESS_WEIGHT
    out: npt.NDArray[np.float64] = np.sqrt((d**2).sum(axis=1))
    return out


def test_the_far_flags_mark_colours_far_from_the_sea_and_from_the_land() -> None:
    """The flags hand detection reads: set on colours well beyond the classifier's far
    distance from the sea (or the land), darker or lighter, and clear on colours near
    them; a grey a little lighter than the sea is far from a blue sea (no glare)."""
    far = 22.0
    classifier = ColorClassifier(
        default_calibration(("red", "yellow", "green", "blue")), ShipSettings().margin, far
    )
    table = classifier.lut(SEA, LAND)
    grid = classifier.grid
    chroma = np.hypot(grid[:, 1], grid[:, 2])
    not_glare = grid[:, 0] < SEA[0] + 5.0
    for colour, flag in ((SEA, FAR_SEA), (LAND, FAR_LAND)):
        d = _weighted_distance(grid, colour)
        near, beyond = d < 0.8 * far, (d > 1.25 * far) & not_glare
        assert near.sum() > 50 and beyond.sum() > 1000
        assert not (table[near] & flag).any()
        assert (table[beyond] & flag).all()
        darker = beyond & (grid[:, 0] < colour[0] - 10.0)
        assert darker.sum() > 100 and (table[darker] & flag).all()
    greys = (chroma < 4.0) & (grid[:, 0] > SEA[0]) & (grid[:, 0] < SEA[0] + 5.0)
    assert greys.any() and (table[greys] & FAR_SEA).all()


def _table_by_definition(
    classifier: ColorClassifier,
    sea: tuple[float, float, float],
    land: tuple[float, float, float] | None,
    paint: tuple[float, float, float] | None,
) -> npt.NDArray[np.uint8]:
    """The table written out as the module's docstring says, one row of the grid at a time
    (distances as sums over each cell's three channels)."""
    grid, grid_w = classifier.grid, classifier.grid_w
    weight = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0], np.float32)

    def dist(cells: npt.NDArray[np.float32], colour: npt.NDArray[np.float32]) -> npt.NDArray[Any]:
        return np.sqrt(((cells - colour) ** 2).sum(axis=1))

    sea_arr = np.array(sea, np.float32)
    bg = np.minimum(classifier.neutral, dist(grid, sea_arr))
    if paint is not None:
        bg = np.minimum(bg, dist(grid, np.array(paint, np.float32)))
    best, d_best = classifier.best, classifier.d_best
    ok = (d_best < classifier.tolerance[best]) & (
        np.minimum(classifier.d_second, bg) - d_best > classifier.margin
    )
    out = np.where(ok, best + 1, 0).astype(np.uint8)
    glare = (grid[:, 0] > glare_lightness(sea)) & (classifier.neutral < GLARE_CHROMA)
    far_sea = dist(grid_w, sea_arr * weight) > classifier.far
    out |= np.where(far_sea & ~glare, FAR_SEA, 0).astype(np.uint8)
    if land is not None:
        far_land = dist(grid_w, np.array(land, np.float32) * weight) > classifier.far
        out |= np.where(far_land & ~glare, FAR_LAND, 0).astype(np.uint8)
    return out


def test_a_table_is_the_one_its_definition_gives_cell_for_cell() -> None:
    """The table is made a channel at a time (a frame's new light costs a fraction of a
    millisecond): every cell's code is the one computed cell by cell, for seas, lands and
    paints across the colour space."""
    classifier = _classifier()
    rng = np.random.default_rng(7)
    for _ in range(40):
        sea, land, paint = (
            (float(rng.uniform(10, 95)), float(rng.uniform(-40, 40)), float(rng.uniform(-60, 60)))
            for _ in range(3)
        )
        for chosen_land, chosen_paint in ((land, paint), (None, paint), (land, None)):
            classifier._luts.clear()
            table = classifier.lut(sea, chosen_land, chosen_paint)
            expected = _table_by_definition(classifier, sea, chosen_land, chosen_paint)
            assert table.dtype == np.uint8
            assert np.array_equal(table, expected)
