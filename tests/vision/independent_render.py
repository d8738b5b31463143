"""A second, independent renderer of the table, for checking vision against other artwork.

It shares nothing with `bermuda_hw.sim.render` but the scene values it is
given (ships, the cloud, a hand): the board is drawn straight with OpenCV
from the board file's geometry in its own style (round spaces, rounded ports
in their own paint, its own coasts and lettering), ships are its own shapes
(boat hulls with a mast peg, or round pegs) in its own plastics, and the
camera is a plain homography with its own light (a coloured cast that
changes across the board), blur, noise and JPEG.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from bermuda_hw.rules.board import Board
from bermuda_hw.sim.render import Scene

Image = npt.NDArray[np.uint8]
BGR = tuple[int, int, int]

PX_PER_MM = 2.0
MARGIN_MM = 90.0
STACKED_MM = 6.0  # a token this near an earlier one lies on top of it
RAISED_SCALE = 1.12  # a token on another one is nearer the camera

PLASTICS: dict[str, BGR] = {
    "blue": (140, 45, 15),
    "yellow": (45, 195, 230),
    "green": (55, 160, 55),
    "red": (50, 30, 185),
}


@dataclass(frozen=True)
class OtherLook:
    """Everything the second renderer chooses at random for one board and one camera."""

    seed: int
    sea: BGR
    land: BGR
    paint: tuple[BGR, ...]
    hull: str  # "boat" or "peg"
    plastics: tuple[tuple[str, BGR], ...]
    corners_px: tuple[tuple[float, float], ...]  # where the board's corners appear
    cast: tuple[float, float, float]
    cast_slope: tuple[float, float, float]
    blur: float
    noise: float
    quality: int

    @classmethod
    def random(cls, rng: random.Random, board: Board) -> OtherLook:
        def jitter(bgr: BGR, amount: float) -> BGR:
            return tuple(
                int(min(255, max(0, v + rng.uniform(-amount, amount))))  # type: ignore[return-value]
                for v in bgr
            )

        side = rng.uniform(760.0, 880.0)
        cx, cy = 640 + rng.uniform(-40, 40), 480 + rng.uniform(-20, 20)
        spin = math.radians(rng.uniform(-10, 10))
        corners = []
        for ux, uy in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
            x = ux * side * (1 + rng.uniform(-0.05, 0.05))
            y = uy * side * (1 + rng.uniform(-0.05, 0.05))
            corners.append(
                (
                    cx + x * math.cos(spin) - y * math.sin(spin),
                    cy + x * math.sin(spin) + y * math.cos(spin),
                )
            )
        warm = rng.random() < 0.5
        cast = (0.82, 0.96, 1.1) if warm else (1.1, 1.0, 0.86)
        return cls(
            seed=rng.randrange(1 << 30),
            sea=jitter((185, 135, 60), 15),
            land=jitter((85, 150, 95), 15),  # a green land, near the green ships
            # Sand, salmon, stone and ochre paint: near yellow and red, never the same.
            paint=tuple(
                jitter(p, 10)
                for p in ((125, 205, 230), (110, 150, 215), (170, 190, 200), (105, 175, 215))
            ),
            hull=rng.choice(("boat", "peg")),
            plastics=tuple((n, jitter(c, 12)) for n, c in PLASTICS.items()),
            corners_px=tuple(corners),
            cast=tuple(c * rng.uniform(0.9, 1.0) for c in cast),  # type: ignore[arg-type]
            cast_slope=tuple(rng.uniform(-0.12, 0.12) for _ in range(3)),  # type: ignore[arg-type]
            blur=rng.uniform(0.4, 1.2),
            noise=rng.uniform(1.5, 4.0),
            quality=rng.randint(70, 92),
        )


def _pt(x_mm: float, y_mm: float) -> tuple[int, int]:
    return (round((x_mm + MARGIN_MM) * PX_PER_MM), round((y_mm + MARGIN_MM) * PX_PER_MM))


def _r(mm: float) -> int:
    return max(1, round(mm * PX_PER_MM))


def _marker(board: Board, marker_id: int, size_mm: float) -> Image:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, board.markers.dictionary))
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, _r(size_mm)), np.uint8)


def draw_board(board: Board, look: OtherLook) -> Image:
    """The printed board seen from above, on a dark table."""
    size = (
        round((board.width_mm + 2 * MARGIN_MM) * PX_PER_MM),
        round((board.height_mm + 2 * MARGIN_MM) * PX_PER_MM),
    )
    img = np.full((size[1], size[0], 3), (35, 55, 80), np.uint8)
    cv2.rectangle(img, _pt(0, 0), _pt(board.width_mm, board.height_mm), look.sea, -1)
    rng = np.random.default_rng(look.seed)
    # Stripes of darker water.
    for _ in range(12):
        y = float(rng.uniform(0, board.height_mm))
        cv2.line(
            img,
            _pt(0, y),
            _pt(board.width_mm, y + float(rng.uniform(-30, 30))),
            tuple(int(v * 0.93) for v in look.sea),
            _r(3.0),
            cv2.LINE_AA,
        )
    for poly in board.land:
        pts = np.array([_pt(x, y) for x, y in poly], np.int32)
        cv2.fillPoly(img, [pts], look.land, cv2.LINE_AA)
    # Its own coasts: blobs the board file knows nothing of.
    for _ in range(3):
        x = float(rng.uniform(90, board.width_mm - 90))
        y = float(rng.uniform(90, board.height_mm - 90))
        axes = (_r(float(rng.uniform(14, 30))), _r(float(rng.uniform(10, 22))))
        cv2.ellipse(
            img, _pt(x, y), axes, float(rng.uniform(0, 180)), 0, 360, look.land, -1, cv2.LINE_AA
        )
    # Lettering and a star in blue and red ink.
    cv2.putText(
        img,
        "DEVIL'S TRIANGLE",
        _pt(board.width_mm * 0.18, board.height_mm * 0.4),
        cv2.FONT_HERSHEY_DUPLEX,
        1.4,
        (140, 70, 20),
        3,
        cv2.LINE_AA,
    )
    star = _pt(board.width_mm * 0.7, board.height_mm * 0.25)
    for k in range(4):
        a = math.radians(45 * k)
        d = (round(math.cos(a) * _r(20)), round(math.sin(a) * _r(20)))
        cv2.line(
            img,
            (star[0] - d[0], star[1] - d[1]),
            (star[0] + d[0], star[1] + d[1]),
            (60, 60, 170),
            _r(1.5),
            cv2.LINE_AA,
        )
    for a, near in board.adjacency.items():
        for b in near:
            if a < b:
                pa, pb = board.spaces[a].position, board.spaces[b].position
                cv2.line(img, _pt(*pa), _pt(*pb), (90, 80, 60), _r(1.0), cv2.LINE_AA)
    for col, row in board.grid.dots():
        cv2.circle(img, _pt(*board.grid.dot_mm(col, row)), _r(1.8), (30, 30, 30), -1, cv2.LINE_AA)
    for space in board.spaces.values():
        if space.kind == "path":
            cv2.circle(img, _pt(space.x_mm, space.y_mm), _r(11.0), (235, 240, 240), -1, cv2.LINE_AA)
            cv2.circle(
                img, _pt(space.x_mm, space.y_mm), _r(11.0), (40, 40, 40), _r(0.7), cv2.LINE_AA
            )
    for i, port in enumerate(board.ports.values()):
        xs = [b[0] for b in port.berths]
        ys = [b[1] for b in port.berths]
        paint = look.paint[i % len(look.paint)]
        cv2.rectangle(
            img,
            _pt(min(xs) - 18, min(ys) - 20),
            _pt(max(xs) + 18, max(ys) + 20),
            paint,
            -1,
            cv2.LINE_AA,
        )
        cv2.rectangle(
            img,
            _pt(min(xs) - 18, min(ys) - 20),
            _pt(max(xs) + 18, max(ys) + 20),
            (30, 30, 30),
            _r(1.0),
            cv2.LINE_AA,
        )
        for bx, by in port.berths:
            cv2.circle(
                img, _pt(bx, by), _r(8.0), tuple(int(v * 0.85) for v in paint), _r(0.5), cv2.LINE_AA
            )
    for m in board.markers.corners:
        half = m.size_mm / 2 + 6.0
        cv2.rectangle(
            img,
            _pt(m.x_mm - half, m.y_mm - half),
            _pt(m.x_mm + half, m.y_mm + half),
            (250, 250, 250),
            -1,
        )
        mark = _marker(board, m.id, m.size_mm)
        x0, y0 = _pt(m.x_mm - m.size_mm / 2, m.y_mm - m.size_mm / 2)
        img[y0 : y0 + mark.shape[0], x0 : x0 + mark.shape[1]] = mark[..., None]
    return img


def _ship(
    img: Image,
    look: OtherLook,
    color: BGR,
    x: float,
    y: float,
    heading: float,
    raised: bool = False,
) -> None:
    """One token; `raised`: it lies on another one, nearer the camera (larger, a longer
    shadow)."""
    rad = math.radians(heading)
    k = RAISED_SCALE if raised else 1.0
    shade = 3.5 if raised else 1.5
    if look.hull == "peg":
        cv2.circle(img, _pt(x + shade, y + shade), _r(7.5 * k), (30, 30, 30), -1, cv2.LINE_AA)
        cv2.circle(img, _pt(x, y), _r(7.5 * k), color, -1, cv2.LINE_AA)
        cv2.circle(
            img,
            _pt(x, y),
            _r(3.0 * k),
            tuple(min(255, int(v * 1.25) + 15) for v in color),
            -1,
            cv2.LINE_AA,
        )
        return
    # A boat hull: an ellipse along the heading, with a mast peg amidships.
    angle = math.degrees(rad) - 90.0
    cv2.ellipse(
        img,
        _pt(x + shade, y + shade),
        (_r(12.0 * k), _r(5.0 * k)),
        angle,
        0,
        360,
        (30, 30, 30),
        -1,
        cv2.LINE_AA,
    )
    cv2.ellipse(img, _pt(x, y), (_r(12.0 * k), _r(5.0 * k)), angle, 0, 360, color, -1, cv2.LINE_AA)
    cv2.circle(img, _pt(x, y), _r(2.0 * k), (200, 200, 200), -1, cv2.LINE_AA)


def _cloud(img: Image, board: Board, x: float, y: float, heading: float) -> None:
    radius = board.cloud.footprint_radius_mm
    cv2.circle(img, _pt(x + 4, y + 4), _r(radius), (40, 40, 40), -1, cv2.LINE_AA)
    cv2.circle(img, _pt(x, y), _r(radius), (225, 225, 230), -1, cv2.LINE_AA)
    size = board.markers.cloud_size_mm
    plate = np.full((_r(size + 8), _r(size + 8)), 250, np.uint8)
    mark = _marker(board, board.markers.cloud_id, size)
    o = (plate.shape[0] - mark.shape[0]) // 2
    plate[o : o + mark.shape[0], o : o + mark.shape[1]] = mark
    h, w = plate.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -heading, 1.0)
    cx, cy = _pt(x, y)
    m[0, 2] += cx - w / 2
    m[1, 2] += cy - h / 2
    mask = cv2.warpAffine(np.full_like(plate, 255), m, (img.shape[1], img.shape[0]))
    top = cv2.warpAffine(plate, m, (img.shape[1], img.shape[0]))
    img[mask > 127] = top[mask > 127][:, None]


def _hand(img: Image, board: Board, scene: Scene) -> None:
    hand = scene.hand
    assert hand is not None
    far = MARGIN_MM + 50
    start = {
        "N": (hand.x_mm, -far),
        "S": (hand.x_mm, board.height_mm + far),
        "W": (-far, hand.y_mm),
        "E": (board.width_mm + far, hand.y_mm),
    }[hand.side]
    cv2.line(img, _pt(*start), _pt(hand.x_mm, hand.y_mm), hand.sleeve, _r(80.0), cv2.LINE_AA)
    cv2.circle(img, _pt(hand.x_mm, hand.y_mm), _r(42.0), hand.skin, -1, cv2.LINE_AA)


def render_other(board: Board, scene: Scene, look: OtherLook, seed: int = 0) -> Image:
    """The 1280x960 BGR frame of a scene, drawn by this renderer."""
    img = draw_board(board, look).copy()
    plastics = dict(look.plastics)
    for i, ship in enumerate(scene.ships):
        # A token set down within STACKED_MM of an earlier one lies on it.
        raised = any(
            math.dist((ship.x_mm, ship.y_mm), (o.x_mm, o.y_mm)) < STACKED_MM
            for o in scene.ships[:i]
        )
        _ship(img, look, plastics[ship.color], ship.x_mm, ship.y_mm, ship.heading_deg, raised)
    if scene.cloud is not None:
        _cloud(img, board, scene.cloud.x_mm, scene.cloud.y_mm, scene.cloud.heading_deg)
    if scene.hand is not None:
        _hand(img, board, scene)
    src = np.array(
        [
            _pt(0, 0),
            _pt(board.width_mm, 0),
            _pt(board.width_mm, board.height_mm),
            _pt(0, board.height_mm),
        ],
        np.float32,
    )
    dst = np.array(look.corners_px, np.float32)
    h = cv2.getPerspectiveTransform(src, dst)
    frame = cv2.warpPerspective(
        img, h, (1280, 960), flags=cv2.INTER_AREA, borderValue=(30, 40, 50)
    ).astype(np.float32)
    if look.blur > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), look.blur)
    xs = np.linspace(-0.5, 0.5, 1280, dtype=np.float32)[None, :, None]
    cast = np.array(look.cast, np.float32) + np.array(look.cast_slope, np.float32) * xs
    frame = frame * cast
    rng = np.random.default_rng(seed)
    frame += rng.normal(0, look.noise, frame.shape).astype(np.float32)
    out = np.clip(frame, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look.quality])
    assert ok
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
