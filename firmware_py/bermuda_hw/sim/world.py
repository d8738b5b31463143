"""The simulated table's physical state: carriage, cloud pose, ships, and the ships it carries."""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bermuda_hw.geometry import Point, bearing_deg, gap_deg, polar_point, wrap_deg

if TYPE_CHECKING:
    from bermuda_hw.rules.board import Board

CHECK_MM = 0.5  # how far the cloud moves between checks for ships near its magnets
CHECK_DEG = 0.5


@dataclass(frozen=True)
class Carried:
    """A ship held by a magnet, at a fixed place in the cloud's frame."""

    radius_mm: float
    angle_deg: float  # clockwise from the cloud's letter-A direction


class World:
    """Where everything on the simulated table truly is (board frame, millimetres).

    The carriage's magnet holds the cloud's base, so the cloud's locater is
    where the carriage is. Each magnet of the cloud picks up a ship that comes
    within the board's capture radius; a carried ship moves and turns with the
    cloud until it is dropped or removed.
    """

    def __init__(self, board: Board | None = None) -> None:
        self.board = board
        self._lock = threading.RLock()
        self.carriage_x_mm = 0.0
        self.carriage_y_mm = 0.0
        self.cloud_heading_deg = 0.0
        self.cloud_on_board = True
        self._ships: dict[str, Point] = {}
        # the heading a player set a token down at (none: turned like the space it is on)
        self._headings: dict[str, float] = {}
        self.carried: dict[str, Carried] = {}
        # the pose at which ships were last checked against the magnets
        self._checked: tuple[float, float, float] | None = None

    # --- the cloud --------------------------------------------------------------------

    @property
    def cloud_mm(self) -> Point:
        return (self.carriage_x_mm, self.carriage_y_mm)

    def set_carriage(self, x_mm: float, y_mm: float) -> None:
        """The carriage (and the cloud's locater above it) is now here."""
        with self._lock:
            self.carriage_x_mm = x_mm
            self.carriage_y_mm = y_mm
            self._maybe_update()

    def set_heading(self, heading_deg: float) -> None:
        """The cloud has turned to this heading (degrees clockwise from letter A north)."""
        with self._lock:
            self.cloud_heading_deg = wrap_deg(heading_deg)
            self._maybe_update()

    def _maybe_update(self) -> None:
        # The carriage moves a few hundredths of a millimetre per step: checking
        # the magnets every CHECK_MM (well under the capture radius) is enough.
        last = self._checked
        if last is not None:
            moved = math.hypot(self.carriage_x_mm - last[0], self.carriage_y_mm - last[1])
            turned = gap_deg(self.cloud_heading_deg, last[2])
            if moved < CHECK_MM and turned < CHECK_DEG:
                return
        self._update_ships()

    @property
    def ships(self) -> dict[str, Point]:
        """Every ship on the table, carried ones where the cloud holds them now."""
        with self._lock:
            self._move_carried()
            return self._ships

    def magnets_mm(self) -> list[Point]:
        """Where the cloud's magnets are now."""
        if self.board is None:
            return []
        return [
            polar_point(self.cloud_mm, magnet.radius_mm, magnet.angle_deg + self.cloud_heading_deg)
            for magnet in self.board.cloud.magnets
        ]

    # --- ships ------------------------------------------------------------------------

    def place_ship(
        self, ship: str, x_mm: float, y_mm: float, heading_deg: float | None = None
    ) -> None:
        """Put a ship on the board (a player's move); it is picked up if a magnet is near.

        The ship put down last lies on top of any it touches: `ship_positions`
        lists the ships in the order they were put down. `heading_deg` is the
        way its bow points when the player set it down at a heading of their
        own (None: turned like the space it stands on).
        """
        with self._lock:
            self.carried.pop(ship, None)
            self._ships.pop(ship, None)
            self._ships[ship] = (x_mm, y_mm)
            if heading_deg is None:
                self._headings.pop(ship, None)
            else:
                self._headings[ship] = wrap_deg(heading_deg)
            self._update_ships()

    def heading_of(self, ship: str) -> float | None:
        """The heading a player set the ship down at (None: turned like its space)."""
        with self._lock:
            return self._headings.get(ship)

    def drop(self, ship: str) -> Point:
        """Take a carried ship off the magnet and leave it where it is; returns that point."""
        with self._lock:
            self._move_carried()
            self.carried.pop(ship, None)
            return self._ships[ship]

    def remove(self, ship: str) -> None:
        """Take a ship off the table (captured, or lifted by a player)."""
        with self._lock:
            self.carried.pop(ship, None)
            self._ships.pop(ship, None)
            self._headings.pop(ship, None)

    def ship_positions(self) -> Mapping[str, Point]:
        """Where every ship on the table is, in the order they were put down (the last on top)."""
        with self._lock:
            self._move_carried()
            return dict(self._ships)

    def _move_carried(self) -> None:
        for ship, held in self.carried.items():
            self._ships[ship] = polar_point(
                self.cloud_mm, held.radius_mm, held.angle_deg + self.cloud_heading_deg
            )

    def _update_ships(self) -> None:
        self._checked = (self.carriage_x_mm, self.carriage_y_mm, self.cloud_heading_deg)
        self._move_carried()  # carried ships follow the cloud
        if self.board is None:
            return
        capture = self.board.cloud.capture_radius_mm
        magnets = self.magnets_mm()
        for ship, (sx, sy) in self._ships.items():
            if ship in self.carried:
                continue
            for mx, my in magnets:
                if math.hypot(sx - mx, sy - my) <= capture:
                    # snapped onto the magnet: its place in the cloud's frame
                    dx, dy = mx - self.carriage_x_mm, my - self.carriage_y_mm
                    radius = math.hypot(dx, dy)
                    bearing = bearing_deg(dx, dy) if radius > 1e-9 else 0.0
                    self.carried[ship] = Carried(radius, bearing - self.cloud_heading_deg)
                    self._ships[ship] = (mx, my)
                    break
