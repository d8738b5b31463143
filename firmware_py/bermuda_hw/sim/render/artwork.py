"""The printed board and the cloud's top, drawn once per board and palette."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.geometry import LETTERS, Point, polar_point
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render.draw import (
    QUIET_ZONE_MM,
    TABLE_MARGIN_MM,
    TEXTURE_PX_PER_MM,
    Cache,
    Image,
    circle,
    fill,
    marker_image,
    oriented,
    outline,
    ship_outline,
    tex_point,
    text,
    texture_size,
)
from bermuda_hw.sim.render.palette import Palette
from bermuda_hw.sim.render.printing import draw_printing

_TEXTURES = Cache(8)
_CLOUDS = Cache(8)


def board_texture(board: Board, palette: Palette) -> Image:
    """The printed board on the table, drawn once per board and palette."""
    img: Image = _TEXTURES.get(board, palette, lambda: _draw_board(board, palette))
    return img


def _draw_board(board: Board, palette: Palette) -> Image:
    width, height = texture_size(board)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = palette.table
    wood = np.random.default_rng(7).normal(0, 6, (height // 8, 1, 1)).astype(np.float32)
    img[:] = np.clip(
        img.astype(np.float32) + cv2.resize(wood, (width, height))[..., None], 0, 255
    ).astype(np.uint8)
    corners = [
        (0.0, 0.0),
        (board.width_mm, 0.0),
        (board.width_mm, board.height_mm),
        (0.0, board.height_mm),
    ]
    fill(img, corners, palette.sea)
    # Soft waves in the printed sea.
    waves_rng = np.random.default_rng(11)
    small = waves_rng.normal(0, 1, (24, 24)).astype(np.float32)
    waves = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC) * 5.0
    x0, y0 = tex_point((0.0, 0.0))
    x1, y1 = tex_point((board.width_mm, board.height_mm))
    x0, y0, x1, y1 = x0 // 16, y0 // 16, x1 // 16, y1 // 16
    region = img[y0:y1, x0:x1].astype(np.float32) + waves[y0:y1, x0:x1, None]
    img[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)

    for poly in board.land:
        fill(img, list(poly), palette.land)
        outline(img, list(poly), (60, 110, 120), 0.8)
    # A printed title and compass lines on the sea, as on a real board.
    text(
        img, "BERMUDA TRIANGLE", (board.width_mm * 0.62, board.height_mm * 0.93), 9.0, (150, 90, 30)
    )
    mid = (board.width_mm * 0.22, board.height_mm * 0.70)
    for angle in range(0, 360, 45):
        end = oriented(mid[0], mid[1], angle, [(22.0 if angle % 90 == 0 else 12.0, 0.0)])[0]
        cv2.line(img, tex_point(mid), tex_point(end), (150, 100, 50), 2, cv2.LINE_AA, 4)
    draw_printing(img, palette.printing)

    for a, b in _route_segments(board):
        cv2.line(img, tex_point(a), tex_point(b), (225, 205, 170), 2, cv2.LINE_AA, 4)

    grid = board.grid
    for col, row in grid.dots():
        centre = grid.dot_mm(col, row)
        if (col, row) == grid.centre:
            circle(img, centre, 6.0, (40, 40, 200), 1.5)
        circle(img, centre, 2.2, palette.ink)

    space_outline = ship_outline(30.0, 13.0, "pointed")
    for space in board.spaces.values():
        if space.kind != "path":
            continue
        pts = oriented(space.x_mm, space.y_mm, space.heading_deg, space_outline)
        fill(img, pts, palette.space)
        outline(img, pts, palette.ink, 0.6)

    berth_outline = ship_outline(24.0, 11.0, "pointed")
    for port in board.ports.values():
        xs = [b[0] for b in port.berths]
        ys = [b[1] for b in port.berths]
        box = [
            (min(xs) - 17, min(ys) - 19),
            (max(xs) + 17, min(ys) - 19),
            (max(xs) + 17, max(ys) + 19),
            (min(xs) - 17, max(ys) + 19),
        ]
        fill(img, box, palette.printing.paint_of(port.id, palette.port))
        outline(img, box, palette.ink, 0.8)
        for bx, by in port.berths:
            outline(img, oriented(bx, by, 0.0, berth_outline), (150, 150, 150), 0.4)
        text(img, port.product.upper(), (port.x_mm, max(ys) + 24), 5.0, palette.ink)

    for marker in board.markers.corners:
        _paste_marker(
            img, board.markers.dictionary, marker.id, marker.x_mm, marker.y_mm, marker.size_mm
        )
    img.setflags(write=False)
    return img


def _route_segments(board: Board) -> list[tuple[Point, Point]]:
    out = []
    for a, near in board.adjacency.items():
        for b in near:
            if a < b:
                out.append((board.spaces[a].position, board.spaces[b].position))
    return out


def _paste_marker(
    img: Image, dictionary: str, marker_id: int, x_mm: float, y_mm: float, size_mm: float
) -> None:
    half = size_mm / 2 + QUIET_ZONE_MM
    fill(
        img,
        [
            (x_mm - half, y_mm - half),
            (x_mm + half, y_mm - half),
            (x_mm + half, y_mm + half),
            (x_mm - half, y_mm + half),
        ],
        (250, 250, 250),
    )
    side = round(size_mm * TEXTURE_PX_PER_MM)
    marker = marker_image(dictionary, marker_id, side)
    x0 = round((x_mm - size_mm / 2 + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM)
    y0 = round((y_mm - size_mm / 2 + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM)
    img[y0 : y0 + side, x0 : x0 + side] = np.clip(marker.astype(np.int16) + 10, 0, 250)[..., None]


def cloud_canvas(board: Board, palette: Palette) -> tuple[Image, npt.NDArray[np.float32]]:
    """The cloud's top seen from above at its start pose (letter A north), with alpha."""
    out: tuple[Image, npt.NDArray[np.float32]] = _CLOUDS.get(
        board, palette, lambda: _draw_cloud(board, palette)
    )
    return out


