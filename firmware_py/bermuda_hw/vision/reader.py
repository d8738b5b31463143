"""Frames in, `FrameReading` out: board pose, lighting, ships, cloud and hands in one pass.

One `BoardReader` per camera: it keeps the board's pose and the cloud's last
place between frames, so that a steady camera costs little per frame.
`read_image` is the same for a single image with no history.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.errors import CalibrationError, VisionError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose, blocked_spaces
from bermuda_hw.vision.background import (
    RIM,
    BackgroundComparison,
    BackgroundLearner,
    BoardBackground,
)
from bermuda_hw.vision.cloud import cloud_from_corners, hidden_zone
from bermuda_hw.vision.colors import (
    ColorCalibration,
    ColorProfile,
    default_calibration,
    lab_distance,
)
from bermuda_hw.vision.counts import MIN_TOKEN_MM2, TokenCounter
from bermuda_hw.vision.evidence import measure
from bermuda_hw.vision.layout import BoardLayout
from bermuda_hw.vision.lighting import (
    LightingNormaliser,
    Normalised,
    light_problems,
    to_lab,
)
from bermuda_hw.vision.occlusion import OcclusionDetector, OcclusionSettings
from bermuda_hw.vision.pose import BoardPose, PoseTracker, detect_markers, make_detector
from bermuda_hw.vision.ships import ShipFinder, ShipSettings
from bermuda_hw.vision.types import CloudReading, FrameReading

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.float64]

CLOUD_WINDOW_PAD_PX = 2  # the cloud marker's window: its corners' box and this much around
# The cloud marker's window correlates at least this well with its look when last found:
# the cloud is where it was (image noise keeps a marker's black and white above 0.99,
# half a millimetre across the board or a turn of 3 degrees brings it to 0.97).
CLOUD_STILL_CORRELATION = 0.98
UNCOVERED_MM = 20.0  # beside the cloud, a board never seen is not searched for ships
# The cloud's marker is searched for on a thread of its own while the board is rectified
# and its light evened out: the two read different things (the grey frame and the
# reader's cloud state; the colour frame and the normaliser), and OpenCV and numpy let
# the interpreter go while they work. One thread for every reader of the process, made
# by the process that uses it (a forked child does not inherit its parent's threads).
_CLOUD_SEARCH: dict[int, ThreadPoolExecutor] = {}


def _cloud_search() -> ThreadPoolExecutor:
    pid = os.getpid()
    executor = _CLOUD_SEARCH.get(pid)
    if executor is None:
        _CLOUD_SEARCH.clear()  # a parent's, whose thread this process does not have
        executor = _CLOUD_SEARCH[pid] = ThreadPoolExecutor(1, thread_name_prefix="cloud-search")
    return executor


@dataclass(frozen=True)
class VisionSettings:
    """Every tunable of the reader, with defaults that suit the classic board."""

    px_per_mm: float = 1.0
    ships: ShipSettings = field(default_factory=ShipSettings)
    occlusion: OcclusionSettings = field(default_factory=OcclusionSettings)
    max_pose_error_px: float = 3.0


@dataclass
class Rectified:
    """One frame's board, seen from above, and how to normalise it."""

    pose: BoardPose
    rect: Image
    norm: Normalised


