"""`calibrate`: the rig measures itself through the camera, which sees the cloud's marker.

- **gantry**: the cloud is driven to dots across the board; where the camera
  sees its marker, against the motor steps, gives each axis's steps per
  millimetre and board offset and the gantry's skew (least squares).
- **rotation**: the cloud turns once round through every letter; the marker's
  heading against the rotation's half steps gives the half steps per cloud
  turn and where letter A lies (the mounting offset); the owner confirms the
  letter at the notch after the turn.
- **camera**: auto exposure and white balance settle on the board, then are
  locked at the values they settled on.

Each returns the measured values and the configuration keys to write.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from bermuda_hw.errors import CameraError, HardwareError
from bermuda_hw.geometry import (
    LETTERS,
    deg_to_steps,
    mean_heading_deg,
    signed_deg,
    steps_to_deg,
    wrap_deg,
)
from bermuda_hw.rules.board import Board
from bermuda_hw.vision.pose import detect_markers
from bermuda_hw.vision.reader import BoardReader

if TYPE_CHECKING:
    from bermuda_hw.backends.camera import CameraSource
    from bermuda_hw.config import Config
    from bermuda_hw.motion.mover import CloudMover
    from bermuda_hw.rigcheck.configfile import Value
    from bermuda_hw.rigcheck.owner import Owner

FRAMES_PER_POINT = 4
# dots the gantry visits: a 4 x 4 lattice of inside dots (every dot of the classic board's
# inner 7 x 7 is reachable), so that both axes' scales and the skew are well conditioned
GANTRY_DOTS = tuple((c, r) for r in (1, 3, 5, 7) for c in (1, 3, 5, 7))
ROTATION_POINTS = 16  # marker headings read over the full turn


class CalibrationFailed(HardwareError):
    """The rig could not be measured (the marker not seen, a fit that does not hold)."""


@dataclass(frozen=True)
class CloudSighting:
    """The cloud's marker as the camera sees it, averaged over a few frames."""

    x_mm: float
    y_mm: float
    heading_deg: float
    letter: int


def _locater_by_geometry(
    reader: BoardReader, gray: Any, camera_height_mm: float
) -> tuple[float, float] | None:
    """The point under the cloud's marker from the camera's measured height, not the marker's size.

    A pinhole camera sees a point h above the board where its ray meets the
    board: N + (p - N) H / (H - h), N being the point under the lens and H
    its height. With H measured (a tape measure: 5 mm off is 0.03 %) and h
    from the board file, this is exact, where the marker's apparent size
    (what a single frame has) is biased by a fraction of a pixel at its edges.
    """
    board = reader.board
    pose = reader.tracker.pose
    height = board.markers.cloud_height_mm
    if pose is None or height <= 0 or camera_height_mm <= height:
        return None
    found = detect_markers(reader.tracker.detector, gray)
    corners = found.get(board.markers.cloud_id)
    if corners is None:
        return None
    apparent = pose.to_board(corners).mean(axis=0)
    nx, ny = pose.camera_nadir_mm()
    factor = (camera_height_mm - height) / camera_height_mm
    return (nx + (float(apparent[0]) - nx) * factor, ny + (float(apparent[1]) - ny) * factor)


def sight_cloud(
    camera: CameraSource,
    reader: BoardReader,
    frames: int = FRAMES_PER_POINT,
    camera_height_mm: float = 0.0,
) -> CloudSighting:
    """Average the cloud's marker over several frames (the heading as a circular mean).

    With the camera's height above the board known (`[camera] height_mm`) and
    the marker's (`[markers.cloud] height_mm`), the position comes from that
    geometry; otherwise from vision's reading.
    """
    xs: list[float] = []
    ys: list[float] = []
    sighted: list[float] = []
    letter = 0
    for _ in range(frames):
        try:
            frame = camera.read()
        except CameraError as exc:
            raise CalibrationFailed(f"camera: {exc}") from exc
        reading = reader.read(frame.image, frame.timestamp_s)
        cloud = reading.cloud
        if cloud is None or cloud.confidence <= 0.0:
            continue
        x_mm, y_mm = cloud.x_mm, cloud.y_mm
        if camera_height_mm > 0:
            gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            located = _locater_by_geometry(reader, gray, camera_height_mm)
            if located is None:
                continue
            x_mm, y_mm = located
        xs.append(x_mm)
        ys.append(y_mm)
        sighted.append(cloud.heading_deg)
        letter = cloud.letter
    if not xs:
        raise CalibrationFailed(
            f"the cloud's marker was not seen in {frames} frames: uncover it and check the light"
        )
    return CloudSighting(float(np.mean(xs)), float(np.mean(ys)), mean_heading_deg(sighted), letter)


@dataclass(frozen=True)
class GantryFit:
    """What `calibrate gantry` measured."""

    steps_per_mm: tuple[float, float]
    board_offset_mm: tuple[float, float]
    skew_deg: float
    rms_mm: float  # how far the sightings lie from the fitted model
    worst_mm: float
    points: int

    def changes(self) -> dict[str, dict[str, Value]]:
        return {
            "gantry": {"skew_deg": round(self.skew_deg, 4)},
            "gantry.x": {
                "steps_per_mm": round(self.steps_per_mm[0], 5),
                "board_offset_mm": round(self.board_offset_mm[0], 3),
            },
            "gantry.y": {
                "steps_per_mm": round(self.steps_per_mm[1], 5),
                "board_offset_mm": round(self.board_offset_mm[1], 3),
            },
        }


