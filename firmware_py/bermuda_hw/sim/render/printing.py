"""Board printings that the board file does not describe: extra land, titles, roses, paint.

A real board's artwork holds far more than its board file: coasts that the
file leaves out, titles and cartouches, compass roses, ports painted in
their own colours. `Printing` is such artwork, drawn by the board texture
under the spaces, ports and markers (which stay where the file puts them).
`Printing.random` draws one with colours near the ships' (greenish land,
yellowish or reddish paint, blue lettering), the hard case for vision.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from bermuda_hw.rules.board import Board, Point
from bermuda_hw.sim.render.draw import Image, circle, fill, oriented, outline, text
from bermuda_hw.sim.render.scene import BGR


@dataclass(frozen=True)
class LandShape:
    """A coast or island printed on the sea: outline in board mm and its colour."""

    points: tuple[Point, ...]
    color: BGR


@dataclass(frozen=True)
class Title:
    """Lettering printed on the board, centred at a point."""

    text: str
    x_mm: float
    y_mm: float
    height_mm: float
    color: BGR


@dataclass(frozen=True)
class Rose:
    """A compass rose: a ring and eight points."""

    x_mm: float
    y_mm: float
    radius_mm: float
    color: BGR


@dataclass(frozen=True)
class Printing:
    """Artwork not in the board file; `port_paint` repaints ports by id."""

    land: tuple[LandShape, ...] = ()
    titles: tuple[Title, ...] = ()
    roses: tuple[Rose, ...] = ()
    port_paint: tuple[tuple[str, BGR], ...] = ()

    def paint_of(self, port_id: str, default: BGR) -> BGR:
        for pid, bgr in self.port_paint:
            if pid == port_id:
                return bgr
        return default

    @classmethod
    def random(cls, rng: random.Random, board: Board) -> Printing:
        """A random printing in colours near the ships', clear of the corner markers."""

        def near(bgr: BGR, amount: float) -> BGR:
            return tuple(  # type: ignore[return-value]
                int(min(255, max(0, v + rng.uniform(-amount, amount)))) for v in bgr
            )

        def spot(margin_mm: float) -> Point:
            keep = max(m.size_mm for m in board.markers.corners) + 25.0 + margin_mm
            for _ in range(100):
                x = rng.uniform(margin_mm, board.width_mm - margin_mm)
                y = rng.uniform(margin_mm, board.height_mm - margin_mm)
                if all(math.dist((x, y), (m.x_mm, m.y_mm)) > keep for m in board.markers.corners):
                    return (x, y)
            return (board.width_mm / 2, board.height_mm / 2)

        greens = ((70, 140, 80), (60, 125, 95), (95, 160, 110), (80, 150, 140))
        land = []
        for _ in range(rng.randint(1, 3)):
            cx, cy = spot(40.0)
            r = rng.uniform(18.0, 40.0)
            n = rng.randint(7, 12)
            pts = tuple(
                (
                    cx + r * rng.uniform(0.6, 1.3) * math.sin(2 * math.pi * k / n),
                    cy - r * rng.uniform(0.6, 1.3) * math.cos(2 * math.pi * k / n),
                )
                for k in range(n)
            )
            land.append(LandShape(pts, near(rng.choice(greens), 12)))
        words = ("BERMUDA", "TRIANGLE", "SARGASSO SEA", "ATLANTIC", "DEVIL'S SEA", "1976")
        inks = ((150, 80, 30), (170, 100, 40), (60, 60, 150), (40, 120, 170))
        titles = []
        for _ in range(rng.randint(1, 3)):
            x, y = spot(60.0)
            titles.append(
                Title(rng.choice(words), x, y, rng.uniform(6.0, 14.0), near(rng.choice(inks), 15))
            )
        roses = []
        for _ in range(rng.randint(0, 2)):
            x, y = spot(45.0)
            roses.append(Rose(x, y, rng.uniform(15.0, 35.0), near(rng.choice(inks), 15)))
        # Sand, salmon, stone, brick: near yellow and red, yet a ship on it stands out.
        paints = (
            (120, 195, 225),
            (90, 150, 215),
            (120, 200, 200),
            (110, 130, 210),
            (150, 210, 235),
        )
        port_paint = tuple(
            (pid, near(rng.choice(paints), 12)) for pid in board.ports if rng.random() < 0.7
        )
        return cls(tuple(land), tuple(titles), tuple(roses), port_paint)


def draw_printing(img: Image, printing: Printing) -> None:
    """Draw the land, titles and roses (port paint is drawn with the ports)."""
    for shape in printing.land:
        fill(img, list(shape.points), shape.color)
        dark: BGR = (
            int(shape.color[0] * 0.6),
            int(shape.color[1] * 0.6),
            int(shape.color[2] * 0.6),
        )
        outline(img, list(shape.points), dark, 0.8)
    for title in printing.titles:
        text(img, title.text, (title.x_mm, title.y_mm), title.height_mm, title.color)
    for rose in printing.roses:
        centre = (rose.x_mm, rose.y_mm)
        circle(img, centre, rose.radius_mm * 0.55, rose.color, 1.2)
        for angle in range(0, 360, 45):
            long = angle % 90 == 0
            reach = rose.radius_mm if long else rose.radius_mm * 0.6
            half = 4.0 if long else 2.5
            star = oriented(rose.x_mm, rose.y_mm, angle, [(reach, 0.0), (0.0, half), (0.0, -half)])
            fill(img, star, rose.color)