class BoardReader:
    """Reads frames of one board through one camera."""

    def __init__(
        self,
        board: Board,
        calibration: ColorCalibration | None = None,
        settings: VisionSettings | None = None,
    ) -> None:
        self.board = board
        self.settings = settings or VisionSettings()
        self.calibration = calibration or default_calibration(board.ship_colors)
        if self.calibration.names != tuple(board.ship_colors):
            raise CalibrationError(
                self.calibration.source,
                "colors",
                f"profiles {self.calibration.names} do not match the board's ship colours "
                f"{tuple(board.ship_colors)}",
            )
        self.layout = BoardLayout(board, self.settings.px_per_mm)
        self.tracker = PoseTracker(board, max_error_px=self.settings.max_pose_error_px)
        self.normaliser = LightingNormaliser(self.layout)
        self.ships = ShipFinder(
            self.layout, self.calibration, self.settings.ships, self.settings.occlusion.distance
        )
        self.occlusion = OcclusionDetector(self.layout, self.settings.occlusion)
        self.counter = TokenCounter(
            self.layout, len(self.calibration.names), self.calibration.token_area_mm2
        )
        self._cloud_px: Matrix | None = None
        self._cloud: tuple[CloudReading, list[tuple[float, float, float]]] | None = None
        # The cloud marker's grey window when it was last found: (x0, y0, x1, y1), patch.
        self._cloud_patch: tuple[tuple[int, int, int, int], Image] | None = None
        self._ignore = [(z.x_mm, z.y_mm, z.radius_mm) for z in self.calibration.ignore]
        self._path = np.array([p.berth is None for p in self.layout.places], bool)
        # The cloud's marker at half resolution is 30-40 px wide: two adaptive-threshold
        # windows (7 and 17 px) find it. The first alone finds it in most frames, at half
        # the work; the second is looked at only where the first finds nothing (a lamp's
        # gradient across the marker). Its corners are refined at full resolution after,
        # so none is refined here.
        self._cloud_detectors = (
            make_detector(board.markers.dictionary, window_sizes=(7, 7), refine=False),
            make_detector(board.markers.dictionary, window_sizes=(17, 17), refine=False),
        )
        # Near its last place, at full resolution (the marker 60-80 px wide), one window
        # (13 px) finds it where the tracker's three do, at half their work; where it does
        # not, the search over the board follows.
        self._cloud_near = make_detector(
            board.markers.dictionary, window_sizes=(13, 13), refine=False
        )
        s = self.settings.px_per_mm
        self._rect_from_board = np.diag([s, s, 1.0])
        self._half_shape = (self.layout.height_px // 2, self.layout.width_px // 2)
        self.background: BoardBackground | None = self.calibration.background
        if self.background is None and self.calibration.background_file is not None:
            self.background = BoardBackground.load(
                self.calibration.background_file, self._half_shape, s / 2
            )
        if self.background is not None and self.background.shape != self._half_shape:
            raise CalibrationError(
                self.calibration.source,
                "background",
                "the learned board was measured at another scale",
            )
        # The last frame read: its normalised board and what the cloud hid.
        self._last: tuple[Normalised, list[tuple[float, float, float]]] | None = None

    def reset(self) -> None:
        """Forget the pose, the light and the cloud (after the camera was moved)."""
        self.tracker.reset()
        self.normaliser.forget()
        self._cloud_px = None
        self._cloud = None
        self._cloud_patch = None

    def _cloud_window(self, corners: Matrix, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The image window (x0, y0, x1, y1) of the cloud marker with corners `corners`."""
        x0, y0 = corners.min(axis=0)
        x1, y1 = corners.max(axis=0)
        h, w = shape[:2]
        pad = CLOUD_WINDOW_PAD_PX
        return (
            max(int(x0) - pad, 0),
            max(int(y0) - pad, 0),
            min(int(x1) + pad + 1, w),
            min(int(y1) + pad + 1, h),
        )

    def _remember_cloud(self, gray: Image, corners: Matrix) -> None:
        xa, ya, xb, yb = box = self._cloud_window(corners, gray.shape)
        self._cloud_patch = (box, np.ascontiguousarray(gray[ya:yb, xa:xb]))

    def _cloud_unmoved(self, gray: Image) -> bool:
        """True if the cloud marker's window looks as when the marker was last found
        (normalised cross-correlation): the cloud has not moved or turned, nothing covers
        its marker."""
        if self._cloud_patch is None:
            return False
        (xa, ya, xb, yb), patch = self._cloud_patch
        now = np.ascontiguousarray(gray[ya:yb, xa:xb])
        if now.shape != patch.shape or min(now.shape) < 8:
            return False
        score = float(cv2.matchTemplate(now, patch, cv2.TM_CCOEFF_NORMED)[0, 0])
        return score >= CLOUD_STILL_CORRELATION

    def _still_there(self, norm: Normalised, zone: list[tuple[float, float, float]]) -> bool:
        """True if most of the sea under the cloud's last footprint does not look like sea."""
        x, y, r = zone[0]
        s = self.layout.px_per_mm / 2
        mask = np.zeros(self.occlusion.sea.shape, np.uint8)
        cv2.circle(mask, (round(x * s), round(y * s)), round(r * 0.8 * s), 1, -1)
        under = (mask > 0) & self.occlusion.sea
        if under.sum() < 20:
            return False
        lab = to_lab(norm.half[under])
        far = np.array(
            [lab_distance(norm.sea_lab, (float(p[0]), float(p[1]), float(p[2]))) for p in lab[::4]]
        )
        return float((far > self.settings.occlusion.distance).mean()) > 0.5

    # ------------------------------------------------------------------ steps

    def rectify(self, frame: Image, pose: BoardPose) -> Rectified:
        m = pose.board_to_image @ np.linalg.inv(self._rect_from_board)
        rect = np.asarray(
            cv2.warpPerspective(
                frame,
                m,
                (self.layout.width_px, self.layout.height_px),
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE,
            ),
            np.uint8,
        )
        # The light fitted on an earlier frame is kept only through a steady camera.
        return Rectified(pose, rect, self.normaliser.normalise(rect, pose.source == "steady"))

    def _board_box(self, pose: BoardPose, w: int, h: int) -> tuple[int, int, int, int]:
        """The image box (even-sized) around the board and a cloud's width beyond it."""
        b = self.board
        pad = b.cloud.footprint_radius_mm
        corners = pose.to_image(
            np.array(
                [
                    [-pad, -pad],
                    [b.width_mm + pad, -pad],
                    [b.width_mm + pad, b.height_mm + pad],
                    [-pad, b.height_mm + pad],
                ]
            )
        )
        x0, y0 = np.floor(corners.min(axis=0)).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
        xa, ya = max(int(x0), 0), max(int(y0), 0)
        xb, yb = min(int(x1), w), min(int(y1), h)
        if xb - xa < 16 or yb - ya < 16:
            return 0, 0, w - w % 2, h - h % 2
        return xa, ya, xb - (xb - xa) % 2, yb - (yb - ya) % 2

    def _cloud_kept(self, gray: Image, pose: BoardPose) -> Matrix | None:
        """The cloud marker's corners of the last frame if the camera and the cloud are
        both still (its window looks as it did), else None: the marker is searched for."""
        if pose.source == "steady" and self._cloud_px is not None and self._cloud_unmoved(gray):
            return self._cloud_px
        return None

    def _search_cloud(self, gray: Image, pose: BoardPose) -> Future[Matrix | None]:
        """The cloud marker's search (`_find_cloud`), started on the search thread; made in
        line if no thread can start (the interpreter is shutting down)."""
        try:
            return _cloud_search().submit(self._find_cloud, gray, pose)
        except RuntimeError:
            done: Future[Matrix | None] = Future()
            done.set_result(self._find_cloud(gray, pose))
            return done

    def _find_cloud(self, gray: Image, pose: BoardPose) -> Matrix | None:
        cloud_id = self.board.markers.cloud_id
        self._cloud_patch = None  # remembered again where the marker is found
        if pose.source in ("detected",) and cloud_id in self.tracker.last_detections:
            return self.tracker.last_detections[cloud_id]
        if self._cloud_px is not None:
            x0, y0 = self._cloud_px.min(axis=0)
            x1, y1 = self._cloud_px.max(axis=0)
            pad = 0.8 * max(x1 - x0, y1 - y0) + 8
            h, w = gray.shape[:2]
            xa, ya = max(int(x0 - pad), 0), max(int(y0 - pad), 0)
            xb, yb = min(int(x1 + pad) + 1, w), min(int(y1 + pad) + 1, h)
            if xb - xa > 12 and yb - ya > 12:
                hits = detect_markers(
                    self._cloud_near, np.ascontiguousarray(gray[ya:yb, xa:xb]), (xa, ya)
                )
                if cloud_id in hits:
                    return _refined(gray, hits[cloud_id])
        if pose.source == "detected":
            return None
        # The cloud moved: look for it over the board only (the cloud stands on it), at
        # half resolution (a quarter of the work), then refine its corners at full
        # resolution; the full frame as a last resort.
        h, w = gray.shape[:2]
        xa, ya, xb, yb = self._board_box(pose, w, h)
        small = np.asarray(
            cv2.resize(
                gray[ya:yb, xa:xb], ((xb - xa) // 2, (yb - ya) // 2), interpolation=cv2.INTER_AREA
            ),
            np.uint8,
        )
        for detector in self._cloud_detectors:
            hits = detect_markers(detector, small)
            if cloud_id in hits:
                break
        if cloud_id in hits:
            return _refined(gray, hits[cloud_id] * 2.0 + 0.5 + np.array([xa, ya]))
        hits = detect_markers(self.tracker.detector, gray)
        return hits.get(cloud_id)

    # ------------------------------------------------------------------ reading

    def read(self, frame: Image, timestamp_s: float = 0.0) -> FrameReading:
        """Everything this frame shows. Raises VisionError only for a frame that is not
        an image; a frame without the board is a reading with `board_found` False."""
        if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
            raise VisionError("the frame is not an image")
        if frame.ndim == 2:
            frame = np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), np.uint8)
        elif frame.shape[2] == 4:
            frame = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR), np.uint8)
        frame = np.asarray(frame, np.uint8)
        gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
        pose = self.tracker.update(gray)
        if pose is None:
            self._cloud_px = None
            seen = tuple(
                sorted(i for i in self.tracker.last_detections if i in self.tracker.corners_mm)
            )
            return FrameReading(
                False,
                markers_seen=seen,
                timestamp_s=timestamp_s,
                error=f"board not found: {len(seen)} of {len(self.tracker.corners_mm)} corner "
                "markers seen",
            )
        if pose.source == "detected":
            self.occlusion.forget()
        self.occlusion.learn = pose.source != "detected"
        corners = self._cloud_kept(gray, pose)
        search = None if corners is not None else self._search_cloud(gray, pose)
        try:
            rect = self.rectify(frame, pose)
        except BaseException:
            if search is not None:
                wait([search])  # the reader's state is the search's until it is done
            raise
        if search is not None:
            corners = search.result()
        norm = rect.norm

        cloud: CloudReading | None = None
        blocked: list[tuple[float, float, float]] = []
        if corners is not None:
            if self._cloud_patch is None:
                self._remember_cloud(gray, corners)
            self._cloud_px = corners
            cloud = cloud_from_corners(self.board, pose, corners)
            blocked = hidden_zone(self.board, pose, cloud, corners)
            self._cloud = (cloud, blocked)
        elif self._cloud is not None and self._still_there(norm, self._cloud[1]):
            # The marker is unreadable (glare, a finger) but the cloud's body is where it
            # was: keep its pose (confidence 0) so that what it hides stays hidden.
            cloud = replace(self._cloud[0], confidence=0.0)
            blocked = self._cloud[1]
        else:
            self._cloud_px = None
            self._cloud = None

        xy = self.layout.place_xy
        hidden = np.zeros(len(xy), bool)
        for x, y, r in blocked:
            hidden |= np.hypot(xy[:, 0] - x, xy[:, 1] - y) <= r
        hidden_spaces = frozenset(self.layout.places[i].space for i in np.nonzero(hidden)[0])
        rim = None
        if cloud is not None:
            # path spaces hidden to the model, yet not blocked by the rules: where a move
            # may land
            blocked_ids = blocked_spaces(self.board, CloudPose(cloud.col, cloud.row))
            free = np.array([p.space not in blocked_ids for p in self.layout.places], bool)
            rim = hidden & free & self._path

        board = self.compare(norm, blocked)
        self._last = (norm, blocked)
        # The places' colours are read under the light the board was learned under (the
        # ships' colours were measured under it): a changed light is divided out there. The
        # search for ships off their places and for hands compares the frame with the
        # learned look relit as the light is now.
        at_places, places_board = norm, board
        if board is not None and board.light_changed:
            at_places = self.normaliser.relit(norm, board.light_field())
            places_board = self.compare(at_places, blocked, board)
        hits = self.ships.sample_places(rect.rect, at_places, hidden, places_board)
        taken = [(h.x_mm, h.y_mm) for h in hits]
        codes = self.ships.classifier.codes(norm.half, norm.sea_lab, norm.land_lab)
        labels = self.ships.half_labels(norm, codes, board)
        blobs = self.ships.search(
            labels, taken, blocked, None if board is None else self._searchable(board, blocked)
        )
        ships = self.ships.readings(hits, blobs)
        occluded = self.occlusion.occluded(
            norm.half, codes, norm.sea_lab, blocked + self._ignore, board
        )
        if board is not None and not occluded and not board.background.known.all():
            self._reveal(norm, blocked)
        place_labels = labels
        if at_places is not norm:
            # the evidence's colours (fill, reach, areas) all read under the learned light
            place_codes = self.ships.classifier.codes(
                at_places.half, at_places.sea_lab, at_places.land_lab
            )
            place_labels = self.ships.half_labels(at_places, place_codes, places_board)
        evidence = measure(
            self.ships, rect.rect, at_places, blocked, place_labels, self.counter, rim, places_board
        )
        return FrameReading(
            True,
            occluded=occluded,
            ships=tuple(ships),
            cloud=cloud,
            hidden_spaces=hidden_spaces,
            markers_seen=pose.markers,
            pose_error_px=pose.error_px,
            pose_source=pose.source,
            timestamp_s=timestamp_s,
            evidence=evidence,
        )

    def compare(
        self,
        norm: Normalised,
        blocked: list[tuple[float, float, float]],
        relit_from: BackgroundComparison | None = None,
    ) -> BackgroundComparison | None:
        """This frame against the learned board (None before the board was learned)."""
        if self.background is None:
            return None
        usable = np.ones(self._half_shape, np.uint8)
        s = self.layout.px_per_mm / 2
        for x, y, r in blocked:
            cv2.circle(usable, (round(x * s), round(y * s)), round(r * s), 0, -1)
        return BackgroundComparison(
            self.background,
            norm.half,
            usable > 0,
            norm.clipped,
            norm.ceiling if norm.clipped is not None and norm.clipped.any() else None,
            None if relit_from is None else relit_from.light_change,
        )

    def _searchable(
        self, board: BackgroundComparison, blocked: list[tuple[float, float, float]]
    ) -> npt.NDArray[np.bool_]:
        """Where to search for ships off their places with the learned board: all of it
        (land too: its colours are known), and where it was never seen the board file's
        sea, except next to the cloud (what it just uncovered is learned first)."""
        known = board.background.known
        band = np.zeros(self._half_shape, np.uint8)
        s = self.layout.px_per_mm / 2
        for x, y, r in blocked:
            cv2.circle(band, (round(x * s), round(y * s)), round((r + UNCOVERED_MM) * s), 1, -1)
        fallback = self.ships.search_allowed & ~known & (band == 0)
        out: npt.NDArray[np.bool_] = (known & ~self.ships.marker_half) | fallback
        return out

    def _reveal(self, norm: Normalised, blocked: list[tuple[float, float, float]]) -> None:
        """Learn the parts of the board never seen before, away from the cloud and the
        corner markers. Whatever they show when the cloud first uncovers them is the
        board's own printing, ship-coloured or not: nothing can enter a place while the
        cloud covers it, and nothing stood there when the board was learned."""
        assert self.background is not None
        clear = np.ones(self._half_shape, np.uint8)
        s = self.layout.px_per_mm / 2
        for x, y, r in blocked:
            cv2.circle(clear, (round(x * s), round(y * s)), round(r * s + 4), 0, -1)
        self.background.reveal(norm.half, (clear > 0) & ~self.ships.marker_half)

    # ------------------------------------------------------------------ learning the board

    def learn_background(
        self,
        frames: Image | Sequence[Image] | None = None,
        known_ship_places: Iterable[tuple[str, int | None]] | None = None,
    ) -> BoardBackground:
        """Learn the empty board's look from frames whose ships are all at known places.

        Call it when the board holds only known ships (at calibration, and at
        every game start: the start layout). `known_ship_places` are (space,
        berth) pairs (berth None: every berth of a port, or a path space); by
        default the start layout. Without frames, the last frame read is used.
        What the cloud hides stays as an earlier learning knew it. Raises
        CalibrationError when no frame shows the board.
        """
        places = list(start_layout(self.board) if known_ship_places is None else known_ship_places)
        ships_mm: list[tuple[float, float]] = []
        for space, berth in places:
            if berth is None and space in self.board.ports:
                ships_mm.extend(self.board.ports[space].berths)
            else:
                place = self.layout.places[self.layout.place_index(space, berth)]
                ships_mm.append((place.x_mm, place.y_mm))
        learner = BackgroundLearner(self._half_shape, self.layout.px_per_mm / 2)
        seen: list[tuple[Normalised, list[tuple[float, float, float]]]] = []
        if frames is None:
            if self._last is not None:
                seen.append(self._last)
        else:
            for frame in [frames] if isinstance(frames, np.ndarray) else list(frames):
                rectified, blocked = self._settle(frame)
                if rectified is not None:
                    seen.append((rectified.norm, blocked))
        if not seen:
            raise CalibrationError(None, None, "learning the board: the board is not in view")
        for norm, blocked in seen:
            clipped = norm.clipped if norm.clipped_channels is None else norm.clipped_channels
            learner.add(norm.half, learner.mask_for(ships_mm, blocked), clipped)
        self.background = learner.result(self.background, self._paint_regions())
        return self.background

    def _paint_regions(self) -> npt.NDArray[np.int32]:
        """Each port's painted area at half resolution, away from its printed border."""
        half = (self._half_shape[1], self._half_shape[0])
        box = cv2.resize(
            self.layout.port_box.astype(np.uint8), half, interpolation=cv2.INTER_NEAREST
        )
        box = cv2.erode(box, RIM)
        _, labels = cv2.connectedComponents(box, connectivity=8)
        return np.asarray(labels, np.int32)

    def _settle(self, frame: Image) -> tuple[Rectified | None, list[tuple[float, float, float]]]:
        """The rectified frame and what the cloud hides in it (None: no board in view)."""
        gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
        pose = self.tracker.update(gray)
        if pose is None:
            return None, []
        blocked: list[tuple[float, float, float]] = []
        corners = detect_markers(self.tracker.detector, gray).get(self.board.markers.cloud_id)
        if corners is not None:
            cloud = cloud_from_corners(self.board, pose, corners)
            blocked = hidden_zone(self.board, pose, cloud, corners)
        return self.rectify(frame, pose), blocked

    # ------------------------------------------------------------------ calibration

    def calibrate(
        self,
        frames: Image | Sequence[Image],
        layout: dict[tuple[str, int | None], str] | None = None,
    ) -> ColorCalibration:
        """Colour profiles and the empty board's look, from frames of ships at known places.

        `layout` maps (space, berth) to a colour; by default the start layout
        (`start_layout`). Several frames (the cloud moved between them) let the
        whole board be learned. Raises CalibrationError when the board is not
        found or two colours come out too close to tell apart.
        """
        layout = layout or start_layout(self.board)
        self.tracker.reset()
        self.normaliser.forget()
        shots: list[Rectified] = []
        for frame in [frames] if isinstance(frames, np.ndarray) else list(frames):
            rectified, blocked = self._settle(frame)
            if rectified is None:
                raise CalibrationError(None, None, "calibration frame: the board is not in view")
            shots.append(rectified)
            self._last = (rectified.norm, blocked)
            self.learn_background(None, layout)
        if not shots:
            raise CalibrationError(None, None, "calibration needs at least one frame")
        dy, dx = self.layout.disk_offsets(4.0)
        s = self.layout.px_per_mm
        profiles: list[ColorProfile] = []
        for name in self.board.ship_colors:
            samples = []
            for (space, berth), color in layout.items():
                if color != name:
                    continue
                place = self.layout.places[self.layout.place_index(space, berth)]
                rows = np.clip(round(place.y_mm * s) + dy, 0, self.layout.height_px - 1)
                cols = np.clip(round(place.x_mm * s) + dx, 0, self.layout.width_px - 1)
                for shot in shots:
                    samples.append(to_lab(shot.norm.pixels(shot.rect, rows, cols)))
            if not samples:
                profiles.append(self.calibration.profile(name))
                continue
            pix = np.concatenate(samples)
            centre = np.median(pix, axis=0)
            spread = np.median(np.abs(pix - centre), axis=0) * 1.4826
            tol = float(np.clip(3.0 * math.hypot(spread[1], spread[2]) + 16.0, 18.0, 40.0))
            # A dull colour lies near the greys of ink and shadow: keep it tight.
            tol = min(tol, max(18.0, 0.8 * math.hypot(centre[1], centre[2]) + 8.0))
            profiles.append(
                ColorProfile(
                    name, (float(centre[0]), float(centre[1]), float(centre[2])), round(tol, 1)
                )
            )
        sea_lab = shots[0].norm.sea_lab
        for i, p in enumerate(profiles):
            # Against the frame's own sea, lightness counts in full (as in reading).
            if math.dist(p.lab, sea_lab) < 15.0:
                raise CalibrationError(
                    None,
                    f"colors.{p.name}",
                    "measured too close to the sea's colour: check the ships' start places "
                    "and the lighting",
                )
            for q in profiles[i + 1 :]:
                if lab_distance(p.lab, q.lab) < 20.0:
                    raise CalibrationError(
                        None,
                        f"colors.{p.name}",
                        f"measured too close to {q.name}: check the ships' start places",
                    )
        # The board's own printing is in the learned look now: no ignore circles are added
        # (they would hide ships, and the cloud's footprint is no printing at all).
        measured = ColorCalibration(
            tuple(profiles),
            tuple(self.calibration.ignore),
            "<calibrated>",
            background=self.background,
        )
        notes = dict.fromkeys(n for shot in shots for n in light_problems(shot.norm))
        return replace(
            measured,
            token_area_mm2=self._token_area(measured, shots, layout),
            light_notes=tuple(notes),
        )

    def _token_area(
        self,
        calibration: ColorCalibration,
        shots: Sequence[Rectified],
        layout: dict[tuple[str, int | None], str],
    ) -> float | None:
        """One token's area (mm²) in calibration frames: the median over the layout's
        ships of their colour's area on their place (`vision.counts`)."""
        finder = ShipFinder(
            self.layout, calibration, self.settings.ships, self.settings.occlusion.distance
        )
        counter = TokenCounter(self.layout, len(calibration.names))
        found: list[float] = []
        for shot in shots:
            norm = shot.norm
            codes = finder.classifier.codes(norm.half, norm.sea_lab, norm.land_lab)
            board = self.compare(norm, [])
            areas = counter.areas(finder.half_labels(norm, codes, board))
            for (space, berth), color in layout.items():
                i = self.layout.place_index(space, berth)
                found.append(float(areas[i, calibration.names.index(color)]))
        seen = [a for a in found if a >= MIN_TOKEN_MM2]
        if len(seen) < max(3, len(found) // 2):
            return None
        return round(float(np.median(seen)), 1)


def start_layout(board: Board) -> dict[tuple[str, int | None], str]:
    """The calibration layout: in every product port, berth i holds a ship of colour i.

    This is the game's start (one ship of each colour in each product port),
    with the ships put in the berths in the order of the board's ship colours.
    """
    out: dict[tuple[str, int | None], str] = {}
    for port in board.ports.values():
        if port.product == "home":
            continue
        for i, color in enumerate(board.ship_colors[: len(port.berths)]):
            out[(port.id, i)] = color
    return out


def read_image(
    board: Board, image: Image, calibration: ColorCalibration | None = None
) -> FrameReading:
    """Read one image with no history (a fresh reader)."""
    return BoardReader(board, calibration).read(image)


def _refined(gray: Image, corners: Matrix) -> Matrix:
    """A marker's 4 corners (pixels) refined in the grey frame (to 0.05 px, at most 20
    steps)."""
    start = np.asarray(corners, np.float32).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
    refined = cv2.cornerSubPix(gray, start, (4, 4), (-1, -1), criteria)
    return np.asarray(refined, np.float64).reshape(4, 2)
