"""What lies on the simulated table over the board: ships, the cloud, a hand, covers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BGR = tuple[int, int, int]
Side = Literal["N", "E", "S", "W"]

SHIP_HEIGHT_MM = 12.0
CLOUD_HEIGHT_MM = 32.0


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
    other_hand: Hand | None = None  # a second hand reaching in at the same time
