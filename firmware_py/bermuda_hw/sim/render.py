"""Renders what the camera above the simulated table sees: board, ships, cloud, hands.

The board is drawn once per palette into a top-down texture (2 px/mm, with a
margin of table around it). Each frame copies that texture, draws the ships,
the cloud and an optional hand (raised objects are drawn where a pinhole
camera would see them, so the cloud's marker shows parallax), then projects it
through a camera model: position and tilt (perspective), lens distortion,
uneven lighting and soft shadows, colour cast, blur, sensor noise and JPEG.
Every random choice comes from the seed, so a frame is reproducible.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.board import LETTERS, Board, Point

Image = npt.NDArray[np.uint8]
BGR = tuple[int, int, int]
Side = Literal["N", "E", "S", "W"]

TEXTURE_PX_PER_MM = 2.0
TABLE_MARGIN_MM = 120.0
SHIP_HEIGHT_MM = 12.0
CLOUD_HEIGHT_MM = 32.0
QUIET_ZONE_MM = 6.0


# --------------------------------------------------------------------------- the scene


@dataclass(frozen=True)
class ShipToken:
    """A ship on the table: colour name, centre in board mm, heading of its bow."""

    color: str
    x_mm: float
    y_mm: float
    heading_deg: float = 0.0


@dataclass(frozen=True)
class CloudState:
    """The cloud's locater position and how far it has turned clockwise from letter A."""

    x_mm: float
    y_mm: float
    heading_deg: float = 0.0


@dataclass(frozen=True)
class Hand:
    """A hand and arm reaching over the board from one side to a fingertip point."""

    x_mm: float
    y_mm: float
    side: Side = "S"
    height_mm: float = 120.0
    skin: BGR = (120, 150, 205)
    sleeve: BGR = (60, 60, 70)


@dataclass(frozen=True)
class Cover:
    """A flat disc of some colour lying on the table (a coaster, a card pile...)."""

    x_mm: float
    y_mm: float
    radius_mm: float
    color: BGR = (40, 40, 40)
    height_mm: float = 5.0


@dataclass(frozen=True)
class Scene:
    """Everything on the table that the renderer draws over the board."""

    ships: tuple[ShipToken, ...] = ()
    cloud: CloudState | None = None
    hand: Hand | None = None
    covers: tuple[Cover, ...] = ()


# --------------------------------------------------------------------------- appearance


@dataclass(frozen=True)
class ShipStyle:
    """The shape of the ship tokens: hull length and beam, bow style."""

    length_mm: float = 22.0
    beam_mm: float = 9.0
    bow: Literal["pointed", "round", "square"] = "pointed"


DEFAULT_SHIP_COLORS: dict[str, BGR] = {
    "blue": (160, 60, 15),
    "yellow": (30, 205, 240),
    "green": (60, 150, 30),
    "red": (40, 40, 200),
}


@dataclass(frozen=True)
class Palette:
    """Colours of the printed board and of the ship tokens (BGR)."""

    sea: BGR = (195, 150, 75)
    land: BGR = (110, 170, 175)
    table: BGR = (70, 100, 140)
    space: BGR = (245, 245, 240)
    port: BGR = (170, 215, 235)
    ink: BGR = (50, 40, 30)
    cloud: BGR = (215, 215, 220)
    ships: tuple[tuple[str, BGR], ...] = tuple(DEFAULT_SHIP_COLORS.items())
    ship_style: ShipStyle = field(default_factory=ShipStyle)

    def ship_bgr(self, color: str) -> BGR:
        for name, bgr in self.ships:
            if name == color:
                return bgr
        raise KeyError(f"no colour {color!r} in the palette")

    @classmethod
    def random(cls, rng: random.Random, strength: float = 1.0) -> Palette:
        """A palette jittered around the default: other printings, other plastics."""

        def jitter(bgr: BGR, amount: float) -> BGR:
            return (
                _clip8(bgr[0] + rng.uniform(-amount, amount) * strength),
                _clip8(bgr[1] + rng.uniform(-amount, amount) * strength),
                _clip8(bgr[2] + rng.uniform(-amount, amount) * strength),
            )

        base = cls()
        style = ShipStyle(
            length_mm=rng.uniform(19.0, 24.0),
            beam_mm=rng.uniform(8.0, 11.0),
            bow=rng.choice(("pointed", "round", "square")),
        )
        return cls(
            sea=jitter(base.sea, 20),
            land=jitter(base.land, 20),
            table=jitter(base.table, 40),
            space=jitter(base.space, 8),
            port=jitter(base.port, 15),
            ink=base.ink,
            cloud=jitter(base.cloud, 10),
            ships=tuple((name, jitter(bgr, 18)) for name, bgr in base.ships),
            ship_style=style,
        )


