"""The cloud from its marker: position (nearest dot, corrected for the marker's height) and letter.

The marker sits on top of the cloud, above the board, so the board-plane
homography sees it displaced away from the point under the camera and
enlarged by the same factor. Its apparent size against its true size gives
that factor; the camera's position comes from the board pose. The marker's
top edge (corners 0 to 1) faces north at letter A; which heading shows which
letter is the board's `[cloud]` data (`CloudGeometry.letter_at`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from bermuda_hw.geometry import bearing_deg, wrap_deg
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cover import hidden_circles
from bermuda_hw.vision.pose import BoardPose
from bermuda_hw.vision.types import CloudReading

MAX_PARALLAX_SCALE = 1.4


def cloud_from_corners(
    board: Board, pose: BoardPose, corners_px: npt.NDArray[np.float64]
) -> CloudReading:
    """The cloud's reading from its marker's four corners in the image."""
    pts = pose.to_board(corners_px)
    apparent = pts.mean(axis=0)
    sides = [float(np.linalg.norm(pts[(i + 1) % 4] - pts[i])) for i in range(4)]
    scale = float(np.mean(sides)) / board.markers.cloud_size_mm
    scale = min(max(scale, 1.0), MAX_PARALLAX_SCALE)
    nx, ny = pose.camera_nadir_mm()
    x_mm = nx + (float(apparent[0]) - nx) / scale
    y_mm = ny + (float(apparent[1]) - ny) / scale
    # Heading from both pairs of parallel edges (0->1 and 3->2), averaged as vectors.
    top = pts[1] - pts[0]
    bottom = pts[2] - pts[3]
    edge = top / np.linalg.norm(top) + bottom / np.linalg.norm(bottom)
    # the top edge runs east at letter A: the cloud's heading is a quarter turn before it
    heading = wrap_deg(bearing_deg(float(edge[0]), float(edge[1])) - 90.0)
    letters = board.cloud
    letter = letters.letter_at(heading)
    off_letter = abs(letters.letter_offset_deg(heading, letter))
    step = 2.0 * letters.letter_gap_deg(letter)
    col, row = board.grid.nearest_dot(x_mm, y_mm)
    dot_x, dot_y = board.grid.dot_mm(col, row)
    off_dot = math.hypot(x_mm - dot_x, y_mm - dot_y)
    confidence = max(0.0, 1.0 - off_letter / (step / 2)) * max(
        0.0, 1.0 - off_dot / (board.grid.pitch_mm / 2)
    )
    return CloudReading(col, row, letter, x_mm, y_mm, heading, round(confidence, 3))


def hidden_zone(
    board: Board, pose: BoardPose, cloud: CloudReading, corners_px: npt.NDArray[np.float64]
) -> list[tuple[float, float, float]]:
    """Circles (x_mm, y_mm, radius_mm) that the cloud covers: footprint and raised body
    (the shared model of `rules.cover`)."""
    pts = pose.to_board(corners_px)
    apparent = pts.mean(axis=0)
    sides = [float(np.linalg.norm(pts[(i + 1) % 4] - pts[i])) for i in range(4)]
    scale = min(max(float(np.mean(sides)) / board.markers.cloud_size_mm, 1.0), MAX_PARALLAX_SCALE)
    return hidden_circles(
        board, (cloud.x_mm, cloud.y_mm), (float(apparent[0]), float(apparent[1])), scale
    )
