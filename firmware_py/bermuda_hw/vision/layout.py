"""What vision knows about the board before it sees a frame: places to sample and masks.

Everything is in the rectified (top-down) image of the board, `px_per_mm`
pixels per millimetre, pixel (col, row) at board (col, row) / px_per_mm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.board import Board, Point

Mask = npt.NDArray[np.bool_]

# Around a path space the board prints the space; around a port, the port.
SPACE_CLEAR_MM = 18.0
PORT_CLEAR_MM = 20.0
MARKER_CLEAR_MM = 9.0
DOT_CLEAR_MM = 4.0
CENTRE_RING_MM = 10.0


@dataclass(frozen=True)
class Place:
    """A place where a ship may stand: a path space, or one berth of a port."""

    space: str
    berth: int | None
    x_mm: float
    y_mm: float


class BoardLayout:
    """Places and masks of one board at one rectified scale."""

    def __init__(self, board: Board, px_per_mm: float = 1.0) -> None:
        self.board = board
        self.px_per_mm = px_per_mm
        self.width_px = math.ceil(board.width_mm * px_per_mm)
        self.height_px = math.ceil(board.height_mm * px_per_mm)
        places: list[Place] = []
        for space in board.spaces.values():
            if space.kind == "path":
                places.append(Place(space.id, None, space.x_mm, space.y_mm))
        for port in board.ports.values():
            for i, (bx, by) in enumerate(port.berths):
                places.append(Place(port.id, i, bx, by))
        self.places = tuple(places)
        self.place_xy = np.array([(p.x_mm, p.y_mm) for p in places], np.float64)

        shape = (self.height_px, self.width_px)
        printed = np.zeros(shape, np.uint8)  # where the board prints something not sea
        for space in board.spaces.values():
            if space.kind == "path":
                self._disk(printed, (space.x_mm, space.y_mm), SPACE_CLEAR_MM)
        for port in board.ports.values():
            xs = [b[0] for b in port.berths]
            ys = [b[1] for b in port.berths]
            self._rect(
                printed,
                min(xs) - PORT_CLEAR_MM,
                min(ys) - PORT_CLEAR_MM - 6,
                max(xs) + PORT_CLEAR_MM,
                max(ys) + PORT_CLEAR_MM + 12,
            )
        # The printed port areas, and inside them the paint away from the berths: the
        # colour an empty berth shows (it may be a ship's colour, like yellow sand).
        boxes = np.zeros(shape, np.uint8)
        for port in board.ports.values():
            xs = [b[0] for b in port.berths]
            ys = [b[1] for b in port.berths]
            self._rect(boxes, min(xs) - 16, min(ys) - 18, max(xs) + 16, max(ys) + 18)
        ring = boxes.copy()
        for port in board.ports.values():
            for bx, by in port.berths:
                self._disk(ring, (bx, by), 14.0, 0)
        self.port_box: Mask = boxes > 0
        idx = np.nonzero(ring)
        step = max(1, len(idx[0]) // 3000)
        self.port_ring_idx = (idx[0][::step], idx[1][::step])
        markers = np.zeros(shape, np.uint8)
        for m in board.markers.corners:
            half = m.size_mm / 2 + MARKER_CLEAR_MM
            self._rect(markers, m.x_mm - half, m.y_mm - half, m.x_mm + half, m.y_mm + half)
        grid = board.grid
        for col, row in grid.dots():
            self._disk(printed, grid.dot_mm(col, row), DOT_CLEAR_MM)
        self._disk(printed, grid.dot_mm(*grid.centre), CENTRE_RING_MM)
        land = np.zeros(shape, np.uint8)
        for poly in board.land:
            pts = np.array([[x * px_per_mm, y * px_per_mm] for x, y in poly], np.int32)
            cv2.fillPoly(land, [pts], 1)
        edge = max(1, round(3 * px_per_mm))
        kernel = np.ones((2 * edge + 1, 2 * edge + 1), np.uint8)
        land_core = cv2.erode(land, kernel)
        land_grown = cv2.dilate(land, kernel)
        self.marker_zone: Mask = markers.astype(bool)
        self.sea: Mask = (printed == 0) & (land_grown == 0) & (markers == 0)
        self.land: Mask = (land_core > 0) & (printed == 0) & (markers == 0)
        self.land_inland: Mask = land_core > 0  # land away from its coast: never a ship
        # Ring of white around each corner marker: the white reference.
        white = np.zeros(shape, np.uint8)
        for m in board.markers.corners:
            inner = m.size_mm / 2 + 1.5
            outer = m.size_mm / 2 + 4.0
            self._rect(white, m.x_mm - outer, m.y_mm - outer, m.x_mm + outer, m.y_mm + outer)
            self._rect(white, m.x_mm - inner, m.y_mm - inner, m.x_mm + inner, m.y_mm + inner, 0)
        self.white_idx = np.nonzero(white)
        self.centre_ring = (grid.dot_mm(*grid.centre), CENTRE_RING_MM)

    def _disk(
        self, img: npt.NDArray[np.uint8], centre: Point, radius_mm: float, value: int = 1
    ) -> None:
        s = self.px_per_mm
        cv2.circle(
            img, (round(centre[0] * s), round(centre[1] * s)), round(radius_mm * s), value, -1
        )

    def _rect(
        self, img: npt.NDArray[np.uint8], x0: float, y0: float, x1: float, y1: float, value: int = 1
    ) -> None:
        s = self.px_per_mm
        cv2.rectangle(
            img, (round(x0 * s), round(y0 * s)), (round(x1 * s), round(y1 * s)), value, -1
        )

    def disk_offsets(self, radius_mm: float) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """Row and column offsets of the pixels within a radius of a centre pixel."""
        r = radius_mm * self.px_per_mm
        n = math.ceil(r)
        dy, dx = np.mgrid[-n : n + 1, -n : n + 1]
        keep = dx * dx + dy * dy <= r * r
        return dy[keep].astype(np.intp), dx[keep].astype(np.intp)

    def place_index(self, space: str, berth: int | None) -> int:
        for i, p in enumerate(self.places):
            if p.space == space and p.berth == berth:
                return i
        raise KeyError((space, berth))
