"""Random plausible tables: ships on spaces, in berths and off them, the cloud, a hand."""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

from bermuda_hw.geometry import CLASSIC_LETTER_HEADINGS_DEG, wrap_deg
from bermuda_hw.rules.board import Board, Point
from bermuda_hw.sim.render.draw import clip8
from bermuda_hw.sim.render.scene import CloudState, Hand, Scene, ShipToken


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
        cloud_state = CloudState(
            cx + rng.uniform(-2, 2),
            cy + rng.uniform(-2, 2),
            wrap_deg(CLASSIC_LETTER_HEADINGS_DEG[rng.randrange(8)] + rng.uniform(-3, 3)),
        )
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
                if (
                    near > 30
                    and math.dist((x, y), dot) > 8
                    and allowed(x, y)
                    and _free((x, y), taken, 30.0)
                    and not any(inside(poly, (x, y), 14.0) for poly in board.land)
                ):
                    tokens.append(ShipToken(color, x, y, rng.uniform(0, 360)))
                    taken.append((x, y))
                    break
            continue
        while places:
            x, y, heading = places.pop()
            if allowed(x, y) and _free((x, y), taken, 20.0):
                tokens.append(
                    ShipToken(
                        color,
                        x + rng.uniform(-jitter_mm, jitter_mm),
                        y + rng.uniform(-jitter_mm, jitter_mm),
                        heading + rng.uniform(-8, 8),
                    )
                )
                taken.append((x, y))
                break
    hand_state: Hand | None = None
    if hand:
        hand_state = Hand(
            rng.uniform(130, board.width_mm - 130),
            rng.uniform(130, board.height_mm - 130),
            rng.choice(("N", "E", "S", "W")),
            rng.uniform(50, 160),
            skin=(
                clip8(rng.uniform(60, 150)),
                clip8(rng.uniform(90, 175)),
                clip8(rng.uniform(140, 230)),
            ),
            sleeve=(rng.randrange(256), rng.randrange(256), rng.randrange(256)),
        )
    return Scene(tuple(tokens), cloud_state, hand_state)


def inside(poly: tuple[Point, ...], point: Point, margin_mm: float) -> bool:
    """True if a point lies inside a polygon or within a margin of it."""
    contour = np.array(poly, np.float32).reshape(-1, 1, 2)
    return float(cv2.pointPolygonTest(contour, point, True)) > -margin_mm
