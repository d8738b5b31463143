"""Drawing in the top-down texture: board mm to texture pixels, shapes, text, markers."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.geometry import heading_vector
from bermuda_hw.rules.board import Board, Point
from bermuda_hw.sim.render.scene import BGR

Image = npt.NDArray[np.uint8]

TEXTURE_PX_PER_MM = 2.0
TABLE_MARGIN_MM = 120.0
QUIET_ZONE_MM = 6.0


def clip8(value: float) -> int:
    return int(min(255, max(0, round(value))))


def tex_point(point: Point) -> tuple[int, int]:
    """Board mm to texture pixels, fixed point with 4 fractional bits (for cv2 shift=4)."""
    k = TEXTURE_PX_PER_MM * 16
    return (
        round((point[0] + TABLE_MARGIN_MM) * k),
        round((point[1] + TABLE_MARGIN_MM) * k),
    )


def tex_poly(points: list[Point]) -> npt.NDArray[np.int32]:
    return np.array([tex_point(p) for p in points], dtype=np.int32)


def oriented(
    cx: float, cy: float, heading_deg: float, local: list[Point], scale: float = 1.0
) -> list[Point]:
    """Local (forward, starboard) mm points turned to a heading and placed at a centre."""
    fx, fy = heading_vector(heading_deg)
    sx, sy = -fy, fx  # starboard: a quarter turn clockwise of forward
    return [(cx + scale * (u * fx + v * sx), cy + scale * (u * fy + v * sy)) for u, v in local]


def ship_outline(length_mm: float, beam_mm: float, bow: str) -> list[Point]:
    half_l, half_b = length_mm / 2, beam_mm / 2
    if bow == "square":
        return [(half_l, -half_b), (half_l, half_b), (-half_l, half_b), (-half_l, -half_b)]
    if bow == "round":
        arc = [
            (half_l - half_b + half_b * math.cos(a), half_b * math.sin(a))
            for a in np.linspace(-math.pi / 2, math.pi / 2, 9)
        ]
        return [*arc, (-half_l, half_b), (-half_l, -half_b)]
    return [
        (half_l, 0.0),
        (half_l * 0.35, half_b),
        (-half_l, half_b * 0.85),
        (-half_l, -half_b * 0.85),
        (half_l * 0.35, -half_b),
    ]


def fill(img: Image, points: list[Point], color: BGR) -> None:
    cv2.fillPoly(img, [tex_poly(points)], color, cv2.LINE_AA, 4)


def outline(img: Image, points: list[Point], color: BGR, width_mm: float) -> None:
    thickness = max(1, round(width_mm * TEXTURE_PX_PER_MM))
    cv2.polylines(img, [tex_poly(points)], True, color, thickness, cv2.LINE_AA, 4)


def circle(img: Image, centre: Point, radius_mm: float, color: BGR, width_mm: float = -1) -> None:
    thickness = -1 if width_mm < 0 else max(1, round(width_mm * TEXTURE_PX_PER_MM))
    cv2.circle(
        img,
        tex_point(centre),
        round(radius_mm * TEXTURE_PX_PER_MM * 16),
        color,
        thickness,
        cv2.LINE_AA,
        4,
    )


def text(img: Image, text: str, at: Point, height_mm: float, color: BGR) -> None:
    scale = height_mm * TEXTURE_PX_PER_MM / 22.0
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    x, y = tex_point(at)
    cv2.putText(
        img,
        text,
        (x // 16 - w // 2, y // 16 + h // 2),
        cv2.FONT_HERSHEY_SIMPLEX,
        scale,
        color,
        max(1, round(scale * 2)),
        cv2.LINE_AA,
    )


def aruco_dictionary(name: str) -> Any:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def marker_image(dictionary: str, marker_id: int, side_px: int) -> Image:
    img = cv2.aruco.generateImageMarker(aruco_dictionary(dictionary), marker_id, side_px)
    return np.asarray(img, np.uint8)


def texture_size(board: Board) -> tuple[int, int]:
    return (
        round((board.width_mm + 2 * TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM),
        round((board.height_mm + 2 * TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM),
    )


class Cache:
    """A small cache keyed by a board's identity and hashable values."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: dict[tuple[Any, ...], tuple[Board, Any]] = {}

    def get(self, board: Board, key: Any, make: Any) -> Any:
        full = (id(board), key)
        hit = self.items.get(full)
        if hit is not None and hit[0] is board:
            return hit[1]
        value = make()
        if len(self.items) >= self.size:
            self.items.pop(next(iter(self.items)))
        self.items[full] = (board, value)
        return value
