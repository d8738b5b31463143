"""The board's pose in the image, from the four corner ArUco markers, tracked frame to frame.

A pose is the homography from the board frame (mm) to image pixels, found
from every corner of every corner marker seen (sub-pixel refined), with its
reprojection error. The camera is fixed above the table, so once a pose is
known the tracker only looks for each marker in a small window around where
it was; a marker hidden by a hand keeps the last good pose as long as the
markers still seen agree with it. When the seen markers disagree (the camera
was moved) or none is found, it searches the whole frame again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.errors import VisionError
from bermuda_hw.rules.board import Board, Marker, Point

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.float64]


def marker_corners_mm(marker: Marker) -> npt.NDArray[np.float64]:
    """A board marker's four corners in OpenCV order (top-left, clockwise), board mm."""
    h = marker.size_mm / 2
    x, y = marker.x_mm, marker.y_mm
    return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], np.float64)


def make_detector(
    dictionary: str, window_sizes: tuple[int, int] | None = None, *, refine: bool = True
) -> Any:
    """An ArUco detector for a dictionary named like DICT_4X4_50, with corner refinement
    (unless `refine` is False: the caller refines the corners itself).

    `window_sizes` (smallest, largest) limits the adaptive threshold's window sizes
    (in steps of 10 px) when the markers' size in the image is known.
    """
    if not hasattr(cv2.aruco, dictionary):
        raise VisionError(f"unknown ArUco dictionary {dictionary!r}")
    params = cv2.aruco.DetectorParameters()
    if refine:
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 4
    else:
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    if window_sizes is not None:
        params.adaptiveThreshWinSizeMin = window_sizes[0]
        params.adaptiveThreshWinSizeMax = window_sizes[1]
        params.adaptiveThreshWinSizeStep = 10
    return cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params
    )


def detect_markers(detector: Any, gray: Image, offset: Point = (0.0, 0.0)) -> dict[int, Matrix]:
    """Every marker found in a grey image: id to its 4 corners (pixels, plus an offset)."""
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, Matrix] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        pts = np.asarray(quad, np.float64).reshape(4, 2) + np.array(offset)
        key = int(marker_id)
        if key in found:  # the same id twice: trust neither
            found[key] = np.full((4, 2), np.nan)
        else:
            found[key] = pts
    return {k: v for k, v in found.items() if not np.isnan(v).any()}