# --------------------------------------------------------------------------- the camera


@dataclass(frozen=True)
class CameraModel:
    """A pinhole camera above the board, with its lens, light and sensor.

    Position is in board mm (`height_mm` above the board's surface); it looks
    at the target point and is rolled about its axis. `barrel` bends straight
    lines (0: none; 0.05: a typical wide lens). Lighting: `gradient` is the
    relative brightness change across the board along `gradient_deg`,
    `vignette` the darkening at the image corners, `shadows` soft dark
    patches (x_mm, y_mm, radius_mm, depth 0-1), `tint` per-channel gains (BGR).
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
        xd, yd = _distort(xu, yu, self.barrel)
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


def _distort(xu: float, yu: float, barrel: float) -> Point:
    """Invert the render model xu = xd (1 + barrel r_d^2) by fixed-point iteration."""
    xd, yd = xu, yu
    for _ in range(20):
        factor = 1.0 + barrel * (xd * xd + yd * yd)
        xd, yd = xu / factor, yu / factor
    return (xd, yd)


# --------------------------------------------------------------------------- drawing helpers


def _clip8(value: float) -> int:
    return int(min(255, max(0, round(value))))


def _tex(point: Point) -> tuple[int, int]:
    """Board mm to texture pixels, fixed point with 4 fractional bits (for cv2 shift=4)."""
    k = TEXTURE_PX_PER_MM * 16
    return (
        round((point[0] + TABLE_MARGIN_MM) * k),
        round((point[1] + TABLE_MARGIN_MM) * k),
    )


def _poly(points: list[Point]) -> npt.NDArray[np.int32]:
    return np.array([_tex(p) for p in points], dtype=np.int32)


def _oriented(
    cx: float, cy: float, heading_deg: float, local: list[Point], scale: float = 1.0
) -> list[Point]:
    """Local (forward, starboard) mm points turned to a heading and placed at a centre."""
    rad = math.radians(heading_deg)
    fx, fy = math.sin(rad), -math.cos(rad)
    sx, sy = math.cos(rad), math.sin(rad)
    return [
        (cx + scale * (u * fx + v * sx), cy + scale * (u * fy + v * sy)) for u, v in local
    ]


def _ship_outline(length_mm: float, beam_mm: float, bow: str) -> list[Point]:
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


def _fill(img: Image, points: list[Point], color: BGR) -> None:
    cv2.fillPoly(img, [_poly(points)], color, cv2.LINE_AA, 4)


def _outline(img: Image, points: list[Point], color: BGR, width_mm: float) -> None:
    thickness = max(1, round(width_mm * TEXTURE_PX_PER_MM))
    cv2.polylines(img, [_poly(points)], True, color, thickness, cv2.LINE_AA, 4)


def _circle(img: Image, centre: Point, radius_mm: float, color: BGR, width_mm: float = -1) -> None:
    thickness = -1 if width_mm < 0 else max(1, round(width_mm * TEXTURE_PX_PER_MM))
    cv2.circle(
        img, _tex(centre), round(radius_mm * TEXTURE_PX_PER_MM * 16), color, thickness,
        cv2.LINE_AA, 4,
    )


def _text(img: Image, text: str, at: Point, height_mm: float, color: BGR) -> None:
    scale = height_mm * TEXTURE_PX_PER_MM / 22.0
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    x, y = _tex(at)
    cv2.putText(
        img, text, (x // 16 - w // 2, y // 16 + h // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, color,
        max(1, round(scale * 2)), cv2.LINE_AA,
    )


def _aruco_dictionary(name: str) -> Any:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def _marker_image(dictionary: str, marker_id: int, side_px: int) -> Image:
    img = cv2.aruco.generateImageMarker(_aruco_dictionary(dictionary), marker_id, side_px)
    return np.asarray(img, np.uint8)


# --------------------------------------------------------------------------- the board texture


def _texture_size(board: Board) -> tuple[int, int]:
    return (
        round((board.width_mm + 2 * TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM),
        round((board.height_mm + 2 * TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM),
    )


class _Cache:
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


_TEXTURES = _Cache(8)
_CLOUDS = _Cache(8)
_REMAPS = _Cache(16)
_LIGHTS = _Cache(16)


def _board_texture(board: Board, palette: Palette) -> Image:
    """The printed board on the table, drawn once per board and palette."""
    img: Image = _TEXTURES.get(board, palette, lambda: _draw_board(board, palette))
    return img


def _draw_board(board: Board, palette: Palette) -> Image:
    width, height = _texture_size(board)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = palette.table
    wood = np.random.default_rng(7).normal(0, 6, (height // 8, 1, 1)).astype(np.float32)
    img[:] = np.clip(
        img.astype(np.float32) + cv2.resize(wood, (width, height))[..., None], 0, 255
    ).astype(np.uint8)
    corners = [(0.0, 0.0), (board.width_mm, 0.0), (board.width_mm, board.height_mm),
               (0.0, board.height_mm)]
    _fill(img, corners, palette.sea)
    # Soft waves in the printed sea.
    waves_rng = np.random.default_rng(11)
    small = waves_rng.normal(0, 1, (24, 24)).astype(np.float32)
    waves = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC) * 5.0
    x0, y0 = _tex((0.0, 0.0))
    x1, y1 = _tex((board.width_mm, board.height_mm))
    x0, y0, x1, y1 = x0 // 16, y0 // 16, x1 // 16, y1 // 16
    region = img[y0:y1, x0:x1].astype(np.float32) + waves[y0:y1, x0:x1, None]
    img[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)

    for poly in board.land:
        _fill(img, list(poly), palette.land)
        _outline(img, list(poly), (60, 110, 120), 0.8)
    # A printed title and compass lines on the sea, as on a real board.
    _text(img, "BERMUDA TRIANGLE", (board.width_mm * 0.62, board.height_mm * 0.93), 9.0,
          (150, 90, 30))
    mid = (board.width_mm * 0.22, board.height_mm * 0.70)
    for angle in range(0, 360, 45):
        end = _oriented(mid[0], mid[1], angle, [(22.0 if angle % 90 == 0 else 12.0, 0.0)])[0]
        cv2.line(img, _tex(mid), _tex(end), (150, 100, 50), 2, cv2.LINE_AA, 4)

    for a, b in _route_segments(board):
        cv2.line(img, _tex(a), _tex(b), (225, 205, 170), 2, cv2.LINE_AA, 4)

    grid = board.grid
    for col, row in grid.dots():
        centre = grid.dot_mm(col, row)
        if (col, row) == grid.centre:
            _circle(img, centre, 6.0, (40, 40, 200), 1.5)
        _circle(img, centre, 2.2, palette.ink)

    space_outline = _ship_outline(30.0, 13.0, "pointed")
    for space in board.spaces.values():
        if space.kind != "path":
            continue
        pts = _oriented(space.x_mm, space.y_mm, space.heading_deg, space_outline)
        _fill(img, pts, palette.space)
        _outline(img, pts, palette.ink, 0.6)

    berth_outline = _ship_outline(24.0, 11.0, "pointed")
    for port in board.ports.values():
        xs = [b[0] for b in port.berths]
        ys = [b[1] for b in port.berths]
        box = [(min(xs) - 17, min(ys) - 19), (max(xs) + 17, min(ys) - 19),
               (max(xs) + 17, max(ys) + 19), (min(xs) - 17, max(ys) + 19)]
        _fill(img, box, palette.port)
        _outline(img, box, palette.ink, 0.8)
        for bx, by in port.berths:
            _outline(img, _oriented(bx, by, 0.0, berth_outline), (150, 150, 150), 0.4)
        _text(img, port.product.upper(), (port.x_mm, max(ys) + 24), 5.0, palette.ink)

    for marker in board.markers.corners:
        _paste_marker(img, board.markers.dictionary, marker.id, marker.x_mm, marker.y_mm,
                      marker.size_mm)
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
    _fill(img, [(x_mm - half, y_mm - half), (x_mm + half, y_mm - half),
                (x_mm + half, y_mm + half), (x_mm - half, y_mm + half)], (250, 250, 250))
    side = round(size_mm * TEXTURE_PX_PER_MM)
    marker = _marker_image(dictionary, marker_id, side)
    x0 = round((x_mm - size_mm / 2 + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM)
    y0 = round((y_mm - size_mm / 2 + TABLE_MARGIN_MM) * TEXTURE_PX_PER_MM)
    img[y0:y0 + side, x0:x0 + side] = np.clip(marker.astype(np.int16) + 10, 0, 250)[..., None]


def _cloud_canvas(board: Board, palette: Palette) -> tuple[Image, npt.NDArray[np.float32]]:
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
    for i, letter in enumerate(LETTERS):
        bearing = math.radians(board.cloud.letter_angles_deg[i])
        r = radius * 0.78
        at = (c + r * k * math.sin(bearing), c - r * k * math.cos(bearing))
        scale = 0.9
        (w, h), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.putText(img, letter, (round(at[0] - w / 2), round(at[1] + h / 2)),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, (60, 50, 50), 2, cv2.LINE_AA)
    # The marker on a white plate in the middle, its top edge (corners 0->1) north.
    msize = board.markers.cloud_size_mm
    plate = (msize / 2 + QUIET_ZONE_MM * 0.7) * k
    cv2.rectangle(img, (round(c - plate), round(c - plate)), (round(c + plate), round(c + plate)),
                  (250, 250, 250), -1)
    side = round(msize * k)
    marker = _marker_image(board.markers.dictionary, board.markers.cloud_id, side)
    x0 = round(c - side / 2)
    img[x0:x0 + side, x0:x0 + side] = np.clip(marker.astype(np.int16) + 10, 0, 250)[..., None]
    return img, alpha.astype(np.float32) / 255.0


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
    tex: Image = _board_texture(board, palette).copy()
    shadow = np.zeros(tex.shape[:2], np.uint8)
    style = palette.ship_style
    hull = _ship_outline(style.length_mm, style.beam_mm, style.bow)
    cabin = [(-style.length_mm * 0.3, -style.beam_mm * 0.25),
             (style.length_mm * 0.05, -style.beam_mm * 0.25),
             (style.length_mm * 0.05, style.beam_mm * 0.25),
             (-style.length_mm * 0.3, style.beam_mm * 0.25)]

    def draw_covers(low: bool) -> None:
        for cover in scene.covers:
            if (cover.height_mm < CLOUD_HEIGHT_MM) != low:
                continue
            (px, py), s = camera.parallax(cover.x_mm, cover.y_mm, cover.height_mm)
            _circle(shadow, (px + 3, py + 3), cover.radius_mm * s, (160, 160, 160))
            _circle(tex, (px, py), cover.radius_mm * s, cover.color)

    draw_covers(low=True)

    for ship in scene.ships:
        bgr = palette.ship_bgr(ship.color)
        (px, py), s = camera.parallax(ship.x_mm, ship.y_mm, SHIP_HEIGHT_MM)
        _fill(shadow, _oriented(ship.x_mm + 2.5, ship.y_mm + 2.5, ship.heading_deg, hull),
              (150, 150, 150))
        pts = _oriented(px, py, ship.heading_deg, hull, s)
        _fill(tex, pts, bgr)
        _outline(tex, pts, tuple(int(v * 0.55) for v in bgr), 0.6)  # type: ignore[arg-type]
        deck = tuple(_clip8(v * 1.15 + 12) for v in bgr)
        _fill(tex, _oriented(px, py, ship.heading_deg, cabin, s), deck)  # type: ignore[arg-type]

    if scene.cloud is not None:
        cloud = scene.cloud
        radius = board.cloud.footprint_radius_mm
        _circle(shadow, (cloud.x_mm + 6, cloud.y_mm + 6), radius, (170, 170, 170))
        _circle(tex, (cloud.x_mm, cloud.y_mm), radius * 1.02, (90, 90, 95))
        notch = [(cloud.x_mm - 6, cloud.y_mm - radius * 1.02),
                 (cloud.x_mm + 6, cloud.y_mm - radius * 1.02),
                 (cloud.x_mm, cloud.y_mm - radius * 1.02 - 9)]
        _fill(tex, notch, (90, 90, 95))
        canvas, alpha = _cloud_canvas(board, palette)
        centre, s = camera.parallax(cloud.x_mm, cloud.y_mm, CLOUD_HEIGHT_MM)
        _composite_rotated(tex, canvas, alpha, centre, cloud.heading_deg, s)

    draw_covers(low=False)  # anything higher than the cloud lies on top of it
    if scene.hand is not None:
        _draw_hand(tex, shadow, board, scene.hand, camera)

    if shadow.any():
        soft = cv2.GaussianBlur(shadow, (0, 0), 4.0).astype(np.float32) / 255.0
        tex = (tex.astype(np.float32) * (1.0 - 0.45 * soft[..., None])).astype(np.uint8)
    return tex


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
    palm_centre = _oriented(tip[0], tip[1], heading, [(-60.0, 0.0)])[0]
    wrist = _oriented(tip[0], tip[1], heading, [(-110.0, 0.0)])[0]

    def raised(p: Point) -> Point:
        return camera.parallax(p[0], p[1], hand.height_mm)[0]

    arm = [raised(p) for p in _oriented(ex, ey, heading, [(0, -45), (0, 45)])]
    arm += [raised(p) for p in _oriented(wrist[0], wrist[1], heading, [(0, 38), (0, -38)])]
    shadow_arm = [(p[0] + 25, p[1] + 25) for p in arm]
    _fill(shadow, shadow_arm, (200, 200, 200))
    _fill(tex, arm, hand.sleeve)
    pts = cv2.ellipse2Poly((0, 0), (45, 38), 0, 0, 360, 20)
    palm_pts = [raised(p) for p in _oriented(palm_centre[0], palm_centre[1], heading,
                                             [(float(u), float(v)) for u, v in pts])]
    _fill(shadow, [(p[0] + 25, p[1] + 25) for p in palm_pts], (200, 200, 200))
    _fill(tex, palm_pts, hand.skin)
    for offset in (-24.0, -8.0, 8.0, 24.0):
        base = _oriented(palm_centre[0], palm_centre[1], heading, [(35.0, offset)])[0]
        finger = [raised(p) for p in _oriented(base[0], base[1], heading,
                                               [(-5, -7), (28, -6), (30, 0), (28, 6), (-5, 7)])]
        _fill(tex, finger, hand.skin)


def _geometry_key(camera: CameraModel) -> tuple[float, ...]:
    return (camera.width_px, camera.height_px, camera.x_mm, camera.y_mm, camera.height_mm,
            camera.target_x_mm, camera.target_y_mm, camera.roll_deg, camera.focal_px,
            camera.barrel)


def _remap_tables(
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


def _light_field(board: Board, camera: CameraModel) -> npt.NDArray[np.float32]:
    """Per-pixel brightness gain: exposure, gradient, vignetting and soft shadows."""
    out: npt.NDArray[np.float32] = _LIGHTS.get(
        board, camera, lambda: _make_light(board, camera)
    )
    return out


def _make_light(board: Board, camera: CameraModel) -> npt.NDArray[np.float32]:
    w, h = camera.width_px, camera.height_px
    sw, sh = 80, 60
    map_x, map_y = _remap_tables(board, camera)
    bx = cv2.resize(map_x, (sw, sh)) / TEXTURE_PX_PER_MM - TABLE_MARGIN_MM
    by = cv2.resize(map_y, (sw, sh)) / TEXTURE_PX_PER_MM - TABLE_MARGIN_MM
    ux, uy = math.sin(math.radians(camera.gradient_deg)), -math.cos(
        math.radians(camera.gradient_deg)
    )
    along = ((bx - board.width_mm / 2) * ux + (by - board.height_mm / 2) * uy) / board.width_mm
    gain = camera.exposure * (1.0 + camera.gradient * along)
    gx, gy = np.meshgrid(np.linspace(-1, 1, sw), np.linspace(-1, 1, sh))
    gain = gain * (1.0 - camera.vignette * (gx * gx + gy * gy) / 2)
    for sx, sy, sr, depth in camera.shadows:
        d2 = ((bx - sx) ** 2 + (by - sy) ** 2) / (sr * sr)
        gain = gain * (1.0 - depth * np.exp(-d2 * 2.0))
    out = np.asarray(
        cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC), np.float32
    )
    out.setflags(write=False)
    return out


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
    rng = np.random.default_rng(seed)
    tex = draw_scene(board, scene, camera, palette)
    map_x, map_y = _remap_tables(board, camera)
    frame = cv2.remap(tex, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                      borderValue=(40, 45, 50))
    if camera.blur_px > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), camera.blur_px)
    light = _light_field(board, camera)
    tint = np.array(camera.tint, np.float32)
    work = frame.astype(np.float32) * light[..., None] * tint
    if camera.noise > 0:
        work += rng.standard_normal(work.shape, dtype=np.float32) * np.float32(camera.noise)
    out: Image = np.clip(work, 0, 255).astype(np.uint8)
    if camera.jpeg_quality < 100:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, camera.jpeg_quality])
        if ok:
            out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    return out


# --------------------------------------------------------------------------- random scenes


def _free(point: Point, taken: list[Point], gap_mm: float) -> bool:
    return all(math.dist(point, t) >= gap_mm for t in taken)


def random_scene(
    board: Board,
    rng: random.Random,
    *,
    ships: int | None = None,
    cloud: bool = True,
    hand: bool = False,
    off_space: float = 0.08,
    jitter_mm: float = 3.0,
) -> Scene:
    """A plausible table: ships on spaces, in berths and a few off them, the cloud on a dot.

    No ship is left half under the cloud: a ship is either clear of the
    cloud's footprint or wholly under it.
    """
    grid = board.grid
    cloud_state: CloudState | None = None
    if cloud:
        col, row = rng.randrange(grid.cols), rng.randrange(grid.rows)
        cx, cy = grid.dot_mm(col, row)
        cloud_state = CloudState(cx + rng.uniform(-2, 2), cy + rng.uniform(-2, 2),
                                 (45.0 * rng.randrange(8) + rng.uniform(-3, 3)) % 360.0)
    radius = board.cloud.footprint_radius_mm

    def allowed(x: float, y: float) -> bool:
        if cloud_state is None:
            return True
        d = math.dist((x, y), (cloud_state.x_mm, cloud_state.y_mm))
        return d < radius * 0.75 or d > radius + 22.0

    places: list[tuple[float, float, float]] = []
    for space in board.spaces.values():
        if space.kind == "path":
            places.append((space.x_mm, space.y_mm, space.heading_deg))
    for port in board.ports.values():
        places.extend((bx, by, 0.0) for bx, by in port.berths)
    rng.shuffle(places)
    count = rng.randint(0, 4 * len(board.ship_colors)) if ships is None else ships
    colors = [c for c in board.ship_colors for _ in range(4)]
    rng.shuffle(colors)
    tokens: list[ShipToken] = []
    taken: list[Point] = []
    for color in colors[:count]:
        if rng.random() < off_space:
            for _ in range(200):
                x = rng.uniform(50, board.width_mm - 50)
                y = rng.uniform(50, board.height_mm - 50)
                near = min(math.dist((x, y), (p[0], p[1])) for p in places)
                dot = grid.dot_mm(*grid.nearest_dot(x, y))
                if (near > 30 and math.dist((x, y), dot) > 8 and allowed(x, y)
                        and _free((x, y), taken, 30.0)
                        and not any(_inside(poly, (x, y), 14.0) for poly in board.land)):
                    tokens.append(ShipToken(color, x, y, rng.uniform(0, 360)))
                    taken.append((x, y))
                    break
            continue
        while places:
            x, y, heading = places.pop()
            if allowed(x, y) and _free((x, y), taken, 20.0):
                tokens.append(ShipToken(
                    color, x + rng.uniform(-jitter_mm, jitter_mm),
                    y + rng.uniform(-jitter_mm, jitter_mm), heading + rng.uniform(-8, 8),
                ))
                taken.append((x, y))
                break
    hand_state: Hand | None = None
    if hand:
        hand_state = Hand(
            rng.uniform(130, board.width_mm - 130), rng.uniform(130, board.height_mm - 130),
            rng.choice(("N", "E", "S", "W")), rng.uniform(50, 160),
            skin=(_clip8(rng.uniform(60, 150)), _clip8(rng.uniform(90, 175)),
                  _clip8(rng.uniform(140, 230))),
            sleeve=(rng.randrange(256), rng.randrange(256), rng.randrange(256)),
        )
    return Scene(tuple(tokens), cloud_state, hand_state)


def _inside(poly: tuple[Point, ...], point: Point, margin_mm: float) -> bool:
    """True if a point lies inside a polygon or within a margin of it."""
    contour = np.array(poly, np.float32).reshape(-1, 1, 2)
    return float(cv2.pointPolygonTest(contour, point, True)) > -margin_mm