def fit_gantry(steps: list[tuple[int, int]], seen_mm: list[tuple[float, float]]) -> GantryFit:
    """Least squares: y = oy + sy / ky; x = ox + sx / kx + tan(skew) * sy / ky."""
    s = np.asarray(steps, np.float64)
    p = np.asarray(seen_mm, np.float64)
    if len(s) < 4 or np.ptp(s[:, 0]) == 0 or np.ptp(s[:, 1]) == 0:
        raise CalibrationFailed("need sightings spread over both axes")
    ay = np.column_stack([np.ones(len(s)), s[:, 1]])
    (oy, cy), *_ = np.linalg.lstsq(ay, p[:, 1], rcond=None)
    ax = np.column_stack([np.ones(len(s)), s[:, 0], s[:, 1]])
    (ox, cx, bx), *_ = np.linalg.lstsq(ax, p[:, 0], rcond=None)
    ky, kx = 1.0 / cy, 1.0 / cx
    skew = math.degrees(math.atan(bx * ky))
    model = np.column_stack([ax @ np.array([ox, cx, bx]), ay @ np.array([oy, cy])])
    errors = np.hypot(*(model - p).T)
    return GantryFit(
        (float(kx), float(ky)),
        (float(ox), float(oy)),
        skew,
        float(np.sqrt(np.mean(errors**2))),
        float(errors.max()),
        len(s),
    )


def calibrate_gantry(
    mover: CloudMover,
    camera: CameraSource,
    board: Board,
    dots: tuple[tuple[int, int], ...] = GANTRY_DOTS,
    camera_height_mm: float = 0.0,
) -> GantryFit:
    """Home, visit the dots, sight the marker at each, and fit the gantry's mechanics.

    `camera_height_mm`: the lens above the board, measured; 0 uses vision's
    own height correction (about 0.4 % less accurate).
    """
    reader = BoardReader(board)
    mover.home()
    steps: list[tuple[int, int]] = []
    seen: list[tuple[float, float]] = []
    for col, row in dots:
        mover.goto_dot(col, row)
        sighting = sight_cloud(camera, reader, camera_height_mm=camera_height_mm)
        steps.append(mover.position_steps)
        seen.append((sighting.x_mm, sighting.y_mm))
    fit = fit_gantry(steps, seen)
    pitch = board.grid.pitch_mm
    if fit.worst_mm > pitch / 4:
        raise CalibrationFailed(
            f"the sightings stray {fit.worst_mm:.1f} mm from any straight gantry: the motors "
            "lose steps (lower max_speed_mm_s) or the cloud slips on its magnet"
        )
    return fit


@dataclass(frozen=True)
class RotationFit:
    """What `calibrate rotation` measured."""

    half_steps_per_cloud_rev: float
    zero_offset_steps: int
    letter_offset_deg: float  # how far the cloud had to turn clockwise from the start to show A
    rms_deg: float
    owner_letter: str | None = None  # the letter the owner saw at the notch after the turn
    expected_letter: str = "A"
    gear_ratio: float = 1.0

    @property
    def confirmed(self) -> bool:
        return self.owner_letter is None or self.owner_letter == self.expected_letter

    def changes(self) -> dict[str, dict[str, Value]]:
        return {
            "rotation.stepper": {
                "half_steps_per_rev": round(self.half_steps_per_cloud_rev / self.gear_ratio, 3),
                "zero_offset_steps": self.zero_offset_steps,
            }
        }


def fit_rotation(positions: list[int], headings_deg: list[float]) -> tuple[float, float, float]:
    """Half steps per turn, the heading at position 0, and the rms residual (degrees).

    Headings are unwrapped along the growing positions (the cloud turns one
    way, less than half a turn between readings).
    """
    p = np.asarray(positions, np.float64)
    h = np.unwrap(np.radians(np.asarray(headings_deg, np.float64)))
    slope, intercept = np.polyfit(p, np.degrees(h), 1)
    residual = np.degrees(h) - (slope * p + intercept)
    if slope <= 0:
        raise CalibrationFailed(
            "the marker turned counterclockwise: set [rotation.stepper] invert = true"
        )
    return (
        steps_to_deg(1.0, float(slope)),
        wrap_deg(float(intercept)),
        float(np.sqrt(np.mean(residual**2))),
    )


def calibrate_rotation(
    mover: CloudMover,
    camera: CameraSource,
    board: Board,
    config: Config,
    owner: Owner,
) -> RotationFit:
    """One full turn of the cloud at the centre dot, sighted step by step; then ask the owner."""
    rotation: Any = mover.rotation
    if rotation.kind != "stepper":
        raise CalibrationFailed("calibrate rotation measures the stepper rotation only")
    stepper = config.rotation.stepper
    reader = BoardReader(board)
    if not mover.homed:
        mover.home()
    mover.goto_dot(*board.grid.centre)
    believed_rev = stepper.half_steps_per_cloud_rev
    positions: list[int] = []
    headings: list[float] = []
    start = rotation.position_steps
    for k in range(ROTATION_POINTS + 1):
        target = start + round(k * believed_rev / ROTATION_POINTS)
        if target > rotation.position_steps:
            mover.turn_half_steps(target - rotation.position_steps)
        positions.append(rotation.position_steps)
        headings.append(sight_cloud(camera, reader).heading_deg)
    rev, heading_at_zero, rms = fit_rotation(positions, headings)
    # letter A exactly: the heading is 0 at the position that turns -heading_at_zero (mod rev)
    zero = round(deg_to_steps(-heading_at_zero, rev) % rev)
    offset = signed_deg(-heading_at_zero)
    expected = LETTERS[board.cloud.letter_at(headings[-1])]
    answer = owner.choose("letter", "which letter is at the cloud's notch now?", LETTERS)
    return RotationFit(rev, zero, offset, rms, answer, expected, stepper.gear_ratio)