def project(h: Matrix, points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Apply a homography to N x 2 points."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, h), np.float64).reshape(-1, 2)


@dataclass
class BoardPose:
    """Board mm to image pixels: the homography, its error and what it rests on."""

    board_to_image: Matrix
    error_px: float
    markers: tuple[int, ...]
    image_size: tuple[int, int]
    source: str = "detected"
    _inverse: Matrix | None = field(default=None, repr=False)
    _nadir: Point | None = field(default=None, repr=False)

    @property
    def image_to_board(self) -> Matrix:
        if self._inverse is None:
            self._inverse = np.asarray(np.linalg.inv(self.board_to_image), np.float64)
        return self._inverse

    def to_image(self, points_mm: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return project(self.board_to_image, points_mm)

    def to_board(self, points_px: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return project(self.image_to_board, points_px)

    def px_per_mm(self, x_mm: float, y_mm: float) -> float:
        """The image scale near a board point (pixels per mm)."""
        pts = self.to_image(np.array([[x_mm, y_mm], [x_mm + 10, y_mm], [x_mm, y_mm + 10]]))
        return float((np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[2] - pts[0])) / 20.0)

    def camera_nadir_mm(self) -> Point:
        """The board point straight below the camera's centre, estimated from the pose."""
        if self._nadir is None:
            self._nadir = _camera_nadir(self.board_to_image, self.image_size)
        return self._nadir


def _camera_nadir(h: Matrix, image_size: tuple[int, int]) -> Point:
    """Estimate the focal length from the homography (square pixels, centred principal
    point), decompose it, and return the camera centre's x, y on the board."""
    w, hh = image_size
    shift = np.array([[1, 0, -w / 2], [0, 1, -hh / 2], [0, 0, 1]], np.float64)
    m = shift @ h
    h1, h2 = m[:, 0], m[:, 1]
    a1 = h1[0] * h2[0] + h1[1] * h2[1]
    b1 = h1[2] * h2[2]
    a2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2
    b2 = h1[2] ** 2 - h2[2] ** 2
    denom = a1 * a1 + a2 * a2
    inv_f2 = -(a1 * b1 + a2 * b2) / denom if denom > 0 else 0.0
    focal = 1.0 / math.sqrt(inv_f2) if inv_f2 > 0 else 0.0
    if not 0.3 * w <= focal <= 5.0 * w:
        focal = 1.0 * w
    k_inv = np.diag([1.0 / focal, 1.0 / focal, 1.0])
    g = k_inv @ m
    scale = 2.0 / (np.linalg.norm(g[:, 0]) + np.linalg.norm(g[:, 1]))
    g = g * scale
    if g[2, 2] < 0:
        g = -g
    r1, r2, t = g[:, 0], g[:, 1], g[:, 2]
    r3 = np.cross(r1, r2)
    rot = np.column_stack([r1, r2, r3])
    u, _, vt = np.linalg.svd(rot)
    rot = u @ vt
    centre = -rot.T @ t
    return (float(centre[0]), float(centre[1]))


class PoseTracker:
    """Finds the board in frames and keeps its pose; cheap once the pose is known.

    `agree_px` is how far (pixels) a marker's corners may be from where the
    last pose puts them for the marker to count as agreeing; `max_error_px` the
    largest reprojection error of an accepted new pose.
    """

    def __init__(
        self,
        board: Board,
        *,
        agree_px: float = 4.0,
        max_error_px: float = 3.0,
        steady_correlation: float = 0.9,
        recheck_every: int = 30,
    ) -> None:
        self.board = board
        self.steady_correlation = steady_correlation
        self.recheck_every = recheck_every
        self.detector = make_detector(board.markers.dictionary)
        self.agree_px = agree_px
        self.max_error_px = max_error_px
        self.markers = {m.id: m for m in board.markers.corners}
        self.corners_mm = {m.id: marker_corners_mm(m) for m in board.markers.corners}
        self.pose: BoardPose | None = None
        self.last_detections: dict[int, Matrix] = {}
        # Grey patches of the markers as last detected, to check a steady camera cheaply.
        self._patches: dict[int, tuple[tuple[int, int, int, int], Image]] = {}
        self._checks = 0

    def reset(self) -> None:
        self.pose = None
        self._patches = {}

    def _windows(
        self, pose: BoardPose, shape: tuple[int, ...]
    ) -> dict[int, tuple[int, int, int, int]]:
        """The image window (x0, y0, x1, y1) around each corner marker under a pose."""
        hh, ww = shape[:2]
        out: dict[int, tuple[int, int, int, int]] = {}
        for marker_id, corners in self.corners_mm.items():
            pts = pose.to_image(corners)
            x0, y0 = pts.min(axis=0)
            x1, y1 = pts.max(axis=0)
            pad = 0.6 * max(x1 - x0, y1 - y0) + 6
            xa, ya = max(int(x0 - pad), 0), max(int(y0 - pad), 0)
            xb, yb = min(int(x1 + pad) + 1, ww), min(int(y1 + pad) + 1, hh)
            if xb - xa >= 12 and yb - ya >= 12:
                out[marker_id] = (xa, ya, xb, yb)
        return out

    def _remember(self, gray: Image, pose: BoardPose) -> None:
        self._patches = {}
        for marker_id, (xa, ya, xb, yb) in self._windows(pose, gray.shape).items():
            patch = np.ascontiguousarray(gray[ya:yb:2, xa:xb:2])
            self._patches[marker_id] = ((xa, ya, xb, yb), patch)

    def _unchanged(self, gray: Image) -> bool:
        """True if every marker's window looks as when the pose was fixed (normalised
        cross-correlation): the camera has not moved and nothing covers a marker."""
        if len(self._patches) != len(self.corners_mm):
            return False
        for (xa, ya, xb, yb), patch in self._patches.values():
            now = np.ascontiguousarray(gray[ya:yb:2, xa:xb:2])
            if now.shape != patch.shape:
                return False
            score = float(cv2.matchTemplate(now, patch, cv2.TM_CCOEFF_NORMED)[0, 0])
            if not score >= self.steady_correlation:
                return False
        return True

    def full_search(self, gray: Image) -> dict[int, Matrix]:
        found = detect_markers(self.detector, gray)
        self.last_detections = found
        return found

    def _window_search(self, gray: Image, pose: BoardPose) -> dict[int, Matrix]:
        """Look for each corner marker only around where the pose puts it."""
        found: dict[int, Matrix] = {}
        for marker_id, (xa, ya, xb, yb) in self._windows(pose, gray.shape).items():
            crop = np.ascontiguousarray(gray[ya:yb, xa:xb])
            hits = detect_markers(self.detector, crop, (xa, ya))
            if marker_id in hits:
                found[marker_id] = hits[marker_id]
        self.last_detections = found
        return found

    def fit(self, found: dict[int, Matrix], image_size: tuple[int, int]) -> BoardPose | None:
        """A pose from the corner markers found, or None if too few or inconsistent."""
        ids = sorted(i for i in found if i in self.corners_mm)
        if len(ids) < 2:
            return None
        found = self._upright(found, ids)
        src = np.concatenate([self.corners_mm[i] for i in ids])
        dst = np.concatenate([found[i] for i in ids])
        found_h, _ = cv2.findHomography(src, dst, 0)
        if found_h is None or not np.all(np.isfinite(found_h)):
            return None
        h = np.asarray(found_h, np.float64)
        err = float(np.sqrt(np.mean(np.sum((project(h, src) - dst) ** 2, axis=1))))
        if len(ids) == 2 and not self._two_markers_ok(ids):
            return None
        return BoardPose(h, err, tuple(ids), image_size)

    def _upright(self, found: dict[int, Matrix], ids: list[int]) -> dict[int, Matrix]:
        """The markers' corners in board order, whichever way each sticker was turned.

        The markers' centres fix a first transform (projective from four, affine from
        three); each marker's corners are then rotated to match it.
        """
        if len(ids) < 3:
            return found
        centres_mm = np.array([self.corners_mm[i].mean(axis=0) for i in ids], np.float32)
        centres_px = np.array([found[i].mean(axis=0) for i in ids], np.float32)
        if len(ids) >= 4:
            m, _ = cv2.findHomography(centres_mm, centres_px, 0)
            if m is None:
                return found
            rough = np.asarray(m, np.float64)
        else:
            a = cv2.getAffineTransform(centres_mm[:3], centres_px[:3])
            rough = np.vstack([np.asarray(a, np.float64), [0.0, 0.0, 1.0]])
        out = dict(found)
        for i in ids:
            expected = project(rough, self.corners_mm[i])
            turns = [np.roll(found[i], -k, axis=0) for k in range(4)]
            out[i] = min(turns, key=lambda c: float(np.sum((c - expected) ** 2)))
        return out

    def _two_markers_ok(self, ids: list[int]) -> bool:
        """Two markers fix a homography only if they are far apart on the board."""
        a, b = self.markers[ids[0]], self.markers[ids[1]]
        return math.dist((a.x_mm, a.y_mm), (b.x_mm, b.y_mm)) > 0.5 * max(
            self.board.width_mm, self.board.height_mm
        )

    def _agrees(self, pose: BoardPose, found: dict[int, Matrix]) -> bool:
        for marker_id, pts in found.items():
            if marker_id not in self.corners_mm:
                continue
            expected = pose.to_image(self.corners_mm[marker_id])
            tol = self.agree_px + 0.01 * float(np.linalg.norm(expected[0] - expected[2]))
            if float(np.max(np.linalg.norm(expected - pts, axis=1))) > tol:
                return False
        return True

    def update(self, gray: Image) -> BoardPose | None:
        """The board's pose in this frame, or None when the board cannot be fixed."""
        size = (gray.shape[1], gray.shape[0])
        last = self.pose
        if last is not None and last.image_size == size:
            self._checks += 1
            if self._checks < self.recheck_every and self._unchanged(gray):
                self.last_detections = {}
                return BoardPose(
                    last.board_to_image,
                    last.error_px,
                    last.markers,
                    size,
                    "steady",
                    last._inverse,
                    last._nadir,
                )
            self._checks = 0
            found = self._window_search(gray, last)
            corner_hits = {i: p for i, p in found.items() if i in self.corners_mm}
            if len(corner_hits) == len(self.corners_mm):
                pose = self.fit(corner_hits, size)
                if (
                    pose is not None
                    and pose.error_px <= self.max_error_px
                    and self._agrees(last, corner_hits)
                ):
                    pose.source = "tracked"
                    self.pose = pose
                    self._remember(gray, pose)
                    return pose
            elif corner_hits and self._agrees(last, corner_hits):
                kept = BoardPose(
                    last.board_to_image,
                    last.error_px,
                    tuple(sorted(corner_hits)),
                    size,
                    "kept",
                    last._inverse,
                    last._nadir,
                )
                return kept
        found = self.full_search(gray)
        corner_hits = {i: p for i, p in found.items() if i in self.corners_mm}
        if (
            last is not None
            and last.image_size == size
            and corner_hits
            and len(corner_hits) < len(self.corners_mm)
            and self._agrees(last, corner_hits)
        ):
            return BoardPose(
                last.board_to_image,
                last.error_px,
                tuple(sorted(corner_hits)),
                size,
                "kept",
                last._inverse,
                last._nadir,
            )
        pose = self.fit(corner_hits, size)
        if pose is None or pose.error_px > self.max_error_px:
            return None
        if len(pose.markers) < 3 and last is None:
            # Two markers give a pose, but not one to trust as the first.
            return None
        self.pose = pose
        self._checks = 0
        if len(pose.markers) == len(self.corners_mm):
            self._remember(gray, pose)
        else:
            self._patches = {}
        return pose
