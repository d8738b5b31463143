"""Draws what vision found on a frame: board outline, markers, ships, cloud, hidden places."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.board import Board
from bermuda_hw.vision.pose import BoardPose
from bermuda_hw.vision.types import FrameReading

Image = npt.NDArray[np.uint8]

SHIP_BGR = {
    "blue": (255, 80, 0),
    "yellow": (0, 230, 255),
    "green": (0, 200, 0),
    "red": (0, 0, 255),
}


def _pt(p: npt.NDArray[np.float64]) -> tuple[int, int]:
    return (round(float(p[0])), round(float(p[1])))


def annotate(frame: Image, board: Board, reading: FrameReading, pose: BoardPose | None) -> Image:
    """A copy of the frame with the reading drawn on it."""
    out = frame.copy()
    h, w = out.shape[:2]
    scale = max(1, round(w / 800))
    if not reading.board_found or pose is None:
        cv2.putText(
            out,
            reading.error or "board not found",
            (10, 30 * scale),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.8 * scale,
            (0, 0, 255),
            2 * scale,
            cv2.LINE_AA,
        )
        return out
    outline = pose.to_image(
        np.array(
            [[0, 0], [board.width_mm, 0], [board.width_mm, board.height_mm], [0, board.height_mm]],
            np.float64,
        )
    )
    cv2.polylines(out, [outline.astype(np.int32)], True, (0, 255, 0), scale, cv2.LINE_AA)
    for space in reading.hidden_spaces:
        s = board.spaces[space]
        c = pose.to_image(np.array([[s.x_mm, s.y_mm]]))[0]
        cv2.drawMarker(out, _pt(c), (128, 128, 128), cv2.MARKER_TILTED_CROSS, 12 * scale, scale)
    for ship in reading.ships:
        c = pose.to_image(np.array([[ship.x_mm, ship.y_mm]]))[0]
        color = SHIP_BGR.get(ship.color, (255, 255, 255))
        r = max(6, round(pose.px_per_mm(ship.x_mm, ship.y_mm) * 12))
        cv2.circle(out, _pt(c), r, (255, 255, 255), 3 * scale, cv2.LINE_AA)
        cv2.circle(out, _pt(c), r, color, 2 * scale - 1 if scale > 1 else 1, cv2.LINE_AA)
        label = ship.space or "off"
        cv2.putText(
            out,
            label,
            (_pt(c)[0] + r, _pt(c)[1] - r),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4 * scale,
            (255, 255, 255),
            scale,
            cv2.LINE_AA,
        )
    if reading.cloud is not None:
        cloud = reading.cloud
        c = pose.to_image(np.array([[cloud.x_mm, cloud.y_mm]]))[0]
        dot = pose.to_image(np.array([board.grid.dot_mm(cloud.col, cloud.row)]))[0]
        r = round(pose.px_per_mm(cloud.x_mm, cloud.y_mm) * board.cloud.footprint_radius_mm)
        cv2.circle(out, _pt(c), r, (255, 0, 255), scale, cv2.LINE_AA)
        cv2.drawMarker(out, _pt(dot), (255, 0, 255), cv2.MARKER_CROSS, 20 * scale, 2 * scale)
        cv2.putText(
            out,
            f"{cloud.letter_name} ({cloud.col},{cloud.row})",
            (_pt(c)[0] - 30 * scale, _pt(c)[1] + r + 20 * scale),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.7 * scale,
            (255, 0, 255),
            2 * scale,
            cv2.LINE_AA,
        )
    status = f"{len(reading.ships)} ships, pose {reading.pose_source}"
    if reading.occluded:
        status = "OCCLUDED - " + status
    cv2.putText(
        out,
        status,
        (10, h - 12 * scale),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.7 * scale,
        (0, 0, 255) if reading.occluded else (0, 255, 0),
        2 * scale,
        cv2.LINE_AA,
    )
    return out
