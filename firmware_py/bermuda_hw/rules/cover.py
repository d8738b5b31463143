"""What the cloud covers: one model of its footprint and rim, shared by the rules and vision.

The rules block the spaces within the footprint radius (ruling 6). The camera
sees less than that: the cloud's body overhangs its footprint a little, and
its marker sits above the board, so seen from an angle the body hides a disk
shifted away from the camera and enlarged by the parallax scale. A place is
unobservable inside the hidden radius and partly observable in the rim band
just outside it, where the cloud's edge may still cover part of a ship. A
partly observable place earns (and costs) only part of its evidence; nothing
under the cloud is ever evidence for a move.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from bermuda_hw.rules.board import Board

#: The body's overhang beyond the footprint radius, as a fraction of it.
OVERHANG_FRACTION = 0.08
#: Beyond the parallax-shifted body, as a fraction of the footprint radius.
PARALLAX_OVERHANG_FRACTION = 0.05
#: Width of the rim band: places this far beyond the hidden radius are fully observable.
RIM_BAND_MM = 12.0
#: How far from its space's centre (or its port's berth) a token standing there may be: a
#: token put down beside another is off-centre. The cloud's sweep counts a ship as swept
#: when a magnet may pass within the capture radius of it wherever it stands on its place.
STAND_TOLERANCE_MM = 8.0

Circle = tuple[float, float, float]  # x_mm, y_mm, radius_mm


def hidden_circles(
    board: Board,
    centre_mm: tuple[float, float],
    apparent_mm: tuple[float, float] | None = None,
    parallax_scale: float = 1.0,
) -> list[Circle]:
    """The disks the camera cannot see into: the body at the cloud's centre, and its
    parallax-shifted image around the marker's apparent centre (if known)."""
    radius = board.cloud.footprint_radius_mm
    out = [(centre_mm[0], centre_mm[1], radius * (1.0 + OVERHANG_FRACTION))]
    if apparent_mm is not None:
        out.append(
            (
                apparent_mm[0],
                apparent_mm[1],
                radius * parallax_scale * (1.0 + PARALLAX_OVERHANG_FRACTION),
            )
        )
    return out


def observability(
    x_mm: float, y_mm: float, circles: Iterable[Circle], rim_mm: float = RIM_BAND_MM
) -> float:
    """How much of a place the camera sees, 0 (hidden) to 1 (clear of the cloud)."""
    out = 1.0
    for cx, cy, r in circles:
        d = math.hypot(x_mm - cx, y_mm - cy) - r
        if d <= 0.0:
            return 0.0
        out = min(out, d / rim_mm if rim_mm > 0 else 1.0)
    return min(1.0, out)