def _draw_cloud(board: Board, palette: Palette) -> tuple[Image, npt.NDArray[np.float32]]:
    radius = board.cloud.footprint_radius_mm
    size = round(2 * radius * TEXTURE_PX_PER_MM) + 4
    img = np.zeros((size, size, 3), np.uint8)
    alpha = np.zeros((size, size), np.uint8)
    c = size / 2
    k = TEXTURE_PX_PER_MM
    rng = np.random.default_rng(5)
    # A lumpy cloud body: overlapping puffs.
    for i in range(14):
        angle = 2 * math.pi * i / 14
        r = radius * 0.66
        px, py = c + r * k * math.sin(angle), c - r * k * math.cos(angle)
        pr = radius * k * rng.uniform(0.28, 0.33)
        cv2.circle(alpha, (round(px), round(py)), round(pr), 255, -1, cv2.LINE_AA)
    cv2.circle(alpha, (round(c), round(c)), round(radius * k * 0.8), 255, -1, cv2.LINE_AA)
    img[:] = palette.cloud
    shade = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), 12)
    shade = shade / (np.abs(shade).max() + 1e-6) * 18
    img = np.clip(img.astype(np.float32) + shade[..., None], 0, 255).astype(np.uint8)
    # Letters around the rim, where the board's [cloud] letter_angles_deg puts them.
    for letter, angle_deg in zip(LETTERS, board.cloud.letter_angles_deg, strict=True):
        at = polar_point((c, c), radius * 0.78 * k, angle_deg)
        scale = 0.9
        (w, h), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.putText(
            img,
            letter,
            (round(at[0] - w / 2), round(at[1] + h / 2)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (60, 50, 50),
            2,
            cv2.LINE_AA,
        )
    # The marker on a white plate in the middle, its top edge (corners 0->1) north.
    msize = board.markers.cloud_size_mm
    plate = (msize / 2 + QUIET_ZONE_MM * 0.7) * k
    cv2.rectangle(
        img,
        (round(c - plate), round(c - plate)),
        (round(c + plate), round(c + plate)),
        (250, 250, 250),
        -1,
    )
    side = round(msize * k)
    marker = marker_image(board.markers.dictionary, board.markers.cloud_id, side)
    x0 = round(c - side / 2)
    img[x0 : x0 + side, x0 : x0 + side] = np.clip(marker.astype(np.int16) + 10, 0, 250)[..., None]
    return img, alpha.astype(np.float32) / 255.0
