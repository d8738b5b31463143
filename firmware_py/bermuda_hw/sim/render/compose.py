"""One frame: the scene drawn over the board texture, then seen through the camera."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.board import Board, Point
from bermuda_hw.sim.render.artwork import board_texture, cloud_canvas
from bermuda_hw.sim.render.draw import (
    TABLE_MARGIN_MM,
    TEXTURE_PX_PER_MM,
    Cache,
    Image,
    circle,
    clip8,
    fill,
    oriented,
    outline,
    ship_outline,
)
from bermuda_hw.sim.render.optics import CameraModel, light_field, remap_tables
from bermuda_hw.sim.render.palette import Palette
from bermuda_hw.sim.render.scene import CLOUD_HEIGHT_MM, SHIP_HEIGHT_MM, Hand, Scene


def _composite_rotated(
    tex: Image,
    canvas: Image,
    alpha: npt.NDArray[np.float32],
    centre_mm: Point,
    heading_deg: float,
    scale: float,
) -> None:
    """Draw a canvas turned clockwise by a heading and scaled, centred at a board point."""
    h, w = canvas.shape[:2]
    out = round(max(h, w) * scale * 1.5)
    cx = (centre_mm[0] + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM
    cy = (centre_mm[1] + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM
    x0, y0 = round(cx - out / 2), round(cy - out / 2)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -heading_deg, scale)
    m[0, 2] += cx - w / 2 - x0
    m[1, 2] += cy - h / 2 - y0
    th, tw = tex.shape[:2]
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + out, tw), min(y0 + out, th)
    if xa >= xb or ya >= yb:
        return
    m[0, 2] -= xa - x0
    m[1, 2] -= ya - y0
    size = (xb - xa, yb - ya)
    top = cv2.warpAffine(canvas, m, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
    region = tex[ya:yb, xa:xb].astype(np.float32)
    tex[ya:yb, xa:xb] = (region * (1 - a) + top.astype(np.float32) * a).astype(np.uint8)


# --------------------------------------------------------------------------- rendering


def draw_scene(board: Board, scene: Scene, camera: CameraModel, palette: Palette) -> Image:
    """The top-down texture of the table with everything on it (2 px/mm, with margin)."""
    tex: Image = board_texture(board, palette).copy()
    shadow = np.zeros(tex.shape[:2], np.uint8)
    style = palette.ship_style
    hull = ship_outline(style.length_mm, style.beam_mm, style.bow)
    cabin = [
        (-style.length_mm * 0.3, -style.beam_mm * 0.25),
        (style.length_mm * 0.05, -style.beam_mm * 0.25),
        (style.length_mm * 0.05, style.beam_mm * 0.25),
        (-style.length_mm * 0.3, style.beam_mm * 0.25),
    ]

    def draw_covers(low: bool) -> None:
        for cover in scene.covers:
            if (cover.height_mm < CLOUD_HEIGHT_MM) != low:
                continue
            (px, py), s = camera.parallax(cover.x_mm, cover.y_mm, cover.height_mm)
            circle(shadow, (px + 3, py + 3), cover.radius_mm * s, (160, 160, 160))
            circle(tex, (px, py), cover.radius_mm * s, cover.color)

    draw_covers(low=True)

    for ship in scene.ships:
        bgr = palette.ship_bgr(ship.color)
        (px, py), s = camera.parallax(ship.x_mm, ship.y_mm, SHIP_HEIGHT_MM)
        fill(
            shadow,
            oriented(ship.x_mm + 2.5, ship.y_mm + 2.5, ship.heading_deg, hull),
            (150, 150, 150),
        )
        pts = oriented(px, py, ship.heading_deg, hull, s)
        fill(tex, pts, bgr)
        outline(tex, pts, tuple(int(v * 0.55) for v in bgr), 0.6)  # type: ignore[arg-type]
        deck = tuple(clip8(v * 1.15 + 12) for v in bgr)
        fill(tex, oriented(px, py, ship.heading_deg, cabin, s), deck)  # type: ignore[arg-type]

    if scene.cloud is not None:
        cloud = scene.cloud
        radius = board.cloud.footprint_radius_mm
        circle(shadow, (cloud.x_mm + 6, cloud.y_mm + 6), radius, (170, 170, 170))
        circle(tex, (cloud.x_mm, cloud.y_mm), radius * 1.02, (90, 90, 95))
        notch = [
            (cloud.x_mm - 6, cloud.y_mm - radius * 1.02),
            (cloud.x_mm + 6, cloud.y_mm - radius * 1.02),
            (cloud.x_mm, cloud.y_mm - radius * 1.02 - 9),
        ]
        fill(tex, notch, (90, 90, 95))
        canvas, alpha = cloud_canvas(board, palette)
        centre, s = camera.parallax(cloud.x_mm, cloud.y_mm, CLOUD_HEIGHT_MM)
        _composite_rotated(tex, canvas, alpha, centre, cloud.heading_deg, s)

    draw_covers(low=False)  # anything higher than the cloud lies on top of it
    for hand in (scene.hand, scene.other_hand):
        if hand is not None:
            _draw_hand(tex, shadow, board, hand, camera)

    _cast_shadow(tex, shadow)
    return tex


SHADOW_SIGMA_PX = 4.0
SHADOW_DEPTH = 0.45
# A blurred pixel depends on the shadow mask within this many pixels (OpenCV's kernel for
# 8-bit images reaches 3 sigma, 12 px); a tile is wider than that, so a shadow's blur only
# spills into the tiles next to it.
_SHADOW_REACH_PX = math.ceil(4 * SHADOW_SIGMA_PX) + 2
_SHADOW_TILE_PX = 32


def _cast_shadow(tex: Image, shadow: Image) -> None:
    """Darken the texture under the soft (blurred) shadow mask, in place.

    Only the tiles near a shadow are blurred and darkened, a run of them along a row of
    tiles at a time: elsewhere the blurred mask is zero and the texture unchanged, so the
    result is that of blurring the whole mask.
    """
    h, w = shadow.shape
    tile = _SHADOW_TILE_PX
    rows, cols = -(-h // tile), -(-w // tile)
    padded = np.zeros((rows * tile, cols * tile), np.uint8)
    padded[:h, :w] = shadow
    near = (padded.reshape(rows, tile, cols, tile).max(axis=(1, 3)) > 0).astype(np.uint8)
    if not near.any():
        return
    near = cv2.dilate(near, np.ones((3, 3), np.uint8)) > 0
    reach = _SHADOW_REACH_PX
    for row in range(rows):
        active = near[row]
        col = 0
        while col < cols:
            if not active[col]:
                col += 1
                continue
            end = col
            while end < cols and active[end]:
                end += 1
            y0, y1 = row * tile, min((row + 1) * tile, h)
            x0, x1 = col * tile, min(end * tile, w)
            # the blur's input: the run and what it reaches (the image's own edges stay
            # edges, so the border is reflected as for the whole mask)
            by0, by1 = max(y0 - reach, 0), min(y1 + reach, h)
            bx0, bx1 = max(x0 - reach, 0), min(x1 + reach, w)
            blurred = cv2.GaussianBlur(shadow[by0:by1, bx0:bx1], (0, 0), SHADOW_SIGMA_PX)
            soft = blurred[y0 - by0 : y1 - by0, x0 - bx0 : x1 - bx0].astype(np.float32) / 255.0
            region = tex[y0:y1, x0:x1].astype(np.float32)
            tex[y0:y1, x0:x1] = (region * (1.0 - SHADOW_DEPTH * soft[..., None])).astype(np.uint8)
            col = end


def _draw_hand(tex: Image, shadow: Image, board: Board, hand: Hand, camera: CameraModel) -> None:
    far = TABLE_MARGIN_MM + 40.0
    entry = {
        "N": (hand.x_mm, -far, 180.0),
        "S": (hand.x_mm, board.height_mm + far, 0.0),
        "W": (-far, hand.y_mm, 90.0),
        "E": (board.width_mm + far, hand.y_mm, 270.0),
    }[hand.side]
    ex, ey, heading = entry
    tip = (hand.x_mm, hand.y_mm)
    palm_centre = oriented(tip[0], tip[1], heading, [(-60.0, 0.0)])[0]
    wrist = oriented(tip[0], tip[1], heading, [(-110.0, 0.0)])[0]

    def raised(p: Point) -> Point:
        return camera.parallax(p[0], p[1], hand.height_mm)[0]

    arm = [raised(p) for p in oriented(ex, ey, heading, [(0, -45), (0, 45)])]
    arm += [raised(p) for p in oriented(wrist[0], wrist[1], heading, [(0, 38), (0, -38)])]
    shadow_arm = [(p[0] + 25, p[1] + 25) for p in arm]
    fill(shadow, shadow_arm, (200, 200, 200))
    fill(tex, arm, hand.sleeve)
    pts = cv2.ellipse2Poly((0, 0), (45, 38), 0, 0, 360, 20)
    palm_pts = [
        raised(p)
        for p in oriented(
            palm_centre[0], palm_centre[1], heading, [(float(u), float(v)) for u, v in pts]
        )
    ]
    fill(shadow, [(p[0] + 25, p[1] + 25) for p in palm_pts], (200, 200, 200))
    fill(tex, palm_pts, hand.skin)
    for offset in (-24.0, -8.0, 8.0, 24.0):
        base = oriented(palm_centre[0], palm_centre[1], heading, [(35.0, offset)])[0]
        finger = [
            raised(p)
            for p in oriented(
                base[0], base[1], heading, [(-5, -7), (28, -6), (30, 0), (28, 6), (-5, 7)]
            )
        ]
        fill(tex, finger, hand.skin)


def render(
    board: Board,
    scene: Scene,
    camera: CameraModel | None = None,
    *,
    seed: int = 0,
    palette: Palette | None = None,
) -> Image:
    """The BGR frame (uint8, height x width x 3) that the camera sees of the scene."""
    camera = camera or CameraModel()
    palette = palette or Palette()
    lit: npt.NDArray[np.float32] = _LIT_FRAMES.get(
        board, (scene, camera, palette), lambda: _lit_frame(board, scene, camera, palette)
    )
    work = lit
    if camera.noise > 0:
        work = lit + _standard_noise(seed, lit.shape) * np.float32(camera.noise)
    out: Image = np.clip(work, 0, 255).astype(np.uint8)
    if camera.jpeg_quality < 100:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, camera.jpeg_quality])
        if ok:
            out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    return out


# The sensor's noise before scaling (a standard normal variate per pixel and channel) is
# the same on every frame drawn with one seed and size. A simulated camera numbers its
# frames from its seed, so the noise of the first frames recurs with every camera: the
# seeds whose noise fits in NOISE_CACHE_BYTES are drawn once and kept (while there is room):
# 64 MB, the first 17 frames of 640x480, small beside a Pi's memory (the simulated table
# runs there too); the tests' tables spend most of their first frames settling. The noise
# of any further seed is a window of one larger field of variates for that size
# (NOISE_MARGIN_PX wider and taller), at an offset drawn from the seed: still a standard
# normal variate per pixel and channel, independent of its neighbours and of the same
# pixel in the frames before (a window elsewhere in the field), without drawing a million
# variates for every frame (most of the time a frame took to draw). Which noise a seed
# gets depends on the seed and the size only, never on what was drawn before.
NOISE_CACHE_BYTES = 64 << 20
NOISE_MARGIN_PX = 64
_NOISE: dict[tuple[int, tuple[int, ...]], npt.NDArray[np.float32]] = {}
_NOISE_FIELDS: dict[tuple[int, ...], npt.NDArray[np.float32]] = {}
_noise_bytes = 0


def _standard_noise(seed: int, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    global _noise_bytes
    key = (seed, shape)
    noise = _NOISE.get(key)
    if noise is not None:
        return noise
    if seed * math.prod(shape) * 4 >= NOISE_CACHE_BYTES:  # float32: past the first frames
        return _noise_window(seed, shape)
    noise = np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
    if _noise_bytes + noise.nbytes <= NOISE_CACHE_BYTES:
        noise.setflags(write=False)
        _NOISE[key] = noise
        _noise_bytes += noise.nbytes
    return noise


def _noise_window(seed: int, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    """The noise of a seed past the first frames: a window of the field for its size
    (read-only)."""
    height, width = shape[0], shape[1]
    field = _NOISE_FIELDS.get(shape)
    if field is None:
        padded = (height + NOISE_MARGIN_PX, width + NOISE_MARGIN_PX, *shape[2:])
        field = np.random.default_rng(list(shape)).standard_normal(padded, dtype=np.float32)
        field.setflags(write=False)
        _NOISE_FIELDS[shape] = field
    offset = int(np.random.default_rng(seed).integers(NOISE_MARGIN_PX**2))
    dy, dx = divmod(offset, NOISE_MARGIN_PX)
    return field[dy : dy + height, dx : dx + width]


# A table that does not change between frames (the usual case while the camera watches)
# is drawn and lit once; only the sensor's noise and the JPEG differ from frame to frame.
_LIT_FRAMES = Cache(4)


def _lit_frame(
    board: Board, scene: Scene, camera: CameraModel, palette: Palette
) -> npt.NDArray[np.float32]:
    """The scene through the lens and under the light, before the sensor (float32)."""
    tex = draw_scene(board, scene, camera, palette)
    map_x, map_y = remap_tables(board, camera)
    frame = cv2.remap(
        tex,
        map_x,
        map_y,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(40, 45, 50),
    )
    if camera.blur_px > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), camera.blur_px)
    light = light_field(board, camera)
    lit = np.asarray(frame.astype(np.float32) * light, np.float32)
    lit.setflags(write=False)
    return lit
