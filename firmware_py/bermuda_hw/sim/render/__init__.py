"""Renders what the camera above the simulated table sees: board, ships, cloud, hands.

The board is drawn once per palette into a top-down texture (2 px/mm, with a
margin of table around it). Each frame copies that texture, draws the ships,
the cloud and an optional hand (raised objects are drawn where a pinhole
camera would see them, so the cloud's marker shows parallax), then projects it
through a camera model: position and tilt (perspective), lens distortion,
uneven lighting and soft shadows, colour cast, blur, sensor noise and JPEG.
Every random choice comes from the seed, so a frame is reproducible. A table
that has not changed since one of the last few frames (same scene, camera and
palette) is not drawn again: only its sensor noise and JPEG are new.

The package, by concern: `scene` (what lies on the table), `palette` (how the
printing and the tokens look), `optics` (the camera: geometry, lens, light),
`draw` (texture coordinates and drawing primitives), `artwork` (the printed
board and the cloud's top), `printing` (artwork the board file does not
describe), `compose` (a whole frame) and `random_scenes`.
"""

from __future__ import annotations

from bermuda_hw.sim.render.compose import draw_scene, render
from bermuda_hw.sim.render.draw import QUIET_ZONE_MM, TABLE_MARGIN_MM, TEXTURE_PX_PER_MM, Image
from bermuda_hw.sim.render.optics import CameraModel, coloured_light
from bermuda_hw.sim.render.palette import DEFAULT_SHIP_COLORS, Palette, ShipStyle
from bermuda_hw.sim.render.printing import LandShape, Printing, Rose, Title
from bermuda_hw.sim.render.random_scenes import random_scene
from bermuda_hw.sim.render.scene import (
    BGR,
    CLOUD_HEIGHT_MM,
    SHIP_HEIGHT_MM,
    CloudState,
    Cover,
    Hand,
    Scene,
    ShipToken,
    Side,
)

__all__ = [
    "BGR",
    "CLOUD_HEIGHT_MM",
    "DEFAULT_SHIP_COLORS",
    "QUIET_ZONE_MM",
    "SHIP_HEIGHT_MM",
    "TABLE_MARGIN_MM",
    "TEXTURE_PX_PER_MM",
    "CameraModel",
    "CloudState",
    "Cover",
    "Hand",
    "Image",
    "LandShape",
    "Palette",
    "Printing",
    "Rose",
    "Scene",
    "ShipStyle",
    "ShipToken",
    "Side",
    "Title",
    "coloured_light",
    "draw_scene",
    "random_scene",
    "render",
]
