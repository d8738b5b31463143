"""The camera above the table: pinhole geometry, lens distortion and lighting."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.geometry import heading_vector
from bermuda_hw.rules.board import Board, Point
from bermuda_hw.sim.render.draw import TABLE_MARGIN_MM, TEXTURE_PX_PER_MM, Cache

_REMAPS = Cache(16)
_LIGHTS = Cache(16)


@dataclass(frozen=True)
class CameraModel:
    """A pinhole camera above the board, with its lens, light and sensor.

    Position is in board mm (`height_mm` above the board's surface); it looks
    at the target point and is rolled about its axis. `barrel` bends straight
    lines (0: none; 0.05: a typical wide lens). Lighting: `gradient` is the
    relative brightness change across the board along `gradient_deg`,
    `vignette` the darkening at the image corners, `shadows` soft dark
    patches (x_mm, y_mm, radius_mm, depth 0-1), `tint` per-channel gains (BGR).
    `tint_gradient` colours the light unevenly: per-channel gain change (BGR)
    across the board along `gradient_deg` (a warm lamp on one side, daylight on
    the other), which no single white balance removes.
    """

    width_px: int = 1280
    height_px: int = 960
    x_mm: float = 254.0
    y_mm: float = 254.0
    height_mm: float = 760.0
    target_x_mm: float = 254.0
    target_y_mm: float = 254.0
    roll_deg: float = 0.0
    focal_px: float = 1150.0
    barrel: float = 0.0
    exposure: float = 1.0
    gradient: float = 0.0
    gradient_deg: float = 0.0
    vignette: float = 0.1
    shadows: tuple[tuple[float, float, float, float], ...] = ()
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    tint_gradient: tuple[float, float, float] = (0.0, 0.0, 0.0)
    blur_px: float = 0.6
    noise: float = 2.0
    jpeg_quality: int = 92

    @classmethod
    def random(
        cls, rng: random.Random, board: Board, strength: float = 1.0, **fixed: Any
    ) -> CameraModel:
        """A camera placed and lit at random, `strength` scaling every perturbation."""
        s = strength
        cx, cy = board.width_mm / 2, board.height_mm / 2
        height = rng.uniform(650.0, 900.0)
        shadows = tuple(
            (
                rng.uniform(0, board.width_mm),
                rng.uniform(0, board.height_mm),
                rng.uniform(60.0, 180.0),
                rng.uniform(0.1, 0.4) * s,
            )
            for _ in range(rng.randint(0, 3))
        )
        values: dict[str, Any] = {
            "x_mm": cx + rng.uniform(-110, 110) * s,
            "y_mm": cy + rng.uniform(-110, 110) * s,
            "height_mm": height,
            "target_x_mm": cx + rng.uniform(-20, 20) * s,
            "target_y_mm": cy + rng.uniform(-20, 20) * s,
            "roll_deg": rng.uniform(-8, 8) * s,
            "focal_px": height * rng.uniform(1.2, 1.45) * (960 / 760) * 0.8,
            "barrel": rng.uniform(0.0, 0.06) * s,
            "exposure": rng.uniform(0.8, 1.15),
            "gradient": rng.uniform(0.0, 0.6) * s,
            "gradient_deg": rng.uniform(0, 360),
            "vignette": rng.uniform(0.0, 0.35) * s,
            "shadows": shadows,
            "tint": (
                1.0 + rng.uniform(-0.12, 0.12) * s,
                1.0,
                1.0 + rng.uniform(-0.12, 0.12) * s,
            ),
            "blur_px": rng.uniform(0.3, 1.6) * s,
            "noise": rng.uniform(1.0, 6.0) * s,
            "jpeg_quality": rng.randint(55, 95),
        }
        values.update(fixed)
        return cls(**values)

    def rotation(self) -> npt.NDArray[np.float64]:
        """World-to-camera rotation (rows: camera x right, y down, z forward)."""
        centre = np.array([self.x_mm, self.y_mm, -self.height_mm])
        forward = np.array([self.target_x_mm, self.target_y_mm, 0.0]) - centre
        forward /= np.linalg.norm(forward)
        south = np.array([0.0, 1.0, 0.0])
        down = south - forward * float(south @ forward)
        down /= np.linalg.norm(down)
        right = np.cross(down, forward)
        roll = math.radians(self.roll_deg)
        r_cam = np.stack([right, down, forward])
        c, s = math.cos(roll), math.sin(roll)
        rolled: npt.NDArray[np.float64] = np.asarray(
            np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ r_cam, np.float64
        )
        return rolled

    def plane_homography(self) -> npt.NDArray[np.float64]:
        """Board plane (x_mm, y_mm, 1) to undistorted normalised image coordinates."""
        rot = self.rotation()
        centre = np.array([self.x_mm, self.y_mm, -self.height_mm])
        t = -rot @ centre
        return np.column_stack([rot[:, 0], rot[:, 1], t])

    def project(self, x_mm: float, y_mm: float, z_mm: float = 0.0) -> Point:
        """The pixel where a board point appears (z_mm < 0 is above the board)."""
        rot = self.rotation()
        centre = np.array([self.x_mm, self.y_mm, -self.height_mm])
        p = rot @ (np.array([x_mm, y_mm, z_mm]) - centre)
        xu, yu = p[0] / p[2], p[1] / p[2]
        xd, yd = distort(xu, yu, self.barrel)
        return (
            self.focal_px * xd + self.width_px / 2,
            self.focal_px * yd + self.height_px / 2,
        )

    def parallax(self, x_mm: float, y_mm: float, z_above_mm: float) -> tuple[Point, float]:
        """Where on the board plane a point raised by z appears, and the scale there."""
        scale = self.height_mm / (self.height_mm - z_above_mm)
        return (
            (self.x_mm + (x_mm - self.x_mm) * scale, self.y_mm + (y_mm - self.y_mm) * scale),
            scale,
        )


def distort(xu: float, yu: float, barrel: float) -> Point:
    """Invert the render model xu = xd (1 + barrel r_d^2) by fixed-point iteration."""
    xd, yd = xu, yu
    for _ in range(20):
        factor = 1.0 + barrel * (xd * xd + yd * yd)
        xd, yd = xu / factor, yu / factor
    return (xd, yd)


def _geometry_key(camera: CameraModel) -> tuple[float, ...]:
    return (
        camera.width_px,
        camera.height_px,
        camera.x_mm,
        camera.y_mm,
        camera.height_mm,
        camera.target_x_mm,
        camera.target_y_mm,
        camera.roll_deg,
        camera.focal_px,
        camera.barrel,
    )


def remap_tables(
    board: Board, camera: CameraModel
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """For each output pixel, where to read the texture (perspective and distortion)."""
    out: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] = _REMAPS.get(
        board, _geometry_key(camera), lambda: _make_remap(camera)
    )
    return out


def _make_remap(camera: CameraModel) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    w, h = camera.width_px, camera.height_px
    us, vs = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    xd = (us - w / 2) / camera.focal_px
    yd = (vs - h / 2) / camera.focal_px
    factor = 1.0 + camera.barrel * (xd * xd + yd * yd)
    xu, yu = xd * factor, yd * factor
    inv = np.linalg.inv(camera.plane_homography()).astype(np.float32)
    den = inv[2, 0] * xu + inv[2, 1] * yu + inv[2, 2]
    den = np.where(den > 1e-6, den, np.float32(1e-6))
    bx = (inv[0, 0] * xu + inv[0, 1] * yu + inv[0, 2]) / den
    by = (inv[1, 0] * xu + inv[1, 1] * yu + inv[1, 2]) / den
    map_x = ((bx + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM).astype(np.float32)
    map_y = ((by + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM).astype(np.float32)
    map_x.setflags(write=False)
    map_y.setflags(write=False)
    return map_x, map_y


def light_field(board: Board, camera: CameraModel) -> npt.NDArray[np.float32]:
    """Per-pixel, per-channel gain: exposure, gradient, vignetting, soft shadows and the
    light's colour (height x width x 3)."""
    out: npt.NDArray[np.float32] = _LIGHTS.get(board, camera, lambda: _make_light(board, camera))
    return out


def _make_light(board: Board, camera: CameraModel) -> npt.NDArray[np.float32]:
    w, h = camera.width_px, camera.height_px
    sw, sh = 80, 60
    map_x, map_y = remap_tables(board, camera)
    bx = cv2.resize(map_x, (sw, sh)) / TEXTURE_PX_PER_MM - TABLE_MARGIN_MM
    by = cv2.resize(map_y, (sw, sh)) / TEXTURE_PX_PER_MM - TABLE_MARGIN_MM
    ux, uy = heading_vector(camera.gradient_deg)
    along = ((bx - board.width_mm / 2) * ux + (by - board.height_mm / 2) * uy) / board.width_mm
    gain = camera.exposure * (1.0 + camera.gradient * along)
    gx, gy = np.meshgrid(np.linspace(-1, 1, sw), np.linspace(-1, 1, sh))
    gain = gain * (1.0 - camera.vignette * (gx * gx + gy * gy) / 2)
    for sx, sy, sr, depth in camera.shadows:
        d2 = ((bx - sx) ** 2 + (by - sy) ** 2) / (sr * sr)
        gain = gain * (1.0 - depth * np.exp(-d2 * 2.0))
    tint = np.array(camera.tint, np.float32) + np.array(camera.tint_gradient, np.float32) * along[
        ..., None
    ].astype(np.float32)
    colour = gain[..., None].astype(np.float32) * tint
    out = np.asarray(cv2.resize(colour, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)
    out.setflags(write=False)
    return out


def coloured_light(rng: random.Random, strength: float = 1.0) -> dict[str, Any]:
    """Camera values for warm or cool light that also changes colour across the board.

    Pass them to `CameraModel(...)` or `CameraModel.random(..., **values)`.
    """
    warm = rng.random() < 0.5
    base = (0.78, 0.95, 1.12) if warm else (1.14, 1.0, 0.84)
    tint = tuple(1.0 + (b - 1.0) * strength * rng.uniform(0.6, 1.0) for b in base)
    slope = tuple(rng.uniform(-0.16, 0.16) * strength for _ in range(3))
    return {"tint": tint, "tint_gradient": slope, "gradient_deg": rng.uniform(0, 360)}
